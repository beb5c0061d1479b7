#!/usr/bin/env bash
# rxe-suite-guest.sh MANIFEST -- the guest side of rxe-suite.sh: runs each
# test of MANIFEST between markers, each bounded by a timeout.
set -u
while IFS=$'\t' read -r name cmd; do
  [ -z "$name" ] && continue
  echo "@@test begin $name"
  start=$SECONDS
  timeout -k 5 "${RPMA_TEST_TIMEOUT:-180}" bash -c "$cmd" </dev/null 2>&1
  rc=$?
  [ $rc -eq 124 ] && echo "timed out after ${RPMA_TEST_TIMEOUT:-180} s"
  echo "($name took $((SECONDS - start)) s in the guest)"
  echo "@@test end $name $rc"
done <"$1"
