//! `git`: the official MCP git server's tools (`git_status` … `git_branch`) with the same names
//! and arguments, run by the `git` binary in the repositories given with `--repo` and nowhere
//! else. The binary rather than `gix`: the tools answer with git's own text (status, diffs,
//! branch lists) as the original does, and committing, checking out and resetting a work tree
//! is what `gix` covers least; `run.rs` says how each command is kept safe.

mod run;

use std::path::PathBuf;
use std::sync::Arc;

use modelctx::protocol::types::{Implementation, ToolAnnotations};
use modelctx::server::{Args, Server, ServerBuilder, State, ToolDef};
use schemars::JsonSchema;
use serde::Deserialize;

use run::{Repositories, git, operand};

/// The most context lines a diff may ask for.
const MAX_CONTEXT_LINES: u32 = 10_000;

/// The most commits a log may ask for.
const MAX_LOG_COUNT: u32 = 10_000;

/// Options of `modelctx serve git`.
#[derive(clap::Args, Clone, Debug)]
pub struct GitArgs {
    /// A repository the tools may work in (repeat for more); `repo_path` must name one of
    /// them or a directory inside one.
    #[arg(long = "repo", value_name = "DIR", required = true)]
    repos: Vec<PathBuf>,
}

type Repos = State<Arc<Repositories>>;

/// Arguments that name only the repository.
#[derive(Deserialize, JsonSchema)]
struct RepoArgs {
    /// The path to the Git repository.
    repo_path: String,
}

/// `git_diff_unstaged` and `git_diff_staged` arguments.
#[derive(Deserialize, JsonSchema)]
struct DiffArgs {
    /// The path to the Git repository.
    repo_path: String,
    /// Lines of context around each change.
    #[serde(default = "default_context_lines")]
    context_lines: u32,
}

/// `git_diff` arguments.
#[derive(Deserialize, JsonSchema)]
struct DiffTargetArgs {
    /// The path to the Git repository.
    repo_path: String,
    /// The branch or commit to compare the work tree with.
    target: String,
    /// Lines of context around each change.
    #[serde(default = "default_context_lines")]
    context_lines: u32,
}

fn default_context_lines() -> u32 {
    3
}

/// `git_commit` arguments.
#[derive(Deserialize, JsonSchema)]
struct CommitArgs {
    /// The path to the Git repository.
    repo_path: String,
    /// The commit message.
    message: String,
}

/// `git_commit_signed` arguments.
#[derive(Deserialize, JsonSchema)]
struct SignedCommitArgs {
    /// The path to the Git repository.
    repo_path: String,
    /// The commit message.
    message: String,
    /// Optional GPG key ID to use for signing. If not provided, uses the default configured
    /// GPG key.
    key_id: Option<String>,
}

/// `git_add` arguments.
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The path to the Git repository.
    repo_path: String,
    /// The files to stage, relative to the repository (`.` for everything).
    files: Vec<String>,
}

/// `git_log` arguments.
#[derive(Deserialize, JsonSchema)]
struct LogArgs {
    /// The path to the Git repository.
    repo_path: String,
    /// The most commits to show.
    #[serde(default = "default_max_count")]
    max_count: u32,
    #[schemars(description = "Start timestamp for filtering commits. Accepts: ISO 8601 format (e.g., \
        '2024-01-15T14:30:25'), relative dates (e.g., '2 weeks ago', 'yesterday'), or absolute dates \
        (e.g., '2024-01-15', 'Jan 15 2024')")]
    start_timestamp: Option<String>,
    #[schemars(description = "End timestamp for filtering commits. Accepts: ISO 8601 format (e.g., \
        '2024-01-15T14:30:25'), relative dates (e.g., '2 weeks ago', 'yesterday'), or absolute dates \
        (e.g., '2024-01-15', 'Jan 15 2024')")]
    end_timestamp: Option<String>,
}

fn default_max_count() -> u32 {
    10
}

/// `git_create_branch` arguments.
#[derive(Deserialize, JsonSchema)]
struct CreateBranchArgs {
    /// The path to the Git repository.
    repo_path: String,
    /// The new branch.
    branch_name: String,
    /// The branch or commit it starts from (default: the current branch).
    base_branch: Option<String>,
}

/// `git_checkout` arguments.
#[derive(Deserialize, JsonSchema)]
struct CheckoutArgs {
    /// The path to the Git repository.
    repo_path: String,
    /// The branch to switch to.
    branch_name: String,
}

/// `git_show` arguments.
#[derive(Deserialize, JsonSchema)]
struct ShowArgs {
    /// The path to the Git repository.
    repo_path: String,
    /// The commit to show (a hash, a branch, `HEAD~2`, …).
    revision: String,
}

/// Which branches `git_branch` lists.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum BranchType {
    Local,
    Remote,
    All,
}

/// `git_branch` arguments.
#[derive(Deserialize, JsonSchema)]
struct BranchArgs {
    /// The path to the Git repository.
    repo_path: String,
    /// Whether to list local branches ('local'), remote branches ('remote') or all
    /// branches('all').
    branch_type: BranchType,
    /// The commit sha that branch should contain. Do not pass anything to this param if no
    /// commit sha is specified
    contains: Option<String>,
    /// The commit sha that branch should NOT contain. Do not pass anything to this param if no
    /// commit sha is specified
    not_contains: Option<String>,
}

/// The diff options every diff takes: bounded context, no programs of the repository's.
fn unified(context_lines: u32) -> String {
    format!("--unified={}", context_lines.min(MAX_CONTEXT_LINES))
}

/// Checks that `revision` names a commit, for an error that says so.
async fn commit_of(repo: &std::path::Path, what: &str, revision: &str) -> Result<(), String> {
    let commit = format!("{}^{{commit}}", operand(what, revision)?);
    git(repo, &["rev-parse", "--verify", "--quiet", "--end-of-options", &commit])
        .await
        .map(drop)
        .map_err(|_| format!("{what} {revision} names no commit in this repository"))
}

async fn status(State(repos): Repos, Args(args): Args<RepoArgs>) -> Result<String, String> {
    let repo = repos.find(&args.repo_path)?;
    Ok(format!("Repository status:\n{}", git(repo, &["status"]).await?))
}

async fn diff_unstaged(State(repos): Repos, Args(args): Args<DiffArgs>) -> Result<String, String> {
    let repo = repos.find(&args.repo_path)?;
    let diff =
        git(repo, &["diff", "--no-ext-diff", "--no-textconv", &unified(args.context_lines), "--"]).await?;
    Ok(format!("Unstaged changes:\n{diff}"))
}

async fn diff_staged(State(repos): Repos, Args(args): Args<DiffArgs>) -> Result<String, String> {
    let repo = repos.find(&args.repo_path)?;
    let context = unified(args.context_lines);
    let diff = git(repo, &["diff", "--cached", "--no-ext-diff", "--no-textconv", &context, "--"]).await?;
    Ok(format!("Staged changes:\n{diff}"))
}

async fn diff_target(State(repos): Repos, Args(args): Args<DiffTargetArgs>) -> Result<String, String> {
    let repo = repos.find(&args.repo_path)?;
    commit_of(repo, "target", &args.target).await?;
    let context = unified(args.context_lines);
    let diff = git(
        repo,
        &["diff", "--no-ext-diff", "--no-textconv", &context, "--end-of-options", &args.target, "--"],
    )
    .await?;
    Ok(format!("Diff with {}:\n{diff}", args.target))
}

async fn commit_with(repo: &std::path::Path, message: &str, sign: Option<String>) -> Result<String, String> {
    let mut command = vec!["commit", "--quiet", "--message", message];
    if let Some(sign) = &sign {
        command.push(sign);
    }
    git(repo, &command).await?;
    Ok(git(repo, &["rev-parse", "HEAD"]).await?.trim_end().to_owned())
}

async fn commit(State(repos): Repos, Args(args): Args<CommitArgs>) -> Result<String, String> {
    let hash = commit_with(repos.find(&args.repo_path)?, &args.message, None).await?;
    Ok(format!("Changes committed successfully with hash {hash}"))
}

async fn commit_signed(State(repos): Repos, Args(args): Args<SignedCommitArgs>) -> Result<String, String> {
    let repo = repos.find(&args.repo_path)?;
    let sign = match &args.key_id {
        Some(key) => format!("--gpg-sign={}", operand("key_id", key)?),
        None => "--gpg-sign".to_owned(),
    };
    let hash = commit_with(repo, &args.message, Some(sign)).await?;
    Ok(format!("Changes committed and signed successfully with hash {hash}"))
}

async fn add(State(repos): Repos, Args(args): Args<AddArgs>) -> Result<String, String> {
    let repo = repos.find(&args.repo_path)?;
    let files = args.files.iter().map(|file| operand("file", file)).collect::<Result<Vec<_>, _>>()?;
    if files.is_empty() {
        return Err("files is empty: name the files to stage, or \".\" for everything".into());
    }
    let command: Vec<&str> = ["add", "--"].into_iter().chain(files).collect();
    git(repo, &command).await?;
    Ok("Files staged successfully".into())
}

async fn reset(State(repos): Repos, Args(args): Args<RepoArgs>) -> Result<String, String> {
    git(repos.find(&args.repo_path)?, &["reset", "--quiet"]).await?;
    Ok("All staged changes reset".into())
}

async fn log(State(repos): Repos, Args(args): Args<LogArgs>) -> Result<String, String> {
    let repo = repos.find(&args.repo_path)?;
    let count = format!("--max-count={}", args.max_count.min(MAX_LOG_COUNT));
    let since = args.start_timestamp.map(|t| format!("--since={t}"));
    let until = args.end_timestamp.map(|t| format!("--until={t}"));
    let mut command = vec!["log", &count, "--date=iso-strict", "--format=%H%x1f%an <%ae>%x1f%ad%x1f%s%x1e"];
    command.extend(since.as_deref());
    command.extend(until.as_deref());
    let output = git(repo, &command).await?;
    let entries: Vec<String> = output
        .split('\x1e')
        .filter_map(|record| {
            let mut fields = record.trim_start_matches('\n').splitn(4, '\x1f');
            let (hash, author, date, subject) =
                (fields.next()?, fields.next()?, fields.next()?, fields.next()?);
            Some(format!("Commit: {hash}\nAuthor: {author}\nDate: {date}\nMessage: {subject}\n"))
        })
        .collect();
    Ok(format!("Commit history:\n{}", entries.join("\n")))
}

async fn create_branch(State(repos): Repos, Args(args): Args<CreateBranchArgs>) -> Result<String, String> {
    let repo = repos.find(&args.repo_path)?;
    let name = operand("branch_name", &args.branch_name)?;
    let base = match &args.base_branch {
        Some(base) => {
            commit_of(repo, "base_branch", base).await?;
            base.clone()
        }
        None => git(repo, &["rev-parse", "--abbrev-ref", "HEAD"]).await?.trim_end().to_owned(),
    };
    git(repo, &["branch", "--end-of-options", name, &base]).await?;
    Ok(format!("Created branch '{name}' from '{base}'"))
}

async fn checkout(State(repos): Repos, Args(args): Args<CheckoutArgs>) -> Result<String, String> {
    let repo = repos.find(&args.repo_path)?;
    let name = operand("branch_name", &args.branch_name)?;
    git(repo, &["checkout", "--quiet", "--end-of-options", name, "--"]).await?;
    Ok(format!("Switched to branch '{name}'"))
}

async fn show(State(repos): Repos, Args(args): Args<ShowArgs>) -> Result<String, String> {
    let repo = repos.find(&args.repo_path)?;
    commit_of(repo, "revision", &args.revision).await?;
    let format = "--format=Commit: %H%nAuthor: %an <%ae>%nDate: %ad%nMessage: %B";
    let command = [
        "show",
        format,
        "--date=iso-strict",
        "--patch",
        "--no-ext-diff",
        "--no-textconv",
        "--end-of-options",
        &args.revision,
        "--",
    ];
    git(repo, &command).await
}

async fn branch(State(repos): Repos, Args(args): Args<BranchArgs>) -> Result<String, String> {
    let repo = repos.find(&args.repo_path)?;
    let mut command = vec!["branch".to_owned()];
    match args.branch_type {
        BranchType::Local => {}
        BranchType::Remote => command.push("--remotes".into()),
        BranchType::All => command.push("--all".into()),
    }
    if let Some(sha) = &args.contains {
        command.push(format!("--contains={}", operand("contains", sha)?));
    }
    if let Some(sha) = &args.not_contains {
        command.push(format!("--no-contains={}", operand("not_contains", sha)?));
    }
    let command: Vec<&str> = command.iter().map(String::as_str).collect();
    git(repo, &command).await
}

/// Looks, changes nothing.
fn reads() -> ToolAnnotations {
    ToolAnnotations { read_only_hint: Some(true), open_world_hint: Some(false), ..ToolAnnotations::default() }
}

/// Changes the repository.
fn writes(destructive: bool) -> ToolAnnotations {
    ToolAnnotations {
        read_only_hint: Some(false),
        destructive_hint: Some(destructive),
        open_world_hint: Some(false),
        ..ToolAnnotations::default()
    }
}

/// The git server, not yet built, or why it cannot start (a `--repo` that is not one).
pub async fn builder(args: &GitArgs) -> Result<ServerBuilder, String> {
    let repos = Arc::new(Repositories::open(&args.repos).await?);
    let tools = [
        ToolDef::new("git_status", status).description("Shows the working tree status").annotations(reads()),
        ToolDef::new("git_diff_unstaged", diff_unstaged)
            .description("Shows changes in the working directory that are not yet staged")
            .annotations(reads()),
        ToolDef::new("git_diff_staged", diff_staged)
            .description("Shows changes that are staged for commit")
            .annotations(reads()),
        ToolDef::new("git_diff", diff_target)
            .description("Shows differences between branches or commits")
            .annotations(reads()),
        ToolDef::new("git_commit", commit)
            .description("Records changes to the repository")
            .annotations(writes(false)),
        ToolDef::new("git_commit_signed", commit_signed)
            .description("Records changes to the repository with GPG signature")
            .annotations(writes(false)),
        ToolDef::new("git_add", add)
            .description("Adds file contents to the staging area")
            .annotations(writes(false)),
        ToolDef::new("git_reset", reset).description("Unstages all staged changes").annotations(writes(true)),
        ToolDef::new("git_log", log).description("Shows the commit logs").annotations(reads()),
        ToolDef::new("git_create_branch", create_branch)
            .description("Creates a new branch from an optional base branch")
            .annotations(writes(false)),
        ToolDef::new("git_checkout", checkout).description("Switches branches").annotations(writes(true)),
        ToolDef::new("git_show", show).description("Shows the contents of a commit").annotations(reads()),
        ToolDef::new("git_branch", branch).description("List Git branches").annotations(reads()),
    ];
    let mut builder = Server::with_info(Implementation {
        title: Some("modelctx git".into()),
        description: Some(
            "The official git server's tools, confined to the repositories it was given".into(),
        ),
        ..Implementation::new("modelctx-git", env!("CARGO_PKG_VERSION"))
    })
    .state(repos);
    for tool in tools {
        builder = builder.tool(tool);
    }
    Ok(builder)
}
