//! Patterns for `search_files` and `excludePatterns`: globs (`*`, `?`, `[a-z]`, `[!x]`, and
//! `**` for any number of directories) or, with no glob character, a case-insensitive
//! substring of the name.

/// A compiled pattern.
#[derive(Clone, Debug)]
pub enum Pattern {
    /// A glob with a `/`: matched against the path relative to where the search starts.
    PathGlob(Vec<String>),
    /// A glob without `/`: matched against the name alone, at any depth.
    NameGlob(String),
    /// A lowercase substring of the name.
    Substring(String),
}

impl Pattern {
    /// Compiles `pattern`; `None` when it is empty.
    pub fn new(pattern: &str) -> Option<Self> {
        let pattern = pattern.trim_start_matches("./");
        if pattern.is_empty() {
            return None;
        }
        Some(if !pattern.contains(['*', '?', '[']) {
            Self::Substring(pattern.to_lowercase())
        } else if pattern.contains('/') {
            Self::PathGlob(pattern.split('/').filter(|s| !s.is_empty()).map(str::to_owned).collect())
        } else {
            Self::NameGlob(pattern.to_owned())
        })
    }

    /// Whether the entry at `relative` (components joined by `/`) named `name` matches.
    pub fn matches(&self, relative: &str, name: &str) -> bool {
        match self {
            Self::Substring(needle) => name.to_lowercase().contains(needle.as_str()),
            Self::NameGlob(glob) => segment(glob.as_bytes(), name.as_bytes()),
            Self::PathGlob(globs) => {
                let parts: Vec<&str> = relative.split('/').filter(|s| !s.is_empty()).collect();
                path(globs, &parts)
            }
        }
    }
}

/// Whether the path segments `parts` match the glob segments `globs` (`**` spans any
/// number of segments, including none). One pass per glob segment over the path, so
/// `globs.len() × parts.len()` steps at most, however many `**` a pattern holds (trying every
/// split of the path for every `**` was exponential).
fn path(globs: &[String], parts: &[&str]) -> bool {
    // `reached[j]`: the glob segments so far match the first `j` path segments.
    let mut reached = vec![false; parts.len() + 1];
    reached[0] = true;
    for glob in globs {
        let mut next = vec![false; parts.len() + 1];
        if glob == "**" {
            let mut any = false;
            for (j, slot) in next.iter_mut().enumerate() {
                any |= reached[j];
                *slot = any;
            }
        } else {
            for j in 1..=parts.len() {
                next[j] = reached[j - 1] && segment(glob.as_bytes(), parts[j - 1].as_bytes());
            }
        }
        reached = next;
    }
    reached[parts.len()]
}

/// Whether one name matches one glob segment.
fn segment(glob: &[u8], name: &[u8]) -> bool {
    // Iterative matching with backtracking to the last `*`: linear in practice, never
    // exponential.
    let (mut g, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if g < glob.len() {
            match glob[g] {
                b'*' => {
                    star = Some((g, n));
                    g += 1;
                    continue;
                }
                b'?' => {
                    g += 1;
                    n += 1;
                    continue;
                }
                b'[' => {
                    if let Some((matched, next)) = class(&glob[g..], name[n]) {
                        if matched {
                            g += next;
                            n += 1;
                            continue;
                        }
                    } else if name[n] == b'[' {
                        g += 1;
                        n += 1;
                        continue;
                    }
                }
                c if c == name[n] => {
                    g += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((star_g, star_n)) => {
                g = star_g + 1;
                n = star_n + 1;
                star = Some((star_g, star_n + 1));
            }
            None => return false,
        }
    }
    glob[g..].iter().all(|&c| c == b'*')
}

/// Matches `byte` against the class at the start of `glob` (`[abc]`, `[a-z]`, `[!x]`):
/// whether it matched and the class's length; `None` when the class is not closed.
fn class(glob: &[u8], byte: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let negated = matches!(glob.get(i), Some(b'!' | b'^'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while let Some(&c) = glob.get(i) {
        if c == b']' && !first {
            return Some((matched != negated, i + 1));
        }
        first = false;
        if glob.get(i + 1) == Some(&b'-') && glob.get(i + 2).is_some_and(|&end| end != b']') {
            matched |= (c..=glob[i + 2]).contains(&byte);
            i += 3;
        } else {
            matched |= c == byte;
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, relative: &str) -> bool {
        let name = relative.rsplit('/').next().unwrap();
        Pattern::new(pattern).unwrap().matches(relative, name)
    }

    #[test]
    fn substrings_are_case_insensitive_on_the_name() {
        assert!(m("read", "docs/README.md"));
        assert!(!m("docs", "docs/README.md"));
    }

    #[test]
    fn name_globs_match_at_any_depth() {
        assert!(m("*.rs", "a/b/main.rs"));
        assert!(!m("*.rs", "a/b/main.rsx"));
        assert!(m("ma?n.[a-z]s", "main.rs"));
        assert!(m("[!x]*", "main.rs"));
        assert!(!m("[!m]*", "main.rs"));
        assert!(m("*a*b*c*", "xaxbxcx"));
        assert!(!m("*a*b*c*d", &"ab".repeat(50)));
    }

    #[test]
    fn path_globs_use_double_star_for_directories() {
        assert!(m("**/*.rs", "main.rs"));
        assert!(m("**/*.rs", "a/b/main.rs"));
        assert!(m("src/**/mod.rs", "src/a/b/mod.rs"));
        assert!(m("src/*.rs", "src/lib.rs"));
        assert!(!m("src/*.rs", "src/a/lib.rs"));
        assert!(!m("src/**", "lib/src.rs"));
    }

    /// Many `**` against a deep path that does not match: answered at once (each `**` used
    /// to try every split of the rest of the path, so this pattern never finished). The
    /// thread bound only keeps a regression from hanging the suite.
    #[test]
    fn many_double_stars_cost_little() {
        let pattern = format!("{}/x.txt", vec!["**"; 40].join("/"));
        let deep = format!("{}/y.txt", vec!["d"; 40].join("/"));
        let (done, answer) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(m(&pattern, &deep));
        });
        assert_eq!(answer.recv_timeout(std::time::Duration::from_secs(10)), Ok(false));
        assert!(m("**/d/**/*.txt", "d/d/y.txt"));
        assert!(m("a/**", "a/b/c"));
        assert!(!m("a/**/c", "a/b/d"));
    }

    /// The segment-by-segment reading of `**`, trying every split: the meaning the single
    /// pass must keep (fine on small inputs).
    fn every_split(globs: &[String], parts: &[&str]) -> bool {
        match globs.split_first() {
            None => parts.is_empty(),
            Some((first, rest)) if first == "**" => {
                (0..=parts.len()).any(|skip| every_split(rest, &parts[skip..]))
            }
            Some((first, rest)) => parts.split_first().is_some_and(|(part, others)| {
                segment(first.as_bytes(), part.as_bytes()) && every_split(rest, others)
            }),
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, .. Default::default() })]

        /// Any pattern against any path: matched as every split would, without panicking.
        #[test]
        fn the_single_pass_means_what_every_split_means(
            globs in proptest::collection::vec("\\*\\*|\\*|[ab?]{1,2}|\\[a-b\\]|\\[!a\\]", 0..6),
            parts in proptest::collection::vec("[ab]{1,2}", 0..6),
        ) {
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(path(&globs, &parts), every_split(&globs, &parts));
        }
    }
}
