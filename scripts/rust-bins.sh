#!/usr/bin/env bash
# scripts/rust-bins.sh OUTDIR -- builds the rpma crate's programs that need
# an RDMA device and copies them to OUTDIR, where the SoftRoCE suite
# (tests-c/CMakeLists.txt) finds them: OUTDIR/examples/NAME for each
# crates/rpma/examples/NAME.rs, and OUTDIR/device-tests, the crate's
# integration tests that talk to rxe0 (tests/device.rs, #[ignore]d on a
# host without a device). A debug build: these check behaviour, not speed.
set -euo pipefail
out=$1
cargo=${CARGO:-cargo}
cd "$(dirname "$0")/.."
rm -rf "$out" && mkdir -p "$out/examples"
"$cargo" build -p rpma --examples
for src in crates/rpma/examples/*.rs; do
  name=$(basename "$src" .rs)
  cp "target/debug/examples/$name" "$out/examples/$name"
done
# the test binary's name carries a hash: cargo says which file it built
exe=$("$cargo" test -p rpma --test device --no-run --message-format=json |
  python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "device":
        print(m["executable"])')
[ -x "$exe" ] || { echo "rust-bins: no device test binary" >&2; exit 1; }
cp "$exe" "$out/device-tests"
echo "rust-bins: $(ls "$out/examples" | wc -l) examples and the device tests in $out"
