#!/usr/bin/env bash
# rxe-suite-guest.sh MANIFEST -- the guest side of rxe-suite.sh: runs each
# test of MANIFEST between markers, each bounded by a timeout.
#
# The valgrind, helgrind and fault-injection runs (names ending in
# .valgrind or .helgrind, or starting with fault.) are slow and mostly CPU:
# they run in a second lane, beside the others, and their marked output is
# printed once both lanes are done, so markers never interleave.
set -u
manifest=$1

# RPMA_SUITE_KNOWN: a file of outcomes known to differ on this stack, one
# per line: a glob on test names, a tab, what is known, a tab, environment
# for our library (VAR=VALUE words, or -), a tab, the reason. What is known:
#   ref-fails  a differential test (run-diff.sh) that the reference C
#              library fails here: it must still fail, ours must pass;
#   fails      the test (an example pair with the C library on a side)
#              fails here: it must still fail;
#   env        the test passes with that environment for our library.
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

# run_lane: runs the manifest lines on stdin one after the other
run_lane() {
  local name cmd start rc limit entry what env why mem
  while IFS=$'\t' read -r name cmd; do
    [ -z "$name" ] && continue
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
      ref-fails) RUN_DIFF_REF_FAILS=$why RUN_DIFF_OURS_ENV=$env timeout -k 5 "$limit" "${mem[@]}" bash -c "$cmd" </dev/null 2>&1 ;;
      env) timeout -k 5 "$limit" env $env "${mem[@]}" bash -c "$cmd" </dev/null 2>&1 ;;
      *) timeout -k 5 "$limit" "${mem[@]}" bash -c "$cmd" </dev/null 2>&1 ;;
    esac
    rc=$?
    if [ "$what" = fails ]; then
      if [ $rc -eq 0 ]; then echo "known to fail here, but passed: the entry is stale"; rc=1; else rc=0; fi
    fi
    [ $rc -eq 124 ] && echo "timed out after $limit s"
    echo "($name took $((SECONDS - start)) s in the guest)"
    echo "@@test end $name $rc"
  done
}

slow=$(mktemp)
slow_re='\\.(valgrind|helgrind)$|^fault\\.'
awk -F '\t' -v re="$slow_re" '$1 ~ re' "$manifest" | run_lane >"$slow" 2>&1 &
lane=$!
awk -F '\t' -v re="$slow_re" '$1 !~ re' "$manifest" | run_lane
wait "$lane"
cat "$slow"
rm -f "$slow"
