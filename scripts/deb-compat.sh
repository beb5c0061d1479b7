#!/usr/bin/env bash
# deb-compat.sh -- a program built against Debian's C librpma keeps working,
# and prints the same, when librpma0 is upgraded to this project's package
# and then downgraded back to Debian's.
#
# usage: scripts/deb-compat.sh bookworm|trixie|forky|sid DEB-DIR
#
# The program (below) calls what needs no RDMA device: rpma_err_2str,
# rpma_utils_conn_event_2str, rpma_log_{get,set}_threshold,
# rpma_conn_cfg_* and rpma_peer_cfg_* (with a descriptor round trip), and
# prints each result. It is compiled in a Debian 13 chroot against Debian
# 13's C librpma-dev (1.3.0-2; its librpma.h includes <infiniband/verbs.h>,
# from libibverbs-dev, which it does not depend on). It then runs in a chroot of RELEASE three
# times: with Debian's C librpma0 (RELEASE's own; trixie's 1.3.0-2+b3 on
# forky and sid, whose archive has none), with DEB-DIR's librpma0 installed
# over it (apt, an upgrade), and with Debian's again (apt
# --allow-downgrades). The three outputs must be the same. Both chroots are
# mmdebstrap's, thrown away at the end (format null). Root only.
set -euo pipefail

release=${1:-}
debs=${2:-}
case $release in bookworm | trixie | forky | sid) ;; *)
  sed -n '2,${/^#/!q;s/^# \{0,1\}//p}' "$0"; exit 2 ;;
esac
deb=$(ls "$debs"/librpma0_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "deb-compat: no librpma0 in $debs: run make deb RELEASE=$release" >&2; exit 1; }
say() { echo "deb-compat: $*" >&2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/deb-compat.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$deb" "$work/"
cat >"$work/compat.c" <<'EOF'
#include <librpma.h>
#include <stdio.h>

int main(void)
{
	enum rpma_log_level lvl = 0;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_peer_cfg *pcfg = NULL, *back = NULL;
	struct rpma_srq *srq = (void *)1;
	unsigned char desc[64];
	size_t size = 0;
	uint32_t u = 0;
	int i, t = 0;
	bool b = true;

	printf("err 0: %s\n", rpma_err_2str(0));
	for (i = RPMA_E_UNKNOWN; i >= RPMA_E_NOT_SHARED_CHNL - 1; i--)
		printf("err %d: %s\n", i, rpma_err_2str(i));
	for (i = RPMA_CONN_UNDEFINED; i <= RPMA_CONN_UNREACHABLE + 1; i++)
		printf("event %d: %s\n", i, rpma_utils_conn_event_2str(i));
	for (i = RPMA_LOG_THRESHOLD; i <= RPMA_LOG_THRESHOLD_MAX; i++) {
		int r = rpma_log_get_threshold(i, &lvl);
		printf("log threshold %d: %d %d\n", i, r, lvl);
	}
	printf("log set: %d", rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG));
	printf(" get: %d", rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &lvl));
	printf(" %d\n", lvl);

	printf("conn_cfg_new: %d\n", rpma_conn_cfg_new(&cfg));
	printf("defaults: %d", rpma_conn_cfg_get_timeout(cfg, &t));
	printf(" timeout %d", t);
	rpma_conn_cfg_get_cq_size(cfg, &u), printf(" cq %u", u);
	rpma_conn_cfg_get_rcq_size(cfg, &u), printf(" rcq %u", u);
	rpma_conn_cfg_get_sq_size(cfg, &u), printf(" sq %u", u);
	rpma_conn_cfg_get_rq_size(cfg, &u), printf(" rq %u", u);
	rpma_conn_cfg_get_compl_channel(cfg, &b), printf(" shared %d", b);
	rpma_conn_cfg_get_srq(cfg, &srq), printf(" srq %s\n", srq ? "set" : "null");
	printf("set: %d %d %d %d %d %d", rpma_conn_cfg_set_timeout(cfg, 250),
	       rpma_conn_cfg_set_cq_size(cfg, 33), rpma_conn_cfg_set_rcq_size(cfg, 17),
	       rpma_conn_cfg_set_sq_size(cfg, 64), rpma_conn_cfg_set_rq_size(cfg, 8),
	       rpma_conn_cfg_set_compl_channel(cfg, true));
	rpma_conn_cfg_get_timeout(cfg, &t), printf(" timeout %d", t);
	rpma_conn_cfg_get_cq_size(cfg, &u), printf(" cq %u", u);
	rpma_conn_cfg_get_rcq_size(cfg, &u), printf(" rcq %u", u);
	rpma_conn_cfg_get_sq_size(cfg, &u), printf(" sq %u", u);
	rpma_conn_cfg_get_rq_size(cfg, &u), printf(" rq %u", u);
	rpma_conn_cfg_get_compl_channel(cfg, &b), printf(" shared %d\n", b);
	printf("invalid: %d %d %d\n", rpma_conn_cfg_get_timeout(NULL, &t),
	       rpma_conn_cfg_set_cq_size(NULL, 1), rpma_conn_cfg_new(NULL));
	printf("delete: %d", rpma_conn_cfg_delete(&cfg));
	printf(" %s\n", cfg ? "set" : "null");

	printf("peer_cfg_new: %d", rpma_peer_cfg_new(&pcfg));
	printf(" %d", rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &b));
	printf(" direct %d", b);
	printf(" set %d", rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true));
	rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &b), printf(" direct %d\n", b);
	printf("descriptor size: %d", rpma_peer_cfg_get_descriptor_size(pcfg, &size));
	printf(" %zu", size);
	printf(" get %d:", rpma_peer_cfg_get_descriptor(pcfg, desc));
	for (i = 0; i < (int)size && i < (int)sizeof(desc); i++)
		printf(" %02x", desc[i]);
	printf("\nfrom descriptor: %d", rpma_peer_cfg_from_descriptor(desc, size, &back));
	rpma_peer_cfg_get_direct_write_to_pmem(back, &b), printf(" direct %d\n", b);
	printf("invalid: %d %d\n", rpma_peer_cfg_from_descriptor(NULL, size, &back),
	       rpma_peer_cfg_get_descriptor_size(NULL, &size));
	printf("delete: %d %d\n", rpma_peer_cfg_delete(&pcfg), rpma_peer_cfg_delete(&back));
	return 0;
}
EOF

say "compiling against Debian 13's C librpma-dev (trixie chroot)"
mmdebstrap --quiet --variant=apt --include=gcc,libc6-dev,librpma-dev,libibverbs-dev \
  --customize-hook='copy-in "'"$work"'/compat.c" /tmp' \
  --customize-hook='chroot "$1" gcc -Wall -Werror -o /tmp/compat /tmp/compat.c -lrpma' \
  --customize-hook='chroot "$1" dpkg-query -W librpma-dev' \
  --customize-hook='copy-out /tmp/compat "'"$work"'"' \
  trixie /dev/null >&2

# Debian's C librpma0 for RELEASE, and where apt finds it
c_suite=$release
mirrors=()
case $release in forky | sid)
  c_suite=trixie
  mirrors=("deb http://deb.debian.org/debian $release main" "deb http://deb.debian.org/debian trixie main")
  ;;
esac
# a mirror that stopped syncing serves forky's and sid's indexes expired
valid_until=()
if until=$("$(dirname "$0")"/index-expired.sh "$release"); then
  say "the mirror's $release index expired on $until: apt's Check-Valid-Until is off"
  valid_until=(--aptopt='Acquire::Check-Valid-Until "false"')
fi

# run WHAT: the program's output into $work/out.WHAT, with librpma0's version
run='set -e; w=$1; chroot "$w" dpkg-query -W librpma0 >&2
  chroot "$w" /tmp/compat >"'"$work"'/out.$2"
  echo "$2: $(wc -l <"'"$work"'/out.$2") lines, librpma.so.0 $(md5sum <"$w"/usr/lib/x86_64-linux-gnu/librpma.so.0 | cut -c1-12)" >&2'
say "running it on $release: Debian's librpma0 ($c_suite), ours ($(basename "$deb")), Debian's again"
mmdebstrap --quiet --variant=apt "${valid_until[@]}" \
  --customize-hook='copy-in "'"$work"'/compat" "'"$work/$(basename "$deb")"'" /tmp' \
  --customize-hook='chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq librpma0 >/dev/null' \
  --customize-hook='chroot "$1" dpkg-query -W -f "\${Version}" librpma0 >"'"$work"'/c-version"' \
  --customize-hook="sh -c '$run' - \"\$1\" c" \
  --customize-hook='chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "/tmp/'"$(basename "$deb")"'" >/dev/null' \
  --customize-hook="sh -c '$run' - \"\$1\" rust" \
  --customize-hook='chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --allow-downgrades "librpma0=$(cat "'"$work"'/c-version")" >/dev/null' \
  --customize-hook="sh -c '$run' - \"\$1\" c-again" \
  "$release" /dev/null "${mirrors[@]}" >&2

cat "$work/out.c"
fail=0
for o in rust c-again; do
  if ! diff -u "$work/out.c" "$work/out.$o" >&2; then
    say "the output with $o differs from the one with Debian's librpma0"
    fail=1
  fi
done
[ $fail = 0 ] && say "the same output with Debian's librpma0, ours, and Debian's again"
exit $fail
