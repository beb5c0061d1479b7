#!/usr/bin/env bash
# rdma-cgroup.sh OBJECTS COMMAND [ARG...] -- runs COMMAND in an RDMA cgroup
# of its own, which lets its processes hold at most OBJECTS verbs objects
# (protection domains, memory regions, queues...) on each RDMA device: the
# next allocation is refused with EAGAIN, as under a container's limit.
# Processes it starts one after the other (`xtask inside diff`'s two runs) each
# get the whole budget back, since a process's objects go when it exits.
#
# Needs root and a kernel with the rdma controller (the suite's guests);
# mounts cgroup2 at /sys/fs/cgroup when no hierarchy with that controller
# is there. Exits 2 when it cannot set the limit.
set -u
objects=$1
shift
top=/sys/fs/cgroup
have_rdma() { grep -qw rdma "$top/cgroup.controllers" 2>/dev/null; }
have_rdma || mount -t cgroup2 none "$top" 2>/dev/null
have_rdma || { echo "rdma-cgroup.sh: no cgroup2 with the rdma controller at $top" >&2; exit 2; }
echo +rdma >"$top/cgroup.subtree_control" || exit 2
cg=$top/rpma-test-$$
mkdir "$cg" || exit 2
for dev in /sys/class/infiniband/*; do
  echo "$(basename "$dev") hca_object=$objects" >"$cg/rdma.max" || { rmdir "$cg"; exit 2; }
done
echo $$ >"$cg/cgroup.procs" || { rmdir "$cg"; exit 2; }
"$@"
rc=$?
# out again, so that the cgroup can go
echo $$ >"$top/cgroup.procs"
rmdir "$cg"
exit $rc
