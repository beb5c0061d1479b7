#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# c12-lib.sh BUILD-DIR -- Debian 12's C librpma 1.2.0 (this Debian 12
# host's own), copied to BUILD-DIR/generations/c12/librpma.so.0 for runs on
# Debian 13's stack, whose own C library is 1.3.0; prints that path, or
# fails when the host has no 1.2.0.
set -u
c12=$1/generations/c12/librpma.so.0
ver=$(dpkg-query -W -f='${Version}' librpma0 2>/dev/null)
case $ver in
  1.2.*) ;;
  *) echo "FAIL: Debian 12's librpma0 (1.2.0) is needed as the old generation; this host has '$ver'" >&2; exit 1 ;;
esac
mkdir -p "$(dirname "$c12")"
cp "/usr/lib/$(gcc -dumpmachine)/librpma.so.0" "$c12" && echo "$c12"
