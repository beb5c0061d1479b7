#!/usr/bin/env bash
# run-served-by.sh LIBRPMA.so.0 COMMAND [ARG...]
#
# Runs COMMAND with LD_LIBRARY_PATH naming LIBRPMA's directory and fails
# unless the dynamic loader initialised exactly that file as librpma.so.0
# (read from the loader's own LD_DEBUG trace). For programs that do not
# check their library themselves, such as the examples.
set -u
lib=$(realpath "$1"); shift
trace=$(mktemp); trap 'rm -f "$trace"*' EXIT
LD_LIBRARY_PATH=$(dirname "$lib") LD_DEBUG=files LD_DEBUG_OUTPUT=$trace "$@"
rc=$?
loaded=$(cat "$trace"* 2>/dev/null | sed -n 's/.*calling init: \(.*librpma\.so\.0\)$/\1/p' | head -1)
if [ -z "$loaded" ] || [ "$(realpath "$loaded")" != "$lib" ]; then
  echo "run-served-by: expected $lib, the loader initialised '${loaded:-no librpma}'" >&2
  exit 2
fi
echo "run-served-by: $(basename "$1") exit $rc, served by $lib"
exit $rc
