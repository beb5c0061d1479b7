#!/usr/bin/env bash
# deb-install.sh SOURCE-ROOT
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

ls "$root"/build/deb/librpma0_*_amd64.deb "$root"/build/deb/librpma-dev_*_amd64.deb >/dev/null 2>&1 \
  || { echo "FAIL: no packages in $root/build/deb: run 'make deb' first"; exit 1; }
# Debian's packages of the installed version, to go back to
ver=$(dpkg-query -W -f='${Version}' librpma0 2>/dev/null) || { echo "FAIL: Debian's librpma0 is not installed"; exit 1; }
(cd "$work" && apt-get download -qq "librpma0=$ver" "librpma-dev=$ver" 2>/dev/null) \
  || { echo "FAIL: apt-get download librpma0=$ver librpma-dev=$ver"; exit 1; }

# a machine as users have it: every libibverbs provider stays installed
RXE_ALL_PROVIDERS=1 "$root/softroce/rxe-run" "$here/deb-install-guest.sh" "$root" "$work"/librpma0_*.deb "$work"/librpma-dev_*.deb
