#!/usr/bin/env bash
# arch-live.sh RELEASE arm64 -- every client/server example on a live
# SoftRoCE device of another architecture: an arm64 guest of the release
# (RXE_ARCH=arm64 softroce/rxe-run), each example (and its variants) in the
# four pairings of our cross-built librpma.so.0 (`make deb ARCH=arm64
# RELEASE=...`, build/deb-RELEASE-arm64) and Debian's C librpma0 of that
# architecture, which the guest's root (softroce/stack-root RELEASE arm64)
# has installed. The examples are built on this machine with Debian's cross
# compiler (gcc-aarch64-linux-gnu) against our header, as a program built
# for the C library would be. The rpma crate's examples and device tests
# run there too, built for arm64 in the release's cross chroot (make deb
# ARCH=arm64 RELEASE=...) by its own cargo and arm64 standard library
# (make rust-bins), with crates.io for the crates: each example Rust
# against Rust, write_flush also against Debian's arm64 C library both ways.
# Prints one "@@test end NAME RC" line a test and a summary.
#
# Then two hosts of different architectures on one network (softroce/rxe-pair,
# RXE_PAIR_SERVER_ARCH/RXE_PAIR_CLIENT_ARCH): an arm64 guest and an amd64
# guest (this machine's userland and build/tests-c's examples), the
# examples in ARCH_LIVE_INTEROP (default: connection data-path
# write-flush-persistent atomic-write ping-pong) in the four pairings of the
# two libraries on each side (net-interop-guest.sh), with the server on
# arm64 and then on amd64. Exits 0 only when every run passed.
set -euo pipefail
release=${1:-} arch=${2:-}
[ -n "$release" ] && [ "$arch" = arm64 ] || { sed -n '2,${/^#/!q;s/^# \{0,1\}//p}' "$0"; exit 2; }
cd "$(dirname "$0")/../.."
say() { echo "arch-live: $*" >&2; }

lib=build/deb-$release-$arch/librpma.so.0
[ -f "$lib" ] || make --no-print-directory cross RELEASE="$release" ARCH="$arch" >&2
triplet=aarch64-linux-gnu
command -v $triplet-gcc >/dev/null || { say "no $triplet-gcc (gcc-aarch64-linux-gnu)"; exit 1; }
root=$(softroce/stack-root "$release" "$arch")
out=$PWD/build/$arch-live-$release
rm -rf "$out" && mkdir -p "$out/ours" "$out/ref" "$out/bin"
cp "$lib" "$out/ours/" && ln -s librpma.so.0 "$out/ours/librpma.so"
# the C library as the guest sees it, in a folder of its own (run-pair.sh)
ln -s "/usr/lib/$triplet/librpma.so.0" "$out/ref/librpma.so.0"

manifest=$out/manifest
: >"$manifest"
pair=$PWD/tests-c/scripts/run-pair.sh
for dir in examples/*/; do
  ex=$(basename "$dir")
  [ -f "$dir/server.c" ] && [ -f "$dir/client.c" ] || continue
  for role in server client; do
    $triplet-gcc -std=gnu99 -Wall -Wextra -Werror -pthread -Iinclude "$dir/$role.c" \
      -L"$out/ours" -lrpma -Wl,-rpath-link,"$root/usr/lib/$triplet" -o "$out/bin/example_${ex}_$role"
  done
  runs=("$ex|")
  if [ -f "$dir/variants" ]; then
    while read -r vname vargs; do
      [[ $vname =~ ^[a-z] ]] && runs+=("$ex-$vname|$vargs")
    done <"$dir/variants"
  fi
  for run in "${runs[@]}"; do
    name=${run%%|*} args=${run#*|}
    for s in ours ref; do
      for c in ours ref; do
        printf '%s\t180\t-\t%s\n' "$arch.example.$name.server-$s.client-$c" \
          "$pair $out/$s/librpma.so.0 $out/bin/example_${ex}_server $out/$c/librpma.so.0 $out/bin/example_${ex}_client $args" >>"$manifest"
      done
    done
  done
done
# the Rust programs, built in a copy of the cross chroot by its own cargo
# (not the CARGO cargo xtask exports: this machine's)
chroot_root=${RXE_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/librpma-rs}/deb-$release-$arch/root
[ -d "$chroot_root/usr" ] || { say "no cross chroot $chroot_root: run make deb ARCH=$arch RELEASE=$release"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/arch-live.XXXXXX")
trap 'rm -rf --one-file-system "$work"' EXIT
cp -a "$chroot_root" "$work/root"
mkdir -p "$work/root/build/rpma-rs"
git ls-files -z -co --exclude-standard | tar -c --null -T - | tar -x -C "$work/root/build/rpma-rs"
# crates.io over this machine's network and certificate authorities
cp /etc/resolv.conf "$work/root/etc/resolv.conf"
mkdir -p "$work/root/etc/ssl/certs" && cp /etc/ssl/certs/ca-certificates.crt "$work/root/etc/ssl/certs/"
rust_target=aarch64-unknown-linux-gnu
chroot "$work/root" env HOME=/root CARGO=cargo SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=$triplet-gcc RUST_BINS_TARGET=$rust_target \
  make -C /build/rpma-rs --no-print-directory rust-bins BUILD=/build >&2
cp -a "$work/root/build/rust" "$out/rust"
rust=$out/rust/examples
for ex in "$rust"/*; do
  name=$(basename "$ex")
  printf '%s\t180\t-\t%s\n' "$arch.rust-example.$name" "$pair rust $ex rust $ex" >>"$manifest"
done
printf '%s\t180\t-\t%s\n' "$arch.rust-example.write_flush.server-ref.client-rust" \
  "$pair $out/ref/librpma.so.0 $out/bin/example_write-flush-persistent_server rust $rust/write_flush" >>"$manifest"
printf '%s\t180\t-\t%s\n' "$arch.rust-example.write_flush.server-rust.client-ref" \
  "$pair rust $rust/write_flush $out/ref/librpma.so.0 $out/bin/example_write-flush-persistent_client" >>"$manifest"
printf '%s\t180\t-\t%s\n' "$arch.rust.device-tests" "$out/rust/device-tests --ignored --test-threads=1" >>"$manifest"

say "$(wc -l <"$manifest") runs on an arm64 guest of Debian $release"
set +e
RXE_ARCH=$arch RXE_STACK=$release RXE_TIMEOUT=${RXE_TIMEOUT:-3600} \
  softroce/rxe-run 'while IFS=$'"'"'\t'"'"' read -r n l _ c; do timeout -k 5 "$l" bash -c "$c" </dev/null; echo "@@test end $n $?"; done <'"$manifest" | tee "$out/log"
rc=${PIPESTATUS[0]}
set -e
total=$(wc -l <"$manifest")
passed=$(grep -c '^@@test end .* 0$' "$out/log" || true)
say "$passed of $total passed (log: $out/log)"
grep '^@@test end .* [1-9][0-9]*$' "$out/log" | sed 's/^@@test end /FAILED: /' >&2 || true
status=0
[ "$rc" = 0 ] && [ "$passed" = "$total" ] || status=1

# two architectures on one network
amd64_build=$PWD/build/tests-c
multiarch=$(gcc -dumpmachine)
read -r -a examples <<<"${ARCH_LIVE_INTEROP:-connection data-path write-flush-persistent atomic-write ping-pong}"
g=$PWD/tests-c/scripts/net-interop-guest.sh
arm=("$out/bin" 7400 "$out/ours/librpma.so.0" "/usr/lib/$triplet/librpma.so.0" "${examples[@]}")
x86=("$amd64_build" 7400 "$PWD/build/lib/librpma.so.0" "/usr/lib/$multiarch/librpma.so.0" "${examples[@]}")
for server in "$arch" amd64; do
  if [ "$server" = amd64 ]; then s=("${x86[@]}") c=("${arm[@]}") client=$arch; else s=("${arm[@]}") c=("${x86[@]}") client=amd64; fi
  say "interop: server on $server, client on $client: ${examples[*]}"
  set +e
  RXE_STACK=$release RXE_PAIR_SERVER_ARCH=$server RXE_PAIR_CLIENT_ARCH=$client RXE_TIMEOUT=${RXE_TIMEOUT:-3600} \
    softroce/rxe-pair "$g server ${s[*]}" "$g client ${c[*]}" >"$out/interop-$server" 2>&1
  prc=$?
  set -e
  grep '^client| interop ' "$out/interop-$server" | sed "s/^client| /$server-server: /"
  want=$((4 * ${#examples[@]}))
  got=$(grep -c '^client| interop .* exit 0$' "$out/interop-$server" || true)
  say "interop with the server on $server: $got of $want passed (log: $out/interop-$server)"
  [ "$prc" = 0 ] && [ "$got" = "$want" ] || status=1
done
exit $status
