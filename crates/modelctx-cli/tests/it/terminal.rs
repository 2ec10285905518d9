//! The CLI on a terminal, driven as a person drives it: `modelctx` runs on a real
//! pseudo-terminal (util-linux `script` gives it one), keystrokes are written to it, and what
//! it draws is read back as a screen (a VT100 emulator), not as a byte stream.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::WAIT;

const BIN: &str = env!("CARGO_BIN_EXE_modelctx");
const ROWS: u16 = 30;
const COLUMNS: u16 = 110;

/// `modelctx ARGS…` on a pseudo-terminal of [`ROWS`] × [`COLUMNS`], its screen kept up to
/// date by a reader thread.
struct Terminal {
    child: Child,
    keys: ChildStdin,
    screen: Arc<Mutex<vt100::Parser>>,
}

impl Terminal {
    fn run(args: &[&str]) -> Self {
        let quoted: Vec<String> =
            std::iter::once(BIN).chain(args.iter().copied()).map(|a| format!("'{a}'")).collect();
        let inner = format!("stty rows {ROWS} cols {COLUMNS}; exec {}", quoted.join(" "));
        let mut child = Command::new("script")
            .args(["--quiet", "--flush", "--return", "--command", &inner, "/dev/null"])
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR")
            .env_remove("MODELCTX_BEARER")
            .env("MODELCTX_CREDENTIALS", "/nonexistent/credentials.json")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("util-linux script runs");
        let keys = child.stdin.take().unwrap();
        let mut output = child.stdout.take().unwrap();
        let size = |n: u16| std::num::NonZero::new(n).expect("a terminal has rows and columns");
        let screen = Arc::new(Mutex::new(vt100::Parser::new(size(ROWS), size(COLUMNS), 0)));
        let drawn = screen.clone();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(read @ 1..) = output.read(&mut buffer) {
                drawn.lock().unwrap().process(&buffer[..read]);
            }
        });
        Self { child, keys, screen }
    }

    /// The screen's text now.
    fn screen(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// Waits until the screen shows `text`; the screen then.
    fn wait_for(&self, text: &str) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(started.elapsed() < WAIT, "the screen never showed {text:?}:\n{screen}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Types `keys` as a person would.
    fn type_keys(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).unwrap();
        self.keys.flush().unwrap();
    }

    /// Waits for the command's end; whether it succeeded.
    fn wait(mut self) -> bool {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            if started.elapsed() > WAIT {
                let _ = self.child.kill();
                panic!("the command did not end:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The server's form becomes prompts a person answers field by field, the answers are shown
/// for review, and only sent when the person chooses to send them.
#[test]
fn a_form_is_answered_at_the_prompts_reviewed_and_sent() {
    let mut terminal = Terminal::run(&[
        "tools",
        "call",
        "test_elicitation",
        "message=Who are you?",
        "--",
        BIN,
        "serve",
        "everything",
    ]);
    // The fields come in the schema's order (by name), each with its description.
    let asked = terminal.wait_for("email (User's email address)");
    assert!(asked.contains("asks: Who are you?"), "{asked}");
    terminal.type_keys("ada@example.com\r");
    terminal.wait_for("username (User's response)");
    terminal.type_keys("ada\r");
    let review = terminal.wait_for("Send these answers");
    assert!(
        review.contains("username: \"ada\"") && review.contains("email: \"ada@example.com\""),
        "{review}"
    );
    // Enter takes the first choice: send.
    terminal.type_keys("\r");
    let answered = terminal.wait_for("User response:");
    assert!(answered.contains("accept") && answered.contains("ada@example.com"), "{answered}");
    assert!(terminal.wait(), "the call succeeded");
}

/// A call that reports progress draws a bar that moves with the reports and is gone from the
/// screen once the result is printed.
#[test]
fn progress_draws_a_bar_that_moves_and_is_cleared_at_the_end() {
    let terminal = Terminal::run(&[
        "tools",
        "call",
        "long_running_operation",
        "steps=4",
        "step_ms=400",
        "--",
        BIN,
        "serve",
        "everything",
    ]);
    let halfway = terminal.wait_for("step 2 of 4");
    let bar = halfway.lines().find(|line| line.contains("step 2 of 4")).unwrap_or_default().to_owned();
    assert!(bar.contains("50%") && bar.contains("[=") && bar.contains(']'), "{bar}");
    let done = terminal.wait_for("finished 4 steps");
    assert!(!done.contains("step 4 of 4") && !done.contains('%'), "the bar stays on the screen:\n{done}");
    assert!(terminal.wait(), "the call succeeded");
}

/// A sampling request is answered by the person as the model: the conversation is shown and
/// what they type is the model's answer.
#[test]
fn a_person_answers_a_sampling_request_as_the_model() {
    let mut terminal = Terminal::run(&[
        "tools",
        "call",
        "test_sampling",
        "prompt=What is 2+2?",
        "--",
        BIN,
        "serve",
        "everything",
    ]);
    let asked = terminal.wait_for("Your answer, as the model");
    assert!(asked.contains("asks for the model's answer") && asked.contains("user: What is 2+2?"), "{asked}");
    terminal.type_keys("4, said the person\r");
    let answered = terminal.wait_for("LLM response:");
    assert!(answered.contains("LLM response: 4, said the person"), "{answered}");
    assert!(terminal.wait(), "the call succeeded");
}
