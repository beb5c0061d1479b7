#!/usr/bin/env bash
# scripts/package-check.sh -- the two Rust crates meant for crates.io are
# ready for it: rpma-sys packs and builds from its own tarball; rpma packs
# with its license, readme and sources (built from its tarball it would
# need rpma-sys from crates.io, so its list is checked instead); both carry
# the metadata crates.io and docs.rs read, and versions of their own, not
# the C library's.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo=${CARGO:-cargo}
"$cargo" package -p rpma-sys --allow-dirty --quiet
list=$("$cargo" package -p rpma --allow-dirty --list)
for f in LICENSE README.md Cargo.toml src/lib.rs src/owned/mod.rs; do
  grep -qx "$f" <<<"$list" || { echo "package-check: rpma's package lacks $f" >&2; exit 1; }
done
"$cargo" metadata --no-deps --format-version 1 | python3 -c '
import json, sys
meta = json.load(sys.stdin)
bad = []
for p in meta["packages"]:
    if p["name"] not in ("rpma", "rpma-sys"):
        continue
    name = p["name"]
    for field in ("license", "description", "documentation", "readme"):
        if not p.get(field):
            bad.append(f"{name}: no {field}")
    if p["version"] == "1.3.0":
        bad.append(f"{name}: carries the C ABI version 1.3.0")
    if not ((p.get("metadata") or {}).get("docs") or {}).get("rs"):
        bad.append(f"{name}: no [package.metadata.docs.rs]")
if bad:
    sys.exit("package-check: " + "; ".join(bad))
print("package-check: rpma and rpma-sys are ready to publish")
'
