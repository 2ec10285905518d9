//! Why a command failed, and the exit status that tells a script.

use std::process::ExitCode;

use modelctx::client::ClientError;

use super::output::shown;

/// The exit statuses of the commands that drive a server, for `--help`.
pub const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  success
  1  the tool ran and reported an error (isError: true); its result is printed
  2  bad usage: flags, arguments or a config file that cannot be used
  3  the server could not be started or reached, or the connection failed or timed out
  4  the server answered the request with an error (unknown tool, invalid params, …)";

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// The tool reported an error; its result was printed (exit 1).
    ToolError,
    /// The command line or its input cannot be used (exit 2).
    Usage(String),
    /// The server could not be started or reached, or the connection broke (exit 3).
    Unreachable(String),
    /// The server refused the request (exit 4).
    Refused(String),
}

impl From<ClientError> for Failure {
    fn from(error: ClientError) -> Self {
        if error.is_rpc() || error.is_invalid_result() || error.is_auth() {
            Self::Refused(error.to_string())
        } else if error.is_invalid_params() || error.undeclared_capability().is_some() {
            Self::Usage(error.to_string())
        } else if error.http_status() == Some(401) {
            Self::Refused(format!(
                "{error}: the server wants authorization; run `modelctx login URL` or give --bearer"
            ))
        } else {
            Self::Unreachable(error.to_string())
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::ToolError => f.write_str("the tool reported an error"),
            Self::Usage(message) | Self::Unreachable(message) | Self::Refused(message) => {
                f.write_str(message)
            }
        }
    }
}

impl std::error::Error for Failure {}

impl Failure {
    /// Prints the reason (a tool error was printed already) and gives the exit status.
    pub fn exit(self) -> ExitCode {
        let (code, reason) = self.reason();
        if let Some(reason) = reason {
            let red = anstyle::Style::new().fg_color(Some(anstyle::AnsiColor::Red.into())).bold();
            anstream::eprintln!("{red}modelctx:{red:#} {reason}");
        }
        ExitCode::from(code)
    }

    /// The exit status, and the reason to print made inert for a terminal (it often quotes
    /// the server: an error's message, a name it gave).
    fn reason(&self) -> (u8, Option<String>) {
        let (code, message) = match self {
            Self::ToolError => return (1, None),
            Self::Usage(message) => (2, message),
            Self::Unreachable(message) => (3, message),
            Self::Refused(message) => (4, message),
        };
        (code, Some(shown(message, true).into_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::Failure;

    /// A server's error message carrying escape sequences (OSC 52 sets the clipboard) reaches
    /// the terminal inert.
    #[test]
    fn a_reason_quoting_the_server_reaches_the_terminal_inert() {
        let refused = Failure::Refused("MCP error -32602: \u{1b}]52;c;ZXZpbA==\u{7}bad".into());
        let (code, reason) = refused.reason();
        assert_eq!(code, 4);
        let reason = reason.expect("a reason");
        assert!(!reason.contains('\u{1b}') && !reason.contains('\u{7}'), "{reason}");
        assert!(reason.contains("\\u{1b}]52"), "shown, escaped: {reason}");
        assert_eq!(Failure::ToolError.reason(), (1, None));
    }
}
