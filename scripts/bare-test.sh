#!/usr/bin/env bash
# bare-test.sh -- the README's first command on a bare Debian machine: a
# fresh clone and `make demo`, with no step before it.
#
# usage: scripts/bare-test.sh bookworm|trixie [TARGET]
#
# mmdebstrap makes a minbase root of the release with git and make and
# nothing else. This repository's committed HEAD is cloned into it (from this
# tree, bound read-only at /src), and `make TARGET` (default demo) runs there
# as root, chrooted, with /proc, /sys and /dev of the machine and its network
# (Debian's archive and crates.io). So setup.sh installs everything, Debian's
# own Rust toolchain included, exactly as a new user's first `make demo`
# does. Nothing is cached between runs; the root is removed at the end. The
# whole output goes to build/bare-RELEASE.log. Root only (mmdebstrap's root
# mode, chroot). tests.toml's debian.*.bare run it.
set -euo pipefail

release=${1:-}
target=${2:-demo}
case $release in bookworm | trixie) ;; *) sed -n '2,${/^#/!q;s/^# \{0,1\}//p}' "$0"; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "bare-test: needs root (mmdebstrap, chroot)" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "bare-test: $*" >&2; }
command -v mmdebstrap >/dev/null || "$repo/scripts/setup.sh" deb-release

mkdir -p "$repo/build"
log=$repo/build/bare-$release.log
work=$(mktemp -d "${TMPDIR:-/tmp}/bare-$release.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root

start=$(date +%s)
say "$release: a minbase root with git and make"
# No mirror argument: mmdebstrap then uses the release with its -updates and
# security suites, as Debian's installer sets a new system up.
mmdebstrap --quiet --variant=minbase --include=git,make "$release" "$root" >"$log" 2>&1 \
  || { tail -20 "$log" >&2; say "mmdebstrap failed"; exit 1; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The machine's own certificate authorities (a TLS proxy's, say) are part of
# its network, not of a new system: ca-certificates, once setup.sh installs
# it, takes them from here, and cargo can then reach crates.io.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
fi
mkdir -p "$root/src"

say "$release: git clone, then 'make $target' as root (log: $log)"
set +e
unshare --mount --pid --fork /bin/sh -c '
  set -e
  root=$1 repo=$2 target=$3
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mount --bind -o ro "$repo" "$root/src"
  exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/sh -c "git clone -q /src /root/librpma-rs && cd /root/librpma-rs && git log -1 --format=%h && make $target && echo \"toolchain: \$(command -v cargo) \$(cargo --version)\""
' bare-test "$root" "$repo" "$target" >>"$log" 2>&1
rc=$?
set -e
secs=$(($(date +%s) - start))
if [ $rc -ne 0 ]; then
  tail -30 "$log" >&2
  say "$release: 'make $target' FAILED (exit $rc) after ${secs} s; log: $log"
  exit 1
fi
say "$release: 'make $target' passed from a bare root in ${secs} s ($(sed -n 's/^toolchain: //p' "$log"))"
