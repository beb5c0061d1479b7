#!/usr/bin/env bash
# generations.sh BUILD-DIR [--guest]
#
# The mixed-generation table: on Debian 13's stack (rxe with native FLUSH and
# ATOMIC WRITE), every example that flushes or writes atomically runs with
# each library as the server and each as the client:
#   c13   Debian 13's C librpma 1.3.0 (native operations);
#   c12   Debian 12's C librpma 1.2.0 (always emulates: the old generation);
#   ours  this library;
#   ours/emul  this library with RPMA_NATIVE_FLUSH=0 RPMA_NATIVE_ATOMIC_WRITE=0
#         (the run-time switch, client side only).
# Every pairing with ours on one side must pass, except those librpma(7)
# explains, listed in `known` below with their reason; the C-with-C
# pairings are reported as they come out, never asserted. In short:
#   switch  a client that flushes natively (C 1.3.0, and ours by default, as
#           C 1.3.0 does) cannot flush to a C 1.2.0 server, whose regions
#           grant only the read the emulation needs; RPMA_NATIVE_FLUSH=0 on
#           the client (ours/emul) makes it work;
#   pmem    a native flush to persistence needs a region with the FLUSH
#           PERSISTENT right, which the device grants on persistent memory
#           only: rxe refuses it (EINVAL) for the RAM these examples use.
#           C 1.3.0 as a server then cannot register the region at all;
#           ours registers it without that right, so emulating clients can
#           flush to it, but native ones cannot.
#
# Without --guest it prepares Debian 12's library (the host's own, when the
# host is Debian 12) and boots the trixie guest, which runs this script
# again with --guest.
set -u
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
multiarch=$(gcc -dumpmachine)

if [ "${2:-}" != --guest ]; then
  c12=$build/generations/c12/librpma.so.0
  mkdir -p "$(dirname "$c12")"
  ver=$(dpkg-query -W -f='${Version}' librpma0 2>/dev/null)
  case $ver in
    1.2.*) cp "/usr/lib/$multiarch/librpma.so.0" "$c12" ;;
    *) echo "FAIL: Debian 12's librpma0 (1.2.0) is needed as the old generation; this host has '$ver'"; exit 1 ;;
  esac
  RXE_STACK=trixie exec "$root/softroce/rxe-run" "$0" "$build" --guest
fi

declare -A lib=(
  [c13]=/usr/lib/$multiarch/librpma.so.0
  [c12]=$build/generations/c12/librpma.so.0
  [ours]=$root/build/lib/librpma.so.0
)
# the switch, for the client only: a wrapper that sets it and execs the program
work=$(mktemp -d)
emul() {
  local w=$work/emul-$(basename "$1")
  printf '#!/bin/sh\nRPMA_NATIVE_FLUSH=0 RPMA_NATIVE_ATOMIC_WRITE=0 exec %q "$@"\n' "$1" >"$w"
  chmod +x "$w"
  echo "$w"
}
echo "c13: $(dpkg-query -W -f='${Version}' librpma0) ($(readlink -f "${lib[c13]}"))"
echo "c12: ${lib[c12]}; ours: ${lib[ours]}; kernel $(uname -r)"

fail=0
servers=(c13 c12 ours)
clients=(c13 c12 ours ours/emul)
# known[EXAMPLE:SERVER:CLIENT] = why a pairing with ours fails (see the top)
declare -A known=(
  [write-flush-persistent:c13:ours]=pmem [write-flush-persistent:c13:ours/emul]=pmem
  [write-flush-persistent:c12:ours]=switch
  [write-flush-persistent:ours:c13]=pmem [write-flush-persistent:ours:ours]=pmem
  [atomic-write:c12:ours]=switch
  [data-path:c13:ours]=pmem [data-path:c13:ours/emul]=pmem
  [data-path:c12:ours]=switch
  [data-path:ours:c13]=pmem [data-path:ours:ours]=pmem
)
for ex in write-flush-persistent atomic-write data-path; do
  srv=$build/example_${ex}_server cli=$build/example_${ex}_client
  printf '\n%s\n| server \\ client |' "$ex"
  printf ' %s |' "${clients[@]}"; printf '\n|---|'; printf -- '---|%.0s' "${clients[@]}"; echo
  for s in "${servers[@]}"; do
    printf '| %s |' "$s"
    for c in "${clients[@]}"; do
      cl=${lib[${c%/emul}]} cb=$cli
      [ "$c" = ours/emul ] && cb=$(emul "$cli")
      log=$work/$ex.$s.${c/\//-}.log
      if "$here/run-pair.sh" "${lib[$s]}" "$srv" "$cl" "$cb" >"$log" 2>&1; then got=pass; else got=fail; fi
      cell=$got
      if [ "$s" = ours ] || [[ $c == ours* ]]; then
        why=${known[$ex:$s:$c]:-}
        want=pass; [ -n "$why" ] && want=fail cell="fail ($why)"
        if [ "$got" != "$want" ]; then
          cell="$got (expected $want${why:+: $why})"
          fail=1
          echo >&2; echo "---- $ex server $s client $c ----" >&2; cat "$log" >&2
        fi
      fi
      printf ' %s |' "$cell"
    done
    echo
  done
done
rm -rf "$work"
exit $fail
