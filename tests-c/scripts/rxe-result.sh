#!/usr/bin/env bash
# rxe-result.sh OUTDIR NAME -- reports one test of the last rxe-suite.sh run:
# prints its output and exits with its status (1 when it never ran).
out=$1 name=$2
if [ ! -f "$out/$name.rc" ]; then
  echo "$name did not run in the SoftRoCE guest; the guest console ends with:"
  tail -20 "$out/console.log" 2>/dev/null
  exit 1
fi
cat "$out/$name.log"
exit "$(cat "$out/$name.rc")"
