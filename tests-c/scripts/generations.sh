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
#           only: rxe refuses it (EINVAL) for RAM. C 1.3.0 as a server then
#           cannot register the region at all; ours registers it without
#           that right, so emulating clients can flush to it, but native
#           ones cannot;
#   emul    the switch has its price: a C 1.3.0 server's region grants no
#           remote read, so a client that emulates the flush cannot flush
#           to it (the same as C 1.2.0 as the client); ours by default can.
# The table is made twice: with every process's memory in the guest's
# persistent memory (softroce/rxe-run RXE_PMEM_MB), as between hosts with
# pmem, where no pmem entry applies; and with it in RAM.
#
# With RXE_DEVICE=siw the guest's device is soft-iWARP instead, which has no
# native operation, and the table is made once (memory "siw", in RAM) for
# the two examples that need no immediate data, which siw lacks:
#   noqp    C 1.3.0 asks every queue pair for the extended send operations
#           (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS), which siw's provider cannot
#           make (EOPNOTSUPP): it connects to nothing there, on either side;
#           ours asks only for what the device has.
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
  "$here/c12-lib.sh" "$build" >/dev/null || exit 1
  pmem=(RXE_PMEM_MB=2048); [ "${RXE_DEVICE:-rxe}" = siw ] && pmem=()
  exec env RXE_STACK=trixie "${pmem[@]}" "$root/softroce/rxe-run" "$0" "$build" --guest
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
# known[MEMORY:EXAMPLE:SERVER:CLIENT] = why a pairing with ours fails (see the top)
declare -A known=()
if [ "${RPMA_TESTING_DEVICE:-rxe0}" = siw0 ]; then
  mems=(siw) examples=(write-flush-persistent atomic-write)
  for ex in "${examples[@]}"; do
    for c in "${clients[@]}"; do known[siw:$ex:c13:$c]=noqp; done
    known[siw:$ex:ours:c13]=noqp
  done
else
  mems=(pmem ram) examples=(write-flush-persistent atomic-write data-path)
  known=(
    [pmem:write-flush-persistent:c13:ours/emul]=emul
    [ram:write-flush-persistent:c13:ours]=pmem [ram:write-flush-persistent:c13:ours/emul]=pmem
    [ram:write-flush-persistent:ours:c13]=pmem [ram:write-flush-persistent:ours:ours]=pmem
    [ram:data-path:c13:ours]=pmem [ram:data-path:c13:ours/emul]=pmem
    [ram:data-path:ours:c13]=pmem [ram:data-path:ours:ours]=pmem
  )
  for mem in "${mems[@]}"; do
    for ex in "${examples[@]}"; do known[$mem:$ex:c12:ours]=switch; done
  done
fi
# every pairing, in two lanes that share the guest's two CPUs, each lane's
# servers on a port range of its own (run-pair.sh); the tables come after
cell_key() { echo "$1.$2.$3.${4/\//-}"; }
run_cell() {
  local mem=$1 ex=$2 s=$3 c=$4 in_mem=() cl cb key
  [ "$mem" = pmem ] && in_mem=(numactl --membind="$RXE_PMEM_NODE")
  cl=${lib[${c%/emul}]} cb=$build/example_${ex}_client
  [ "$c" = ours/emul ] && cb=$work/emul-$(basename "$cb")
  key=$(cell_key "$@")
  if "${in_mem[@]}" "$here/run-pair.sh" "${lib[$s]}" "$build/example_${ex}_server" "$cl" "$cb" \
      >"$work/$key.log" 2>&1; then
    echo pass >"$work/$key.got"
  else
    echo fail >"$work/$key.got"
  fi
}
# the wrappers are made before the lanes start, which only run them
for ex in "${examples[@]}"; do emul "$build/example_${ex}_client" >/dev/null; done
lane() { local a; while read -r -a a; do run_cell "${a[@]}"; done; }
for mem in "${mems[@]}"; do
  for ex in "${examples[@]}"; do
    for s in "${servers[@]}"; do
      for c in "${clients[@]}"; do echo "$mem $ex $s $c"; done
    done
  done
done >"$work/cells"
awk 'NR % 2 == 1' "$work/cells" | RPMA_TEST_PORT_BASE=20000 RPMA_TEST_PORT_SPAN=6000 lane &
awk 'NR % 2 == 0' "$work/cells" | RPMA_TEST_PORT_BASE=26000 RPMA_TEST_PORT_SPAN=6000 lane
wait

for mem in "${mems[@]}"; do
  printf '\n## memory: %s\n' "$mem"
  for ex in "${examples[@]}"; do
    printf '\n%s\n| server \\ client |' "$ex"
    printf ' %s |' "${clients[@]}"; printf '\n|---|'; printf -- '---|%.0s' "${clients[@]}"; echo
    for s in "${servers[@]}"; do
      printf '| %s |' "$s"
      row=$s
      for c in "${clients[@]}"; do
        key=$(cell_key "$mem" "$ex" "$s" "$c")
        got=$(cat "$work/$key.got" 2>/dev/null || echo "not run")
        cell=$got
        if [ "$s" = ours ] || [[ $c == ours* ]]; then
          why=${known[$mem:$ex:$s:$c]:-}
          want=pass; [ -n "$why" ] && want=fail cell="fail ($why)"
          if [ "$got" != "$want" ]; then
            cell="$got (expected $want${why:+: $why})"
            fail=1
            echo >&2; echo "---- $mem: $ex server $s client $c ----" >&2; cat "$work/$key.log" >&2
          fi
        fi
        printf ' %s |' "$cell"
        row+="|$cell"
      done
      echo
      echo "$mem $ex $row" >>"$work/measured"
    done
  done
done
# librpma(7) shows these tables: each follows a comment naming it (those of
# the memories of this run)
awk -v mems=" ${mems[*]} " '/^\.\\" generations\.sh / { key = index(mems, " " $3 " ") ? $3 " " $4 : ""; next }
     /^\.TE/ { key = "" }
     key != "" && /^(c13|c12|ours)\|/ { print key " " $0 }' "$root/man/man7/librpma.7" >"$work/documented"
if ! diff -u "$work/documented" "$work/measured" >"$work/diff"; then
  echo; echo "FAIL: librpma(7) shows other tables than these (- documented, + measured):"
  cat "$work/diff"
  fail=1
fi
rm -rf "$work"
exit $fail
