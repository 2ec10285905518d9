//! `modelctx serve filesystem` as a client meets it: the built binary as a child process,
//! driven by `modelctx::client::Client` over stdio (and once over Streamable HTTP on
//! loopback). Every tool's happy path and ranges, read-only mode, and a battery of attempts
//! to escape the roots, each refused with `isError` and leaving the files outside unread and
//! untouched.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use base64::Engine;
use modelctx::client::{Client, ClientOptions, StdioCommand};
use modelctx::protocol::model::CallToolResult;
use modelctx::protocol::types::{ContentBlock, Implementation, TextOrBlob};
use serde_json::{Value, json};

/// What the files outside the root hold; no result may ever contain it.
const SECRET: &str = "TOP SECRET";

/// A 1×1 PNG.
const PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89,
];

/// A temporary tree: `data` (the root), `outside` and `data-evil` (a prefix sibling) beside
/// it, with links from inside the root to outside.
struct Tree {
    _dir: tempfile::TempDir,
    base: PathBuf,
    data: PathBuf,
    outside: PathBuf,
    evil: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let (data, outside, evil) = (base.join("data"), base.join("outside"), base.join("data-evil"));
        for d in [&data, &outside, &evil, &data.join("sub/deeper")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(data.join("hello.txt"), "hello\nworld\n").unwrap();
        std::fs::write(data.join("sub/nested.txt"), "nested\n").unwrap();
        std::fs::write(data.join("sub/deeper/deep.rs"), "fn main() {}\n").unwrap();
        std::fs::write(data.join("pixel.png"), PIXEL_PNG).unwrap();
        std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
        std::fs::write(evil.join("loot.txt"), SECRET).unwrap();
        // Links that lead out: absolute and relative, to a file and to a directory, and one
        // to a file that does not exist yet.
        symlink(outside.join("secret.txt"), data.join("link-secret")).unwrap();
        symlink("../outside/secret.txt", data.join("rel-secret")).unwrap();
        symlink(&outside, data.join("outdir")).unwrap();
        symlink(outside.join("created-through-dangling.txt"), data.join("dangling")).unwrap();
        // Links that stay inside: relative, and absolute (which the kernel's beneath-rule
        // refuses, so the server checks where it really leads).
        symlink("hello.txt", data.join("inner-link")).unwrap();
        symlink(data.join("sub"), data.join("abs-inner-dir")).unwrap();
        Self { _dir: dir, base, data, outside, evil }
    }

    /// The root as a string.
    fn root(&self) -> String {
        self.data.display().to_string()
    }

    /// The names in `outside` and `data-evil`, and what the secret files hold.
    fn outside_state(&self) -> (Vec<String>, Vec<String>, String, String) {
        let names = |dir: &Path| {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into())
                .collect();
            names.sort();
            names
        };
        (
            names(&self.outside),
            names(&self.evil),
            std::fs::read_to_string(self.outside.join("secret.txt")).unwrap(),
            std::fs::read_to_string(self.evil.join("loot.txt")).unwrap(),
        )
    }

    /// Asserts that nothing outside the root was created, changed or removed.
    fn assert_outside_untouched(&self) {
        assert_eq!(
            self.outside_state(),
            (vec!["secret.txt".into()], vec!["loot.txt".into()], SECRET.into(), SECRET.into()),
            "the files outside the root changed"
        );
    }
}

fn options() -> ClientOptions {
    ClientOptions::new(Implementation::new("filesystem-test", "1"))
}

/// Spawns `modelctx serve filesystem` with `args` after `filesystem`.
async fn serve(args: &[&str]) -> Client {
    let command = StdioCommand::new(env!("CARGO_BIN_EXE_modelctx"))
        .args(["serve", "filesystem"])
        .args(args.iter().copied());
    Client::spawn(&command, options()).await.expect("the filesystem server starts")
}

/// The text blocks of a result, joined by newlines.
fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Everything a result says, as JSON.
fn dump(result: &CallToolResult) -> String {
    serde_json::to_string(&(&result.content, &result.structured_content)).unwrap()
}

/// Calls a tool that must succeed; its result.
async fn ok(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let result = client.call_tool(tool, arguments.clone()).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{tool} {arguments} failed: {}", text(&result));
    result
}

/// Calls a tool that must fail with a tool error whose text contains `expected`; the text.
async fn refused(client: &Client, tool: &str, arguments: Value, expected: &str) -> String {
    let result = client.call_tool(tool, arguments.clone()).await.unwrap();
    let message = text(&result);
    assert_eq!(result.is_error, Some(true), "{tool} {arguments} must be refused, got: {message}");
    assert!(message.contains(expected), "{tool} {arguments}: {message:?} does not say {expected:?}");
    let everything = dump(&result);
    assert!(!everything.contains(SECRET), "{tool} {arguments} leaked the secret: {everything}");
    assert!(result.structured_content.is_none(), "{tool} {arguments}: {everything}");
    message
}

const OUTSIDE: &str = "is outside the allowed roots";
const ESCAPES: &str = "leads outside the allowed roots";

#[tokio::test]
async fn tools_and_annotations_and_read_only_mode() {
    let tree = Tree::new();
    let client = serve(&["--root", &tree.root()]).await;
    assert_eq!(client.server().info.as_ref().unwrap().name, "modelctx-filesystem");
    let tools = client.list_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "create_directory",
            "directory_tree",
            "edit_file",
            "get_file_info",
            "list_allowed_directories",
            "list_directory",
            "list_directory_with_sizes",
            "move_file",
            "read_media_file",
            "read_multiple_files",
            "read_text_file",
            "search_files",
            "write_file",
        ]
    );
    let hints = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        let a = tool.annotations.clone().unwrap();
        (a.read_only_hint, a.destructive_hint, a.idempotent_hint)
    };
    assert_eq!(hints("read_text_file"), (Some(true), None, None));
    assert_eq!(hints("write_file"), (Some(false), Some(true), Some(true)));
    assert_eq!(hints("edit_file"), (Some(false), Some(true), Some(false)));
    assert_eq!(hints("move_file"), (Some(false), Some(true), Some(false)));
    assert_eq!(hints("create_directory"), (Some(false), Some(false), Some(true)));
    client.close().await;

    let client = serve(&["--root", &tree.root(), "--read-only"]).await;
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools.len(), 9, "{tools:?}");
    assert!(tools.iter().all(|t| t.annotations.as_ref().unwrap().read_only_hint == Some(true)));
    for name in ["write_file", "edit_file", "create_directory", "move_file"] {
        assert!(tools.iter().all(|t| t.name != name), "{name} is offered in read-only mode");
    }
    let write = client.call_tool("write_file", json!({"path": "new.txt", "content": "x"})).await;
    assert!(write.is_err(), "an unknown tool is a protocol error: {write:?}");
    assert!(!tree.data.join("new.txt").exists());
    let read = ok(&client, "read_text_file", json!({"path": "hello.txt"})).await;
    assert_eq!(text(&read), "hello\nworld\n");
    client.close().await;
}

#[tokio::test]
async fn listing_trees_searching_and_info() {
    let tree = Tree::new();
    let client = serve(&["--root", &tree.root()]).await;

    let allowed = ok(&client, "list_allowed_directories", json!({})).await;
    assert_eq!(allowed.structured_content, Some(json!({"directories": [tree.root()]})));

    let listing = ok(&client, "list_directory", json!({"path": tree.root()})).await;
    let listed = text(&listing);
    let lines: Vec<&str> = listed.lines().collect();
    for line in ["[FILE] hello.txt", "[DIR] sub", "[FILE] outdir (symbolic link)"] {
        assert!(lines.contains(&line), "{line} in {lines:?}");
    }
    let entries = &listing.structured_content.unwrap()["entries"];
    assert!(entries.as_array().unwrap().contains(&json!({"name": "sub", "type": "directory"})));
    assert!(entries.as_array().unwrap().contains(&json!({"name": "outdir", "type": "symlink"})));
    // Relative paths are relative to the first root.
    let sub = ok(&client, "list_directory", json!({"path": "sub"})).await;
    assert_eq!(text(&sub), "[DIR] deeper\n[FILE] nested.txt");

    let whole = ok(&client, "directory_tree", json!({"path": "."})).await.structured_content.unwrap();
    assert_eq!(whole["truncated"], false);
    let sub_node = whole["entries"].as_array().unwrap().iter().find(|n| n["name"] == "sub").unwrap();
    assert_eq!(sub_node["children"][0]["children"], json!([{"name": "deep.rs", "type": "file"}]));
    let outdir = whole["entries"].as_array().unwrap().iter().find(|n| n["name"] == "outdir").unwrap();
    assert_eq!(outdir, &json!({"name": "outdir", "type": "symlink"}), "links are not followed");
    let shallow =
        ok(&client, "directory_tree", json!({"path": ".", "maxDepth": 1, "excludePatterns": ["*.png"]}))
            .await
            .structured_content
            .unwrap();
    assert_eq!(shallow["truncated"], true);
    let names: Vec<&str> =
        shallow["entries"].as_array().unwrap().iter().map(|n| n["name"].as_str().unwrap()).collect();
    assert!(!names.contains(&"pixel.png") && names.contains(&"sub"), "{names:?}");
    assert!(shallow["entries"].as_array().unwrap().iter().all(|n| n.get("children").is_none()));

    let found = ok(&client, "search_files", json!({"path": ".", "pattern": "*.rs"})).await;
    assert_eq!(text(&found), tree.data.join("sub/deeper/deep.rs").display().to_string());
    let substring = ok(&client, "search_files", json!({"path": ".", "pattern": "NEST"})).await;
    assert_eq!(substring.structured_content.unwrap()["matches"], json!([tree.data.join("sub/nested.txt")]));
    let excluded =
        ok(&client, "search_files", json!({"path": ".", "pattern": "*.txt", "excludePatterns": ["sub"]}))
            .await;
    assert_eq!(text(&excluded), tree.data.join("hello.txt").display().to_string());
    // The search does not follow the link to the outside directory, where secret.txt is.
    let secret = ok(&client, "search_files", json!({"path": ".", "pattern": "secret.txt"})).await;
    assert_eq!(text(&secret), "No matches found");
    let bounded = ok(&client, "search_files", json!({"path": ".", "pattern": "*", "maxResults": 2})).await;
    let bounded = bounded.structured_content.unwrap();
    assert_eq!((bounded["matches"].as_array().unwrap().len(), &bounded["truncated"]), (2, &json!(true)));
    // Patterns are bounded in number and length (each entry walked is matched against every
    // exclude pattern; they were unbounded).
    let many: Vec<String> = (0..65).map(|n| format!("x{n}")).collect();
    refused(
        &client,
        "search_files",
        json!({"path": ".", "pattern": "*", "excludePatterns": many}),
        "more than the 64",
    )
    .await;
    refused(
        &client,
        "directory_tree",
        json!({"path": ".", "excludePatterns": ["x".repeat(1025)]}),
        "longer than the 1024",
    )
    .await;
    refused(
        &client,
        "search_files",
        json!({"path": ".", "pattern": "x".repeat(1025)}),
        "longer than the 1024",
    )
    .await;

    let info = ok(&client, "get_file_info", json!({"path": "hello.txt"})).await;
    assert!(text(&info).contains("type: file\nsize: 12\n"), "{}", text(&info));
    let info = info.structured_content.unwrap();
    assert_eq!((info["size"].clone(), info["type"].clone()), (json!(12), json!("file")));
    assert!(info["modified"].as_str().unwrap().ends_with('Z'), "{info}");
    let dir = ok(&client, "get_file_info", json!({"path": "sub"})).await.structured_content.unwrap();
    assert_eq!(dir["type"], "directory");

    // With sizes, as the official server writes them: by name, or largest first; then totals.
    std::fs::write(tree.data.join("sub/big.txt"), "x".repeat(1536)).unwrap();
    let sized = ok(&client, "list_directory_with_sizes", json!({"path": "sub"})).await;
    assert_eq!(
        text(&sized),
        format!(
            "[FILE] {:<30} {:>10}\n[DIR] deeper\n[FILE] {:<30} {:>10}\n\nTotal: 2 files, 1 directories\nCombined size: 1.51 KB",
            "big.txt", "1.50 KB", "nested.txt", "7 B"
        )
    );
    let by_size = ok(&client, "list_directory_with_sizes", json!({"path": "sub", "sortBy": "size"})).await;
    let value = by_size.structured_content.unwrap();
    let order: Vec<&str> =
        value["entries"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(order, ["big.txt", "nested.txt", "deeper"]);
    assert_eq!(
        (value["files"].clone(), value["directories"].clone(), value["total_bytes"].clone()),
        (json!(2), json!(1), json!(1543))
    );
    assert_eq!(value["entries"][0], json!({"name": "big.txt", "type": "file", "size": 1536}));
    refused(&client, "list_directory_with_sizes", json!({"path": "sub", "sortBy": "date"}), "sortBy").await;
    client.close().await;
}

#[tokio::test]
async fn reading_text_media_and_several_files_with_ranges() {
    let tree = Tree::new();
    let lines: String = (1..=100).map(|n| format!("line {n}\n")).collect();
    std::fs::write(tree.data.join("lines.txt"), &lines).unwrap();
    std::fs::write(tree.data.join("accents.txt"), "é-é").unwrap();
    std::fs::write(tree.data.join("big.txt"), "x".repeat(600 * 1024)).unwrap();
    std::fs::write(tree.data.join("binary.bin"), [0xff, 0xfe, 0x00, 0x01]).unwrap();
    let client = serve(&["--root", &tree.root()]).await;
    let read = |arguments: Value| {
        let client = &client;
        async move { text(&ok(client, "read_text_file", arguments).await) }
    };

    assert_eq!(read(json!({"path": "lines.txt"})).await, lines);
    assert_eq!(read(json!({"path": "lines.txt", "head": 2})).await, "line 1\nline 2");
    assert_eq!(read(json!({"path": "lines.txt", "tail": 2})).await, "line 99\nline 100");
    assert_eq!(read(json!({"path": "lines.txt", "offset": 7, "length": 6})).await, "line 2");
    assert_eq!(read(json!({"path": "lines.txt", "offset": 7, "length": 0})).await, "");
    assert_eq!(read(json!({"path": "accents.txt", "offset": 1, "length": 3})).await, "-");
    assert_eq!(
        read(json!({"path": "inner-link"})).await,
        "hello\nworld\n",
        "a link inside the root is followed"
    );
    assert_eq!(read(json!({"path": "big.txt", "offset": 10, "length": 5})).await, "xxxxx");
    refused(
        &client,
        "read_text_file",
        json!({"path": "big.txt", "head": 1}),
        "the first 1 lines of big.txt are more",
    )
    .await;

    refused(&client, "read_text_file", json!({"path": "lines.txt", "head": 1, "tail": 1}), "not both").await;
    refused(&client, "read_text_file", json!({"path": "lines.txt", "head": 1, "offset": 1}), "one kind")
        .await;
    refused(&client, "read_text_file", json!({"path": "lines.txt", "offset": 100000}), "past the end").await;
    refused(&client, "read_text_file", json!({"path": "big.txt"}), "at most 524288 can be read at once")
        .await;
    refused(&client, "read_text_file", json!({"path": "big.txt", "length": 600000}), "more than the 524288")
        .await;
    refused(&client, "read_text_file", json!({"path": "binary.bin"}), "is not UTF-8 text").await;
    refused(&client, "read_text_file", json!({"path": "sub"}), "is a directory").await;
    refused(&client, "read_text_file", json!({"path": "missing.txt"}), "no such file or directory").await;
    refused(&client, "read_text_file", json!({"path": "hello.txt", "head": "two"}), "head").await;

    let media = ok(&client, "read_media_file", json!({"path": "pixel.png"})).await;
    let image = media.content.iter().find_map(|b| match b {
        ContentBlock::Image(image) => Some(image),
        _ => None,
    });
    let image = image.expect("an image block");
    assert_eq!(image.mime_type, "image/png");
    assert_eq!(base64::engine::general_purpose::STANDARD.decode(&image.data).unwrap(), PIXEL_PNG);
    let part = ok(&client, "read_media_file", json!({"path": "binary.bin", "offset": 1, "length": 2})).await;
    let blob = part.content.iter().find_map(|b| match b {
        ContentBlock::Resource(resource) => Some(resource.resource.clone()),
        _ => None,
    });
    let Some(TextOrBlob::Blob(blob)) = blob else { panic!("a blob resource: {part:?}") };
    assert_eq!(blob.mime_type.as_deref(), Some("application/octet-stream"));
    assert_eq!(blob.uri, format!("file://{}", tree.data.join("binary.bin").display()));
    assert_eq!(base64::engine::general_purpose::STANDARD.decode(&blob.blob).unwrap(), [0xfe, 0x00]);
    assert!(text(&part).contains("bytes 1..3 of 4"), "{}", text(&part));

    let several =
        ok(&client, "read_multiple_files", json!({"paths": ["hello.txt", "sub/nested.txt", "nope.txt"]}))
            .await;
    let files = &several.structured_content.as_ref().unwrap()["files"];
    assert_eq!(files[0], json!({"path": "hello.txt", "content": "hello\nworld\n"}));
    assert_eq!(files[1], json!({"path": "sub/nested.txt", "content": "nested\n"}));
    assert!(files[2]["error"].as_str().unwrap().contains("no such file"), "{files}");
    assert!(text(&several).contains("hello.txt:\nhello\nworld\n"), "{}", text(&several));
    client.close().await;
}

#[tokio::test]
async fn writing_editing_creating_and_moving() {
    let tree = Tree::new();
    let client = serve(&["--root", &tree.root()]).await;

    ok(&client, "write_file", json!({"path": "new.txt", "content": "one\ntwo\nthree\n"})).await;
    assert_eq!(std::fs::read_to_string(tree.data.join("new.txt")).unwrap(), "one\ntwo\nthree\n");
    ok(&client, "write_file", json!({"path": tree.data.join("new.txt"), "content": "alpha\nbeta\ngamma\n"}))
        .await;
    assert_eq!(std::fs::read_to_string(tree.data.join("new.txt")).unwrap(), "alpha\nbeta\ngamma\n");
    refused(&client, "write_file", json!({"path": "nowhere/new.txt", "content": "x"}), "no such file").await;
    refused(&client, "write_file", json!({"path": "sub", "content": "x"}), "is a directory").await;
    refused(&client, "write_file", json!({"path": "inner-link", "content": "x"}), "symbolic link").await;
    refused(&client, "write_file", json!({"path": tree.root(), "content": "x"}), "allowed root itself").await;
    assert_eq!(std::fs::read_to_string(tree.data.join("hello.txt")).unwrap(), "hello\nworld\n");

    let edits =
        json!([{"oldText": "beta", "newText": "BETA"}, {"oldText": "gamma\n", "newText": "gamma\ndelta\n"}]);
    let dry = ok(&client, "edit_file", json!({"path": "new.txt", "edits": edits, "dryRun": true})).await;
    assert!(text(&dry).contains("-beta\n+BETA\n gamma\n+delta\n"), "{}", text(&dry));
    assert!(text(&dry).starts_with("Dry run: nothing was written"), "{}", text(&dry));
    assert_eq!(std::fs::read_to_string(tree.data.join("new.txt")).unwrap(), "alpha\nbeta\ngamma\n");
    let done = ok(&client, "edit_file", json!({"path": "new.txt", "edits": edits})).await;
    assert!(text(&done).contains("-beta\n+BETA\n"), "{}", text(&done));
    assert_eq!(std::fs::read_to_string(tree.data.join("new.txt")).unwrap(), "alpha\nBETA\ngamma\ndelta\n");
    // All or nothing: the second edit fails, so the first is not written either.
    let failing = json!([{"oldText": "alpha", "newText": "ALPHA"}, {"oldText": "omega", "newText": "x"}]);
    refused(
        &client,
        "edit_file",
        json!({"path": "new.txt", "edits": failing}),
        "edit 2 of 2: its oldText does not occur",
    )
    .await;
    let twice = json!([{"oldText": "a\n", "newText": "x"}]);
    refused(
        &client,
        "edit_file",
        json!({"path": "new.txt", "edits": twice}),
        "edit 1 of 1: its oldText occurs 3 times",
    )
    .await;
    assert_eq!(std::fs::read_to_string(tree.data.join("new.txt")).unwrap(), "alpha\nBETA\ngamma\ndelta\n");

    ok(&client, "create_directory", json!({"path": "made/a/b"})).await;
    assert!(tree.data.join("made/a/b").is_dir());
    let again = ok(&client, "create_directory", json!({"path": "made/a/b"})).await;
    assert!(text(&again).contains("already exists"), "{}", text(&again));
    refused(&client, "create_directory", json!({"path": "hello.txt"}), "a file of that name exists").await;

    ok(&client, "move_file", json!({"source": "new.txt", "destination": "made/a/b/moved.txt"})).await;
    assert!(!tree.data.join("new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(tree.data.join("made/a/b/moved.txt")).unwrap(),
        "alpha\nBETA\ngamma\ndelta\n"
    );
    ok(&client, "move_file", json!({"source": "made/a", "destination": "renamed"})).await;
    assert!(tree.data.join("renamed/b/moved.txt").is_file());
    refused(
        &client,
        "move_file",
        json!({"source": "hello.txt", "destination": "sub/nested.txt"}),
        "already exists",
    )
    .await;
    assert_eq!(std::fs::read_to_string(tree.data.join("sub/nested.txt")).unwrap(), "nested\n");
    assert_eq!(std::fs::read_to_string(tree.data.join("hello.txt")).unwrap(), "hello\nworld\n");
    refused(&client, "move_file", json!({"source": "missing", "destination": "x"}), "no such file").await;
    refused(&client, "move_file", json!({"source": tree.root(), "destination": "x"}), "allowed root itself")
        .await;

    // A hard link to a file outside (which the server cannot tell from any file) is replaced
    // by a write or an edit, never written through.
    std::fs::hard_link(tree.outside.join("secret.txt"), tree.data.join("hard")).unwrap();
    ok(&client, "write_file", json!({"path": "hard", "content": "TOP replaced"})).await;
    let edit = json!([{"oldText": "TOP", "newText": "NOT"}]);
    ok(&client, "edit_file", json!({"path": "hard", "edits": edit})).await;
    assert_eq!(std::fs::read_to_string(tree.data.join("hard")).unwrap(), "NOT replaced");
    tree.assert_outside_untouched();
    client.close().await;
}

#[tokio::test]
async fn escapes_are_refused_and_leave_the_outside_unread_and_untouched() {
    let tree = Tree::new();
    let client = serve(&["--root", &tree.root()]).await;
    // A link made while the server runs, as another process might.
    symlink(tree.outside.join("secret.txt"), tree.data.join("late-link")).unwrap();
    let outside = tree.outside.display().to_string();
    let evil = tree.evil.display().to_string();
    let secret = format!("{outside}/secret.txt");
    let via_dotdot = format!("{}/../outside/secret.txt", tree.root());

    // Reading: `..`, absolute paths outside, the prefix sibling, links to a file and to a
    // directory, relative and absolute, made before or after the start.
    for path in [
        "../outside/secret.txt",
        &via_dotdot,
        "link-secret",
        "rel-secret",
        "outdir/secret.txt",
        "late-link",
        "sub/../../outside/secret.txt",
    ] {
        refused(&client, "read_text_file", json!({"path": path}), ESCAPES).await;
        refused(&client, "read_media_file", json!({"path": path}), ESCAPES).await;
        refused(&client, "get_file_info", json!({"path": path}), ESCAPES).await;
    }
    for path in ["/etc/passwd", &secret, &format!("{evil}/loot.txt")] {
        refused(&client, "read_text_file", json!({"path": path}), OUTSIDE).await;
        refused(&client, "read_media_file", json!({"path": path}), OUTSIDE).await;
        refused(&client, "get_file_info", json!({"path": path}), OUTSIDE).await;
    }
    let message =
        refused(&client, "read_text_file", json!({"path": format!("{evil}/loot.txt")}), OUTSIDE).await;
    assert_eq!(message, format!("path {evil}/loot.txt is outside the allowed roots: {}", tree.root()));
    let several = client
        .call_tool("read_multiple_files", json!({"paths": ["link-secret", secret, "outdir/secret.txt"]}))
        .await
        .unwrap();
    assert_eq!(several.is_error, Some(true), "every file failed");
    assert!(!dump(&several).contains(SECRET));
    let mixed = ok(&client, "read_multiple_files", json!({"paths": ["hello.txt", "rel-secret"]})).await;
    assert!(!dump(&mixed).contains(SECRET));
    assert!(mixed.structured_content.unwrap()["files"][1]["error"].as_str().unwrap().contains(ESCAPES));

    // Listing and searching through a link to a directory outside, or above the root.
    for tool in ["list_directory", "list_directory_with_sizes", "directory_tree"] {
        refused(&client, tool, json!({"path": "outdir"}), ESCAPES).await;
        refused(&client, tool, json!({"path": ".."}), ESCAPES).await;
        refused(&client, tool, json!({"path": &evil}), OUTSIDE).await;
        refused(&client, tool, json!({"path": "/"}), OUTSIDE).await;
    }
    refused(&client, "search_files", json!({"path": "outdir", "pattern": "secret"}), ESCAPES).await;
    refused(&client, "search_files", json!({"path": &tree.base, "pattern": "secret"}), OUTSIDE).await;

    // Writing: over a file outside through a linked directory, a new file through it, through
    // a link to a file, through a dangling link whose target is outside, and to the sibling.
    for path in ["outdir/secret.txt", "outdir/new.txt", "../outside/new.txt", "outdir/deeper/new.txt"] {
        refused(&client, "write_file", json!({"path": path, "content": "pwned"}), ESCAPES).await;
    }
    refused(&client, "write_file", json!({"path": "link-secret", "content": "pwned"}), "symbolic link").await;
    refused(&client, "write_file", json!({"path": "dangling", "content": "pwned"}), "symbolic link").await;
    refused(&client, "write_file", json!({"path": format!("{evil}/pwn.txt"), "content": "pwned"}), OUTSIDE)
        .await;
    refused(&client, "write_file", json!({"path": &secret, "content": "pwned"}), OUTSIDE).await;
    let edit = json!([{"oldText": "TOP", "newText": "NOT"}]);
    refused(&client, "edit_file", json!({"path": "link-secret", "edits": edit}), "symbolic link").await;
    refused(&client, "edit_file", json!({"path": "outdir/secret.txt", "edits": edit}), ESCAPES).await;
    refused(&client, "edit_file", json!({"path": &secret, "edits": edit, "dryRun": true}), OUTSIDE).await;
    for path in ["outdir/newdir", "../outside/newdir", "outdir/a/b"] {
        refused(&client, "create_directory", json!({"path": path}), ESCAPES).await;
    }
    refused(&client, "create_directory", json!({"path": format!("{evil}/newdir")}), OUTSIDE).await;

    // Moving out of the root, into it, and through links.
    refused(
        &client,
        "move_file",
        json!({"source": "hello.txt", "destination": format!("{outside}/stolen.txt")}),
        OUTSIDE,
    )
    .await;
    refused(
        &client,
        "move_file",
        json!({"source": "hello.txt", "destination": "outdir/stolen.txt"}),
        ESCAPES,
    )
    .await;
    refused(
        &client,
        "move_file",
        json!({"source": "hello.txt", "destination": "../outside/stolen.txt"}),
        ESCAPES,
    )
    .await;
    refused(&client, "move_file", json!({"source": &secret, "destination": "stolen.txt"}), OUTSIDE).await;
    refused(
        &client,
        "move_file",
        json!({"source": "outdir/secret.txt", "destination": "stolen.txt"}),
        ESCAPES,
    )
    .await;
    refused(
        &client,
        "move_file",
        json!({"source": format!("{evil}/loot.txt"), "destination": "loot.txt"}),
        OUTSIDE,
    )
    .await;
    assert!(!tree.data.join("stolen.txt").exists() && !tree.data.join("loot.txt").exists());
    assert_eq!(std::fs::read_to_string(tree.data.join("hello.txt")).unwrap(), "hello\nworld\n");

    // Paths that are not paths.
    refused(&client, "read_text_file", json!({"path": "hello.txt\u{0}.png"}), "contains a NUL byte").await;
    refused(&client, "write_file", json!({"path": "x\u{0}", "content": "x"}), "contains a NUL byte").await;
    refused(&client, "read_text_file", json!({"path": "a/".repeat(3000)}), "paths are limited to 4096").await;
    refused(&client, "read_text_file", json!({"path": "n".repeat(300)}), "a name in the path is too long")
        .await;
    refused(&client, "write_file", json!({"path": "", "content": "x"}), "is empty").await;

    tree.assert_outside_untouched();
    // The links are still what they were, and the root is intact.
    assert_eq!(
        std::fs::read_link(tree.data.join("dangling")).unwrap(),
        tree.outside.join("created-through-dangling.txt")
    );
    assert_eq!(std::fs::read_to_string(tree.data.join("link-secret")).unwrap(), SECRET);
    client.close().await;
}

#[tokio::test]
async fn two_roots_and_links_between_them() {
    let tree = Tree::new();
    let second = tree.base.join("second");
    std::fs::create_dir(&second).unwrap();
    std::fs::write(second.join("shared.txt"), "shared\n").unwrap();
    symlink(second.join("shared.txt"), tree.data.join("to-second")).unwrap();
    let client = serve(&["--root", &tree.root(), "--root", &second.display().to_string()]).await;

    let allowed = ok(&client, "list_allowed_directories", json!({})).await;
    assert_eq!(text(&allowed), format!("Allowed directories:\n{}\n{}", tree.root(), second.display()));
    let shared = ok(&client, "read_text_file", json!({"path": second.join("shared.txt")})).await;
    assert_eq!(text(&shared), "shared\n");
    // A link from one root into the other leads to an allowed place.
    assert_eq!(text(&ok(&client, "read_text_file", json!({"path": "to-second"})).await), "shared\n");
    ok(&client, "move_file", json!({"source": "hello.txt", "destination": second.join("hello.txt")})).await;
    assert!(second.join("hello.txt").is_file());
    refused(&client, "read_text_file", json!({"path": "link-secret"}), ESCAPES).await;
    tree.assert_outside_untouched();
    client.close().await;
}

/// A child process, killed and reaped when dropped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn read_only_over_streamable_http_on_loopback() {
    let tree = Tree::new();
    let mut child = Command::new(env!("CARGO_BIN_EXE_modelctx"))
        .args(["serve", "filesystem", "--root", &tree.root(), "--read-only", "--http", "127.0.0.1:0"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let _server = Guard(child);
    let url = loop {
        let line = stderr.next().expect("the server prints where it listens").unwrap();
        if let Some(url) = line.strip_prefix("listening on ") {
            break url.to_owned();
        }
    };
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    // Keep the pipe drained so that the server never blocks on its log.
    std::thread::spawn(move || stderr.for_each(drop));

    let client = Client::connect_http(&url, Default::default(), options()).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    assert!(tools.iter().all(|t| t.annotations.as_ref().unwrap().read_only_hint == Some(true)), "{tools:?}");
    let listing = ok(&client, "list_directory", json!({"path": "sub"})).await;
    assert_eq!(text(&listing), "[DIR] deeper\n[FILE] nested.txt");
    refused(&client, "read_text_file", json!({"path": "outdir/secret.txt"}), ESCAPES).await;
    tree.assert_outside_untouched();
}

#[test]
fn the_command_line_requires_and_checks_roots() {
    let modelctx = env!("CARGO_BIN_EXE_modelctx");
    let run = |args: &[&str]| {
        let output = Command::new(modelctx).args(args).output().unwrap();
        (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let (code, stderr) = run(&["serve", "filesystem"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--root <DIR>"), "{stderr}");
    let (code, stderr) = run(&["serve", "everything", "--root", "/tmp"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("unexpected argument '--root'"),
        "--root belongs to the filesystem server: {stderr}"
    );
    let (code, stderr) = run(&["serve", "everything", "--read-only"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("unexpected argument '--read-only'"), "{stderr}");

    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let (code, stderr) = run(&["serve", "filesystem", "--root", &missing.display().to_string()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains(&format!("root {} cannot be used", missing.display())), "{stderr}");
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let (code, stderr) = run(&["serve", "filesystem", "--root", &file.display().to_string()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("is not a directory"), "{stderr}");
}
