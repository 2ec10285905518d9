//! A page as markdown: its main content found as Firefox's Reader View finds it (the
//! Readability algorithm, by `dom_smoothie`), then converted by `htmd`.

/// Elements that carry no text a reader wants.
const SKIPPED: &[&str] = &["script", "style", "noscript", "template", "svg", "iframe", "head"];

/// The main content of `html` (at `url`, for its relative links) as markdown; `None` when no
/// readable content was found.
pub fn simplified(html: &str, url: &str) -> Option<String> {
    let content = dom_smoothie::Readability::new(html, Some(url), None)
        .and_then(|mut readability| readability.parse())
        .map(|article| article.content.to_string())
        .ok()
        .filter(|content| !content.trim().is_empty())?;
    let converter = htmd::HtmlToMarkdown::builder().skip_tags(SKIPPED.to_vec()).build();
    converter.convert(&content).ok().filter(|markdown| !markdown.trim().is_empty())
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
}
