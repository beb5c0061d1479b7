//! /proc/PID/stat, as proc(5) lays it out: read by the benchmark (CPU
//! times) and by the guest's suite (a test's leftover processes).

/// A stat line's command name and the fields after it, the state first
/// (field 3 in proc(5)'s numbering). The name may hold spaces and
/// parentheses, so it ends at the line's last ')'.
pub fn split_stat(stat: &str) -> Option<(&str, Vec<&str>)> {
    let (open, close) = (stat.find('(')?, stat.rfind(')')?);
    let comm = stat.get(open + 1..close)?;
    Some((comm, stat[close + 1..].split_whitespace().collect()))
}

#[cfg(test)]
mod tests {
    use super::split_stat;

    #[test]
    fn a_name_with_spaces_and_parentheses_is_kept_whole() {
        let (comm, fields) = split_stat("42 (a) (b c) S 1 42 42 0\n").unwrap();
        assert_eq!(comm, "a) (b c");
        assert_eq!(fields, ["S", "1", "42", "42", "0"]);
        assert!(split_stat("").is_none());
        assert!(split_stat("1 )x( S").is_none());
    }
}
