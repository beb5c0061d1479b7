//! The rows ("case size qd") each benchmark can run, and their selection by
//! the user's regular expressions, which are grep -E ones as they always were.

use std::io::Write;
use std::process::{Command, Stdio};

/// bench limit's rows: the four operations from 64 B to 1 MiB at QD 1 and
/// 16, then, of the libraries only, the atomic write at QD 1 and 16,
/// registration from 4 KiB to 1 GiB,
/// connection set-up, and 1 to 64 connections on one endpoint.
pub fn limit() -> Vec<String> {
    let mut m = Vec::new();
    for c in ["write", "read", "send", "flush"] {
        for s in [64, 256, 1024, 4096, 16384, 65536, 262144, 1048576] {
            for q in [1, 16] {
                m.push(format!("{c} {s} {q}"));
            }
        }
    }
    // no raw verbs contender: perftest has no atomic write
    m.push("atomic_write 8 1".into());
    m.push("atomic_write 8 16".into());
    for s in [4096, 65536, 1048576, 16777216, 268435456, 1073741824u64] {
        m.push(format!("mr {s} 1"));
    }
    m.push("conn 8 1".into());
    for c in ["scale_write", "scale_srq"] {
        for n in [1, 2, 4, 8, 16, 32, 64] {
            m.push(format!("{c} 64 {n}"));
        }
    }
    m
}

/// bench run's rows; CASE_wait is CASE with a client that sleeps in
/// rpma_cq_wait instead of busy polling.
pub fn perf() -> Vec<String> {
    let mut m = Vec::new();
    for c in ["read", "write", "flush", "pingpong", "write_imm", "srq"] {
        for s in [8, 4096, 65536] {
            for q in [1, 16] {
                m.push(format!("{c} {s} {q}"));
            }
        }
        if c == "write" {
            m.push("atomic_write 8 1".into());
            m.push("atomic_write 8 16".into());
        }
    }
    for r in ["conn 8 1", "mr 8 1", "mr 4096 1", "mr 65536 1"] {
        m.push(r.into());
    }
    for c in ["write_wait", "pingpong_wait"] {
        for q in [1, 16] {
            m.push(format!("{c} 8 {q}"));
        }
    }
    m
}

/// bench instructions' cases, "case size", each at QD 1.
pub fn instr() -> Vec<String> {
    [
        "read 8",
        "read 4096",
        "write 8",
        "write 4096",
        "atomic_write 8",
        "flush 8",
        "flush 4096",
        "pingpong 8",
        "pingpong 4096",
        "write_imm 8",
        "write_imm 4096",
        "srq 8",
        "srq 4096",
        "conn 8",
        "mr 8",
        "mr 4096",
        "poll 8",
        "srq_recv 8",
        "write_wait 8",
        "pingpong_wait 8",
        "next_event 8",
    ]
    .map(String::from)
    .to_vec()
}

/// The rows whose `key` (the whole row, or its case name) matches the
/// grep -E expression.
pub fn select(
    rows: Vec<String>,
    regex: &str,
    key: fn(&str) -> &str,
) -> Result<Vec<String>, String> {
    let keys: Vec<&str> = rows.iter().map(|r| key(r)).collect();
    let hit = grep(regex, &keys)?;
    Ok(rows
        .into_iter()
        .zip(hit)
        .filter_map(|(r, h)| h.then_some(r))
        .collect())
}

pub fn whole(row: &str) -> &str {
    row
}

pub fn case(row: &str) -> &str {
    row.split(' ').next().unwrap_or(row)
}

/// Whether each line matches, by grep -E itself (`-n` says which did).
fn grep(regex: &str, lines: &[&str]) -> Result<Vec<bool>, String> {
    let mut child = Command::new("grep")
        .args(["-En", "--", regex])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("grep: {e}"))?;
    let input = lines.join("\n") + "\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .map_err(|e| format!("grep: {e}"))?;
    let out = child.wait_with_output().map_err(|e| format!("grep: {e}"))?;
    if out.status.code() == Some(2) {
        return Err(format!("bad regular expression {regex:?}"));
    }
    let mut hit = vec![false; lines.len()];
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(n) = l.split(':').next().and_then(|n| n.parse::<usize>().ok()) {
            hit[n - 1] = true;
        }
    }
    Ok(hit)
}
