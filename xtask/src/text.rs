//! Text helpers shared by the runner's reports.

/// The last `n` lines of `text`: all of them when it has fewer.
pub fn last_lines(text: &str, n: usize) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.drain(..lines.len().saturating_sub(n));
    lines
}

#[cfg(test)]
mod tests {
    use super::last_lines;

    #[test]
    fn the_last_lines_are_kept_in_order() {
        assert_eq!(last_lines("a\nb\nc\n", 2), ["b", "c"]);
        assert_eq!(last_lines("a\nb", 5), ["a", "b"]);
        assert!(last_lines("", 3).is_empty());
        assert!(last_lines("a\n", 0).is_empty());
    }
}
