//! The names a host gives the tools it aggregates.
//!
//! The rule is documented in the `host` module's docs ("Tool names"); the tests below pin
//! each of its steps.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

/// Between the server part and the tool part of a name.
pub(crate) const SEPARATOR: &str = "__";

/// The shortest length limit honoured: room for a hash suffix and a little of the base.
pub(crate) const MIN_NAME_LEN: usize = 16;

/// Names for `pairs` of (server, tool), in the same order, each at most `max_len` characters
/// (at least [`MIN_NAME_LEN`]) and all distinct. An empty server part names the item by its
/// own name, unchanged. Pairs that repeat (two servers of one prefix) are told apart by rule 4,
/// in the order given.
pub(crate) fn assign_names(pairs: &[(&str, &str)], max_len: usize) -> Vec<String> {
    let max_len = max_len.max(MIN_NAME_LEN);
    let bases: Vec<String> = pairs
        .iter()
        .map(|(server, tool)| match *server {
            "" => (*tool).to_owned(),
            server => format!("{}{SEPARATOR}{}", sanitize(server), sanitize(tool)),
        })
        .collect();
    let mut sharing: BTreeMap<&str, usize> = BTreeMap::new();
    for base in &bases {
        *sharing.entry(base).or_default() += 1;
    }
    let mut names: Vec<String> = bases
        .iter()
        .zip(pairs)
        .map(|(base, (server, tool))| {
            if sharing[base.as_str()] == 1 && base.len() <= max_len {
                base.clone()
            } else {
                with_suffix(base, &format!("_{}", short_hash(server, tool)), max_len)
            }
        })
        .collect();
    // Rule 4: still-shared names, first by (server, tool) keeps its name.
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by_key(|&i| pairs[i]);
    let mut holders: BTreeMap<String, usize> = BTreeMap::new();
    for &i in &order {
        holders.entry(names[i].clone()).or_insert(i);
    }
    let mut taken: BTreeSet<String> = names.iter().cloned().collect();
    for &i in &order {
        if holders[&names[i]] == i {
            continue;
        }
        let name = (2..)
            .map(|n| with_suffix(&names[i], &format!("_{n}"), max_len))
            .find(|candidate| !taken.contains(candidate))
            .expect("some numbered name is free");
        taken.insert(name.clone());
        names[i] = name;
    }
    names
}

/// `text` with every character outside `A-Z a-z 0-9 _ -` replaced by `_` (an empty text
/// becomes `_`).
fn sanitize(text: &str) -> String {
    if text.is_empty() {
        return "_".into();
    }
    text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

/// `base` cut so that `base + suffix` fits in `max_len`. Names are ASCII, so bytes are
/// characters.
fn with_suffix(base: &str, suffix: &str, max_len: usize) -> String {
    let keep = max_len.saturating_sub(suffix.len()).min(base.len());
    format!("{}{suffix}", &base[..keep])
}

/// The first 8 hex digits of SHA-256(`server` 0x00 `tool`).
fn short_hash(server: &str, tool: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(server.as_bytes());
    hasher.update([0]);
    hasher.update(tool.as_bytes());
    hasher.finalize()[..4].iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_pairs_get_server_separator_tool() {
        let names = assign_names(&[("files", "read"), ("db", "read"), ("db", "query")], 64);
        assert_eq!(names, ["files__read", "db__read", "db__query"]);
    }

    #[test]
    fn characters_outside_the_alphabet_become_underscores() {
        let names = assign_names(&[("my server", "admin.tools.list"), ("ünï", "")], 64);
        assert_eq!(
            names,
            ["my_server__admin_tools_list", "_n____"],
            "one underscore per character; an empty tool is `_`"
        );
    }

    #[test]
    fn every_party_to_a_collision_gets_its_own_hash() {
        let pairs = [("a", "b__c"), ("a__b", "c"), ("x", "y")];
        let names = assign_names(&pairs, 64);
        assert_eq!(names[0], format!("a__b__c_{}", short_hash("a", "b__c")));
        assert_eq!(names[1], format!("a__b__c_{}", short_hash("a__b", "c")));
        assert_ne!(names[0], names[1]);
        assert_eq!(names[2], "x__y", "pairs outside the collision keep their base");
        // Order does not matter.
        let reversed = assign_names(&[pairs[2], pairs[1], pairs[0]], 64);
        assert_eq!(reversed, [names[2].clone(), names[1].clone(), names[0].clone()]);
        // Sanitizing can collide too.
        let names = assign_names(&[("my server", "t"), ("my_server", "t")], 64);
        assert!(names[0].starts_with("my_server__t_") && names[1].starts_with("my_server__t_"));
        assert_ne!(names[0], names[1]);
    }

    #[test]
    fn long_names_are_cut_and_hashed_to_the_limit() {
        let tool = "t".repeat(100);
        let names = assign_names(&[("server", &tool), ("other", "short")], 64);
        assert_eq!(names[0].len(), 64);
        assert_eq!(names[0], format!("server__{}_{}", "t".repeat(64 - 8 - 9), short_hash("server", &tool)));
        assert_eq!(names[1], "other__short");
        // A limit below the minimum is raised to it.
        assert!(assign_names(&[("server", &tool)], 3)[0].len() == MIN_NAME_LEN);
        // Two long tools sharing a prefix stay apart.
        let other = format!("{tool}x");
        let names = assign_names(&[("server", &tool), ("server", &other)], 64);
        assert_ne!(names[0], names[1]);
    }

    #[test]
    fn a_name_still_taken_after_hashing_is_numbered_in_pair_order() {
        let hashed = format!("a__b__c_{}", short_hash("a", "b__c"));
        let tool = hashed.strip_prefix("a__").unwrap().to_owned();
        // ("a", tool) has the base `hashed`, which is also the hashed name of ("a", "b__c").
        let names = assign_names(&[("a__b", "c"), ("a", &tool), ("a", "b__c")], 64);
        assert_eq!(names[2], hashed, "(a, b__c) sorts before (a, {tool}) and keeps the name");
        assert_eq!(names[1], format!("{hashed}_2"));
        let unique: BTreeSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), 3);
    }
}
