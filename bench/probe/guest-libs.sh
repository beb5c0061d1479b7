# SPDX-License-Identifier: BSD-3-Clause
# bench/probe/guest-libs.sh -- sourced by the probes' guest sides (with
# `here` set to bench/probe): the guest's address, the two libraries
# (RPMA_BENCH_OURS and RPMA_BENCH_C, as for bench/run.sh) and dir_of[ours|c],
# the folder each is loaded from.
ip=${RPMA_TESTING_IP:?not in the rxe guest}
ours=$(realpath "${RPMA_BENCH_OURS:-$here/../../build/lib/librpma.so.0}")
clib=$(realpath "${RPMA_BENCH_C:-/usr/lib/x86_64-linux-gnu/librpma.so.0}")
declare -A dir_of=([ours]=$(dirname "$ours") [c]=$(dirname "$clib"))
