#!/usr/bin/env bash
# example-matrix.sh MANIFEST OUTDIR -- the interop matrix of the last
# rxe-suite.sh run: one row per example run (pair or variant), one column
# per way it runs (server library / client library, Debian-built binaries
# with ours, valgrind). Fails when any cell failed or did not run.
set -u
manifest=$1 out=$2
cols=(server-ours.client-ours server-ref.client-ours server-ours.client-ref
      server-ref.client-ref debian-built valgrind)
heads=("ours/ours" "C/ours" "ours/C" "C/C" "Debian-built" "valgrind")
mapfile -t runs < <(cut -f1 "$manifest" | sed -n 's/^example\.\(.*\)\.server-ours\.client-ours$/\1/p')
[ ${#runs[@]} -gt 0 ] || { echo "no example pair in $manifest"; exit 1; }
fail=0
failed=()
printf '%-34s' "example (server/client)"; printf ' %-15s' "${heads[@]}"; echo
for run in "${runs[@]}"; do
  printf '%-34s' "$run"
  for col in "${cols[@]}"; do
    rc_file=$out/example.$run.$col.rc
    if ! grep -qx "example\.$run\.$col" < <(cut -f1 "$manifest"); then
      cell="-"; fail=1
    elif [ ! -f "$rc_file" ]; then
      cell="did not run"; fail=1
    elif [ "$(cat "$rc_file")" = 0 ]; then
      cell="pass"
    else
      cell="FAIL"; fail=1; failed+=("example.$run.$col")
    fi
    printf ' %-15s' "$cell"
  done
  echo
done
echo "(${#runs[@]} example runs; C = Debian's librpma $(dpkg-query -W -f='${Version}' librpma0 2>/dev/null))"
# a failed cell's own test prints its whole log, but a CI summary may show
# only this table: the end of each failed log says what went wrong
for name in "${failed[@]}"; do
  echo
  echo "--- $name (exit $(cat "$out/$name.rc")):"
  grep '^run-pair:' "$out/$name.log"
  echo "the end of its log:"
  tail -20 "$out/$name.log"
done
exit $fail
