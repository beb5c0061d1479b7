#!/usr/bin/env bash
# obs-compare.sh OLD-BUILD NEW-BUILD [REGEX]
#
# Holds a reworked test suite to what the old one observed. OLD-BUILD and
# NEW-BUILD are two configured and built tests-c trees (build/tests-c of two
# checkouts). Every differential line of both manifests (run-diff.sh: the
# live.* programs, not their helgrind runs) whose name matches REGEX (default:
# all) runs once from each build, in one SoftRoCE guest, and the script
# reports per test:
#   same      both builds passed and printed the same observations (ours and
#             the reference alike), so the same checks, in the same order;
#   DIFFERS   the observations differ (shown as a diff, old against new);
#   FAILED    a build's run failed (its output is shown);
#   old-only / new-only   a test that one build does not have (renamed or
#             split): run from its build alone, its checks counted.
# The last line counts them and the checks each build asserted. Exits 0 only
# when no test differs or failed; OBS_COMPARE_RENAMED=1 also allows tests
# that one build lacks.
#
# It boots the guest through softroce/rxe-run and runs itself there with
# --guest first (the side that runs the lines and prints the report).
set -u
here=$(cd "$(dirname "$0")" && pwd)
guest=
[ "${1:-}" = --guest ] && { guest=1; shift; }
old=$1 new=$2 re=${3:-.}

if [ -z "$guest" ]; then
  for b in "$old" "$new"; do
    [ -f "$b/rxe-suite.manifest" ] || { echo "obs-compare: $b has no rxe-suite.manifest" >&2; exit 2; }
  done
  RXE_TIMEOUT=${RXE_TIMEOUT:-3000} \
    "$here/../../softroce/rxe-run" "$here/obs-compare.sh" --guest "$old" "$new" "$re"
  exit $?
fi

work=$(mktemp -d)
# the differential lines of a manifest, one per name: NAME<TAB>COMMAND
lines() {
  awk -F '\t' -v re="$re" '$1 ~ re && $2 ~ /run-diff\.sh/ && $1 !~ /\.(helgrind|valgrind)$/' \
    "$1/rxe-suite.manifest"
}
run_side() { # build tag name
  local cmd
  # this script's run-diff.sh, whichever version of the suite made the line
  cmd=$(lines "$1" | awk -F '\t' -v n="$3" '$1 == n { print $2; exit }' |
    sed "s|[^ ]*/tests-c/scripts/run-diff\.sh|$here/run-diff.sh|")
  RUN_DIFF_KEEP=$work/$2 timeout -k 5 "${RPMA_TEST_TIMEOUT:-180}" bash -c "$cmd" \
    </dev/null >"$work/$2.log" 2>&1
}
checks() { # file: the N of its last "N checks, M failed" line
  sed -n 's/^\([0-9][0-9]*\) checks, [0-9]* failed$/\1/p' "$1" | tail -1
}

lines "$old" | cut -f1 | sort >"$work/old.names"
lines "$new" | cut -f1 | sort >"$work/new.names"
same=0 differs=0 failed=0 missing=0 old_checks=0 new_checks=0
# a test that one build lacks (renamed or split) still runs, so that the
# checks of both builds can be counted whole
for name in $(comm -3 "$work/old.names" "$work/new.names" | tr -d '\t'); do
  if grep -qx "$name" "$work/old.names"; then side=old; else side=new; fi
  run_side "${!side}" "$side" "$name"; rc=$?
  c=$(checks "$(ls "$work/$side"/*.ours 2>/dev/null | head -1)" 2>/dev/null)
  echo "$side-only $name (exit $rc, ${c:-0} checks)"
  [ $side = old ] && old_checks=$((old_checks + ${c:-0})) || new_checks=$((new_checks + ${c:-0}))
  [ $rc -eq 0 ] || { sed "s/^/  $side| /" "$work/$side.log"; failed=$((failed + 1)); }
  rm -rf "${work:?}/$side"
  missing=$((missing + 1))
done
for name in $(comm -12 "$work/old.names" "$work/new.names"); do
  run_side "$old" old "$name"; orc=$?
  run_side "$new" new "$name"; nrc=$?
  if [ $orc -ne 0 ] || [ $nrc -ne 0 ]; then
    echo "FAILED $name (old $orc, new $nrc)"
    [ $orc -ne 0 ] && sed 's/^/  old| /' "$work/old.log"
    [ $nrc -ne 0 ] && sed 's/^/  new| /' "$work/new.log"
    failed=$((failed + 1))
    continue
  fi
  bin=$(ls "$work/new" | sed -n 's/\.ours$//p' | head -1)
  obin=$(ls "$work/old" | sed -n 's/\.ours$//p' | head -1)
  o=$(checks "$work/old/$obin.ours") n=$(checks "$work/new/$bin.ours")
  old_checks=$((old_checks + ${o:-0})) new_checks=$((new_checks + ${n:-0}))
  if diff -u --label "old $name" --label "new $name" "$work/old/$obin.ours" "$work/new/$bin.ours" >"$work/diff" &&
    diff -q "$work/old/$obin.ref" "$work/new/$bin.ref" >/dev/null; then
    echo "same $name ($n checks)"
    same=$((same + 1))
  else
    echo "DIFFERS $name (old $o checks, new $n)"
    sed 's/^/  /' "$work/diff"
    differs=$((differs + 1))
  fi
  rm -rf "$work/old" "$work/new"
done
echo "obs-compare: $same same, $differs differ, $failed failed, $missing missing; checks old $old_checks, new $new_checks"
[ $differs -eq 0 ] && [ $failed -eq 0 ] && { [ $missing -eq 0 ] || [ -n "${OBS_COMPARE_RENAMED:-}" ]; }
