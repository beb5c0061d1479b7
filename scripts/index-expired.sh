#!/usr/bin/env bash
# index-expired.sh SUITE -- whether the mirror serves SUITE's index past its
# Valid-Until: exit 0 and print that date if so, 1 if not (or the index
# cannot be had).
#
# forky's and sid's Release files expire a week after they are made, and
# the archive remakes them daily; a mirror that has stopped syncing serves
# expired ones, which apt refuses unless Check-Valid-Until is off. A stable
# release's Release file has no Valid-Until.
set -euo pipefail
f=$(mktemp)
trap 'rm -f "$f"' EXIT
/usr/lib/apt/apt-helper download-file "http://deb.debian.org/debian/dists/$1/InRelease" "$f" \
  >/dev/null 2>&1 || exit 1
until=$(sed -n 's/^Valid-Until: //p' "$f")
[ -n "$until" ] && [ "$(date -u -d "$until" +%s)" -lt "$(date -u +%s)" ] || exit 1
echo "$until"
