#!/usr/bin/env bash
# net-figures.sh BUILD-DIR WHAT RUNS [LIMIT] -- the lost-peer figures of
# RELIABILITY.md, each case run RUNS times per library with nothing asserted
# (net-pair.sh with a bound of 0), then summed up as a markdown table: what
# was learnt, the time to learn it (min/median/max), and the hangs (runs in
# which nothing was learnt within LIMIT seconds, default 30). WHAT:
#   poweroff  the server's guest powered off mid-stream, for each way of
#             waiting and each library as the client
#   others    a 1 s and a 10 s cut of the server's link (client busy), the
#             client's guest powered off under a probing server, and a send
#             to a server that never posts a receive, each library on the
#             side that must learn
#   loss      the write stream (RUNS writes) under each loss and delay of
#             the table, each library on both sides: writes per second
set -u
[ $# -ge 3 ] || { sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0"; exit 2; }
build=$1 what=$2 runs=$3 limit=${4:-30}
export NET_PAIR_LIMIT=$limit
here=$(cd "$(dirname "$0")" && pwd)
# NET_FIGURES_RESULTS: a file that keeps the RESULT lines (default: a temporary one)
if [ -n "${NET_FIGURES_RESULTS:-}" ]; then results=$NET_FIGURES_RESULTS
else results=$(mktemp); trap 'rm -f "$results"' EXIT; fi
libname() { [ "$1" = ref ] && echo "C 1.2.0" || echo ours; }

# one case, RUNS times, its RESULT lines appended to $results
measure() {
  for _ in $(seq "$runs"); do
    NET_PAIR_RESULTS=$results "$here/net-pair.sh" "$build" "$@" >/dev/null 2>&1
  done
}

# a table row from the RESULT lines that begin with PREFIX
row() {
  local label=$1 lib=$2 prefix=$3
  grep -F "$prefix" "$results" | awk -v label="$label" -v lib="$(libname "$lib")" '
    { n++
      if ($0 ~ /RESULT none|how=hang|how=outstanding/) { hang++; next }
      if ($0 ~ /how=none/) { bridged++; next }
      how = $0; sub(/.*how=/, "", how); sub(/ detect_s=.*/, "", how); what[how] = 1
      d = $0; sub(/.*detect_s=/, "", d); sub(/ .*/, "", d); ds[++k] = d + 0
      if ($0 ~ /teardown_s=/) { t = $0; sub(/.*teardown_s=/, "", t); if (t + 0 > tmax) tmax = t + 0; td = 1 } }
    END {
      for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (ds[j] < ds[i]) { x = ds[i]; ds[i] = ds[j]; ds[j] = x }
      learnt = ""; for (w in what) learnt = learnt (learnt ? ", " : "") w
      if (bridged) learnt = learnt (learnt ? ", " : "") "nothing: bridged"
      if (hang) learnt = learnt (learnt ? ", " : "") "nothing"
      fig = k ? sprintf("%.2f / %.2f / %.2f", ds[1], (k % 2 ? ds[(k + 1) / 2] : (ds[k / 2] + ds[k / 2 + 1]) / 2), ds[k]) : "-"
      printf "| %s | %s | %d | %s | %s | %s | %d |\n", label, lib, n, learnt, fig,
        (td && k ? sprintf("%.3f", tmax) : "-"), hang }'
}

header() {
  echo "| $1 | library | runs | learnt | detect s (min / median / max) | teardown s (max) | hangs (no news in $limit s) |"
  echo "|---|---|---|---|---|---|---|"
}

case $what in
  poweroff)
    for lib in ours ref; do
      for mode in busy wait poll conn-wait; do measure poweroff "$mode" "$lib" 0; done
    done
    header "waiting by"
    for lib in ours ref; do
      for mode in busy wait poll conn-wait; do row "$mode" "$lib" "poweroff lib=$lib RESULT mode=$mode "; done
    done ;;
  others)
    for lib in ours ref; do
      measure cut 1 busy "$lib" 0
      measure cut 10 busy "$lib" 0
      measure clientoff probe "$lib" 0
      measure rnr "$lib" "$limit"
    done
    header case
    for lib in ours ref; do
      row "server's link cut for 1 s" "$lib" "cut 1 lib=$lib "
      row "server's link cut for 10 s" "$lib" "cut 10 lib=$lib "
      row "client powered off, server probing" "$lib" "clientoff probe lib=$lib "
      row "send, no receive posted" "$lib" "rnr lib=$lib "
    done ;;
  loss)
    # RUNS is the number of writes of the one run per cell
    export NET_PAIR_WRITES=$runs
    runs=1
    configs=("0 0" "1 0" "5 0" "0 1" "0 5" "1 1" "5 5")
    for lib in ours ref; do
      # shellcheck disable=SC2086 # "PERCENT DELAY"
      for c in "${configs[@]}"; do measure loss $c "$lib" none; done
    done
    # writes/s of PERCENT DELAY LIB; a ratio of two of them
    rate() { sed -n "s/^loss $1 $2 lib=$3 RESULT.*how=none .*writes_per_s=\([0-9]*\).*/\1/p" "$results" | head -1; }
    frac() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }' || echo -; }
    o0=$(rate 0 0 ours) r0=$(rate 0 0 ref)
    echo "| loss each way | delay each way | ours writes/s | of its clean link | C 1.2.0 writes/s | of its clean link |"
    echo "|---|---|---|---|---|---|"
    for c in "${configs[@]}"; do
      read -r p d <<<"$c"
      o=$(rate "$p" "$d" ours) r=$(rate "$p" "$d" ref)
      echo "| $p % | $d ms | ${o:-failed} | $(frac "$o" "$o0") | ${r:-failed} | $(frac "$r" "$r0") |"
    done ;;
  *) sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0"; exit 2 ;;
esac
