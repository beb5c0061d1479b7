#!/usr/bin/env bash
# arch-check.sh RELEASE ARCH -- what a machine without that architecture can
# prove of a cross-built librpma.so.0 (`make deb ARCH=ARCH RELEASE=RELEASE`,
# whose output in build/deb-RELEASE-ARCH this checks):
#
#   - its ELF identity against Debian's librpma0:ARCH of the release
#     (`cargo xtask check elf`: ELF class, byte order, machine and ABI
#     flags, SONAME, NEEDED, the 84 functions at LIBRPMA_1.0 and nothing
#     else, abidiff);
#   - the api.* programs (tests-c/api), built with the release's
#     cross-compiler against our header and run under qemu-user, each
#     against ours and against Debian's C library of that architecture
#     (tests-c/scripts/run-diff.sh): both pass, with the same observations.
#
# It runs in a copy of the release's cross-build chroot (scripts/deb-release.sh,
# cached), to which it adds qemu-user-static and Debian's librpma0:ARCH,
# unpacked into a folder of its own (`apt-get download`; never installed, and
# never linked into anything of ours). /proc, /sys and /dev are the host's,
# so libibverbs sees what it sees on the host: no RDMA device. Root only.
set -euo pipefail
release=${1:-} arch=${2:-}
usage() { sed -n '2,${/^#/!q;s/^# \{0,1\}//p}' "$0"; exit 2; }
[ -n "$release" ] && [ -n "$arch" ] && [ "$arch" != amd64 ] || usage
[ "$(id -u)" = 0 ] || { echo "arch-check: needs root (chroot)" >&2; exit 1; }
cd "$(dirname "$0")/.."
say() { echo "arch-check: $*" >&2; }

out=build/deb-$release-$arch
[ -f "$out/librpma.so.0" ] || { say "no $out/librpma.so.0: run make deb ARCH=$arch RELEASE=$release"; exit 1; }
root=${RXE_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/librpma-rs}/deb-$release-$arch/root
[ -d "$root/usr" ] || { say "no cross chroot in $root"; exit 1; }
triplet=$(chroot "$root" dpkg-architecture -a "$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)
qemu_arch=$(chroot "$root" dpkg-architecture -a "$arch" -qDEB_HOST_GNU_CPU 2>/dev/null)
case $qemu_arch in powerpc64le) qemu_arch=ppc64le ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/arch-check.XXXXXX")
# (the host's /proc, /sys and /dev are mounted in a mount namespace of each
# chroot's own, and the removal would not cross into them anyway)
trap 'rm -rf --one-file-system "$work"' EXIT
in_root() {
  unshare --mount --propagation private sh -c \
    'r=$1; shift; for d in proc sys dev; do mount --rbind "/$d" "$r/$d"; done; exec chroot "$r" "$@"' \
    in_root "$r" "$@"
}
cp -a "$root" "$work/root"
r=$work/root
say "$release $arch: qemu-user-static and Debian's librpma0:$arch"
in_root sh -c "
  set -e
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends qemu-user-static >/dev/null
  mkdir -p /t/ref-deb /t/ref /t/ours /t/bin
  chown _apt /t/ref-deb
  cd /t/ref-deb && apt-get download -qq librpma0:$arch
  dpkg-deb -x librpma0_*.deb x
  cp -L x/usr/lib/$triplet/librpma.so.0 /t/ref/
"
say "reference: $(cd "$r/t/ref-deb" && ls librpma0_*.deb)"
cp "$out/librpma.so.0" "$r/t/ours/"
ln -s librpma.so.0 "$r/t/ours/librpma.so"
status=0

echo "== elf.identity.$arch ($release)"
"${CARGO:-cargo}" xtask check elf "$r/t/ours/librpma.so.0" "$r/t/ref/librpma.so.0" || status=1

mkdir -p "$r/t/src"
cp -a tests-c/api tests-c/common include tests-c/scripts/run-diff.sh "$r/t/src/"
echo "== api.* under qemu-$qemu_arch-static ($release $arch)"
in_root env TRIPLET="$triplet" QEMU="qemu-$qemu_arch-static" bash -c '
  set -u
  cd /t/src
  status=0 n=0
  for src in api/*.c; do
    name=$(basename "$src" .c)
    "$TRIPLET-gcc" -std=gnu99 -Wall -Wextra -Werror -pthread -Icommon -Iinclude \
      "$src" common/rpma_test.c -L/t/ours -lrpma -ldl -o "/t/bin/$name" || { status=1; continue; }
    RUN_DIFF_WRAP="$QEMU" ./run-diff.sh "/t/bin/$name" /t/ours /t/ref || status=1
    n=$((n + 1))
  done
  echo "api: $n programs run against both libraries"
  exit $status
' || status=1
[ $status -eq 0 ] && say "$release $arch: passed" || say "$release $arch: FAILED"
exit $status
