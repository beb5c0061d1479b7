#!/usr/bin/env bash
# deb-release.sh -- build librpma0 and librpma-dev the way Debian's build
# daemons do: in a clean chroot of one release, with only that release's
# packages, and with the build step cut off from the network.
#
# usage: scripts/deb-release.sh bookworm|trixie OUT-DIR [ARCH]
#
# ARCH (default amd64, the build machine's) cross-builds the packages of
# another architecture the way Debian cross-builds: `dpkg-buildpackage -a
# ARCH` in a chroot with that architecture added (multiarch), its
# crossbuild-essential, and the Build-Depends resolved for it (`apt-get
# build-dep -a ARCH`): the build machine's rustc and cargo, the target's
# Rust standard library (libstd-rust-dev, or libstd-rust-web-dev on Debian
# 12), libibverbs-dev and librdmacm-dev. riscv64 is in Debian 13 only.
#
# The chroot is mmdebstrap's buildd variant of the release (with its -updates
# and security suites, unless MIRROR names one source) plus the source's
# Build-Depends, resolved by `apt-get build-dep` over debian/control: the
# release's own Rust toolchain and the crates as librust-*-dev packages, whose
# sources land in /usr/share/cargo/registry. It is built once per release and
# Build-Depends (about 1-3 min and 250 MB of packages) and cached in
# RXE_CACHE_ROOT (default ~/.cache/librpma-rs)/deb-RELEASE; every build runs
# in a fresh copy of it. The source is this tree's files (tracked and
# untracked, less what git ignores). `dpkg-buildpackage -b` runs in new
# network, mount and PID namespaces (`unshare -n`: no interface but a
# loopback that is down), so cargo can only take crates from the Debian
# registry (debian/rules). lintian checks the result inside the chroot, with
# the release's own lintian. The packages, .buildinfo, .changes and the build
# log go to OUT-DIR. Root only (chroot, mknod).
set -euo pipefail

release=${1:-}
out=${2:-}
arch=${3:-amd64}
usage() { sed -n '2,${/^#/!q;s/^# \{0,1\}//p}' "$0"; exit 2; }
case $release in bookworm | trixie) ;; *) usage ;; esac
case $release/$arch in */amd64 | */arm64 | */ppc64el | trixie/riscv64) ;; *)
  echo "deb-release: no $arch in $release's librpma0 architectures" >&2; exit 2 ;;
esac
[ -n "$out" ] || { sed -n '2,${/^#/!q;s/^# \{0,1\}//p}' "$0"; exit 2; }
[ "$(id -u)" = 0 ] || { echo "deb-release: needs root (chroot)" >&2; exit 1; }
cd "$(dirname "$0")/.."
say() { echo "deb-release: $*" >&2; }

suffix=$release
[ "$arch" = amd64 ] || suffix=$release-$arch
cache=${RXE_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/librpma-rs}/deb-$suffix
root=$cache/root
cross=() cross_hooks=() build_arch=()
if [ "$arch" != amd64 ]; then
  # apt resolves the compiler's and the standard library's alternatives
  # (the plain and the -web builds) each on its own, and may pair one's
  # compiler with the other's library (seen on Debian 13): the target's
  # standard library is then made the one of the compiler installed.
  match_std='set -e; c=rustc; dpkg -s rustc-web >/dev/null 2>&1 && c=rustc-web
    v=$(dpkg-query -W -f "\${Version}" $c); s=libstd-rust-dev; [ $c = rustc ] || s=libstd-rust-web-dev
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$s:'"$arch"'=$v" >/dev/null'
  cross=(--architectures=amd64,"$arch" --include=crossbuild-essential-"$arch")
  cross_hooks=(--customize-hook="chroot \"\$1\" sh -c '$match_std'")
  build_arch=(-a "$arch")
fi
# The chroot is made again when the Build-Depends change.
stamp="$release $arch $(sed -n '/^Build-Depends:/,/^[A-Z]/p' debian/control | tr -s ' \n' ' ')"
if ! { [ -f "$cache/stamp" ] && [ "$(cat "$cache/stamp")" = "$stamp" ] && [ -d "$root/usr" ]; }; then
  command -v mmdebstrap >/dev/null || {
    say "installing mmdebstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
  }
  say "building the clean $release chroot in $root (first use only)"
  mkdir -p "$cache"
  rm -rf "$root" "$root.tmp" "$cache/stamp"
  mmdebstrap --quiet --variant=buildd --include=lintian "${cross[@]}" \
    --customize-hook='mkdir -p "$1/tmp/deps"' \
    --customize-hook='copy-in debian /tmp/deps' \
    --customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get build-dep ${build_arch[*]} -y -qq /tmp/deps >/dev/null" \
    --customize-hook='rm -rf "$1/tmp/deps"' "${cross_hooks[@]}" \
    "$release" "$root.tmp" ${MIRROR:+"$MIRROR"} >&2
  mv "$root.tmp" "$root"
  echo "$stamp" >"$cache/stamp"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/deb-$suffix.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -a "$root" "$work/root"
src=$work/root/build/rpma-rs
mkdir -p "$src"
git ls-files -z -co --exclude-standard | tar -c --null -T - | tar -x -C "$src"

say "$release $arch: dpkg-buildpackage -b${build_arch:+ ${build_arch[*]}} with no network"
set +e
unshare --net --mount --pid --fork --mount-proc="$work/root/proc" \
  chroot "$work/root" env BUILD_ARCH="${build_arch[*]}" /bin/sh -c '
    set -e
    echo "network interfaces: $(sed -n "s/^ *\([a-z0-9]*\):.*/\1/p" /proc/net/dev | tr "\n" " ")"
    cd /build/rpma-rs
    DEB_BUILD_OPTIONS="parallel=$(nproc) nocheck" dpkg-buildpackage $BUILD_ARCH -b -us -uc
    cd /build
    lintian --fail-on error ./*.changes
  ' >"$work/build.log" 2>&1
rc=$?
set -e
mkdir -p "$out"
rm -f "$out"/*.deb "$out"/*.ddeb "$out"/*.changes "$out"/*.buildinfo
cp "$work/build.log" "$out/build.log"
if [ $rc -ne 0 ]; then
  tail -40 "$work/build.log" >&2
  say "$release $arch: the build failed (log: $out/build.log)"
  exit 1
fi
cp "$work"/root/build/*.deb "$work"/root/build/*.changes "$work"/root/build/*.buildinfo "$out"/
cp "$work"/root/build/*.ddeb "$out"/ 2>/dev/null || true
grep -E '^(network interfaces|dpkg-deb: building)' "$out/build.log" >&2 || true
# the library as built, before dh_strip: what `make ARCH=...` hands out
cp "$work"/root/build/rpma-rs/build/lib/librpma.so.0 "$out"/
say "$release $arch: packages in $out"
