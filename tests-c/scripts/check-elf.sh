#!/usr/bin/env bash
# check-elf.sh OURS.so REFERENCE.so
#
# The ELF identity of a drop-in: the reference's ELF class, byte order,
# machine and ABI flags (the same architecture and ABI), SONAME
# librpma.so.0, NEEDED libibverbs.so.1 and librdmacm.so.1, the version node
# LIBRPMA_1.0, and every defined dynamic symbol an upstream rpma_* function
# at @@LIBRPMA_1.0 (nothing else leaks), all 84 of them, and abidiff against
# the C library finds no difference. The reference is the C library of the
# same architecture (Debian's librpma0:ARCH for a cross-build).
set -u
ours=$1 ref=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }

header() { readelf -h "$1" | grep -E '^ *(Class|Data|Machine|Flags|OS/ABI):' | tr -s ' '; }
if [ "$(header "$ours")" = "$(header "$ref")" ]; then
  echo "ELF header as the reference's:$(header "$ours" | sed -n 's/^ Machine: */ /p')"
else
  bad "ELF header differs from the reference's:"; diff <(header "$ref") <(header "$ours")
fi

soname=$(readelf -d "$ours" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = librpma.so.0 ] || bad "SONAME is '$soname', expected librpma.so.0"
for lib in libibverbs.so.1 librdmacm.so.1; do
  readelf -d "$ours" | grep -q "(NEEDED).*\[$lib\]" || bad "NEEDED $lib missing"
done
readelf -V "$ours" | grep -q 'Name: LIBRPMA_1.0' || bad "no version definition LIBRPMA_1.0"

defined() { "$(dirname "$0")/defined-syms.sh" "$1"; }
upstream=$(defined "$ref" | grep '^rpma_' | sort)
exported=0
while read -r sym; do
  case $sym in
    LIBRPMA_1.0|LIBRPMA_1.0@@LIBRPMA_1.0) continue ;;  # the version definition itself
    rpma_*@@LIBRPMA_1.0)
      grep -qx "$sym" <<<"$upstream" || bad "$sym is not an upstream librpma symbol"
      exported=$((exported + 1)) ;;
    *) bad "exported symbol '$sym' is not an upstream rpma_* function at LIBRPMA_1.0" ;;
  esac
done < <(defined "$ours")
echo "$exported of $(wc -l <<<"$upstream") upstream functions exported, all @@LIBRPMA_1.0"
[ "$exported" -eq "$(wc -l <<<"$upstream")" ] || bad "not every upstream function is exported"

# abidiff (libabigail) of the two shared objects: no function removed or
# changed. The C library ships without debug information, so this compares
# the ELF symbols and their versions; check-header.sh compares the types.
if report=$(abidiff "$ref" "$ours"); then
  echo "abidiff: no removed or changed function"
else
  bad "abidiff reports differences:"; echo "$report"
fi
exit $fail
