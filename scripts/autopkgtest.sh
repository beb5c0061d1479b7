#!/usr/bin/env bash
# autopkgtest.sh -- debian/tests run by Debian's autopkgtest against the
# packages of `make deb RELEASE=...`, in a QEMU VM of that release, as
# debci runs them on its isolation-machine workers.
#
# usage: scripts/autopkgtest.sh bookworm|trixie|forky|sid [DEB-DIR] [AUTOPKGTEST-OPTION...]
#
# DEB-DIR (default build/deb-RELEASE) holds librpma0 and librpma-dev; the
# tests come from this tree (its files as deb-release.sh takes them), so an
# edit of debian/tests needs no new build. The VM image is made by
# mmdebstrap-autopkgtest-build-qemu (generic kernel, EFI boot) and cached in
# RXE_CACHE_ROOT (default ~/.cache/librpma-rs)/autopkgtest/RELEASE.img;
# it is made again when it is older than IMAGE_MAX_DAYS (default 7), and
# each run upgrades the VM from the archive first (--apt-upgrade). That
# tool needs mmdebstrap 1.4 and e2fsprogs 1.47.1, newer than Debian 12's:
# it runs in a Debian 13 chroot cached beside the images (tools-trixie).
# The run itself (autopkgtest-virt-qemu, this machine's autopkgtest) holds
# /tmp/librpma-qemu.lock, the one QEMU guest at a time; its log and
# artifacts go to build/autopkgtest-RELEASE. MIRROR picks another mirror;
# SHOW_BOOT=1 shows the VM's boot console.
set -euo pipefail

release=${1:-}
case $release in bookworm | trixie | forky | sid) ;; *) sed -n '2,/^set/{/^#/!q;s/^# \{0,1\}//p}' "$0"; exit 2 ;; esac
shift
debs=build/deb-$release
[ $# -gt 0 ] && [ "${1#-}" = "$1" ] && { debs=$1; shift; }
cd "$(dirname "$0")/.."
say() { echo "autopkgtest.sh: $*" >&2; }
[ "$(id -u)" = 0 ] || { say "needs root (chroot, mount)"; exit 1; }
shopt -s nullglob
packages=("$debs"/librpma0_*.deb "$debs"/librpma-dev_*.deb)
[ ${#packages[@]} = 2 ] || { say "no librpma0 and librpma-dev in $debs: make deb RELEASE=$release"; exit 1; }

cache=${RXE_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/librpma-rs}/autopkgtest
tools=$cache/tools-trixie image=$cache/$release.img
mkdir -p "$cache"
if [ ! -x "$tools/usr/bin/mmdebstrap-autopkgtest-build-qemu" ]; then
  say "making the Debian 13 chroot of the image tools in $tools (first use only)"
  rm -rf "$tools" "$tools.tmp"
  mmdebstrap --quiet --variant=apt --include=mmdebstrap,autopkgtest,dosfstools,e2fsprogs,fdisk,mount,mtools,passwd,uidmap,systemd-boot-efi,binutils,dpkg-dev,uuid-runtime,libarchive13t64 \
    trixie "$tools.tmp" ${MIRROR:+"$MIRROR"} >&2
  mv "$tools.tmp" "$tools"
fi
if [ -z "$(find "$image" -mtime -"${IMAGE_MAX_DAYS:-7}" 2>/dev/null)" ]; then
  say "making the $release VM image $image"
  start=$SECONDS
  mkdir -p "$tools/out" "$tools/opt/expired"
  # a mirror serving sid's or forky's index past its Valid-Until: the image
  # (and so the VM's apt) is made with Check-Valid-Until off
  path=/usr/sbin:/usr/bin:/sbin:/bin
  if [ -z "${MIRROR:-}" ] && until=$(scripts/index-expired.sh "$release"); then
    say "the mirror's $release index expired on $until: the image's apt does not check Valid-Until"
    printf '#!/bin/sh\nexec /usr/bin/mmdebstrap --aptopt="Acquire::Check-Valid-Until \\"false\\"" "$@"\n' >"$tools/opt/expired/mmdebstrap"
    chmod +x "$tools/opt/expired/mmdebstrap"
    path=/opt/expired:$path
  fi
  P=$path unshare --mount --fork sh -c 'set -e; t=$1; shift
    mount --rbind /dev "$t/dev"; mount -t proc proc "$t/proc"; mount --rbind /sys "$t/sys"
    mount -t tmpfs tmp "$t/tmp"; mount --bind "$0" "$t/out"
    chroot "$t" env -i PATH="$P" HOME=/root LANG=C.UTF-8 "$@"' \
    "$cache" "$tools" mmdebstrap-autopkgtest-build-qemu --boot=efi --size=20G \
    ${MIRROR:+--mirror="$MIRROR"} "$release" "/out/$release.img.tmp" >"$cache/$release.log" 2>&1 ||
    { tail -30 "$cache/$release.log" >&2; say "the image failed (log: $cache/$release.log)"; exit 1; }
  mv "$image.tmp" "$image"
  say "$release image made in $((SECONDS - start)) s"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/autopkgtest-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir "$src"
git ls-files -z -co --exclude-standard | tar -c --null -T - | tar -x -C "$src"
out=build/autopkgtest-$release
rm -rf "$out"
say "$release: $(basename -a "${packages[@]}" | tr '\n' ' ')in a VM (waiting for the QEMU lock)"
start=$SECONDS
rc=0
# KVM on this kind of nested host stops OVMF with an emulation failure (as
# softroce/rxe-run found for its kernels), and autopkgtest-virt-qemu adds
# -enable-kvm whenever /dev/kvm exists: its QEMU goes through a wrapper that
# drops that option, so the VM runs on TCG. KVM=1 keeps it.
qemu=$work/qemu-tcg
printf '#!/bin/sh\nfor a; do shift; [ "$a" = -enable-kvm ] || set -- "$@" "$a"; done\nexec qemu-system-x86_64 -accel tcg "$@"\n' >"$qemu"
chmod +x "$qemu"
vm_options=(--boot=efi --cpus=2 --ram-size=4096 --timeout-reboot=600 ${SHOW_BOOT:+--show-boot})
[ -n "${KVM:-}" ] || vm_options+=(--qemu-command="$qemu" --qemu-options="-cpu max")
lock=(flock /tmp/librpma-qemu.lock)
[ -z "${RPMA_QEMU_LOCKED:-}" ] || lock=() # cargo xtask test holds it
"${lock[@]}" autopkgtest --output-dir "$out" --apt-upgrade "$@" "${packages[@]}" "$src/" \
  -- qemu "${vm_options[@]}" "$image" || rc=$?
say "$release: autopkgtest exited $rc after $((SECONDS - start)) s; log: $out/log, results: $out/summary"
cat "$out/summary" 2>/dev/null || true
exit $rc
