// The reader of `librpma.map`, for tests/symbols.rs (which `include!`s
// it); the Makefile hands the map itself to the linker.

/// The node's name and its `global:` symbols, in order, from a version
/// script of one node with `/* */` comments.
#[allow(dead_code)]
fn parse_map(text: &str) -> (String, Vec<String>) {
    let plain = strip_block_comments(text);
    let (node, body) = plain.split_once('{').expect("a version node");
    let node = node.trim().to_string();
    let body = body.split_once('}').expect("the node's closing brace").0;
    let global = body
        .split_once("global:")
        .expect("a global: section")
        .1
        .split("local:")
        .next()
        .unwrap_or_default();
    let names: Vec<String> = global
        .split(';')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect();
    for n in &names {
        assert!(
            n.starts_with("rpma_") && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "only upstream rpma_* functions may be exported, found {n:?}"
        );
    }
    (node, names)
}

/// `text` without its `/* ... */` comments.
fn strip_block_comments(text: &str) -> String {
    let mut plain = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        plain.push_str(&rest[..start]);
        let end = rest[start..].find("*/").expect("unterminated comment") + start + 2;
        rest = &rest[end..];
    }
    plain.push_str(rest);
    plain
}
