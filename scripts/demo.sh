#!/usr/bin/env bash
# demo.sh -- `make demo`: show the freshly built librpma.so.0 working.
#   1. its ELF identity next to the C library's;
#   2. an example program built against our header and library;
#   3. the same binary served by the C library (same behaviour);
#   4. examples/connection and examples/data-path over a live SoftRoCE
#      device (rxe0 in a QEMU guest), in one boot: our server with our
#      client, then each library on one side and the C library on the other.
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

echo "== examples/connection and examples/data-path over SoftRoCE"
for ex in connection data-path; do
  for role in server client; do
    gcc -std=gnu99 -Wall -Wextra -Werror -Iinclude examples/$ex/$role.c \
      -Lbuild/lib -lrpma -o build/examples/$ex-$role
  done
done
ours=$PWD/build/lib/librpma.so.0
pairs="ours:ours"
[ -e "$ref" ] && pairs="ours:ours ref:ours ours:ref"
script=build/examples/demo-pairs.sh
# A Debian 13 machine boots Debian 13's kernel in the guest, whose rxe
# flushes natively and takes a flush to persistence only into persistent
# memory (librpma(7)): the guest gets an emulated NVDIMM as memory node 1,
# and the programs take their memory from it, as on a host with PMem.
# shellcheck disable=SC1091
release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
pmem_mb=0
[ "$release" = bookworm ] || pmem_mb=1024
{
  echo 'set -e'
  echo 'mem=(); [ -z "${RXE_PMEM_NODE:-}" ] || mem=(numactl --membind="$RXE_PMEM_NODE")'
  for ex in connection data-path; do
    for p in $pairs; do
      s=${p%:*} c=${p#*:}
      sl=$ours; [ "$s" = ref ] && sl=$ref
      cl=$ours; [ "$c" = ref ] && cl=$ref
      echo "echo; echo '-- $ex: server: $s library, client: $c library'"
      echo "\"\${mem[@]}\" tests-c/scripts/run-pair.sh $sl build/examples/$ex-server $cl build/examples/$ex-client"
    done
  done
} >"$script"
[ "$pmem_mb" = 0 ] || echo "   (Debian 13's kernel: the programs' memory is on an emulated NVDIMM, ${pmem_mb} MB)"
RXE_PMEM_MB=$pmem_mb softroce/rxe-run bash "$script"
