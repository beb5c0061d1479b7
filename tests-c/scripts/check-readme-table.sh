#!/usr/bin/env bash
# check-readme-table.sh ROOT OURS.so REFERENCE.so -- the README's "Status"
# section is exactly the table scripts/function-table.sh makes now.
set -u
root=$1
if diff -u --label README.md --label "function-table.sh now" \
     <(sed -n '/^## Status$/,$p' "$root/README.md" | tail -n +3) \
     <("$root/scripts/function-table.sh" "$2" "$3"); then
  echo "README status table matches the library"
else
  echo "FAIL: README.md's status table is stale: regenerate it with scripts/function-table.sh"; exit 1
fi
