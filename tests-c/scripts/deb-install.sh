#!/usr/bin/env bash
# deb-install.sh SOURCE-ROOT [DEB-DIR]
#
# DEB-DIR (default SOURCE-ROOT/build/deb, `make deb`'s) is where our packages
# are; it must be inside SOURCE-ROOT. With RXE_STACK=trixie the guest is
# Debian 13's stack and Debian's packages are Debian 13's (from the
# harness's trixie root), for the packages built in a Debian 13 chroot
# (`make deb RELEASE=trixie`).
#
# Installs our packages for real, over Debian's, inside the SoftRoCE guest
# (whose writes vanish at power-off), and back again:
#   1. programs are built against Debian's librpma-dev, as users have them;
#   2. `dpkg -i` our librpma0 and librpma-dev (from `make deb`);
#   3. those programs run as server and client on rxe0 with no
#      LD_LIBRARY_PATH or LD_PRELOAD, and the file the loader initialised has
#      our package's ELF build-id;
#   4. a program builds against the installed -dev package with pkg-config
#      and with CMake find_package(librpma), and runs served by it;
#   5. `dpkg -i` Debian's librpma0 and librpma-dev brings the C library back
#      (its build-id) and the same programs still run.
set -u
root=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/deb-install.XXXXXX"); trap 'rm -rf "$work"' EXIT

debs=$(cd "${2:-$root/build/deb}" && pwd)
ls "$debs"/librpma0_*_amd64.deb "$debs"/librpma-dev_*_amd64.deb >/dev/null 2>&1 \
  || { echo "FAIL: no packages in $debs: run 'make deb' first"; exit 1; }
case $debs in "$root"/*) ;; *) echo "FAIL: $debs is not inside $root, which the guest sees"; exit 1 ;; esac

if [ "${RXE_STACK:-bookworm}" = trixie ]; then
  # the trixie root's own packages, kept by stack-root, at their guest paths
  trixie=$("$root/softroce/stack-root" trixie) || { echo "FAIL: no trixie root"; exit 1; }
  ref=()
  for p in librpma0 librpma-dev; do
    f=$(cd "$trixie" && ls var/cache/apt/archives/${p}_*.deb 2>/dev/null | head -1)
    [ -n "$f" ] || { echo "FAIL: the trixie root keeps no $p package"; exit 1; }
    ref+=("/$f")
  done
else
  # Debian's packages of the installed version, to go back to
  ver=$(dpkg-query -W -f='${Version}' librpma0 2>/dev/null) || { echo "FAIL: Debian's librpma0 is not installed"; exit 1; }
  (cd "$work" && apt-get download -qq "librpma0=$ver" "librpma-dev=$ver" 2>/dev/null) \
    || { echo "FAIL: apt-get download librpma0=$ver librpma-dev=$ver"; exit 1; }
  ref=("$work"/librpma0_*.deb "$work"/librpma-dev_*.deb)
fi

# Debian 13's kernel takes a flush to persistence (examples/data-path) only
# into persistent memory: the guest gets an NVDIMM, and deb-install-guest.sh
# binds the programs to it (as scripts/demo.sh does)
pmem_mb=0
[ "${RXE_STACK:-bookworm}" = trixie ] && pmem_mb=1024
# a machine as users have it: every libibverbs provider stays installed
RXE_PMEM_MB=$pmem_mb RXE_ALL_PROVIDERS=1 "$root/softroce/rxe-run" "$here/deb-install-guest.sh" "$root" "${ref[@]}" "$debs"
