//! A unified diff of two texts, for `edit_file` to show what it changed (or would change).

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// The largest middle section (old lines × new lines) compared line by line; beyond it the
/// section is shown as removed and re-added, to keep time and memory bounded.
const MAX_CELLS: usize = 4_000_000;

/// One step from the old text to the new: a line kept, removed or added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Keep,
    Remove,
    Add,
}

/// The steps from `a` to `b`: common prefix and suffix, and a longest common subsequence
/// of the rest when it is small enough.
fn ops(a: &[&str], b: &[&str]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut ops = vec![Op::Keep; prefix];
    if a_mid.len().saturating_mul(b_mid.len()) > MAX_CELLS {
        ops.extend(std::iter::repeat_n(Op::Remove, a_mid.len()));
        ops.extend(std::iter::repeat_n(Op::Add, b_mid.len()));
    } else {
        // lcs[i][j]: the longest common subsequence of a_mid[i..] and b_mid[j..].
        let (n, m) = (a_mid.len(), b_mid.len());
        let mut lcs = vec![0u32; (n + 1) * (m + 1)];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i * (m + 1) + j] = if a_mid[i] == b_mid[j] {
                    lcs[(i + 1) * (m + 1) + j + 1] + 1
                } else {
                    lcs[(i + 1) * (m + 1) + j].max(lcs[i * (m + 1) + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && a_mid[i] == b_mid[j] {
                ops.push(Op::Keep);
                (i, j) = (i + 1, j + 1);
            } else if i < n && (j == m || lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1]) {
                // Removals before additions, as diff tools show them.
                ops.push(Op::Remove);
                i += 1;
            } else {
                ops.push(Op::Add);
                j += 1;
            }
        }
    }
    ops.extend(std::iter::repeat_n(Op::Keep, suffix));
    ops
}

/// A unified diff from `old` to `new`, headed with `path`; empty when they are equal.
pub fn unified(path: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = ops(&a, &b);
    // The line of each text that each step starts at.
    let mut at = Vec::with_capacity(ops.len() + 1);
    let (mut i, mut j) = (0, 0);
    for op in &ops {
        at.push((i, j));
        match op {
            Op::Keep => (i, j) = (i + 1, j + 1),
            Op::Remove => i += 1,
            Op::Add => j += 1,
        }
    }
    at.push((i, j));
    let changes: Vec<usize> = (0..ops.len()).filter(|&k| ops[k] != Op::Keep).collect();
    if changes.is_empty() {
        return String::new();
    }
    let mut out = format!("--- {path}\toriginal\n+++ {path}\tmodified\n");
    let mut group_start = 0;
    for g in 0..changes.len() {
        let last_of_group = g + 1 == changes.len() || changes[g + 1] - changes[g] > 2 * CONTEXT;
        if !last_of_group {
            continue;
        }
        let start = changes[group_start].saturating_sub(CONTEXT);
        let end = (changes[g] + CONTEXT + 1).min(ops.len());
        let ((a0, b0), (a1, b1)) = (at[start], at[end]);
        let range = |first: usize, count: usize| {
            if count == 0 { format!("{first},0") } else { format!("{},{count}", first + 1) }
        };
        out.push_str(&format!("@@ -{} +{} @@\n", range(a0, a1 - a0), range(b0, b1 - b0)));
        for k in start..end {
            let (ai, bj) = at[k];
            match ops[k] {
                Op::Keep => out.push_str(&format!(" {}\n", a[ai])),
                Op::Remove => out.push_str(&format!("-{}\n", a[ai])),
                Op::Add => out.push_str(&format!("+{}\n", b[bj])),
            }
        }
        group_start = g + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_changed_line_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        let diff = unified("f", old, new);
        assert_eq!(
            diff,
            "--- f\toriginal\n+++ f\tmodified\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }

    #[test]
    fn distant_changes_make_two_hunks_and_equal_texts_none() {
        let old: String = (1..=20).map(|n| format!("{n}\n")).collect();
        let new: String = (1..=20)
            .map(|n| match n {
                2 => "two\n".to_owned(),
                19 => "nineteen\n".to_owned(),
                n => format!("{n}\n"),
            })
            .collect();
        let diff = unified("f", &old, &new);
        assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
        assert!(diff.contains("-19\n+nineteen\n"), "{diff}");
        assert_eq!(unified("f", &old, &old), "");
    }

    #[test]
    fn insertion_into_an_empty_text() {
        assert_eq!(unified("f", "", "a\n"), "--- f\toriginal\n+++ f\tmodified\n@@ -0,0 +1,1 @@\n+a\n");
    }
}
