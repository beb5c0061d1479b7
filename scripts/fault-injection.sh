#!/usr/bin/env bash
# fault-injection.sh [--examples REGEX] [--sides "server client"]
#                    [--valgrind-every N] [--max-points N] [--out DIR]
#
# The whole fault-injection sweep: every example pair (and each variant in
# its `variants` file), server side and client side separately, at every
# injection point from 1 until the run completes without reaching it (see
# tests-c/scripts/fault-sweep.sh for what passes). Builds the library with
# the cargo feature `fault-injection` into build/fault/, builds the examples,
# boots the SoftRoCE guest once and runs two sweeps at a time. Prints one
# SWEEP line per example and side and a table; logs land in DIR (default
# build/fault-sweep). Exits non-zero if any point failed.
#
# This takes hours under TCG; the test suite runs a bounded sample
# (the fault.* tests).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
regex=. sides="server client" every=25 max=2000 out=build/fault-sweep
while [ $# -gt 0 ]; do
  case $1 in
    --examples) regex=$2; shift 2 ;;
    --sides) sides=$2; shift 2 ;;
    --valgrind-every) every=$2; shift 2 ;;
    --max-points) max=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0" >&2; exit 2 ;;
  esac
done

case $out in /*) ;; *) out=$root/$out ;; esac
make -s lib fault-lib
bin=build/tests-c-fault
cmake -S tests-c -B "$bin" -DRPMA_LIB_DIR="$root/build/lib" -DRPMA_LIVE_FILTER='^$' >/dev/null
# The examples whose loops repeat the same calls many times run at a
# smaller size (arguments after --client go to the client only): every call
# site of a loop is reached in its first rounds, and at full size these three
# would hold 2,400 of the sweep's 4,000 points.
declare -A smaller=(
  [ping-pong]="3"
  [srq-ping-pong]="--client 2 2"
  [multiple-connections]="--client 2"
)
targets=()
jobs=$(mktemp)
trap 'rm -f "$jobs"' EXIT
for dir in examples/*/; do
  pair=$(basename "$dir")
  [ -f "$dir/server.c" ] && [ -f "$dir/client.c" ] || continue
  [[ $pair =~ $regex ]] || continue
  targets+=("example_${pair}_server" "example_${pair}_client")
  for side in $sides; do
    size=${smaller[$pair]:-}
    echo "$pair $side $size" >>"$jobs"
    if [ -f "$dir/variants" ]; then
      grep '^[a-z]' "$dir/variants" | while read -r _ vargs; do
        echo "$pair $side $vargs $size" >>"$jobs"
      done
    fi
  done
done
# the pairs with hundreds of points (loops of operations) go last
sorted=$(mktemp)
{ grep -Ev '^(ping-pong|srq-ping-pong|multiple-connections) ' "$jobs" || true
  grep -E '^(ping-pong|srq-ping-pong|multiple-connections) ' "$jobs" || true; } >"$sorted"
mv "$sorted" "$jobs"
cmake --build "$bin" -j2 --target "${targets[@]}" >/dev/null
rm -rf "$out"; mkdir -p "$out"/fault "$out"/plain "$out"/bin
# the sweep runs on copies, so rebuilding meanwhile cannot change (or
# truncate under) a running point
cp build/fault/librpma.so.0 "$out"/fault/
cp build/lib/librpma.so.0 "$out"/plain/
for t in "${targets[@]}"; do cp "$bin/$t" "$out"/bin/; done
echo "fault-injection: $(wc -l <"$jobs") sweeps; logs in $out"

start=$SECONDS
RXE_TIMEOUT=${RXE_TIMEOUT:-36000} softroce/rxe-run \
  env FAULT_LIB="$out/fault/librpma.so.0" PLAIN_LIB="$out/plain/librpma.so.0" \
  BIN_DIR="$out/bin" FAULT_VALGRIND_EVERY="$every" FAULT_MAX_POINTS="$max" \
  FAULT_SUPP="$root/tests-c/valgrind/rdma-core.supp" \
  tests-c/scripts/fault-sweep-lanes.sh "$jobs" >"$out/console.log" 2>&1 || true
awk -v out="$out" '
  /^@@sweep begin / { file = out "/" $3 ".log"; printf "" > file; next }
  /^@@sweep end/    { close(file); file = ""; next }
  file != ""        { print >> file }
' "$out/console.log"
echo "fault-injection: took $(( (SECONDS - start) / 60 )) min"
status=0
for f in "$out"/*.log; do
  [ "$(basename "$f")" = console.log ] && continue
  line=$(grep '^SWEEP ' "$f" || true)
  if [ -z "$line" ]; then
    echo "$(basename "$f" .log): no result (see $f)"
    status=1
    continue
  fi
  echo "${line#SWEEP }"
  [[ $line == *result=ok ]] || status=1
done
exit $status
