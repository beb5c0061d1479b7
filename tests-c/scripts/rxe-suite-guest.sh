#!/usr/bin/env bash
# rxe-suite-guest.sh MANIFEST -- the guest side of rxe-suite.sh: runs each
# test of MANIFEST between markers, each bounded by a timeout.
#
# Two lanes share the guest's two CPUs. The example runs under valgrind
# and the fault-injection sweeps (names ending in .valgrind, or starting
# with fault.) are slow, and each waits for a peer started under valgrind
# within a fixed time: they run one at a time, in the second lane, and that
# lane then helps the first with what is left of the other tests. Both
# lanes take the other tests from one queue, so neither idles while the
# other still has work. The second lane's marked output is printed once
# both are done, so markers never interleave.
set -u
manifest=$1

# RPMA_SUITE_KNOWN: a file of outcomes known to differ on this stack, one
# per line: a glob on test names, a tab, what is known, a tab, environment
# for our library (VAR=VALUE words, or -), a tab, the reason. What is known:
#   ref-fails  a differential test (run-diff.sh) that the reference C
#              library fails here: it must still fail, ours must pass;
#   both-fail  a differential test asserting what this transport or kernel
#              cannot do: both libraries must fail it, the same checks;
#   fails      the test (an example pair with the C library on a side)
#              fails here: it must still fail;
#   env        the test passes with that environment for our library;
#   skip       the test is not run: its subject is what this transport
#              cannot do (it would fail with both libraries only after a
#              minute of timeouts per side); it ends with status 77. With
#              RPMA_SUITE_PROBE_SKIPS=SECONDS it runs for that long at
#              most instead, and a pass fails it: the entry is stale.
known_entry() {
  [ -n "${RPMA_SUITE_KNOWN:-}" ] || return 1
  local glob what env why
  while IFS=$'\t' read -r glob what env why; do
    [[ -z $glob || $glob == \#* ]] && continue
    # shellcheck disable=SC2053
    if [[ $1 == $glob ]]; then
      printf '%s\t%s\t%s\n' "$what" "$env" "$why"
      return 0
    fi
  done <"$RPMA_SUITE_KNOWN"
  return 1
}

# claim FILE: prints the next line of FILE that no lane has taken yet, or
# fails when none is left. The count of lines taken is kept in FILE.taken,
# under a lock, since both lanes take from the same queue.
claim() {
  local f=$1 fd n
  exec {fd}>>"$f.lock"
  flock "$fd"
  n=$(($(cat "$f.taken" 2>/dev/null || echo 0) + 1))
  echo "$n" >"$f.taken"
  exec {fd}>&-
  [ "$n" -le "$(wc -l <"$f")" ] && sed -n "${n}p" "$f"
}

# run_lane FILE...: runs the lines claimed from each FILE in turn, one
# after the other, until none is left
run_lane() {
  local src line
  for src in "$@"; do
    while line=$(claim "$src"); do
      run_test "$line"
    done
  done
}

# run_test LINE: runs one manifest line between markers
run_test() {
  local name cmd start rc limit entry what env why mem
  IFS=$'\t' read -r name cmd <<<"$1"
  [ -z "$name" ] && return 0
  echo "@@test begin $name"
  start=$SECONDS
  limit=${RPMA_TEST_TIMEOUT:-180}
  # a fault-injection sweep runs an example once per injection point
  [[ $name == fault.* ]] && limit=900
  what=
  if entry=$(known_entry "$name"); then
    IFS=$'\t' read -r what env why <<<"$entry"
    [ "$env" = - ] && env=
    echo "known on this stack: $what${env:+ ($env)}: $why"
  fi
  # a guest with persistent memory (RXE_PMEM_NODE) runs each test with
  # all its memory there, as a host with pmem would; ram.* runs stay in RAM
  mem=()
  [ -n "${RXE_PMEM_NODE:-}" ] && [[ $name != ram.* ]] && mem=(numactl --membind="$RXE_PMEM_NODE")
  case $what in
    skip)
      if [ -n "${RPMA_SUITE_PROBE_SKIPS:-}" ]; then
        limit=$RPMA_SUITE_PROBE_SKIPS
        echo "not counted here: $why; probed for $limit s at most, it must not pass"
        timeout -k 5 "$limit" "${mem[@]}" bash -c "$cmd" </dev/null 2>&1
      else
        echo "not run here: $why"
      fi ;;
    ref-fails) RUN_DIFF_REF_FAILS=$why RUN_DIFF_OURS_ENV=$env timeout -k 5 "$limit" "${mem[@]}" bash -c "$cmd" </dev/null 2>&1 ;;
    both-fail) RUN_DIFF_BOTH_FAIL=$why timeout -k 5 "$limit" "${mem[@]}" bash -c "$cmd" </dev/null 2>&1 ;;
    env) timeout -k 5 "$limit" env $env "${mem[@]}" bash -c "$cmd" </dev/null 2>&1 ;;
    *) timeout -k 5 "$limit" "${mem[@]}" bash -c "$cmd" </dev/null 2>&1 ;;
  esac
  rc=$?
  [ $rc -eq 124 ] && echo "timed out after $limit s"
  if [ "$what" = skip ]; then
    if [ -n "${RPMA_SUITE_PROBE_SKIPS:-}" ] && [ $rc -eq 0 ]; then
      echo "known not to work here, but passed: the skip entry is stale"; rc=1
    else
      rc=77
    fi
  fi
  if [ "$what" = fails ]; then
    if [ $rc -eq 0 ]; then echo "known to fail here, but passed: the entry is stale"; rc=1; else rc=0; fi
  fi
  echo "($name took $((SECONDS - start)) s in the guest)"
  echo "@@test end $name $rc"
}

queue=$(mktemp -d)
slow_re='\\.valgrind$|^fault\\.'
awk -F '\t' -v slow="$slow_re" '$1 ~ slow' "$manifest" >"$queue/slow"
awk -F '\t' -v slow="$slow_re" '$1 !~ slow' "$manifest" >"$queue/rest"
# RPMA_SUITE_LANES lanes (default 2); each lane's servers listen in a port
# range of its own (t_port() in tests-c/common/rpma_live.c), so that two
# tests never meet on a port. Lane 1 (or the only lane) also takes the
# slow queue first.
lanes=${RPMA_SUITE_LANES:-2}
[ "$lanes" -ge 1 ] 2>/dev/null || lanes=2
span=$((12000 / lanes))
pids=()
for ((i = 1; i < lanes; i++)); do
  srcs=("$queue/rest"); [ "$i" = 1 ] && srcs=("$queue/slow" "$queue/rest")
  RPMA_TEST_PORT_BASE=$((20000 + i * span)) RPMA_TEST_PORT_SPAN=$((span - 100)) \
    run_lane "${srcs[@]}" >"$queue/lane$i.out" 2>&1 &
  pids+=($!)
done
first=("$queue/rest"); [ "$lanes" -le 1 ] && first=("$queue/slow" "$queue/rest")
RPMA_TEST_PORT_BASE=20000 RPMA_TEST_PORT_SPAN=$((span - 100)) run_lane "${first[@]}"
wait "${pids[@]}"
for ((i = 1; i < lanes; i++)); do cat "$queue/lane$i.out"; done
rm -rf "$queue"
