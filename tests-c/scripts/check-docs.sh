#!/usr/bin/env bash
# check-docs.sh ROOT OURS.so -- every function the library exports is done
# on paper too: it has its man page (man/man3/<function>.3, clean under
# groff's warnings, with the sections a librpma page needs) and a C test
# program named after it (tests-c/api/ or a folder of tests-c/live/);
# librpma(7) exists.
set -u
root=$1 lib=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v groff >/dev/null || { echo "groff is missing (apt install groff-base)"; exit 2; }

[ -f "$root/man/man7/librpma.7" ] || bad "man/man7/librpma.7 is missing"
n=0
for fn in $(nm -D --defined-only "$lib" | awk '$3 ~ /^rpma_/ {sub(/@.*/, "", $3); print $3}' | sort -u); do
  n=$((n + 1))
  page=$root/man/man3/$fn.3
  if [ ! -f "$page" ]; then
    bad "$fn has no man page"
  else
    warnings=$(groff -man -ww -z "$page" 2>&1)
    [ -z "$warnings" ] || bad "$fn.3: groff: $warnings"
    for section in NAME SYNOPSIS DESCRIPTION "RETURN VALUE" ERRORS "SEE ALSO"; do
      grep -q "^\.SH \"\?$section\"\?\$" "$page" || bad "$fn.3 has no $section section"
    done
  fi
  [ -f "$root/tests-c/api/$fn.c" ] || ls "$root"/tests-c/live/*/"$fn.c" >/dev/null 2>&1 ||
    bad "$fn has no test program (tests-c/api/$fn.c or tests-c/live/<object>/$fn.c)"
done
[ "$n" -gt 0 ] || bad "no function found in $lib"
[ "$fail" = 0 ] && echo "$n functions: each has a man page and a test program; librpma(7) exists"
exit $fail
