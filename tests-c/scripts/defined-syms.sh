#!/usr/bin/env bash
# defined-syms.sh LIB.so -- the NAME@@VERSION of every dynamic symbol LIB.so
# defines for others (not LOCAL, not undefined), one a line.
#
# GNU ld on arm64 also lists the LOCAL section symbols .init and .data in
# .dynsym (in the C library as in ours): nothing outside the object sees
# them. The section index and the name are read as readelf's last two
# fields, since on ppc64el readelf adds a "[<localentry>: 8]" field to a
# function's visibility, and an import line ends in its version index,
# " (3)".
set -eu
readelf --dyn-syms -W "$1" |
  awk '{ sub(/ \([0-9]+\)$/, "") } $1 ~ /^[0-9]+:$/ && NF >= 8 && $5 != "LOCAL" && $(NF-1) != "UND" {print $NF}'
