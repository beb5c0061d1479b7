#!/usr/bin/env bash
# Builds every fuzz target and runs each for SECONDS (default 600), one at a
# time in one process, then prints per target the executions, the coverage
# and whether it crashed.
#
#   fuzz/run.sh [SECONDS [TARGET...]]
#
# (all targets unless some are named)
# Needs cargo-fuzz (cargo install --locked cargo-fuzz; with Debian 13's
# rustc 1.85, cargo-fuzz@0.13.1). On a stable toolchain the nightly flags
# cargo fuzz passes (-Zsanitizer=address, ...) are allowed through
# RUSTC_BOOTSTRAP=1.
#
# The targets are built with AddressSanitizer. rustup's toolchains ship its
# runtime in the sysroot; Debian's rustc (rustc-web on Debian 12, rustc on
# 13) does not, so there the script links compiler-rt's instead, from
# libclang-rt-NN-dev with NN the LLVM major version in `rustc -vV` (22 for
# Debian 12's rustc-web 1.96, 19 for Debian 13's rustc 1.85). Without that
# package it builds with --sanitizer none: still coverage-guided, with debug
# assertions and overflow checks, but without ASan's memory checks or leak
# detection. The first line printed says which it did.
#
# Each target reads the committed seeds in corpus/<target>/ and keeps what
# it finds in target/corpus/<target>/ (not committed; it grows across runs).
# A crash, a failed invariant, a leak or a hang (10 s for one input) writes
# the input to artifacts/<target>/; reproduce it with
#   target/<host>/release/<target> artifacts/<target>/<file>
# Logs: target/fuzz-logs/<target>.log. Exit status: 1 when anything crashed.
set -u

secs=${1:-600}
[ $# -gt 0 ] && shift
case $secs in
'' | *[!0-9]*)
	echo "usage: $0 [SECONDS [TARGET...]]" >&2
	exit 2
	;;
esac

cd "$(dirname "$0")" || exit 2
export CARGO_TARGET_DIR="$PWD/target"
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
	echo "cargo-fuzz is missing: cargo install cargo-fuzz" >&2
	exit 2
fi
rustc=${RUSTC:-rustc}
host=$("$rustc" -vV | sed -n 's/^host: //p')
sysroot=$("$rustc" --print sysroot)
# cargo fuzz's defaults: optimised, with debug assertions and overflow
# checks, AddressSanitizer.
build=(cargo fuzz build)
if compgen -G "$sysroot/lib/rustlib/$host/lib/librustc-*_rt.asan.a" >/dev/null; then
	echo "fuzz: AddressSanitizer on, runtime from rustc's sysroot" >&2
else
	# The runtime has to come from the LLVM rustc instruments with: the
	# interface between the two is not stable across major versions.
	llvm=$("$rustc" -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
	rt=
	for f in "/usr/lib/llvm-$llvm/lib/clang/"*"/lib/linux/libclang_rt.asan-${host%%-*}.a" \
		"/usr/lib/llvm-$llvm/lib/clang/"*"/lib/${host%%-*}-"*"-linux-gnu/libclang_rt.asan.a"; do
		[ -f "$f" ] && rt=$f && break
	done
	if [ -n "$rt" ]; then
		echo "fuzz: AddressSanitizer on, runtime from $rt (rustc's sysroot has none)" >&2
		# -Zexternal-clangrt: rustc would link its own, missing runtime.
		# Linked first, where rustc puts its own: placed last (-Clink-arg),
		# after the libraries, GNU ld 2.40 rejects its TLS relocations
		# ("TLS transition from R_X86_64_TLSLD to R_X86_64_TPOFF32 failed").
		RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-Zexternal-clangrt -Zpre-link-arg=-Wl,--whole-archive -Zpre-link-arg=$rt -Zpre-link-arg=-Wl,--no-whole-archive"
		export RUSTFLAGS
	else
		echo "fuzz: AddressSanitizer off (rustc's sysroot has no runtime and libclang-rt-$llvm-dev is not installed): no memory checks, no leak detection" >&2
		build+=(--sanitizer none)
	fi
fi
"${build[@]}" || exit 2

bin="$CARGO_TARGET_DIR/$host/release"
logs="$CARGO_TARGET_DIR/fuzz-logs"
mkdir -p "$logs"

failed=0
summary=()
targets=("$@")
[ ${#targets[@]} -eq 0 ] && mapfile -t targets < <(cargo fuzz list)
for t in "${targets[@]}"; do
	work="$CARGO_TARGET_DIR/corpus/$t"
	mkdir -p "$work" "artifacts/$t" "corpus/$t"
	echo "== $t: ${secs} s" >&2
	"$bin/$t" "$work" "corpus/$t" \
		-max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 \
		-artifact_prefix="artifacts/$t/" -print_final_stats=1 \
		>"$logs/$t.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log" | tail -1)
	if [ -z "$execs" ]; then
		execs=$(grep -o '^#[0-9]*' "$logs/$t.log" | tail -1 | tr -d '#')
	fi
	final=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$logs/$t.log" | tail -1 |
		grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*')
	artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$logs/$t.log" | tail -1)
	if [ "$rc" -eq 0 ] && [ -z "$artifact" ]; then
		verdict="no crash"
	else
		verdict="CRASHED (exit $rc) input: ${artifact:-see log}"
		failed=1
	fi
	summary+=("$t: ${execs:-0} executions, ${final:-no coverage line}; $verdict")
done

echo
echo "fuzz summary (${secs} s per target; logs in $logs):"
printf '  %s\n' "${summary[@]}"
exit $failed
