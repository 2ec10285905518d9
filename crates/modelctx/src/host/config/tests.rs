//! The configuration forms of Claude Desktop, Cursor, `.mcp.json` and VS Code; expansion; and
//! the messages for what is rejected.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::*;

/// A fixed environment, so that expansion is deterministic.
fn env(name: &str) -> Option<String> {
    match name {
        "HOME" => Some("/home/ada".into()),
        "TOKEN" => Some("s3cret".into()),
        _ => None,
    }
}

fn parse(text: &str) -> Result<HostConfig, ConfigError> {
    HostConfig::parse_with(text, env)
}

fn stdio(config: &HostConfig, name: &str) -> StdioServer {
    match &config.servers[name].transport {
        Transport::Stdio(server) => server.clone(),
        Transport::Http(server) => panic!("{name} is an HTTP server: {server:?}"),
    }
}

fn http(config: &HostConfig, name: &str) -> HttpServer {
    match &config.servers[name].transport {
        Transport::Http(server) => server.clone(),
        Transport::Stdio(server) => panic!("{name} is a stdio server: {server:?}"),
    }
}

fn message(text: &str) -> String {
    parse(text).expect_err("the configuration must be rejected").to_string()
}

#[test]
fn claude_desktop_form() {
    let config = parse(
        r#"{
          "globalShortcut": "Ctrl+Space",
          "mcpServers": {
            "filesystem": {
              "command": "npx",
              "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/Desktop"],
              "env": {"API_KEY": "${TOKEN}", "PLAIN": "$HOME stays"}
            }
          }
        }"#,
    )
    .unwrap();
    let files = stdio(&config, "filesystem");
    assert_eq!(files.command, "npx");
    assert_eq!(files.args, ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada/Desktop"]);
    assert_eq!(
        files.env,
        BTreeMap::from([("API_KEY".into(), "s3cret".into()), ("PLAIN".into(), "$HOME stays".into())])
    );
    assert_eq!(files.cwd, None);
    assert_eq!(config.servers["filesystem"].timeout, None);
    assert!(config.disabled.is_empty());
}

#[test]
fn cursor_and_mcp_json_forms_with_urls_cwd_timeouts_and_disabled_entries() {
    let config = parse(
        r#"{"mcpServers": {
          "remote": {"url": "https://mcp.example.com/mcp",
                     "headers": {"Authorization": "Bearer ${TOKEN}"}, "timeoutMs": 2500},
          "local": {"command": "./server", "cwd": "${PROJECT:-/srv/app}", "type": "stdio"},
          "legacy": {"type": "sse", "url": "http://127.0.0.1:9000/sse"},
          "off": {"command": "unused", "env": {"X": "${NOT_SET}"}, "disabled": true},
          "on": {"command": "used", "disabled": false}
        }}"#,
    )
    .unwrap();
    let remote = http(&config, "remote");
    assert_eq!(remote.url.as_str(), "https://mcp.example.com/mcp");
    assert_eq!(remote.headers["authorization"], "Bearer s3cret");
    assert_eq!(remote.kind, HttpKind::StreamableHttp);
    assert_eq!(config.servers["remote"].timeout, Some(Duration::from_millis(2500)));
    assert_eq!(stdio(&config, "local").cwd, Some(PathBuf::from("/srv/app")));
    assert_eq!(http(&config, "legacy").kind, HttpKind::Sse);
    assert_eq!(config.disabled, ["off"], "a disabled entry is skipped, its variables unexpanded");
    assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["legacy", "local", "on", "remote"]);
}

#[test]
fn vs_code_form() {
    let config = parse(
        r#"{
          "inputs": [],
          "servers": {
            "github": {"type": "http", "url": "https://api.example.com/mcp/",
                       "headers": {"X-Token": "${env:TOKEN}"}},
            "memory": {"type": "stdio", "command": "memory-server", "args": ["--dir", "${env:HOME}/.memory"]}
          }
        }"#,
    )
    .unwrap();
    assert_eq!(http(&config, "github").headers["x-token"], "s3cret");
    assert_eq!(stdio(&config, "memory").args, ["--dir", "/home/ada/.memory"]);
}

#[test]
fn a_stdio_entry_becomes_the_command_the_client_spawns() {
    let config = parse(r#"{"mcpServers": {"s": {"command": "srv", "args": ["a"], "cwd": "/tmp"}}}"#).unwrap();
    let command = format!("{:?}", stdio(&config, "s").command());
    assert!(
        command.contains("\"srv\"") && command.contains("\"a\"") && command.contains("/tmp"),
        "{command}"
    );
}

/// `"type": "stdio-v2"` (HTTP over stdio, experimental) is a command entry whose stdio carries
/// HTTP/2; any other command entry carries JSON-RPC lines.
#[cfg(feature = "stdio-v2")]
#[test]
fn a_stdio_v2_entry_is_a_command_speaking_http_over_stdio() {
    use super::StdioFraming;
    let config = parse(
        r#"{"servers": {"v2": {"type": "stdio-v2", "command": "srv"}, "v1": {"type": "stdio", "command": "srv"}}}"#,
    )
    .unwrap();
    assert_eq!(stdio(&config, "v2").framing, StdioFraming::Http);
    assert_eq!(stdio(&config, "v1").framing, StdioFraming::Lines);
}

#[test]
fn prefix_and_tool_filters_are_read_and_checked() {
    let config = parse(
        r#"{"mcpServers": {"s": {"command": "srv", "prefix": "", "allowTools": ["read_*"], "denyTools": ["read_secret"]},
                            "t": {"command": "srv"}}}"#,
    )
    .unwrap();
    let s = &config.servers["s"];
    assert_eq!(s.prefix.as_deref(), Some(""));
    assert!(s.tools.admits("read_file") && !s.tools.admits("read_secret") && !s.tools.admits("write"));
    assert_eq!(config.servers["t"].prefix, None, "the server's name, by default");
    assert!(config.servers["t"].tools.admits("anything"));
    assert_eq!(
        message(r#"{"mcpServers": {"s": {"command": "srv", "prefix": "a/b"}}}"#),
        "server \"s\": field \"prefix\": may hold only letters, digits, '_', '-' and '.', not '/'"
    );
}

#[test]
fn an_unknown_field_is_named_with_its_server() {
    assert_eq!(
        message(r#"{"mcpServers": {"db": {"comand": "postgres-mcp"}}}"#),
        "server \"db\": unknown field \"comand\" (expected one of command, args, env, envFile, cwd, url, headers, \
         type, timeoutMs, maxConcurrentCalls, circuitBreaker, trustAnnotations, prefix, protocol, allowTools, denyTools, disabled)"
    );
    let error = parse(r#"{"servers": {"x": {"command": "a", "envfile": ".env"}}}"#).unwrap_err();
    assert!(
        matches!(&error, ConfigError::UnknownField { server, field, .. } if server == "x" && field == "envfile")
    );
    assert_eq!(error.server(), Some("x"));
}

/// VS Code's `envFile`: a dotenv file beside the configuration, whose variables the entry's
/// own `env` overrides; a missing file is an error naming the server and the field.
#[test]
fn an_env_file_is_read_beside_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".env"),
        "# keys\nAPI_KEY=from-file\nexport REGION='eu west'\nMODE=file\n",
    )
    .unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(
        &path,
        r#"{"servers": {"x": {"command": "a", "envFile": ".env", "env": {"MODE": "entry"}}}}"#,
    )
    .unwrap();
    let config = HostConfig::load_with(&path, |_| None).unwrap();
    let env = &stdio(&config, "x").env;
    assert_eq!(env["API_KEY"], "from-file");
    assert_eq!(env["REGION"], "eu west");
    assert_eq!(env["MODE"], "entry", "the entry's env wins");
    std::fs::write(&path, r#"{"servers": {"x": {"command": "a", "envFile": "missing.env"}}}"#).unwrap();
    let error = HostConfig::load_with(&path, |_| None).unwrap_err();
    assert!(
        matches!(&error, ConfigError::InvalidField { server, field, .. } if server == "x" && field == "envFile"),
        "{error}"
    );
}

/// VS Code's `inputs`: each `${input:ID}` is asked once, however many fields use it; an input
/// the file does not declare, or one not answered, fails the read naming the field.
#[test]
fn inputs_are_asked_once_each() {
    let text = r#"{"inputs": [{"type": "promptString", "id": "token", "description": "API token", "password": true}],
                   "servers": {"gh": {"url": "https://x.example/mcp", "headers": {"A": "${input:token}", "B": "x ${input:token}"}}}}"#;
    let mut asked = Vec::new();
    let config = HostConfig::parse_asking(
        text,
        |_| None,
        |input| {
            asked.push((input.id.clone(), input.description.clone(), input.password));
            Some("s3cret".into())
        },
    )
    .unwrap();
    assert_eq!(asked, [("token".to_owned(), Some("API token".to_owned()), true)]);
    assert_eq!(http(&config, "gh").headers["b"], "x s3cret");
    let unanswered = HostConfig::parse_asking(text, |_| None, |_| None).unwrap_err();
    assert_eq!(
        unanswered.to_string(),
        "server \"gh\": field \"headers.A\": ${input:token}: it was not given"
    );
    let undeclared = text.replace("\"id\": \"token\"", "\"id\": \"other\"");
    let error = HostConfig::parse_asking(&undeclared, |_| None, |_| Some("x".into())).unwrap_err();
    assert!(error.to_string().contains("declare no such input"), "{error}");
}

#[test]
fn an_unset_variable_is_named_with_its_server_and_field() {
    let error =
        parse(r#"{"mcpServers": {"db": {"command": "db", "env": {"DB_PASSWORD": "${PGPASSWORD}"}}}}"#)
            .unwrap_err();
    assert_eq!(
        error,
        ConfigError::UnsetVariable {
            server: "db".into(),
            field: "env.DB_PASSWORD".into(),
            variable: "PGPASSWORD".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "server \"db\": field \"env.DB_PASSWORD\" uses ${PGPASSWORD}, which is not set \
         (give a default with ${PGPASSWORD:-value})"
    );
    let error =
        parse(r#"{"mcpServers": {"db": {"command": "db", "args": ["--x", "${MISSING}"]}}}"#).unwrap_err();
    assert!(matches!(&error, ConfigError::UnsetVariable { field, .. } if field == "args[1]"), "{error}");
}

#[test]
fn unsupported_variable_forms_are_errors() {
    assert_eq!(
        message(
            r#"{"servers": {"gh": {"url": "https://x.example/mcp", "headers": {"A": "${input:token}"}}}}"#
        ),
        "server \"gh\": field \"headers.A\": \"${input:token}\" is not a variable \
         (write ${NAME}, ${NAME:-default} or ${env:NAME})"
    );
    assert_eq!(
        message(r#"{"mcpServers": {"s": {"command": "${HOME"}}}"#),
        "server \"s\": field \"command\": a \"${\" has no closing \"}\""
    );
}

#[test]
fn command_and_url_exactly_one() {
    assert_eq!(
        message(r#"{"mcpServers": {"both": {"command": "a", "url": "http://127.0.0.1/mcp"}}}"#),
        "server \"both\": has both \"command\" and \"url\" (a server is either a command to run or a URL)"
    );
    assert_eq!(
        message(r#"{"mcpServers": {"none": {"args": ["x"]}}}"#),
        "server \"none\": has neither \"command\" (a command to run) nor \"url\""
    );
    assert_eq!(
        message(r#"{"servers": {"v": {"type": "stdio", "url": "http://127.0.0.1/mcp"}}}"#),
        "server \"v\": \"type\" is \"stdio\" but the entry has a \"url\", not a \"command\""
    );
    assert_eq!(
        message(r#"{"servers": {"v": {"type": "stdio-v2", "url": "http://127.0.0.1/mcp"}}}"#),
        "server \"v\": \"type\" is \"stdio-v2\" but the entry has a \"url\", not a \"command\""
    );
    assert_eq!(
        message(r#"{"servers": {"v": {"type": "http", "command": "x"}}}"#),
        "server \"v\": \"type\" is \"http\" but the entry has a \"command\", not a \"url\""
    );
    assert_eq!(
        message(r#"{"mcpServers": {"u": {"url": "http://127.0.0.1/mcp", "args": ["a"]}}}"#),
        "server \"u\": \"args\" is for servers run as a command, but the entry has a \"url\""
    );
    assert_eq!(
        message(r#"{"mcpServers": {"c": {"command": "x", "headers": {}}}}"#),
        "server \"c\": \"headers\" are for servers at a URL, but the entry has a \"command\""
    );
}

#[test]
fn wrong_types_and_values_name_the_field() {
    assert_eq!(
        message(r#"{"mcpServers": {"s": {"command": "x", "args": ["a", 3]}}}"#),
        "server \"s\": field \"args[1]\": invalid type: integer `3`, expected a string"
    );
    assert_eq!(
        message(r#"{"mcpServers": {"s": {"command": "x", "timeoutMs": "fast"}}}"#),
        "server \"s\": field \"timeoutMs\": invalid type: string \"fast\", expected u64"
    );
    assert_eq!(
        message(r#"{"mcpServers": {"s": {"command": "x", "timeoutMs": 0}}}"#),
        "server \"s\": field \"timeoutMs\": must be at least 1"
    );
    assert_eq!(
        message(r#"{"mcpServers": {"s": {"command": "x", "maxConcurrentCalls": 0}}}"#),
        "server \"s\": field \"maxConcurrentCalls\": must be at least 1"
    );
    assert_eq!(
        message(r#"{"mcpServers": {"s": {"command": "x", "circuitBreaker": {"failures": 3, "openMs": 0}}}}"#),
        "server \"s\": field \"circuitBreaker.openMs\": must be at least 1"
    );
    assert_eq!(
        message(r#"{"mcpServers": {"s": {"command": "x", "circuitBreaker": {"failure": 3}}}}"#),
        "server \"s\": field \"circuitBreaker.failure\": unknown field `failure`, expected `failures` or `openMs`"
    );
    let circuit =
        parse(r#"{"mcpServers": {"s": {"command": "x", "circuitBreaker": {"failures": 3}}}}"#).unwrap();
    let policy = crate::host::CircuitPolicy { failures: 3, ..crate::host::CircuitPolicy::default() };
    assert_eq!(circuit.servers["s"].circuit_breaker, Some(policy), "openMs defaults to 30 s");
    assert_eq!(
        message(r#"{"servers": {"s": {"type": "websocket", "url": "http://127.0.0.1/"}}}"#),
        "server \"s\": field \"type\": unknown variant `websocket`, expected one of `stdio`, `stdio-v2`, `http`, `sse`"
    );
    assert_eq!(
        message(r#"{"mcpServers": {"s": {"command": "x", "disabled": "yes"}}}"#),
        "server \"s\": field \"disabled\": must be true or false, not \"yes\""
    );
    assert_eq!(
        message(r#"{"mcpServers": {"s": "npx server"}}"#),
        "server \"s\": an entry must be an object, not \"npx server\""
    );
    assert_eq!(
        message(r#"{"mcpServers": {"s": {"url": "not a url"}}}"#),
        "server \"s\": field \"url\": \"not a url\": relative URL without a base"
    );
    assert_eq!(
        message(r#"{"mcpServers": {"s": {"url": "file:///tmp/x"}}}"#),
        "server \"s\": field \"url\": file:///tmp/x is not an http or https URL"
    );
    assert_eq!(
        message(r#"{"mcpServers": {"s": {"url": "http://127.0.0.1/", "headers": {"Bad Name": "v"}}}}"#),
        "server \"s\": field \"headers.Bad Name\": is not a valid header name"
    );
}

#[test]
fn the_document_must_hold_one_server_list() {
    assert!(matches!(parse("{"), Err(ConfigError::Json(_))));
    assert!(matches!(parse("[]"), Err(ConfigError::Shape(_))));
    assert!(message("{}").starts_with("the configuration has no \"mcpServers\""));
    assert!(message(r#"{"mcpServers": {}, "servers": {}}"#).contains("both"));
    assert_eq!(message(r#"{"mcpServers": []}"#), "\"mcpServers\" must be an object of servers by name");
    assert_eq!(parse(r#"{"mcpServers": {}}"#).unwrap(), HostConfig::new());
}

#[test]
fn files_are_read_with_the_given_environment() {
    let dir = std::env::temp_dir().join(format!("modelctx-host-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(".mcp.json");
    std::fs::write(&path, r#"{"mcpServers": {"s": {"command": "${HOME}/bin/server"}}}"#).unwrap();
    let config = HostConfig::load_with(&path, env).unwrap();
    assert_eq!(stdio(&config, "s").command, "/home/ada/bin/server");
    let missing = HostConfig::load_with(dir.join("absent.json"), env).unwrap_err();
    assert!(matches!(missing, ConfigError::Read { .. }), "{missing}");
    std::fs::remove_dir_all(&dir).unwrap();
}
