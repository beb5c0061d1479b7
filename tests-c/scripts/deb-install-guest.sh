#!/usr/bin/env bash
# deb-install-guest.sh SOURCE-ROOT DEBIAN-LIBRPMA0.deb DEBIAN-LIBRPMA-DEV.deb OUR-DEB-DIR -- the guest
# side of `cargo xtask check deb-install` (xtask/src/check/deb_install.rs); runs as root on rxe0, in a throw-away overlay.
set -u
root=$1 debian_debs=("$2" "$3") debs=$4
multiarch=$(gcc -dumpmachine)
syslib=/usr/lib/$multiarch/librpma.so.0
work=$(mktemp -d)
fail=0
bad() { echo "FAIL: $*"; fail=1; }
step() { echo "== $* (at ${SECONDS} s)"; }
build_id() { readelf -n "$1" | awk '/Build ID/ {print $3}'; }

ours_bin=$(ls "$debs"/librpma0_*_amd64.deb | head -1)
ours_dev=$(ls "$debs"/librpma-dev_*_amd64.deb | head -1)
dpkg-deb -x "$ours_bin" "$work/ours"
ours_id=$(build_id "$work"/ours/usr/lib/*/librpma.so.0)
debian_id=$(build_id "$syslib")
[ -n "$ours_id" ] && [ "$ours_id" != "$debian_id" ] || { echo "FAIL: build-ids ours '$ours_id', Debian's '$debian_id'"; exit 1; }

step "1. programs built against Debian's librpma-dev $(dpkg-query -W -f='${Version}' librpma-dev)"
for ex in connection data-path; do
  for role in server client; do
    gcc -std=gnu99 -Wall -Wextra -Werror "$root/examples/$ex/$role.c" -lrpma -o "$work/$ex-$role" \
      || bad "building examples/$ex/$role.c against Debian's librpma-dev"
  done
done

# run_pairs ID: every pair with no LD_* variable; the loader must have
# initialised $syslib, and that file must have build-id ID
run_pairs() {
  local want=$1 ex mem=()
  [ -z "${RXE_PMEM_NODE:-}" ] || mem=(numactl --membind="$RXE_PMEM_NODE")
  for ex in connection data-path; do
    RUN_PAIR_SYSTEM=1 "${mem[@]}" "$root/tests-c/scripts/run-pair.sh" "$syslib" "$work/$ex-server" \
      "$syslib" "$work/$ex-client" >"$work/$ex.log" 2>&1 || { cat "$work/$ex.log"; bad "$ex pair"; continue; }
    grep '^run-pair:' "$work/$ex.log"
  done
  local got; got=$(build_id "$syslib")
  echo "$syslib build-id $got"
  [ "$got" = "$want" ] || bad "$syslib has build-id $got, expected $want"
}

# man-db's trigger re-indexes every manual page after each dpkg -i, which
# takes most of a minute in the emulated guest and says nothing about our
# packages. The file is the debconf answer man-db/auto-update, which man-db's
# trigger reads; the guest's root is a throw-away overlay.
rm -f /var/lib/man-db/auto-update
step "2. dpkg -i our packages over Debian's"
dpkg -i "$ours_bin" "$ours_dev" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; bad "dpkg -i ours"; }
dpkg-query -W librpma0 librpma-dev
[ "$(dpkg-query -W -f='${Version}' librpma0)" = "$(dpkg-deb -f "$ours_bin" Version)" ] || bad "librpma0 is not ours after dpkg -i"

step "3. the same programs, no LD_LIBRARY_PATH, no LD_PRELOAD: ours ($ours_id)"
env | grep -q '^LD_\(LIBRARY_PATH\|PRELOAD\)=' && bad "an LD_ variable is set"
run_pairs "$ours_id"

step "4. building against the installed librpma-dev: pkg-config and CMake"
export RPMA_EXPECT_LIB=$syslib
# shellcheck disable=SC2046
gcc -std=gnu99 -Wall -Wextra -Werror "$root/tests-c/install/consumer.c" -o "$work/consumer_pc" \
  $(pkg-config --cflags --libs librpma) && "$work/consumer_pc" || bad "pkg-config build or run"
echo "pkg-config: $(pkg-config --modversion librpma), $(pkg-config --libs librpma)"
cmake -S "$root/tests-c/install" -B "$work/cmake" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >"$work/cmake.log" 2>&1 \
  && cmake --build "$work/cmake" >>"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; bad "CMake find_package build"; }
for exe in consumer_target consumer_vars; do
  "$work/cmake/$exe" || bad "CMake-built $exe"
done
grep -o 'librpma_DIR:PATH=.*' "$work/cmake/CMakeCache.txt"

step "5. dpkg -i Debian's packages again: the C library ($debian_id)"
dpkg -i "${debian_debs[@]}" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; bad "dpkg -i Debian's packages"; }
dpkg-query -W librpma0 librpma-dev
dpkg --audit | grep . && bad "dpkg --audit reports broken packages"
run_pairs "$debian_id"

echo "deb-install-guest: ${SECONDS} s"
rm -rf "$work"
[ $fail -eq 0 ] && echo "deb-install: ours installed over Debian's, served the programs built against Debian's, built consumers; Debian's restored and served them"
exit $fail
