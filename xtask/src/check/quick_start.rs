//! `check quick-start ROOT`: each README's quick start is, line for line,
//! the program it names (`<!-- quick-start: PATH -->` above a `rust`
//! block), which the suite builds and runs on rxe (rust-example.quick_start)
//! and the crate docs include (so `cargo test --doc` compiles it).

use super::{args, Checks, Usage};
use std::fs;
use std::path::Path;

const READMES: [&str; 2] = ["README.md", "crates/rpma/README.md"];
const MARKER: &str = "<!-- quick-start: ";

pub fn run(a: &[&str]) -> Result<Checks, Usage> {
    let [root] = args(a, "ROOT")?;
    let mut c = Checks::default();
    for readme in READMES {
        if let Err(e) = check(Path::new(root), readme) {
            c.bad(format!("{readme}: {e}"));
        }
    }
    Ok(c)
}

fn check(root: &Path, readme: &str) -> Result<(), String> {
    let text = fs::read_to_string(root.join(readme)).map_err(|e| e.to_string())?;
    let mut lines = text.lines();
    let program = lines
        .by_ref()
        .find_map(|l| l.strip_prefix(MARKER)?.strip_suffix(" -->"))
        .ok_or(format!("no line {MARKER}PATH -->"))?;
    if !lines.next().is_some_and(|l| l.starts_with("```rust")) {
        return Err(format!("no ```rust block below {MARKER}{program} -->"));
    }
    let block: Vec<&str> = lines.take_while(|l| *l != "```").collect();
    let want = fs::read_to_string(root.join(program)).map_err(|e| format!("{program}: {e}"))?;
    let want: Vec<&str> = want.lines().collect();
    match block.iter().zip(&want).position(|(a, b)| a != b) {
        Some(i) => Err(format!(
            "line {} of its quick start differs from {program}: {:?} there",
            i + 1,
            want[i]
        )),
        None if block.len() != want.len() => Err(format!(
            "its quick start has {} lines, {program} {}",
            block.len(),
            want.len()
        )),
        None => Ok(()),
    }
}
