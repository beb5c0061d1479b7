#!/usr/bin/env bash
# net-figures.sh BUILD-DIR RUNS [LIMIT] -- the lost-server figures of
# RELIABILITY.md: for each way of waiting and each library as the client,
# RUNS power-offs of the server's guest (net-pair.sh poweroff, nothing
# asserted), then a table of the time from the last completed write to what
# the client learnt (min/median/max), what it learnt, and the hangs: runs
# in which it learnt nothing within LIMIT seconds (default 30).
set -u
build=$1 runs=$2 limit=${3:-30}
export NET_PAIR_LIMIT=$limit
here=$(cd "$(dirname "$0")" && pwd)
results=$(mktemp); trap 'rm -f "$results"' EXIT
for lib in ours ref; do
  for mode in busy wait poll conn-wait; do
    for _ in $(seq "$runs"); do
      NET_PAIR_RESULTS=$results "$here/net-pair.sh" "$build" poweroff "$mode" "$lib" 0 >/dev/null 2>&1
    done
  done
done
echo "| client library | waiting by | runs | learnt | detect s (min / median / max) | teardown s (max) | hangs (no news in $limit s) |"
echo "|---|---|---|---|---|---|---|"
for lib in ours ref; do
  for mode in busy wait poll conn-wait; do
    grep "lib=$lib RESULT mode=$mode " "$results" | awk -v lib="$lib" -v mode="$mode" '
      { n++; if ($0 ~ /how=hang/) { hang++; next }
        how = $0; sub(/.*how=/, "", how); sub(/ detect_s=.*/, "", how); what[how] = 1
        d = $0; sub(/.*detect_s=/, "", d); sub(/ .*/, "", d); ds[++k] = d + 0
        t = $0; sub(/.*teardown_s=/, "", t); if (t + 0 > tmax) tmax = t + 0 }
      END {
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (ds[j] < ds[i]) { x = ds[i]; ds[i] = ds[j]; ds[j] = x }
        learnt = ""; for (w in what) learnt = learnt (learnt ? ", " : "") w
        if (k) fig = sprintf("%.2f / %.2f / %.2f", ds[1], (k % 2 ? ds[(k + 1) / 2] : (ds[k / 2] + ds[k / 2 + 1]) / 2), ds[k])
        else fig = "-"
        printf "| %s | %s | %d | %s | %s | %s | %d |\n", (lib == "ref" ? "C 1.2.0" : "ours"), mode, n,
          (learnt ? learnt : "nothing"), fig, (k ? sprintf("%.3f", tmax) : "-"), hang }'
  done
done
