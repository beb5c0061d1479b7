#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/instructions.sh [--n1 N1] [--n2 N2] [--cases REGEX] [--out FILE]
#
# Instructions per operation executed inside librpma.so.0 itself (not
# libibverbs, the rxe provider, libc or the kernel), C against ours. Builds
# bench/rpma-bench.c, boots the rxe guest once and runs there (--guest mode)
# two servers without valgrind, then for each case (QD 1) and each library the
# client under valgrind --tool=callgrind twice, with -n N1 and -n N2
# (default 200 and 1200; the conn case 20 and 120), and reports
#   (librpma self Ir at N2 - the same at N1) / (N2 - N1)
# from bench/callgrind_self.py (which is first checked against
# callgrind_annotate on one output file). The INSTR/INSTRFN lines go to FILE
# (default $BENCH_BUILD_DIR/instructions.txt, BENCH_BUILD_DIR default
# build/bench) and bench/report.py instr prints the table.
# RPMA_BENCH_KEEP_CG=1 RXE_KEEP=1 keeps the callgrind output files, in the
# folder rxe-run names at its start ("exchange folder: DIR", then DIR/cg).
#
# Busy polling makes the number of empty rpma_cq_get_wc calls per op depend
# on timing (pingpong, srq): the table therefore also gives the figures
# without librpma's rpma_cq_get_wc path and the cost of one rpma_cq_get_wc
# call, which do not. Cases (REGEX on the name): read write atomic_write
# flush pingpong write_imm srq conn mr poll ("poll" = one rpma_cq_get_wc on an
# idle CQ), srq_recv (one rpma_srq_recv on an SRQ, no server), and
# write_wait, pingpong_wait: write and pingpong with an event-driven client
# (BENCH_CLIENT_WAIT=wait), for which the report also gives rpma_cq_wait's
# inclusive cost per call (libibverbs and the provider included: the event's
# acknowledgement is there), and next_event: one rpma_conn_next_event on a
# non-blocking fd with no event, whose inclusive cost (the failed read, the
# error's log line through syslog) the report gives too. The full run takes 15-18 minutes in the TCG
# guest (80 valgrind runs of 6-16 s each).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

if [ "${1:-}" = --guest ]; then
  # ---------------------------------------------------------- guest side
  set +e
  bin=$2 n1=$3 n2=$4 regex=$5
  ip=${RPMA_TESTING_IP:?not in the rxe guest}
  ours=$(realpath "${RPMA_BENCH_OURS:-$root/build/lib/librpma.so.0}")
  clib=$(realpath "${RPMA_BENCH_C:-/usr/lib/x86_64-linux-gnu/librpma.so.0}")
  declare -A lib_of=([ours]=$ours [c]=$clib) port_of=([ours]=7471 [c]=7481) pid_of=()
  tmp=$(mktemp -d)
  t0=$SECONDS
  # servers on CPU 1, clients on CPU 0 (and, from rxe-run, only the rxe
  # provider: fewer objects for valgrind to read at each start)
  who=guest
  # shellcheck source=bench/servers.sh
  . "$here/servers.sh"
  pin_cpus
  start_servers
  checked=0 fails=0
  for cs in "read 8" "read 4096" "write 8" "write 4096" "atomic_write 8" "flush 8" "flush 4096" \
            "pingpong 8" "pingpong 4096" "write_imm 8" "write_imm 4096" "srq 8" "srq 4096" \
            "conn 8" "mr 8" "mr 4096" "poll 8" "srq_recv 8" "write_wait 8" "pingpong_wait 8" \
            "next_event 8"; do
    read -r c s <<<"$cs"
    echo "$c" | grep -Eq -- "$regex" || continue
    # CASE_wait: the case with an event-driven client (rpma_cq_wait)
    bc=${c%_wait} wait_env=()
    [ "$bc" != "$c" ] && wait_env=(BENCH_CLIENT_WAIT=wait)
    a=$n1 b=$n2
    [ "$c" = conn ] && { a=$((n1 / 10)); b=$((n2 / 10)); }
    for l in c ours; do
      ok=1
      for n in $a $b; do
        f=$tmp/$l.$c.$s.$n
        start=$SECONDS
        env "${wait_env[@]}" LD_LIBRARY_PATH=$(dirname "${lib_of[$l]}") BENCH_EXPECT_LIB=${lib_of[$l]} BENCH_TIMEOUT=600 \
          timeout -k 5 1800 "${pin_client[@]}" valgrind --tool=callgrind --callgrind-out-file="$f.cg" \
          "$bin" client "$ip" "${port_of[$l]}" "$bc" "$s" 1 -n "$n" >"$f.out" 2>"$f.err"
        rc=$?
        echo "guest: $l $c $s -n $n: exit $rc in $((SECONDS - start)) s: $(grep -h '^RESULT\|^STATS' "$f.out" "$f.err" | tr '\n' ' ')"
        if [ $rc -ne 0 ] || ! grep -q '^RESULT' "$f.out"; then
          ok=0; fails=$((fails + 1)); tail -5 "$f.err" | sed 's/^/  | /'
        fi
      done
      [ $ok = 1 ] || continue
      if [ $checked = 0 ]; then
        /usr/bin/python3 "$here/callgrind_self.py" check "$tmp/$l.$c.$s.$b.cg" | grep -v '^CHECK DIFF' | tail -4
        checked=1
      fi
      e1=$(sed -n 's/^STATS empty_polls=\([0-9]*\).*/\1/p' "$tmp/$l.$c.$s.$a.err")
      e2=$(sed -n 's/^STATS empty_polls=\([0-9]*\).*/\1/p' "$tmp/$l.$c.$s.$b.err")
      ep=$(awk -v a="$e1" -v b="$e2" -v n="$((b - a))" 'BEGIN { printf "%.2f", (b - a) / n }')
      /usr/bin/python3 "$here/callgrind_self.py" diff "$tmp/$l.$c.$s.$a.cg" "$a" "$tmp/$l.$c.$s.$b.cg" "$b" \
        "lib=$l" "case=$c" "size=$s" "n1=$a" "n2=$b" "empty_per_op=$ep"
    done
  done
  stop_servers
  echo "guest: done in $((SECONDS - t0)) s, $fails failed runs"
  # RPMA_BENCH_KEEP_CG=1 keeps the callgrind files, for callgrind_annotate
  # line by line: the guest's writes vanish with it, except in the exchange
  # folder (/run/rxe-run), which RXE_KEEP=1 keeps on the host
  if [ -n "${RPMA_BENCH_KEEP_CG:-}" ]; then
    mkdir -p /run/rxe-run/cg && cp "$tmp"/*.cg /run/rxe-run/cg/
  fi
  rm -rf "$tmp"
  exit $((fails > 0))
fi

# ------------------------------------------------------------- host side
build=${BENCH_BUILD_DIR:-$root/build/bench}
n1=200 n2=1200 cases=. out=
while [ $# -gt 0 ]; do
  case $1 in
    --n1) n1=$2; shift 2 ;;
    --n2) n2=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "instructions.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $n1 =~ ^[0-9]+$ && $n2 =~ ^[0-9]+$ && $n1 -ge 10 && $n2 -gt $n1 ]] || { echo "instructions.sh: need 10 <= N1 < N2" >&2; exit 2; }
mkdir -p "$build"
out=${out:-$build/instructions.txt}
bin=$build/rpma-bench
"$here/build-bench.sh" "$bin"
start=$SECONDS
log=$build/instructions.log
cd "$root"
set +e
RXE_TIMEOUT=${RXE_TIMEOUT:-5400} softroce/rxe-run \
  "$(printf '%q ' bash "$here/instructions.sh" --guest "$bin" "$n1" "$n2" "$cases")" | tee "$log"
rc=${PIPESTATUS[0]}
set -e
grep -E '^(INSTR|INSTRFN|CHECK) ' "$log" >"$out" || true
echo
echo "raw: $out; the guest ran $((SECONDS - start)) s (exit status $rc)"
echo
python3 "$here/report.py" instr "$out"
exit "$rc"
