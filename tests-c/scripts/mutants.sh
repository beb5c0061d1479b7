#!/usr/bin/env bash
# tests-c/scripts/mutants.sh -- plants three mutants in the library, one at
# a time, and shows which device tests catch each: a wrong wr_id for every
# connection operation, a dropped check of the flags argument (0 accepted),
# and the immediate data left in host byte order. For each: patch the
# source, `make lib`, run a subset of the manifest in one SoftRoCE guest
# (scripts/rxe-suite.sh), print each test's exit status, restore the
# source. At the end the library is built again from the clean tree.
#
# Needs a configured build/tests-c (make check-c) and no uncommitted change
# under crates/ (the restore is `git checkout -- crates`).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if [ -n "$(git status --porcelain crates)" ]; then
  echo "mutants: crates/ has uncommitted changes; commit or stash them first" >&2
  exit 2
fi
manifest=build/tests-c/rxe-suite.manifest
[ -f "$manifest" ] || { echo "mutants: no $manifest (run make check-c first)" >&2; exit 2; }
grep -P "^(live\.(rpma_write|rpma_read|rpma_recv|rpma_flush|rpma_send_with_imm|rpma_write_with_imm)|example\.(send|write)-with-imm\.server-ours\.client-ours)\t" \
  "$manifest" > build/mutants.manifest
plant() {
  case $1 in
    wr_id) sed -i 's/^    op_context as usize as u64$/    (op_context as usize as u64) ^ 8/' crates/librpma/src/conn.rs ;;
    flags) sed -i '/^fn completion(flags: c_int)/,/^}/s/0 => Err(Error::Inval),/0 => Ok(Completion::OnError),/' crates/librpma/src/conn.rs ;;
    imm) sed -i 's/self.imm_data = imm.to_be();/self.imm_data = imm;/' crates/rpma/src/post.rs ;;
  esac
}
for m in wr_id flags imm; do
  echo "=== mutant $m"
  plant "$m"
  if git diff --quiet crates; then
    echo "  the mutant no longer applies (the source changed): update this script"
    continue
  fi
  git diff -U0 crates | grep '^[-+] '
  if make lib >/dev/null 2>&1; then
    rm -rf "build/mutant-$m"
    tests-c/scripts/rxe-suite.sh build/mutants.manifest "build/mutant-$m" >"build/mutant-$m.log" 2>&1
    for f in "build/mutant-$m"/*.rc; do
      echo "  $(basename "$f" .rc): exit $(cat "$f")"
    done
  else
    echo "  the mutant does not build"
  fi
  git checkout -- crates
done
make lib >/dev/null
echo "mutants: the library is built from the clean tree again"
