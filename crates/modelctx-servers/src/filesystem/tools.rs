//! The tools: their arguments (named as the official `@modelcontextprotocol/server-filesystem`
//! names them), annotations, and handlers that run the blocking file work off the async
//! runtime.

use std::sync::Arc;

use modelctx::protocol::JsonObject;
use modelctx::protocol::model::CallToolResult;
use modelctx::protocol::types::{ContentBlock, ToolAnnotations};
use modelctx::server::{Args, IntoCallToolResult, Json, ServerBuilder, State, ToolDef, error_result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::FsError;
use super::read::{self, TextRange};
use super::resolve::Fs;
use super::write::{self, Edit};
use super::{DEFAULT_TREE_DEPTH, MAX_DEPTH, MAX_SEARCH_RESULTS, info, walk};

/// A result with a text for the model and the same facts as structured content.
struct Structured<T> {
    text: String,
    value: T,
}

impl<T: Serialize + JsonSchema> IntoCallToolResult for Structured<T> {
    fn into_call_tool_result(self) -> CallToolResult {
        match serde_json::to_value(&self.value) {
            Ok(value) => CallToolResult {
                content: vec![ContentBlock::text(self.text)],
                structured_content: Some(value),
                ..CallToolResult::default()
            },
            Err(e) => error_result(format!("the tool's output could not be serialised: {e}")),
        }
    }

    fn output_schema() -> Option<JsonObject> {
        match serde_json::to_value(schemars::schema_for!(T)) {
            Ok(Value::Object(schema)) => Some(schema),
            _ => None,
        }
    }
}

/// Runs blocking file work on the blocking thread pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, FsError> + Send + 'static,
) -> Result<T, FsError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(FsError::Refused(format!("the file operation failed: {e}"))))
}

/// Arguments naming one path.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PathArgs {
    /// The path: absolute, or relative to the first allowed directory.
    path: String,
}

/// `list_directory_with_sizes` arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SizedListArgs {
    /// The directory: absolute, or relative to the first allowed directory.
    path: String,
    /// Sort the entries by `name` (the default) or by `size`, largest first.
    #[serde(default)]
    sort_by: walk::SortBy,
}

/// `read_text_file` arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadTextArgs {
    /// The file: absolute, or relative to the first allowed directory.
    path: String,
    /// Only the first N lines.
    head: Option<u64>,
    /// Only the last N lines.
    tail: Option<u64>,
    /// Start at this byte (a character cut by the range is dropped).
    offset: Option<u64>,
    /// Read this many bytes.
    length: Option<u64>,
}

/// `read_media_file` arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadMediaArgs {
    /// The file: absolute, or relative to the first allowed directory.
    path: String,
    /// Start at this byte.
    offset: Option<u64>,
    /// Read this many bytes.
    length: Option<u64>,
}

/// `read_multiple_files` arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadMultipleArgs {
    /// The files to read.
    paths: Vec<String>,
}

/// `write_file` arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    /// The file to create or replace.
    path: String,
    /// Its new content.
    content: String,
}

/// `edit_file` arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EditArgs {
    /// The text file to edit.
    path: String,
    /// Replacements, applied in order; each oldText must occur exactly once.
    edits: Vec<Edit>,
    /// Show the diff without writing anything.
    #[serde(default)]
    dry_run: bool,
}

/// `move_file` arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MoveArgs {
    /// What to move.
    source: String,
    /// Where to move it; it must not exist.
    destination: String,
}

/// `directory_tree` arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TreeArgs {
    /// The directory at the top.
    path: String,
    /// Names or globs of entries to leave out (with their contents).
    #[serde(default)]
    exclude_patterns: Vec<String>,
    /// How many levels to descend (default 8, at most 32).
    max_depth: Option<u32>,
}

/// `search_files` arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SearchArgs {
    /// The directory to search under.
    path: String,
    /// A glob (`*.rs`, `src/**/mod.rs`) matched against names, or against relative paths
    /// when it has a `/`; without glob characters, a case-insensitive part of a name.
    pattern: String,
    /// Names or globs of entries to skip (with their contents).
    #[serde(default)]
    exclude_patterns: Vec<String>,
    /// The most matches to return (default and limit 1000).
    max_results: Option<u32>,
}

/// `list_allowed_directories` output.
#[derive(Serialize, JsonSchema)]
struct AllowedDirectories {
    /// The allowed directories, canonical.
    directories: Vec<String>,
}

/// The annotations of a tool that only reads.
fn reading() -> ToolAnnotations {
    ToolAnnotations { read_only_hint: Some(true), open_world_hint: Some(false), ..Default::default() }
}

/// The annotations of a tool that changes files.
fn changing(destructive: bool, idempotent: bool) -> ToolAnnotations {
    ToolAnnotations {
        read_only_hint: Some(false),
        destructive_hint: Some(destructive),
        idempotent_hint: Some(idempotent),
        open_world_hint: Some(false),
        ..Default::default()
    }
}

/// Registers the tools that only read.
pub fn register_reading(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            ToolDef::new("list_allowed_directories", |State(fs): State<Arc<Fs>>| async move {
                let directories: Vec<String> = fs.roots.paths().map(|p| p.display().to_string()).collect();
                let text = format!("Allowed directories:\n{}", directories.join("\n"));
                Structured { text, value: AllowedDirectories { directories } }
            })
            .description("Lists the directories this server may read and write; every path must lie inside one of them")
            .annotations(reading()),
        )
        .tool(
            ToolDef::new("list_directory", |State(fs): State<Arc<Fs>>, Args(a): Args<PathArgs>| async move {
                blocking(move || walk::list(&fs, &a.path)).await.map(|(text, value)| Structured { text, value })
            })
            .description("Lists a directory's entries, each marked [DIR] or [FILE]")
            .annotations(reading()),
        )
        .tool(
            ToolDef::new(
                "list_directory_with_sizes",
                |State(fs): State<Arc<Fs>>, Args(a): Args<SizedListArgs>| async move {
                    blocking(move || walk::list_with_sizes(&fs, &a.path, a.sort_by))
                        .await
                        .map(|(text, value)| Structured { text, value })
                },
            )
            .description(
                "Lists a directory's entries with each file's size, sorted by name or by size, \
                 then the number of files and directories and their combined size",
            )
            .annotations(reading()),
        )
        .tool(
            ToolDef::new("directory_tree", |State(fs): State<Arc<Fs>>, Args(a): Args<TreeArgs>| async move {
                let depth = a.max_depth.map_or(DEFAULT_TREE_DEPTH, |d| d as usize).min(MAX_DEPTH);
                blocking(move || walk::tree(&fs, &a.path, &a.exclude_patterns, depth)).await.map(Json)
            })
            .description(
                "Returns the tree of files and directories under a directory as JSON (name, type, \
                 children), bounded in depth and entries; symbolic links are not followed",
            )
            .annotations(reading()),
        )
        .tool(
            ToolDef::new("read_text_file", |State(fs): State<Arc<Fs>>, Args(a): Args<ReadTextArgs>| async move {
                let range = TextRange { head: a.head, tail: a.tail, offset: a.offset, length: a.length };
                blocking(move || read::read_text(&fs, &a.path, range)).await
            })
            .description(
                "Reads a UTF-8 text file, whole or in part: the first lines (head), the last \
                 lines (tail), or a byte range (offset, length)",
            )
            .annotations(reading()),
        )
        .tool(
            ToolDef::new("read_media_file", |State(fs): State<Arc<Fs>>, Args(a): Args<ReadMediaArgs>| async move {
                blocking(move || read::read_media(&fs, &a.path, a.offset, a.length)).await
            })
            .description(
                "Reads a binary file (or a byte range of it) as base64: an image or audio block by \
                 its MIME type, otherwise an embedded blob resource",
            )
            .annotations(reading()),
        )
        .tool(
            ToolDef::new(
                "read_multiple_files",
                |State(fs): State<Arc<Fs>>, Args(a): Args<ReadMultipleArgs>| async move {
                    blocking(move || read::read_multiple(&fs, &a.paths)).await
                },
            )
            .description("Reads several text files at once; a file that cannot be read does not stop the others")
            .annotations(reading()),
        )
        .tool(
            ToolDef::new("search_files", |State(fs): State<Arc<Fs>>, Args(a): Args<SearchArgs>| async move {
                let limit = a.max_results.map_or(MAX_SEARCH_RESULTS, |n| n as usize);
                blocking(move || walk::search(&fs, &a.path, &a.pattern, &a.exclude_patterns, limit))
                    .await
                    .map(|value| {
                        let mut text = if value.matches.is_empty() {
                            "No matches found".to_owned()
                        } else {
                            value.matches.join("\n")
                        };
                        if value.truncated {
                            text.push_str("\n(the search stopped early: too many matches or entries)");
                        }
                        Structured { text, value }
                    })
            })
            .description(
                "Finds files and directories under a directory whose name matches a glob or \
                 contains a text; bounded in results and entries visited",
            )
            .annotations(reading()),
        )
        .tool(
            ToolDef::new("get_file_info", |State(fs): State<Arc<Fs>>, Args(a): Args<PathArgs>| async move {
                blocking(move || info::info(&fs, &a.path))
                    .await
                    .map(|value| Structured { text: info::describe(&value), value })
            })
            .description("Reports a file's or directory's type, size, times and permissions")
            .annotations(reading()),
        )
}

/// Registers the tools that change files.
pub fn register_changing(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            ToolDef::new("write_file", |State(fs): State<Arc<Fs>>, Args(a): Args<WriteArgs>| async move {
                blocking(move || write::write(&fs, &a.path, &a.content)).await
            })
            .description("Creates a file, or replaces a file's whole content; refuses to write through a symbolic link")
            .annotations(changing(true, true)),
        )
        .tool(
            ToolDef::new("edit_file", |State(fs): State<Arc<Fs>>, Args(a): Args<EditArgs>| async move {
                blocking(move || write::edit(&fs, &a.path, &a.edits, a.dry_run)).await
            })
            .description(
                "Replaces exact texts in a text file (each oldText must occur exactly once; all edits \
                 apply or none) and returns a unified diff; with dryRun, only shows the diff",
            )
            .annotations(changing(true, false)),
        )
        .tool(
            ToolDef::new("create_directory", |State(fs): State<Arc<Fs>>, Args(a): Args<PathArgs>| async move {
                blocking(move || write::create_directory(&fs, &a.path)).await
            })
            .description("Creates a directory and any missing parents; succeeds if it already exists")
            .annotations(changing(false, true)),
        )
        .tool(
            ToolDef::new("move_file", |State(fs): State<Arc<Fs>>, Args(a): Args<MoveArgs>| async move {
                blocking(move || write::move_entry(&fs, &a.source, &a.destination)).await
            })
            .description("Moves or renames a file or directory; the destination must not exist")
            .annotations(changing(true, false)),
        )
}
