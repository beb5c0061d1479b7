#!/usr/bin/env bash
# check-install.sh SOURCE-ROOT
#
# `make install` into a staging DESTDIR and into a temporary PREFIX; then a
# C program is built against the installed copy with pkg-config and with
# CMake find_package(librpma), and must run served by the installed library;
# and every example program (examples/*/{server,client}.c) must build both
# ways too (they run on rxe0 in the example.* tests).
set -u
root=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

make -s -C "$root" install NO_BUILD=1 PREFIX=/usr/local DESTDIR="$work/stage" >/dev/null || bad "make install DESTDIR= failed"
for f in usr/local/lib/librpma.so.0 usr/local/lib/librpma.so usr/local/include/librpma.h \
         usr/local/lib/pkgconfig/librpma.pc usr/local/lib/cmake/librpma/librpma-config.cmake \
         usr/local/lib/cmake/librpma/librpma-config-version.cmake usr/local/share/man/man7/librpma.7 \
         usr/local/share/man/man3/rpma_err_2str.3; do
  [ -e "$work/stage/$f" ] || bad "DESTDIR install lacks /$f"
done
[ "$(readlink "$work/stage/usr/local/lib/librpma.so")" = librpma.so.0 ] || bad "librpma.so is not a link to librpma.so.0"
grep -q '^libdir=/usr/local/lib$' "$work/stage/usr/local/lib/pkgconfig/librpma.pc" || bad ".pc names a DESTDIR path"

prefix=$work/prefix
make -s -C "$root" install NO_BUILD=1 PREFIX="$prefix" >/dev/null || bad "make install PREFIX= failed"
cmp -s "$root/include/librpma.h" "$prefix/include/librpma.h" || bad "installed header differs from include/librpma.h"
mans=$(ls "$prefix/share/man/man3" | wc -l)
MANPATH=$prefix/share/man man -w rpma_err_2str >/dev/null 2>&1 || bad "man cannot find rpma_err_2str(3) under the prefix"
export RPMA_EXPECT_LIB=$prefix/lib/librpma.so.0

# pkg-config
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --libs librpma | xargs)" = "-L$prefix/lib -lrpma -libverbs -lrdmacm" ] || bad "pkg-config --libs: $(pkg-config --libs librpma)"
# shellcheck disable=SC2046
gcc -std=gnu99 -Wall -Wextra -Werror "$root/tests-c/install/consumer.c" -o "$work/consumer_pc" $(pkg-config --cflags --libs librpma) \
  && LD_LIBRARY_PATH=$prefix/lib "$work/consumer_pc" || bad "pkg-config build or run failed"

# CMake
cmake -S "$root/tests-c/install" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >"$work/cmake.log" 2>&1 \
  && cmake --build "$work/cmake" >>"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; bad "CMake find_package build failed"; }
for exe in consumer_target consumer_vars; do
  LD_LIBRARY_PATH=$prefix/lib "$work/cmake/$exe" || bad "CMake-built $exe failed"
done

# the examples, both ways
n=0
for src in "$root"/examples/*/server.c "$root"/examples/*/client.c; do
  ex=$(basename "$(dirname "$src")")_$(basename "$src" .c)
  # shellcheck disable=SC2046
  gcc -std=gnu99 -Wall -Wextra -Werror "$src" -o "$work/pc_$ex" $(pkg-config --cflags --libs librpma) \
    || bad "pkg-config build of $src failed"
  readelf -d "$work/pc_$ex" | grep -q 'NEEDED.*\[librpma\.so\.0\]' || bad "$ex: no NEEDED librpma.so.0"
  n=$((n + 1))
done
cmake -S "$root/tests-c/install/examples" -B "$work/cmake-examples" -DCMAKE_PREFIX_PATH="$prefix" \
  -DEXAMPLES_DIR="$root/examples" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >"$work/cmake-ex.log" 2>&1 \
  && cmake --build "$work/cmake-examples" -j2 >>"$work/cmake-ex.log" 2>&1 \
  || { cat "$work/cmake-ex.log"; bad "CMake find_package build of the examples failed"; }
built=$(find "$work/cmake-examples" -maxdepth 1 -type f -executable -name '*_server' -o -maxdepth 1 -type f -executable -name '*_client' | wc -l)
[ "$built" -eq "$n" ] || bad "CMake built $built example programs, expected $n"

[ $fail -eq 0 ] && echo "install: DESTDIR and PREFIX layouts, $mans man3 pages, pkg-config and CMake consumers served by the installed library, $n example programs built both ways"
exit $fail
