#!/usr/bin/env bash
# build-bench.sh OUT -- builds the benchmark (rpma-bench.c) as OUT, linked
# against the tree's build/lib/librpma.so.0 by its SONAME, so that which
# library serves a run is chosen at run time (LD_LIBRARY_PATH), never at
# link time. Shared by run.sh, instructions.sh and the probes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$1
gcc -O2 -g -Wall -Wextra -Werror -I"$root/include" "$here/rpma-bench.c" \
  -L"$root/build/lib" -l:librpma.so.0 -o "$out"
readelf -d "$out" | grep -q 'NEEDED.*\[librpma\.so\.0\]' ||
  { echo "build-bench.sh: $out does not need librpma.so.0" >&2; exit 1; }
