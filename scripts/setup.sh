#!/usr/bin/env bash
# setup.sh -- install what this machine lacks for one of the project's tasks.
#
# usage: scripts/setup.sh build|demo|check|deb|deb-release|piuparts|autopkgtest|arch|bench [--print]
#
#   build   compile build/lib/librpma.so.0 (no libclang: the bindings are committed)
#   demo    build, plus SoftRoCE (QEMU) and Debian's C librpma to compare with
#   check   everything `make check` runs: C tests, ABI tools, fuzzing, packaging
#   deb     `make deb`: Debian's packaging tools
#   deb-release  `make deb RELEASE=bookworm|trixie|forky|sid`: mmdebstrap for
#           the clean chroot
#   piuparts `make piuparts RELEASE=...`: piuparts, and mmdebstrap for its
#           base tarballs and `cargo xtask pkg deb-compat`
#   autopkgtest `make autopkgtest RELEASE=...`: autopkgtest, its QEMU runner
#           (qemu-system-x86, qemu-utils, ovmf) and mmdebstrap
#   arch    the arch suite (`cargo xtask test --suite arch`): the above, arm64 guests (qemu-system-arm, and
#           qemu-user through binfmt_misc for their roots' package scripts),
#           Debian's arm64 cross compiler for the examples run there
#   bench   `cargo xtask bench limit`: demo, plus perftest (raw verbs on the same
#           device) and gnuplot for the plots
#   --print only print the missing Debian packages, one line, and exit
#
# This is the one list of what the project needs: `make demo`, `make check`,
# `make deb` and .ci/run all call it. It knows Debian 12 (bookworm) and
# Debian 13 (trixie); other releases get the bookworm names. As root it
# installs what is missing with apt-get (saying what it installs); as
# another user it prints the `sudo apt-get install` line and exits 1 before
# anything is built.
#
# Rust (1.85 or newer): a cargo already on PATH, rustup's say, is used as it
# is. Where there is none, Debian's own toolchain is installed: cargo-web and
# rustc-web on Debian 12 (1.85 in bookworm, newer in bookworm-security),
# cargo and rustc on Debian 13; `check` adds their clippy and rustfmt, and
# ca-certificates lets cargo reach crates.io; for `check`, the sanitizer
# runtime Debian's rustc lacks (libclang-rt-NN-dev, see xtask/src/fuzz.rs).
# cargo-fuzz, for `check`, comes from crates.io (`cargo install`).
set -euo pipefail

task=${1:-}
case $task in build | demo | check | deb | deb-release | piuparts | autopkgtest | arch | bench) ;; *) sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0"; exit 2 ;; esac
print_only=${2:-}

say() { echo "setup: $*" >&2; }

# shellcheck disable=SC1091
release=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-unknown}")

# Debian packages per task; each task includes the one before it.
build_pkgs=(make gcc pkg-config libibverbs-dev librdmacm-dev)
demo_pkgs=(qemu-system-x86 cpio iproute2 ibverbs-providers librpma0 xz-utils zstd binutils bash-builtins)
deb_pkgs=(dpkg-dev debhelper fakeroot lintian)
check_pkgs=(g++ cmake libclang-dev librpma-dev abigail-tools groff-base man-db valgrind
  mmdebstrap "${deb_pkgs[@]}")

# Debian's Rust toolchain, per release (its package names differ). Debian
# 13's kernel flushes natively, and rxe then takes a flush to persistence
# only into persistent memory: its demo gives the guest an emulated NVDIMM,
# which these tools make a memory node (`cargo xtask demo`).
case $release in
  trixie) rust_pkgs=(cargo rustc) rust_lint_pkgs=(rust-clippy rustfmt)
    demo_pkgs+=(ndctl daxctl numactl) ;;
  *) rust_pkgs=(cargo-web rustc-web) rust_lint_pkgs=(rust-web-clippy rustfmt-web) ;;
esac

wanted=()
case $task in
  build) wanted=("${build_pkgs[@]}") ;;
  demo) wanted=("${build_pkgs[@]}" "${demo_pkgs[@]}") ;;
  deb) wanted=("${build_pkgs[@]}" "${deb_pkgs[@]}") ;;
  check) wanted=("${build_pkgs[@]}" "${demo_pkgs[@]}" "${check_pkgs[@]}") ;;
  deb-release) wanted=(mmdebstrap) ;;
  piuparts) wanted=(mmdebstrap piuparts) ;;
  autopkgtest) wanted=(mmdebstrap autopkgtest qemu-system-x86 qemu-utils ovmf) ;;
  bench) wanted=("${build_pkgs[@]}" "${demo_pkgs[@]}" perftest gnuplot-nox) ;;
  arch) wanted=(mmdebstrap arch-test qemu-user-static binfmt-support qemu-system-arm ipxe-qemu
    gcc-aarch64-linux-gnu libc6-dev-arm64-cross) ;;
esac

# Every task compiles Rust here; the packaging tasks, whose builds run in
# chroots, only the xtask that runs them (`cargo xtask pkg`). Debian's cargo
# is /usr/bin/cargo; any other (rustup's) is kept.
cargo_path=$(command -v cargo || true)
if [ -z "$cargo_path" ] || [ "$cargo_path" = /usr/bin/cargo ]; then
  wanted+=("${rust_pkgs[@]}" ca-certificates)
  [ "$task" = check ] && wanted+=("${rust_lint_pkgs[@]}")
fi

# not_installed PKG...: those of PKG that dpkg does not have installed
not_installed() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}

# apt_install PKG...: apt-get install them, or tell a non-root user how
apt_install() {
  [ $# -gt 0 ] || return 0
  if [ "$(id -u)" != 0 ]; then
    say "'$task' needs Debian packages that are not installed. Install them with:"
    echo "  sudo apt-get install -y --no-install-recommends $*" >&2
    exit 1
  fi
  say "installing for '$task' (Debian $release): $*"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# One run at a time, each looking after the last is done: the runner's arch
# tests start it side by side, and two would race for apt's lock.
if [ -z "$print_only" ] && [ "$(id -u)" = 0 ]; then
  lockdir=/run/lock && [ -d "$lockdir" ] || lockdir=/tmp
  exec {lock}>"$lockdir/rpma-rs-setup.lock" && flock "$lock"
fi
mapfile -t missing < <(not_installed $(printf '%s\n' "${wanted[@]}" | awk '!seen[$0]++'))
if [ -n "$print_only" ]; then
  echo "${missing[*]}"
  exit 0
fi
apt_install "${missing[@]}"

if [ "$task" = arch ]; then
  # qemu-user-static registers its interpreters where binfmt_misc is mounted
  if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    update-binfmts --enable qemu-aarch64
  fi
  exit 0
fi
version=$(cargo --version 2>/dev/null | awk '{print $2}')
if [ -z "$version" ] || dpkg --compare-versions "${version%%-*}" lt 1.85; then
  say "cargo ${version:-is missing}: Rust 1.85 or newer is needed (on Debian: ${rust_pkgs[*]})"
  exit 1
fi

if [ "$task" = check ]; then
  # Debian's rustc ships no sanitizer runtime: `cargo xtask fuzz` links
  # compiler-rt's, of the LLVM that rustc was built with.
  if [ "$(command -v cargo)" = /usr/bin/cargo ]; then
    llvm=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
    mapfile -t missing < <(not_installed "libclang-rt-$llvm-dev")
    apt_install "${missing[@]}"
  fi
  # The short fuzz runs need cargo-fuzz; 0.13.1 is the newest whose locked
  # dependencies build with Rust 1.85 (Debian 13's).
  if ! cargo fuzz --version >/dev/null 2>&1; then
    say "installing for '$task': cargo-fuzz 0.13.1 (cargo install, crates.io)"
    cargo install --quiet --locked cargo-fuzz@0.13.1
  fi
fi
exit 0
