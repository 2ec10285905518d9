//! How results are shown: readable tables and colour on a terminal (colour turns itself off
//! when piped or under `NO_COLOR`), JSON for scripts.

use std::fmt;
use std::io::{ErrorKind, IsTerminal, Write};

use anstyle::{AnsiColor, Style};
use clap::Args;
use comfy_table::{ContentArrangement, Table, presets};
use serde::Serialize;

/// How results are printed.
#[derive(Args, Clone, Copy, Debug)]
pub struct OutputArgs {
    /// Print the result as JSON (for scripts) instead of tables and text.
    #[arg(long)]
    pub json: bool,
}

/// Headings and names.
pub const BOLD: Style = Style::new().bold();
/// Secondary text.
pub const DIM: Style = Style::new().dimmed();
/// Failures.
pub const RED: Style = Style::new().fg_color(Some(anstyle::Color::Ansi(AnsiColor::Red))).bold();
/// Successes.
pub const GREEN: Style = Style::new().fg_color(Some(anstyle::Color::Ansi(AnsiColor::Green)));

/// Writes one line to stdout, colour stripped when it is not a terminal. A closed pipe (as in
/// `| head`) ends the program quietly: nobody is reading any more.
pub fn write_line(line: fmt::Arguments<'_>) {
    let mut stdout = anstream::stdout().lock();
    if let Err(e) = writeln!(stdout, "{line}") {
        if e.kind() == ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("modelctx: cannot write to stdout: {e}");
    }
}

/// Text a server controls, made safe to show a person: control characters (the start of a
/// terminal escape sequence, a carriage return that overwrites the line, the bidirectional
/// overrides that reorder it) become visible `\u{…}` escapes, so a tool name or a message
/// cannot rewrite what the terminal shows. Newlines and tabs stay when `multiline`.
pub fn shown(text: &str, multiline: bool) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        let kept = multiline && (c == '\n' || c == '\t');
        (c.is_control() && !kept)
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars()
            .map(|c| if unsafe_char(c) { c.escape_unicode().to_string() } else { c.to_string() })
            .collect(),
    )
}

/// `println!` through [`write_line`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::inspect::output::write_line(format_args!($($arg)*))
    };
}
pub(crate) use out;

/// Prints `value` as pretty JSON on stdout.
pub fn print_json(value: &impl Serialize) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => write_line(format_args!("{text}")),
        Err(e) => eprintln!("modelctx: cannot show the result as JSON: {e}"),
    }
}

/// Prints rows under `header`: on a terminal with rules, fitted to its width (cells wrap);
/// otherwise as plain aligned columns, one line per row.
pub fn print_table(header: &[&str], rows: Vec<Vec<String>>) {
    if rows.is_empty() {
        out!("{DIM}(none){DIM:#}");
        return;
    }
    let mut table = Table::new();
    table.set_header(header.to_vec());
    match console::Term::stdout().size_checked().filter(|_| std::io::stdout().is_terminal()) {
        Some((_, width)) => {
            table.load_preset(presets::UTF8_HORIZONTAL_ONLY);
            table.set_content_arrangement(ContentArrangement::Dynamic).set_width(width);
        }
        None => {
            table.load_preset(presets::NOTHING);
        }
    }
    for row in rows {
        table.add_row(row.iter().map(|cell| shown(cell, true).into_owned()));
    }
    for line in table.lines() {
        out!("{}", line.trim_end());
    }
}

/// Prints `items`: as JSON with `--json`, otherwise as a table of `row(item)` under `header`.
pub fn print_listing<T: Serialize>(
    items: &[T],
    output: OutputArgs,
    header: &[&str],
    row: impl Fn(&T) -> Vec<String>,
) {
    if output.json {
        print_json(&items);
    } else {
        print_table(header, items.iter().map(row).collect());
    }
}

/// The first line of `text`, for a table cell.
pub fn first_line(text: Option<&str>) -> String {
    text.and_then(|t| t.lines().next()).unwrap_or_default().to_owned()
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn server_text_cannot_drive_the_terminal() {
        assert_eq!(shown("read_file", false), "read_file");
        assert_eq!(shown("ok\x1b[2K\rrm -rf", false), "ok\\u{1b}[2K\\u{d}rm -rf");
        assert_eq!(shown("a\u{202e}txt.exe", false), "a\\u{202e}txt.exe");
        assert_eq!(shown("two\nlines\tok", true), "two\nlines\tok");
        assert_eq!(shown("two\nlines", false), "two\\u{a}lines");
    }
}
