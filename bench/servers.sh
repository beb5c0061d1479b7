# SPDX-License-Identifier: BSD-3-Clause
# bench/servers.sh -- sourced by the guest sides of the benchmarks
# (guest.sh, limit-guest.sh, instructions.sh --guest): the two rpma-bench
# servers, one on our librpma and one on Debian's, each checked to run on
# the library asked for.
#
# The caller sets bin, ip, tmp, who (the prefix of its messages), lib_of and
# port_of (keyed ours and c), declares pid_of, and may set server_env (an
# array of VAR=VALUE for the servers). pin_cpus sets pin_server and
# pin_client.

# the servers on CPU 1, the clients on CPU 0 (RPMA_BENCH_PIN=0: no pinning)
pin_cpus() {
  if [ "${RPMA_BENCH_PIN:-1}" = 1 ] && [ "$(nproc)" -ge 2 ]; then
    pin_server=(taskset -c 1) pin_client=(taskset -c 0)
  else
    pin_server=() pin_client=()
  fi
}

# starts both servers and waits until they listen; exits the script when
# one does not, or maps another librpma.so.0 than lib_of says
start_servers() {
  local l mapped
  for l in ours c; do
    env LD_LIBRARY_PATH="$(dirname "${lib_of[$l]}")" BENCH_EXPECT_LIB="${lib_of[$l]}" \
      ${server_env[@]+"${server_env[@]}"} "${pin_server[@]}" "$bin" server "$ip" "${port_of[$l]}" \
      >"$tmp/server.$l" 2>&1 &
    pid_of[$l]=$!
  done
  for l in ours c; do
    for _ in $(seq 300); do grep -q '^listening' "$tmp/server.$l" && break; sleep 0.1; done
    grep -q '^listening' "$tmp/server.$l" || { echo "$who: the $l server did not start:"; cat "$tmp/server.$l"; exit 1; }
    mapped=$(grep -o '/[^ ]*librpma\.so[^ ]*' "/proc/${pid_of[$l]}/maps" | sort -u)
    if [ "$mapped" != "${lib_of[$l]}" ]; then
      echo "$who: the $l server maps '$mapped', not ${lib_of[$l]}"; exit 1
    fi
    echo "$who: $l server pid ${pid_of[$l]} on $mapped, ports ${port_of[$l]}/$((port_of[$l] + 1))"
  done
}

# exits the script when a server has died
check_servers() {
  local l
  for l in ours c; do
    kill -0 "${pid_of[$l]}" 2>/dev/null || { echo "$who: the $l server died:"; cat "$tmp/server.$l"; pid_of[$l]=; exit 1; }
  done
}

# asks both servers to quit, kills one that does not, and says how each ended
stop_servers() {
  local l
  for l in ours c; do
    [ -n "${pid_of[$l]:-}" ] || continue
    LD_LIBRARY_PATH=$(dirname "${lib_of[$l]}") timeout 60 "$bin" quit "$ip" "${port_of[$l]}" ||
      echo "$who: quit of the $l server failed"
    if ! timeout 30 tail --pid="${pid_of[$l]}" -f /dev/null; then
      echo "$who: the $l server did not stop; killing it"; kill "${pid_of[$l]}"
    fi
    wait "${pid_of[$l]}"; echo "$who: $l server exit status $?"
    pid_of[$l]=
  done
}
