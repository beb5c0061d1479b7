#!/usr/bin/env bash
# piuparts.sh -- Debian's piuparts on the librpma0 and librpma-dev of `make
# deb RELEASE=...`, then scripts/deb-compat.sh (a program built against
# Debian's C librpma across the upgrade to ours and the downgrade back).
#
# usage: scripts/piuparts.sh bookworm|trixie|forky|sid DEB-DIR
#
#   install  piuparts -d RELEASE: install both packages, purge them, and find
#            what is left or broken. On bookworm and trixie, whose archive has
#            Debian's C librpma0, piuparts also installs that first and
#            upgrades it to ours.
#   upgrade  forky and sid only (their archive has no librpma0): piuparts -d
#            trixie -d RELEASE installs Debian 13's C librpma0 and librpma-dev
#            (1.3.0-2+b3), upgrades the system to RELEASE, then installs ours
#            over them.
#   compat   scripts/deb-compat.sh RELEASE DEB-DIR
#
# The base chroots are mmdebstrap's minbase tarballs of RELEASE (and trixie),
# made once and kept in RXE_CACHE_ROOT (default ~/.cache/librpma-rs), as
# piuparts-RELEASE.tar.gz; a day-old one is made again. They hold the
# rdma-core libraries librpma0 links (libibverbs1, librdmacm1): purging
# those is not librpma's to test, and on forky and sid it purges the systemd
# that libibverbs1 takes for its system user, which leaves files behind.
# Symlinks that the base system leaves broken (/etc/vconsole.conf on sid)
# are warnings, as piuparts has them by default. piuparts' logs go to
# DEB-DIR/piuparts-*.log. Root only.
set -euo pipefail

release=${1:-}
debs=${2:-}
case $release in bookworm | trixie | forky | sid) ;; *)
  sed -n '2,${/^#/!q;s/^# \{0,1\}//p}' "$0"; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "piuparts: needs root" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t pkgs < <(ls "$debs"/librpma0_*_amd64.deb "$debs"/librpma-dev_*_amd64.deb 2>/dev/null)
[ ${#pkgs[@]} = 2 ] || { echo "piuparts: no packages in $debs: run make deb RELEASE=$release" >&2; exit 1; }
cache=${RXE_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/librpma-rs}
mkdir -p "$cache"
say() { echo "piuparts: $*" >&2; }

# expired SUITE: the mirror serves SUITE's index past its Valid-Until
expired() { "$here/index-expired.sh" "$1" >/dev/null; }

# base SUITE: the cached minbase tarball of SUITE, made when missing or old
base() {
  local t=$cache/piuparts-$1.tar.gz opt=() rdmacm=librdmacm1t64
  [ "$1" != bookworm ] || rdmacm=librdmacm1
  if [ -z "$(find "$t" -mmin -1440 2>/dev/null)" ]; then
    expired "$1" && opt=(--aptopt='Acquire::Check-Valid-Until "false"')
    say "making the $1 base tarball $t"
    mmdebstrap --quiet --variant=minbase --include=libibverbs1,$rdmacm "${opt[@]}" "$1" "$t.tmp.tar.gz" >&2
    mv "$t.tmp.tar.gz" "$t"
  fi
  echo "$t"
}

# the archive's own mirror, not what this machine's sources.list names;
# debconf's scratch directory, which piuparts 1.6 (trixie's, sid's) ignores
# itself and Debian 12's 1.1.7 does not
opts=(--mirror "http://deb.debian.org/debian main" --ignore=/var/cache/debconf/tmp.ci/)
if expired "$release"; then
  say "the mirror's $release index has expired: piuparts --no-check-valid-until"
  opts+=(--no-check-valid-until)
fi
fail=
rm -f "$debs"/piuparts-*.log
base_release=$(base "$release")

# --pedantic-purge-test: files left in /tmp count too
say "install and purge on $release: ${pkgs[*]##*/}"
if piuparts --pedantic-purge-test "${opts[@]}" \
  -d "$release" -b "$base_release" -l "$debs/piuparts-install.log" "${pkgs[@]}" >/dev/null 2>&1; then
  say "install: $(grep -o 'PASS: .*' "$debs/piuparts-install.log" | tr '\n' ' ')"
else
  tail -30 "$debs/piuparts-install.log" >&2
  fail="$fail install"
fi

case $release in forky | sid)
  base_trixie=$(base trixie)
  say "upgrade: trixie's librpma0 and librpma-dev, the system to $release, then ours"
  if piuparts "${opts[@]}" -d trixie -d "$release" -b "$base_trixie" \
    -l "$debs/piuparts-upgrade.log" "${pkgs[@]}" >/dev/null 2>&1; then
    say "upgrade: $(grep -o 'PASS: .*' "$debs/piuparts-upgrade.log" | tr '\n' ' ')"
  else
    tail -30 "$debs/piuparts-upgrade.log" >&2
    fail="$fail upgrade"
  fi
  ;;
esac

say "compat: a program built against Debian's C librpma-dev, across the upgrade and back"
"$here/deb-compat.sh" "$release" "$debs" || fail="$fail compat"

[ -z "$fail" ] || { say "$release: failed:$fail"; exit 1; }
say "$release: passed"
