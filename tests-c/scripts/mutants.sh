#!/usr/bin/env bash
# tests-c/scripts/mutants.sh -- plants three mutants in the library, one at
# a time, and shows which device tests catch each: a wrong wr_id for every
# connection operation, a dropped check of the flags argument (0 accepted),
# and the immediate data left in host byte order. For each: patch the
# source, run the data-path tests and the immediate-data examples on Debian
# 12's stack (`cargo xtask test`, which rebuilds the library), print each
# test's line, restore the source. At the end the library is built again
# from the clean tree.
#
# Needs no uncommitted change under crates/ (the restore is
# `git checkout -- crates`).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if [ -n "$(git status --porcelain crates)" ]; then
  echo "mutants: crates/ has uncommitted changes; commit or stash them first" >&2
  exit 2
fi
tests=(live.rpma_write live.rpma_read live.rpma_recv live.rpma_flush live.rpma_send_with_imm
  live.rpma_write_with_imm example.send-with-imm.server-ours.client-ours
  example.write-with-imm.server-ours.client-ours)
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
  cargo xtask test --stack bookworm "${tests[@]}" >"build/mutant-$m.log" 2>&1
  grep -E '^\[ *[0-9]+/[0-9]+\]|the build failed' "build/mutant-$m.log" | sed 's/^/  /'
  git checkout -- crates
done
make lib >/dev/null
echo "mutants: the library is built from the clean tree again"
