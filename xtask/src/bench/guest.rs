//! `xtask bench guest KIND ...`: what runs inside the SoftRoCE guest, as
//! the host side's boot passes it (not for people to type).

use std::path::PathBuf;

/// What every guest side has: the benchmark binary, the device's address,
/// a temporary folder (gone with the guest), the rows, and the clock.
pub struct Ctx {
    pub bin: PathBuf,
    pub ip: String,
    pub tmp: PathBuf,
    pub root: PathBuf,
    pub start: std::time::Instant,
}

impl Ctx {
    fn new(bin: &str) -> Result<Ctx, String> {
        let ip = std::env::var("RPMA_TESTING_IP").map_err(|_| "not in the rxe guest")?;
        let tmp = std::env::temp_dir().join(format!("bench.{}", std::process::id()));
        std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        Ok(Ctx {
            bin: PathBuf::from(bin),
            ip,
            tmp,
            root: super::build::Tree::new().root,
            start: std::time::Instant::now(),
        })
    }

    pub fn vbin(&self) -> PathBuf {
        self.bin.with_file_name("verbs-bench")
    }

    pub fn secs(&self) -> u64 {
        self.start.elapsed().as_secs()
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}

fn num(v: &str) -> Result<u64, String> {
    v.parse().map_err(|_| format!("bad number {v:?}"))
}

/// Rows as the host passes them: "case size qd" joined by commas.
fn rows(v: &str) -> Vec<String> {
    v.split(',')
        .filter(|r| !r.is_empty())
        .map(String::from)
        .collect()
}

pub fn main(args: &[String]) -> Result<u8, String> {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    match a.as_slice() {
        ["limit", bin, rounds, secs, sel] => {
            super::limit::guest(&Ctx::new(bin)?, num(rounds)?, num(secs)?, &rows(sel))
        }
        ["run", bin, rounds, secs, sel] => {
            super::perf::guest(&Ctx::new(bin)?, num(rounds)?, num(secs)?, &rows(sel))
        }
        ["instr", bin, n1, n2, sel] => {
            super::instr::guest(&Ctx::new(bin)?, num(n1)?, num(n2)?, &rows(sel))
        }
        ["rotate", bin, cpu, rounds, secs, c, s, q, specs @ ..] => super::rotate::guest(
            &Ctx::new(bin)?,
            *cpu == "1",
            num(rounds)?,
            num(secs)?,
            [*c, *s, *q],
            specs,
        ),
        _ => Err(format!("bad guest arguments {a:?}")),
    }
}
