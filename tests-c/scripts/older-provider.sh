#!/usr/bin/env bash
# older-provider.sh BUILD-DIR
#
# Debian 12's userland (rdma-core 44) on Debian 13's kernel (6.12): the
# device reports native flush and atomic write, the provider does not know
# them and refuses a QP that asks for them (EOPNOTSUPP). Our library then
# makes the QP again without them and emulates, so every example that
# flushes or writes atomically runs, ours on both sides and against Debian
# 12's C library (which never asks). The QP requests are shown by an
# LD_PRELOAD probe of rdma_create_qp_ex built here.
set -u
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
multiarch=$(gcc -dumpmachine)

if [ "${2:-}" != --guest ]; then
  mkdir -p "$build/older-provider"
  cat >"$build/older-provider/qpprobe.c" <<'PROBE'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <rdma/rdma_cma.h>
/* shows what each QP asked the provider for, and the answer */
int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *a)
{
	int (*real)(struct rdma_cm_id *, struct ibv_qp_init_attr_ex *) =
		(int (*)(struct rdma_cm_id *, struct ibv_qp_init_attr_ex *))
		dlsym(RTLD_NEXT, "rdma_create_qp_ex");
	int ret = real(id, a);

	fprintf(stderr, "qpprobe: send_ops_flags %#llx: %s\n", (unsigned long long)
		((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ? a->send_ops_flags : 0),
		ret == 0 ? "created" : errno == EOPNOTSUPP ? "EOPNOTSUPP" : "failed");
	return ret;
}
PROBE
  gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$build/older-provider/qpprobe.so" \
    "$build/older-provider/qpprobe.c" -ldl || exit 1
  RXE_KERNEL=trixie exec "$root/softroce/rxe-run" "$0" "$build" --guest
fi

echo "kernel $(uname -r), $(dpkg-query -W -f='libibverbs1 ${Version}' libibverbs1)"
ours=$root/build/lib/librpma.so.0 c12=/usr/lib/$multiarch/librpma.so.0
work=$(mktemp -d)
fail=0
for ex in atomic-write write-flush-persistent data-path; do
  for pair in "$ours $ours" "$ours $c12" "$c12 $ours"; do
    set -- $pair
    LD_PRELOAD=$build/older-provider/qpprobe.so "$here/run-pair.sh" "$1" "$build/example_${ex}_server" \
      "$2" "$build/example_${ex}_client" >"$work/log" 2>&1
    rc=$?
    name() { [ "$1" = "$ours" ] && echo ours || echo "C 1.2.0"; }
    echo "$ex: server $(name "$1"), client $(name "$2"): exit $rc;" \
      "$(grep -o 'qpprobe: .*' "$work/log" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
    [ $rc -eq 0 ] || { fail=1; cat "$work/log"; }
    # our library asked for the native operations, was refused, and emulated
    if [ "$1" = "$ours" ] && ! grep -q 'qpprobe: send_ops_flags 0x1800: EOPNOTSUPP' "$work/log"; then
      echo "FAIL: our server did not ask for the native operations"; fail=1
    fi
  done
done
rm -rf "$work"
exit $fail
