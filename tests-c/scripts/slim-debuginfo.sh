#!/usr/bin/env bash
# slim-debuginfo.sh COMMAND [ARG...] -- runs COMMAND (a valgrind memcheck
# run) in a mount namespace of its own, where /usr/lib/debug holds only the
# dynamic loader's detached debugging information.
#
# Valgrind reads the detached debugging information of every object a
# process maps, and in the emulated guest glibc's (libc6-dbg) is most of a
# memcheck run's start-up. Memcheck needs only the loader's: its mandatory
# redirections are found there, and its malloc and string replacements go
# by libc's exported symbols. A report then names libc's frames by those
# symbols only. Helgrind and DRD need glibc's too (they follow the locks
# inside pthread_cond_wait): never use this for them.
#
# When it cannot be done (not root, no unshare, no such file), COMMAND runs
# as it is, which is only slower.
set -u
[ $# -ge 1 ] || { sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0"; exit 2; }
ldso=$(readlink -f /lib64/ld-linux-x86-64.so.2 2>/dev/null)
id=$(readelf -n "$ldso" 2>/dev/null | awk '/Build ID:/ {print $3}')
src=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
keep=/tmp/slim-debuginfo-$id
if [ -n "$id" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && [ -f "$src" ]; then
  if [ ! -d "$keep" ]; then
    # made once, then moved into place whole: runs side by side may race
    tmp=$(mktemp -d /tmp/slim-debuginfo.XXXXXX)
    mkdir -p "$tmp/.build-id/${id:0:2}" && cp "$src" "$tmp/.build-id/${id:0:2}/" &&
      { mv -T "$tmp" "$keep" 2>/dev/null || rm -rf "$tmp"; }
  fi
  if [ -f "$keep/.build-id/${id:0:2}/${id:2}.debug" ]; then
    exec unshare -m bash -c 'mount --bind "$0" /usr/lib/debug; exec "$@"' "$keep" "$@"
  fi
fi
exec "$@"
