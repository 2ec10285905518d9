//! A page as markdown: its main content found as Firefox's Reader View finds it (the
//! Readability algorithm, by `dom_smoothie`), then converted by `htmd`. Building the tree
//! costs the square of its depth (bounded by [`super::tree`]), both steps after it walk the
//! tree by recursion and Readability too costs the square of the depth: a page nested deeper
//! than [`MAX_NESTING`] is not simplified (500 KB of nested `<div>`s took minutes, and 4,096
//! levels overflowed the stack).

use dom_query::NodeRef;

use super::tree::{WORK_BUDGET, parse_within};

/// The deepest a page's elements may nest to be simplified (browsers flatten past 512; real
/// pages stay well under 100).
pub const MAX_NESTING: usize = 256;

/// Why a page was not simplified.
#[derive(Debug, PartialEq, Eq)]
pub enum NotSimplified {
    /// No readable content was found.
    NothingReadable,
    /// Its elements nest deeper than [`MAX_NESTING`], or so deep that building its tree
    /// would cost more than [`WORK_BUDGET`].
    TooDeep,
}

/// Elements that carry no text a reader wants.
const SKIPPED: &[&str] = &["script", "style", "noscript", "template", "svg", "iframe", "head"];

/// The main content of `html` (at `url`, for its relative links) as markdown.
pub fn simplified(html: &str, url: &str) -> Result<String, NotSimplified> {
    let document = parse_within(html, WORK_BUDGET).ok_or(NotSimplified::TooDeep)?;
    if nests_deeper_than(document.root(), MAX_NESTING) {
        return Err(NotSimplified::TooDeep);
    }
    let content = dom_smoothie::Readability::with_document(document, Some(url), None)
        .and_then(|mut readability| readability.parse())
        .map(|article| article.content.to_string())
        .ok()
        .filter(|content| !content.trim().is_empty())
        .ok_or(NotSimplified::NothingReadable)?;
    let converter = htmd::HtmlToMarkdown::builder().skip_tags(SKIPPED.to_vec()).build();
    converter
        .convert(&content)
        .ok()
        .filter(|markdown| !markdown.trim().is_empty())
        .ok_or(NotSimplified::NothingReadable)
}

/// Whether any node under `root` is more than `limit` levels below it: a walk with a stack of
/// its own, in time linear in the nodes.
fn nests_deeper_than(root: NodeRef<'_>, limit: usize) -> bool {
    let mut pending = vec![(root, 0)];
    while let Some((node, depth)) = pending.pop() {
        if depth > limit {
            return true;
        }
        let mut child = node.first_child();
        while let Some(next) = child {
            child = next.next_sibling();
            pending.push((next, depth + 1));
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_article_becomes_markdown_without_its_chrome() {
        let html = r#"<html><head><title>T</title><script>alert(1)</script></head><body>
            <nav><a href="/">Home</a> <a href="/about">About</a></nav>
            <article><h1>The Engine</h1>
            <p>Ada Lovelace wrote what is called the first program, for Babbage's Analytical Engine, in 1843.
            Her notes describe how the engine could compute Bernoulli numbers, step by step, on cards.</p>
            <p>She saw that such a machine could act on more than numbers: on <a href="/music">music</a>,
            for one, if its rules could be expressed in the engine's notation. That idea outlived the engine.</p>
            </article><footer>© someone</footer></body></html>"#;
        let markdown = simplified(html, "https://example.com/engine").expect("readable");
        assert!(markdown.contains("Ada Lovelace wrote"), "{markdown}");
        assert!(markdown.contains("[music](https://example.com/music)"), "{markdown}");
        assert!(!markdown.contains("alert(1)"), "{markdown}");
    }

    /// A page nested 100,000 deep (500 KB of `<div>`s; it used to take minutes, and 4,096
    /// levels overflowed the stack) is measured and not simplified, however its tags are
    /// closed or misnested; one within the bound still is.
    #[test]
    fn pages_nested_too_deep_are_not_simplified() {
        let deep = "<div>".repeat(100_000);
        let misnested = "<span><div></span>".repeat(50_000);
        let closed = format!("{}{}", "<div>".repeat(100_000), "</div>".repeat(100_000));
        for html in [deep, misnested, closed] {
            assert_eq!(simplified(&html, "https://example.com/"), Err(NotSimplified::TooDeep));
        }
        let paragraph = "<p>Ada Lovelace wrote what is called the first program, for Babbage's engine, \
            in 1843, and saw that such a machine could act on more than numbers.</p>";
        let within = format!(
            "<html><body>{}{}{}</body></html>",
            "<div>".repeat(200),
            paragraph.repeat(5),
            "</div>".repeat(200)
        );
        assert!(simplified(&within, "https://example.com/").unwrap().contains("Ada Lovelace"));
    }
}
