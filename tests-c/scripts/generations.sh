#!/usr/bin/env bash
# generations.sh BUILD-DIR OURS-LIB-DIR C12-LIB-DIR EXAMPLE|older-provider
#
# EXAMPLE: one example's mixed-generation table, in a guest of Debian 13's
# stack (tests.toml's generations.*): each library serves each client, one
# pairing at a time:
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
# On rxe the table is made twice: with every process's memory in the
# guest's persistent memory (RXE_PMEM_NODE), as between hosts with pmem,
# where no pmem entry applies; and in RAM. On soft-iWARP, which has no
# native operation, once (memory "siw", in RAM):
#   noqp    C 1.3.0 asks every queue pair for the extended send operations
#           (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS), which siw's provider cannot
#           make (EOPNOTSUPP): it connects to nothing there, on either side;
#           ours asks only for what the device has.
# Last, the tables must be the ones librpma(7) shows.
#
# older-provider: in a guest of Debian 12's userland (rdma-core 44, whose
# C library is then C12) on Debian 13's kernel (6.12): the device reports
# native flush and atomic write, the provider does not know them and
# refuses a QP that asks for them (EOPNOTSUPP). Our library then makes the
# QP again without them and emulates, so every example that flushes or
# writes atomically runs, ours on both sides and against Debian 12's C
# library (which never asks). An LD_PRELOAD probe (BUILD-DIR/qpprobe.so,
# tests-c/common/qpprobe.c) shows each QP's request.
set -u
build=$1 ex=$4
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ "$ex" = older-provider ]; then
  ours=$2/librpma.so.0 c12=$3/librpma.so.0
  echo "kernel $(uname -r), $(dpkg-query -W -f='libibverbs1 ${Version}' libibverbs1)"
  log=$(mktemp)
  fail=0
  name() { [ "$1" = "$ours" ] && echo ours || echo "C 1.2.0"; }
  for ex in atomic-write write-flush-persistent data-path; do
    for pair in "$ours $ours" "$ours $c12" "$c12 $ours"; do
      set -- $pair
      LD_PRELOAD=$build/qpprobe.so "$here/run-pair.sh" "$1" "$build/example_${ex}_server" \
        "$2" "$build/example_${ex}_client" >"$log" 2>&1
      rc=$?
      echo "$ex: server $(name "$1"), client $(name "$2"): exit $rc;" \
        "$(grep -o 'qpprobe: .*' "$log" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
      [ $rc -eq 0 ] || { fail=1; cat "$log"; }
      # our library asked for the native operations, was refused, and emulated
      if [ "$1" = "$ours" ] && ! grep -q 'qpprobe: send_ops_flags 0x1800: EOPNOTSUPP' "$log"; then
        echo "FAIL: our server did not ask for the native operations"; fail=1
      fi
    done
  done
  rm -f "$log"
  exit $fail
fi
declare -A lib=([c13]=/usr/lib/$(gcc -dumpmachine)/librpma.so.0 [c12]=$3/librpma.so.0 [ours]=$2/librpma.so.0)
echo "$ex: c13 $(dpkg-query -W -f='${Version}' librpma0), c12 ${lib[c12]}, ours ${lib[ours]}; kernel $(uname -r)"

servers=(c13 c12 ours)
clients=(c13 c12 ours ours/emul)
# known[MEMORY:SERVER:CLIENT] = why a pairing with ours fails (see the top)
declare -A known=()
if [ "${RPMA_TESTING_DEVICE:-rxe0}" = siw0 ]; then
  mems=(siw)
  for c in "${clients[@]}"; do known[siw:c13:$c]=noqp; done
  known[siw:ours:c13]=noqp
else
  mems=(pmem ram)
  known=([pmem:c12:ours]=switch [ram:c12:ours]=switch)
  [ "$ex" = write-flush-persistent ] && known[pmem:c13:ours/emul]=emul
  if [ "$ex" != atomic-write ]; then
    for k in c13:ours c13:ours/emul ours:c13 ours:ours; do known[ram:$k]=pmem; done
  fi
fi

work=$(mktemp -d)
# the switch, for the client only: a wrapper that sets it and execs the program
emul=$work/emul-client
printf '#!/bin/sh\nRPMA_NATIVE_FLUSH=0 RPMA_NATIVE_ATOMIC_WRITE=0 exec %q "$@"\n' \
  "$build/example_${ex}_client" >"$emul"
chmod +x "$emul"

fail=0
for mem in "${mems[@]}"; do
  in_mem=()
  [ "$mem" = pmem ] && in_mem=(numactl --membind="$RXE_PMEM_NODE")
  printf '\n## memory: %s\n\n%s\n| server \\ client |' "$mem" "$ex"
  printf ' %s |' "${clients[@]}"; printf '\n|---|'; printf -- '---|%.0s' "${clients[@]}"; echo
  for s in "${servers[@]}"; do
    row=$s
    for c in "${clients[@]}"; do
      cb=$build/example_${ex}_client
      [ "$c" = ours/emul ] && cb=$emul
      if "${in_mem[@]}" "$here/run-pair.sh" "${lib[$s]}" "$build/example_${ex}_server" \
          "${lib[${c%/emul}]}" "$cb" >"$work/log" 2>&1; then
        got=pass
      else
        got=fail
      fi
      cell=$got
      if [ "$s" = ours ] || [[ $c == ours* ]]; then
        why=${known[$mem:$s:$c]:-}
        want=pass; [ -n "$why" ] && want=fail cell="fail ($why)"
        if [ "$got" != "$want" ]; then
          cell="$got (expected $want${why:+: $why})"
          fail=1
          echo "---- $mem: server $s client $c ----" >&2; cat "$work/log" >&2
        fi
      fi
      row+="|$cell"
    done
    echo "| ${row//|/ | } |"
    echo "$mem $ex $row" >>"$work/measured"
  done
done
# librpma(7) shows the tables, each after a comment naming its memory and example
awk -v ex="$ex" -v mems=" ${mems[*]} " '/^\.\\" generations\.sh / {
       key = (index(mems, " " $3 " ") && $4 == ex) ? $3 " " $4 : ""; next }
     /^\.TE/ { key = "" }
     key != "" && /^(c13|c12|ours)\|/ { print key " " $0 }' "$root/man/man7/librpma.7" >"$work/documented"
if ! diff -u "$work/documented" "$work/measured" >"$work/diff"; then
  echo; echo "FAIL: librpma(7) shows other tables than these (- documented, + measured):"
  cat "$work/diff"
  fail=1
fi
rm -rf "$work"
exit $fail
