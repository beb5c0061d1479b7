#!/usr/bin/env bash
# build-bench.sh OUT -- builds the benchmark (rpma-bench.c) as OUT, linked
# against the tree's build/lib/librpma.so.0 by its SONAME, so that which
# library serves a run is chosen at run time (LD_LIBRARY_PATH), never at
# link time, and the raw-verbs contender (verbs-bench.c) beside it as
# verbs-bench. Shared by run.sh, limit.sh, instructions.sh and the probes.
#
# VERBS_HEADERS_ROOT=DIR builds verbs-bench against the rdma-core headers of
# the root DIR (DIR/usr/include/{infiniband,rdma}; the Debian 13 root of
# softroce/stack-root, rdma-core 56) with native flush (flush_native).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$1
gcc -O2 -g -Wall -Wextra -Werror -I"$root/include" "$here/rpma-bench.c" \
  -L"$root/build/lib" -l:librpma.so.0 -o "$out"
readelf -d "$out" | grep -q 'NEEDED.*\[librpma\.so\.0\]' ||
  { echo "build-bench.sh: $out does not need librpma.so.0" >&2; exit 1; }

native=()
if [ -n "${VERBS_HEADERS_ROOT:-}" ]; then
  # only rdma-core's own folders: libc's and the kernel's headers stay the host's
  inc=$(dirname "$out")/verbs-include
  rm -rf "$inc"; mkdir -p "$inc"
  ln -s "$VERBS_HEADERS_ROOT/usr/include/infiniband" "$VERBS_HEADERS_ROOT/usr/include/rdma" "$inc/"
  native=(-I"$inc" -DHAVE_NATIVE_FLUSH)
fi
gcc -O2 -g -Wall -Wextra -Werror "${native[@]}" "$here/verbs-bench.c" -libverbs -lrdmacm \
  -o "$(dirname "$out")/verbs-bench"
