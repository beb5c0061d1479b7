//! `cargo xtask pkg deb-compat RELEASE DEB-DIR`: a program built against
//! Debian's C librpma keeps working, and prints the same, when librpma0 is
//! upgraded to this project's package and then downgraded back to Debian's.
//!
//! The program (COMPAT_C) calls what needs no RDMA device: rpma_err_2str,
//! rpma_utils_conn_event_2str, rpma_log_{get,set}_threshold,
//! rpma_conn_cfg_* and rpma_peer_cfg_* (with a descriptor round trip), and
//! prints each result. It is compiled in a Debian 13 chroot against Debian
//! 13's C librpma-dev (1.3.0-2; its librpma.h includes <infiniband/verbs.h>,
//! from libibverbs-dev, which it does not depend on). It then runs in a
//! chroot of RELEASE three times: with Debian's C librpma0 (RELEASE's own;
//! trixie's 1.3.0-2+b3 on forky and sid, whose archive has none), with
//! DEB-DIR's librpma0 installed over it (apt, an upgrade), and with Debian's
//! again (apt --allow-downgrades). The three outputs must be the same. Both
//! chroots are mmdebstrap's, thrown away at the end (format null). Root
//! only.

use super::{index_expired, step, to_stderr, Done, Stop, RELEASES};
use crate::check::{glob, TempDir};
use std::fs;
use std::path::Path;
use std::process::Command;

const USAGE: &str = "usage: cargo xtask pkg deb-compat bookworm|trixie|forky|sid DEB-DIR
  a program built against Debian's C librpma-dev, run with Debian's librpma0,
  DEB-DIR's over it, and Debian's again: the same output. Root only.";

const COMPAT_C: &str = r#"
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
"#;

/// Runs the program in the chroot ($1) into WORK/out.WHAT ($2), and says
/// which librpma0 and librpma.so.0 it ran with. WORK is the scratch folder.
const RUN: &str = r#"set -e; w=$1; chroot "$w" dpkg-query -W librpma0 >&2
  chroot "$w" /tmp/compat >"WORK/out.$2"
  echo "$2: $(wc -l <"WORK/out.$2") lines, librpma.so.0 $(md5sum <"$w"/usr/lib/x86_64-linux-gnu/librpma.so.0 | cut -c1-12)" >&2"#;

fn say(msg: &str) {
    eprintln!("deb-compat: {msg}");
}

pub fn run(args: &[&str]) -> Done {
    let (release, debs) = match args {
        [r, d] if RELEASES.contains(r) => (*r, Path::new(d)),
        _ => return Err(Stop::usage(USAGE)),
    };
    let Some(deb) = glob(debs, "librpma0_", "_amd64.deb").into_iter().next() else {
        return Err(Stop::fail(format!(
            "deb-compat: no librpma0 in {}: run make deb RELEASE={release}",
            debs.display()
        )));
    };
    let deb_name = deb
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let tmp = TempDir::new("deb-compat")
        .map_err(|e| Stop::fail(format!("deb-compat: a scratch folder: {e}")))?;
    let work = tmp.path().display().to_string();
    fs::copy(&deb, tmp.path().join(&deb_name))
        .and_then(|_| fs::write(tmp.path().join("compat.c"), COMPAT_C.trim_start()))
        .map_err(|e| Stop::fail(format!("deb-compat: {work}: {e}")))?;

    say("compiling against Debian 13's C librpma-dev (trixie chroot)");
    step(
        Command::new("mmdebstrap")
            .args([
                "--quiet",
                "--variant=apt",
                "--include=gcc,libc6-dev,librpma-dev,libibverbs-dev",
            ])
            .arg(format!(r#"--customize-hook=copy-in "{work}/compat.c" /tmp"#))
            .arg(r#"--customize-hook=chroot "$1" gcc -Wall -Werror -o /tmp/compat /tmp/compat.c -lrpma"#)
            .arg(r#"--customize-hook=chroot "$1" dpkg-query -W librpma-dev"#)
            .arg(format!(r#"--customize-hook=copy-out /tmp/compat "{work}""#))
            .args(["trixie", "/dev/null"])
            .stdout(to_stderr()),
    )?;

    // Debian's C librpma0 for RELEASE, and where apt finds it
    let (c_suite, mirrors) = match release {
        "forky" | "sid" => (
            "trixie",
            vec![
                format!("deb http://deb.debian.org/debian {release} main"),
                "deb http://deb.debian.org/debian trixie main".to_string(),
            ],
        ),
        _ => (release, Vec::new()),
    };
    let mut mm = Command::new("mmdebstrap");
    mm.args(["--quiet", "--variant=apt"]);
    // a mirror that stopped syncing serves forky's and sid's indexes expired
    if let Some(until) = index_expired(release) {
        say(&format!(
            "the mirror's {release} index expired on {until}: apt's Check-Valid-Until is off"
        ));
        mm.arg(r#"--aptopt=Acquire::Check-Valid-Until "false""#);
    }
    let run = RUN.replace("WORK", &work);
    let run_as = |what: &str| format!(r#"--customize-hook=sh -c '{run}' - "$1" {what}"#);
    let apt = r#"chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq"#;
    say(&format!(
        "running it on {release}: Debian's librpma0 ({c_suite}), ours ({deb_name}), Debian's again"
    ));
    mm.arg(format!(
        r#"--customize-hook=copy-in "{work}/compat" "{work}/{deb_name}" /tmp"#
    ))
    .arg(format!("--customize-hook={apt} librpma0 >/dev/null"))
    .arg(format!(
        r#"--customize-hook=chroot "$1" dpkg-query -W -f "\${{Version}}" librpma0 >"{work}/c-version""#
    ))
    .arg(run_as("c"))
    .arg(format!(r#"--customize-hook={apt} "/tmp/{deb_name}" >/dev/null"#))
    .arg(run_as("rust"))
    .arg(format!(
        r#"--customize-hook={apt} --allow-downgrades "librpma0=$(cat "{work}/c-version")" >/dev/null"#
    ))
    .arg(run_as("c-again"))
    .args([release, "/dev/null"])
    .args(&mirrors)
    .stdout(to_stderr());
    step(&mut mm)?;

    let out_c = tmp.path().join("out.c");
    let c = fs::read_to_string(&out_c)
        .map_err(|e| Stop::fail(format!("deb-compat: {}: {e}", out_c.display())))?;
    print!("{c}");
    let mut same = true;
    for o in ["rust", "c-again"] {
        let equal = Command::new("diff")
            .arg("-u")
            .arg(&out_c)
            .arg(tmp.path().join(format!("out.{o}")))
            .stdout(to_stderr())
            .status()
            .is_ok_and(|s| s.success());
        if !equal {
            say(&format!(
                "the output with {o} differs from the one with Debian's librpma0"
            ));
            same = false;
        }
    }
    if !same {
        return Err(Stop::fail(""));
    }
    say("the same output with Debian's librpma0, ours, and Debian's again");
    Ok(())
}
