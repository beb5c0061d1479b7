#!/usr/bin/env bash
# demo.sh -- `make demo`: show the freshly built librpma.so.0 working.
#   1. its ELF identity next to the C library's;
#   2. an example program built against our header and library;
#   3. the same binary served by the C library (same behaviour);
#   4. a live SoftRoCE device that the library will drive.
set -euo pipefail
cd "$(dirname "$0")/.."
lib=build/lib/librpma.so.0
ref=/usr/lib/x86_64-linux-gnu/librpma.so.0
echo "== $lib"
readelf -d "$lib" | sed -n 's/.*(\(SONAME\|NEEDED\)).*\[\(.*\)\]/   \1 \2/p'
echo "   $(readelf --dyn-syms -W "$lib" | grep -c '@@LIBRPMA_1.0') functions exported at LIBRPMA_1.0"

mkdir -p build/examples
gcc -std=gnu99 -Wall -Wextra -Werror -Iinclude examples/config-tour/config-tour.c \
  -Lbuild/lib -lrpma -o build/examples/config-tour
echo "== examples/config-tour with our library"
LD_LIBRARY_PATH=build/lib build/examples/config-tour
if [ -e "$ref" ]; then
  echo "== the same binary with the C library ($ref)"
  LD_LIBRARY_PATH=$(dirname "$ref") build/examples/config-tour
fi

echo "== SoftRoCE: a real RDMA device for the connection examples"
cmake -S tests-c -B build/tests-c -DRPMA_LIB_DIR="$PWD/build/lib" >/dev/null
cmake --build build/tests-c --target rxe_smoke >/dev/null
softroce/rxe-run build/tests-c/rxe_smoke
