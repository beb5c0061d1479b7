#!/usr/bin/env bash
# pool-pin.sh ROOT APT-GET-ARGS... -- `apt-get -y APT-GET-ARGS...` in the
# chroot ROOT, for an archive whose index names files that its pool does
# not serve (scripts/deb-release.sh runs a cross-build chroot's installs
# through it).
#
# Seen for trixie's ppc64el (2026-11-28 to 2026-12-05): the index names the
# latest stable updates of libc6, zlib1g, liblzma5, libzstd1 and libllvm22,
# and the pool answers 404 for their ppc64el files. Before installing, this
# asks apt which files the install needs and tries each. For each file the
# pool lacks it finds the newest earlier update that the pool serves
# (+deb13u4 for +deb13u5, and so on down to the release's own version or a
# binary rebuild of it) and downloads it, with the same version of every
# installed package of the same source and version (Multi-Arch: same wants
# every architecture at one version, and a -dev package wants its library's
# exact version), into ROOT/var/cache/pool-pin, a flat apt repository that
# ROOT/etc/apt/preferences.d/pool-pin pins them to. It repeats until every
# file is served, then installs, allowing the downgrades the pins ask for.
#
# Where the pool serves every file it pins nothing: the pin falls away by
# itself once the archive is mended.
set -euo pipefail
root=$1
shift
repo=/var/cache/pool-pin
prefs=$root/etc/apt/preferences.d/pool-pin
say() { echo "pool-pin: $*" >&2; }
in_root() { chroot "$root" env DEBIAN_FRONTEND=noninteractive "$@"; }
apt() { in_root apt-get -y -qq --allow-downgrades "$@"; }
served() { curl -fsI -o /dev/null "$1"; }
# a version as the pool's file names spell it
quote() { local v=${1//+/%2b}; echo "${v//\~/%7e}"; }
# 1.2-3+deb13u5 -> 1.2-3+deb13u4 ... 1.2-3+deb13u1, then the release's
# own: a binary rebuild of it (1.2-3+b3 ... 1.2-3+b1) or 1.2-3 (the same
# for ~deb13u5, a package new in a stable update)
earlier() {
  local v=$1 stem n
  [[ $v =~ ^(.*[+~]deb[0-9]+u)([0-9]+)$ ]] || return 0
  stem=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]}
  while [ "$n" -gt 1 ]; do n=$((n - 1)); echo "$stem$n"; done
  for n in 3 2 1; do echo "${stem%[+~]deb*}+b$n"; done
  echo "${stem%[+~]deb*}"
}
native=$(in_root dpkg --print-architecture)

# fetch DIR PKG VERSION ARCH: the package into the repository, and its pin
fetch() {
  local file=${2}_${3}_$4.deb epoch name=$2
  [ -f "$root$repo/$file" ] && return 0
  curl -fsS -o "$root$repo/$file" "$1/${2}_$(quote "$3")_$4.deb" || { say "no $file in the pool"; return 1; }
  epoch=$(dpkg-deb -f "$root$repo/$file" Version | sed -n 's/^\([0-9]*:\).*/\1/p')
  # the build architecture's packages go by their plain names
  [ "$4" = "$native" ] || [ "$4" = all ] || name=$2:$4
  printf 'Package: %s\nPin: version %s\nPin-Priority: 1001\n\n' "$name" "$epoch$3" >>"$prefs"
}

for round in 1 2 3 4 5; do
  uris=$(apt --print-uris "$@") || { say "apt-get $*: no plan"; exit 1; }
  missing=()
  # (file: URIs are this repository's own)
  for uri in $(awk '{ print $1 }' <<<"$uris" | tr -d "'" | grep -v '^file:'); do
    served "$uri" || missing+=("$uri")
  done
  [ ${#missing[@]} -gt 0 ] || break
  [ "$round" -lt 5 ] || { say "still missing: ${missing[*]}"; exit 1; }
  mkdir -p "$root$repo"
  for uri in "${missing[@]}"; do
    dir=${uri%/*}
    IFS=_ read -r pkg ver arch <<<"$(basename "$uri" .deb | sed 's/%2b/+/g; s/%7e/~/g; s/%3a/:/g')"
    # an earlier update may be in the security archive's pool or the main
    # one's; the release's own version is in the main one's
    found=
    for v in $(earlier "$ver"); do
      for d in "$dir" "${dir/debian-security\/pool\/updates/debian/pool}"; do
        if served "$d/${pkg}_$(quote "$v")_$arch.deb"; then found=$v dir=$d; break 2; fi
      done
    done
    [ -n "$found" ] || { say "the pool serves no earlier update of $pkg $ver for $arch"; exit 1; }
    say "$pkg:$arch $ver is not in the pool: pinning $found"
    fetch "$dir" "$pkg" "$found" "$arch"
    src=$(dpkg-deb -f "$root$repo/${pkg}_${found}_$arch.deb" Source | cut -d' ' -f1)
    while read -r spkg sarch; do
      fetch "$dir" "$spkg" "$found" "$sarch"
    done < <(in_root dpkg-query -W -f '${source:Package} ${Package} ${Architecture} ${Version}\n' |
      awk -v s="${src:-$pkg}" -v v="$ver" '{ sub(/^[0-9]+:/, "", $4) } $1 == s && $4 == v { print $2, $3 }')
  done
  (cd "$root$repo" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null >Packages)
  echo "deb [trusted=yes] file:$repo ./" >"$root/etc/apt/sources.list.d/pool-pin.list"
  in_root apt-get update -qq
done
apt "$@" >/dev/null
