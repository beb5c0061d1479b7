//! The results as JUnit XML, for CI tools.

use crate::list::Stack;
use crate::run::{Outcome, Paths};
use std::fs;

fn escape(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

pub fn xml(done: &[Outcome], paths: &Paths) -> String {
    let failures = done.iter().filter(|o| !o.passed).count();
    let mut x = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"librpma\" tests=\"{}\" failures=\"{failures}\">\n", done.len());
    for st in Stack::ALL {
        let mine: Vec<&Outcome> = done.iter().filter(|o| o.test.stack == st).collect();
        if mine.is_empty() {
            continue;
        }
        let f = mine.iter().filter(|o| !o.passed).count();
        let secs: f64 = mine.iter().map(|o| o.secs).sum();
        x += &format!(
            "  <testsuite name=\"{st}\" tests=\"{}\" failures=\"{f}\" time=\"{secs:.1}\">\n",
            mine.len()
        );
        for o in mine {
            x += &format!(
                "    <testcase classname=\"{st}\" name=\"{}\" time=\"{:.1}\"",
                escape(&o.test.name),
                o.secs
            );
            if o.passed {
                x += "/>\n";
                continue;
            }
            let log = fs::read_to_string(paths.log(&o.test)).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(200).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            x += &format!(
                ">\n      <failure message=\"{}\"/>\n      <system-out>{}</system-out>\n    </testcase>\n",
                escape(&o.note),
                escape(&tail.join("\n"))
            );
        }
        x += "  </testsuite>\n";
    }
    x + "</testsuites>\n"
}
