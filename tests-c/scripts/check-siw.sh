#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check-siw.sh BUILD-DIR [STACK...] -- the suite on soft-iWARP: every live
# test (differential, ours against the stack's C library) and every example
# in the four pairings, in a guest whose device is siw0 (RXE_DEVICE=siw),
# on each STACK (default: bookworm trixie); on Debian 13's the reference is
# Debian 12's C library (1.2.0), since 1.3.0 connects to nothing on siw
# (librpma(7), GENERATIONS). What iWARP does otherwise than
# the RoCE the tests assert is listed, with its reason, in
# tests-c/known-STACK-siw.tsv (rxe-suite-guest.sh applies it); the tests
# listed there as `skip` run for 30 s at most (RPMA_SUITE_PROBE_SKIPS) and
# must not pass, so that no such entry outlives its reason. Prints one
# line per failed test and a total per stack. On Debian 13's stack the
# generations table on siw follows (generations.sh, RXE_DEVICE=siw:
# generations.siw). Then a server on two guests is powered off mid-stream
# (net-pair.sh poweroff, tcp_retries2 5): our client must learn it within
# 30 s in each waiting style. Fails when any of it failed.
#
# Outside `make check` (`make check-siw`): one stack's run takes 20-25
# minutes of TCG with the power-off, which `.ci/run` cannot spare.
set -u
[ $# -ge 1 ] || { sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0"; exit 2; }
build=$(cd "$1" && pwd); shift
here=$(cd "$(dirname "$0")" && pwd)
stacks=("$@")
[ $# -eq 0 ] && stacks=(bookworm trixie)
manifest=$build/rxe-suite.manifest
[ -s "$manifest" ] || { echo "check-siw: no $manifest (configure and build tests-c first)"; exit 2; }
# the guest-only lines of the RoCE suite that are not the live tests and
# the four pairings: fault sweeps, Rust programs, RAM reruns, valgrind and
# helgrind runs, Debian-built examples
skip='^(fault|ram|rust|rust-example|rxe)[.]|[.](valgrind|helgrind|debian-built)$'
fail=0
for stack in "${stacks[@]}"; do
  out=$build/siw-$stack
  echo "== soft-iWARP on the $stack stack ($out)"
  # a broken connection leaves some tests waiting for what never comes:
  # 120 s bounds each
  m=$manifest
  if [ "$stack" = trixie ]; then
    # Debian 13's C library 1.3.0 connects to nothing on siw (librpma(7),
    # generations.siw): there the reference is Debian 12's C library, as
    # in the generations table
    c12=$("$here/c12-lib.sh" "$build") || exit 1
    m=$build/siw-trixie.manifest
    sed "s#$build/reference-lib/librpma.so.0#$c12#g; s#$build/reference-lib#$(dirname "$c12")#g" "$manifest" >"$m"
  fi
  RXE_DEVICE=siw RXE_STACK=$stack RXE_SKIP=$skip RPMA_TEST_TIMEOUT=${RPMA_TEST_TIMEOUT:-120} \
    RPMA_SUITE_PROBE_SKIPS=${RPMA_SUITE_PROBE_SKIPS:-30} "$here/rxe-suite.sh" "$m" "$out" || fail=1
  # the lines the suite ran: rxe-suite.sh keeps them, RXE_SKIP applied
  pass=0 skipped=0 failed=()
  while IFS=$'\t' read -r name _; do
    [[ $name == live.* || $name == example.* ]] || continue
    case $(cat "$out/$name.rc" 2>/dev/null) in
      0) pass=$((pass + 1)) ;;
      77) skipped=$((skipped + 1)) ;; # a skip entry, still failing
      *) failed+=("$name") ;;
    esac
  done <"$out/manifest"
  for name in "${failed[@]+"${failed[@]}"}"; do echo "FAIL $stack $name (log: $out/$name.log)"; done
  echo "siw $stack: ${pass} passed, ${skipped} not counted (probed, still not working; their reasons: tests-c/known-$stack-siw.tsv), ${#failed[@]} failed"
  [ ${#failed[@]} = 0 ] || fail=1
  if [ "$stack" = trixie ]; then
    echo "== generations.siw: the generations table on soft-iWARP (librpma(7), GENERATIONS)"
    if RXE_DEVICE=siw "$here/generations.sh" "$build" >"$build/generations-siw.log" 2>&1; then
      echo "PASS generations.siw"
    else
      echo "FAIL generations.siw (log: $build/generations-siw.log)"; fail=1
    fi
  fi
done
# a lost peer on siw is news only when TCP gives up on it
# (net.ipv4.tcp_retries2, about 15 minutes by default; 12.6 s at 5):
# a powered-off server, our client in the four waiting styles, must learn
# it within 30 s (RELIABILITY.md, "On soft-iWARP")
echo "== soft-iWARP: a server powered off mid-stream (two guests, Debian 12's stack)"
lost=$(RXE_DEVICE=siw NET_PAIR_SETUP="sysctl -qw net.ipv4.tcp_retries2=5" \
  "$here/net-pair.sh" "$build" poweroff busy,wait,poll,conn-wait ours 30 2>&1)
rc=$?
grep -E '^(PASS|FAIL)' <<<"$lost"
[ $rc = 0 ] || { tail -30 <<<"$lost"; fail=1; }
exit $fail
