//! The results as JUnit XML, for CI tools.

use crate::list::Stack;

/// One test's result, as JUnit reports it.
pub struct Case<'a> {
    pub stack: Stack,
    pub name: &'a str,
    pub secs: f64,
    /// For a failure: why, and the end of its log.
    pub failure: Option<(&'a str, String)>,
}

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

pub fn xml(done: &[Case]) -> String {
    let failures = done.iter().filter(|c| c.failure.is_some()).count();
    let mut x = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"librpma\" tests=\"{}\" failures=\"{failures}\">\n", done.len());
    for st in Stack::ALL {
        let mine: Vec<&Case> = done.iter().filter(|c| c.stack == st).collect();
        if mine.is_empty() {
            continue;
        }
        let f = mine.iter().filter(|c| c.failure.is_some()).count();
        let secs: f64 = mine.iter().map(|c| c.secs).sum();
        x += &format!(
            "  <testsuite name=\"{st}\" tests=\"{}\" failures=\"{f}\" time=\"{secs:.1}\">\n",
            mine.len()
        );
        for c in mine {
            x += &format!(
                "    <testcase classname=\"{st}\" name=\"{}\" time=\"{:.1}\"",
                escape(c.name),
                c.secs
            );
            let Some((note, tail)) = &c.failure else {
                x += "/>\n";
                continue;
            };
            x += &format!(
                ">\n      <failure message=\"{}\"/>\n      <system-out>{}</system-out>\n    </testcase>\n",
                escape(note),
                escape(tail)
            );
        }
        x += "  </testsuite>\n";
    }
    x + "</testsuites>\n"
}
