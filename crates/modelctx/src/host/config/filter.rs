//! Which of a server's tools the host takes (`allowTools`, `denyTools`): names, or patterns
//! where `*` stands for any run of characters (`read_*`, `*_admin`).

/// The tools of one server the host takes: those `allow` matches (all, when it is `None`)
/// that `deny` does not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolFilter {
    /// Only tools matching one of these patterns, when set (`allowTools`).
    pub allow: Option<Vec<String>>,
    /// No tool matching one of these patterns (`denyTools`), whatever `allow` says.
    pub deny: Vec<String>,
}

impl ToolFilter {
    /// Whether the tool the server calls `name` is taken.
    pub fn admits(&self, name: &str) -> bool {
        let allowed = self.allow.as_ref().is_none_or(|allow| allow.iter().any(|p| matches(p, name)));
        allowed && !self.deny.iter().any(|pattern| matches(pattern, name))
    }
}

/// Whether `name` matches `pattern`, `*` matching any run of characters (none included).
pub(crate) fn matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_match_any_run_of_characters() {
        assert!(matches("echo", "echo"));
        assert!(!matches("echo", "echo2"));
        assert!(matches("read_*", "read_file"));
        assert!(matches("read_*", "read_"));
        assert!(!matches("read_*", "write_file"));
        assert!(matches("*_admin", "drop_admin"));
        assert!(matches("a*b*c", "a-x-b-y-c"));
        assert!(!matches("a*b*c", "a-c-b"));
        assert!(matches("*", "anything"));
        assert!(!matches("ab*ba", "aba"), "the ends may not overlap");
    }

    #[test]
    fn deny_wins_over_allow() {
        let filter =
            ToolFilter { allow: Some(vec!["get_*".into(), "echo".into()]), deny: vec!["get_secret".into()] };
        let taken: Vec<&str> =
            ["echo", "get_sum", "get_secret", "add"].into_iter().filter(|name| filter.admits(name)).collect();
        assert_eq!(taken, ["echo", "get_sum"]);
        assert!(ToolFilter::default().admits("any"));
    }
}
