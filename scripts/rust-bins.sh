#!/usr/bin/env bash
# scripts/rust-bins.sh OUTDIR -- builds the rpma crate's programs that need
# an RDMA device and copies them to OUTDIR, where the SoftRoCE suite
# (tests-c/CMakeLists.txt) finds them: OUTDIR/examples/NAME for each
# crates/rpma/examples/NAME.rs, and OUTDIR/device-tests, the crate's
# integration tests that talk to rxe0 (tests/device.rs, #[ignore]d on a
# host without a device), with the async ones (feature tokio). A debug build: these check behaviour, not speed.
# RUST_BINS_TARGET names another target to build them for (Rust's triple,
# e.g. aarch64-unknown-linux-gnu; tests-c/scripts/arch-live.sh).
set -euo pipefail
out=$1
cargo=${CARGO:-cargo}
cd "$(dirname "$0")/.."
target=() dir=target/debug
if [ -n "${RUST_BINS_TARGET:-}" ]; then
  target=(--target "$RUST_BINS_TARGET") dir=target/$RUST_BINS_TARGET/debug
fi
rm -rf "$out" && mkdir -p "$out/examples"
"$cargo" build -p rpma --examples "${target[@]}"
for src in crates/rpma/examples/*.rs; do
  name=$(basename "$src" .rs)
  cp "$dir/examples/$name" "$out/examples/$name"
done
# the test binary's name carries a hash: cargo says which file it built
exe=$("$cargo" test -p rpma --features serde,tokio --test device --no-run --message-format=json "${target[@]}" |
  python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "device":
        print(m["executable"])')
[ -x "$exe" ] || { echo "rust-bins: no device test binary" >&2; exit 1; }
cp "$exe" "$out/device-tests"
echo "rust-bins: $(ls "$out/examples" | wc -l) examples and the device tests in $out"
