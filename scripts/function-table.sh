#!/usr/bin/env bash
# function-table.sh OURS.so REFERENCE.so -- the README's table of upstream's
# functions and their status in our library, made from the two binaries.
set -euo pipefail
ours=$1 ref=$2
names() { readelf --dyn-syms -W "$1" | awk '$7 != "UND" {print $8}' | sed -n 's/@@LIBRPMA_1.0$//p' | grep '^rpma_' | sort; }
exported=$(names "$ours")
# Functions that come with the data-path work; the rest of the missing ones
# come with peers, memory regions and connections.
data_path=" rpma_read rpma_write rpma_write_with_imm rpma_atomic_write rpma_flush rpma_send
 rpma_send_with_imm rpma_recv rpma_cq_get_wc rpma_cq_wait rpma_cq_get_fd rpma_conn_wait
 rpma_srq_new rpma_srq_delete rpma_srq_get_rcq rpma_srq_recv "
total=0 done=0
rows=""
for f in $(names "$ref"); do
  total=$((total + 1))
  if grep -qx "$f" <<<"$exported"; then
    status="implemented"; done=$((done + 1))
  elif [[ $data_path == *" $f "* || $data_path == *" $f"$'\n'* ]]; then
    status="not yet (data path)"
  else
    status="not yet (peers, regions, connections)"
  fi
  rows+="| \`$f\` | $status |"$'\n'
done
echo "$done of $total functions implemented."
echo
echo "| function | status |"
echo "|---|---|"
printf '%s' "$rows"
