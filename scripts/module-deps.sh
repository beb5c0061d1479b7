#!/bin/sh
# Prints the import graph among the core crate's top-level modules, one
# "module dependency" pair per line, and fails when the graph has a cycle
# (coreutils' tsort finds it and names the modules on it).
#
#   scripts/module-deps.sh [SRC_DIR]     (default: crates/rpma/src)
#
# A module is a file or directory directly under SRC_DIR; a dependency is a
# `crate::NAME` path outside a comment (doc links do not count: they make
# no code depend on anything).
set -eu
src=${1:-$(dirname "$0")/../crates/rpma/src}
pairs=$(mktemp)
trap 'rm -f "$pairs"' EXIT
for f in $(cd "$src" && find . -name '*.rs' | sort); do
    f=${f#./}
    mod=${f%%/*}
    mod=${mod%.rs}
    if [ "$mod" = lib ]; then continue; fi
    sed -e 's://.*$::' "$src/$f" |
        grep -oE 'crate::[a-z_][a-z0-9_]*' |
        sed 's/^crate:://' | sort -u |
        while read -r dep; do
            if [ "$dep" != "$mod" ]; then echo "$mod $dep"; fi
        done
    # every module is a node, even one that imports nothing
    echo "$mod $mod"
done | sort -u > "$pairs"
grep -v '^\(\S*\) \1$' "$pairs" || true
if ! tsort "$pairs" > /dev/null 2> "$pairs.err"; then
    echo "import cycle among the core's modules:" >&2
    cat "$pairs.err" >&2
    rm -f "$pairs.err"
    exit 1
fi
rm -f "$pairs.err"
echo "no import cycle among $(cut -d' ' -f1 "$pairs" | sort -u | wc -l) modules" >&2
