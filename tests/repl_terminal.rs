//! `rpsl repl` on a pseudo-terminal (through util-linux's `script`, which gives the child a
//! terminal): Tab completes node names and `:` commands, and the history of one session is
//! there in the next (Up arrow). Each key sequence is sent only after the reply to the previous
//! one arrived, as a person would type.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// How long to wait for one expected reply (a frame takes milliseconds; CI machines are slow).
const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

struct Terminal {
    child: Child,
    input: ChildStdin,
    output: Receiver<Vec<u8>>,
    seen: String,
}

impl Terminal {
    /// `rpsl repl` on a pseudo-terminal, or `None` (with a message) where `script` is missing.
    fn start(history: &std::path::Path) -> Option<Terminal> {
        let command = format!("{} repl", env!("CARGO_BIN_EXE_rpsl"));
        let spawned = Command::new("script")
            .args(["-q", "-e", "-c", &command, "/dev/null"])
            .env("RPSL_REPL_HISTORY", history)
            .env("TERM", "xterm")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(error) => {
                eprintln!("skipped: no `script` command to make a pseudo-terminal ({error})");
                return None;
            }
        };
        let input = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let (sender, output) = channel();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(read) = stdout.read(&mut buffer) {
                if read == 0 || sender.send(buffer[..read].to_vec()).is_err() {
                    break;
                }
            }
        });
        Some(Terminal {
            child,
            input,
            output,
            seen: String::new(),
        })
    }

    /// Waits until the output (since the last expectation) contains `text`.
    fn expect(&mut self, text: &str) {
        let deadline = Instant::now() + REPLY_TIMEOUT;
        while !self.seen.contains(text) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(bytes) => self.seen.push_str(&String::from_utf8_lossy(&bytes)),
                Err(_) => panic!("no `{text}` in the terminal's output:\n{}", self.seen),
            }
        }
        let end = self.seen.find(text).unwrap() + text.len();
        self.seen.drain(..end);
    }

    fn send(&mut self, keys: &str) {
        self.input.write_all(keys.as_bytes()).unwrap();
        self.input.flush().unwrap();
    }

    fn finish(mut self) {
        let deadline = Instant::now() + REPLY_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{status}");
                return;
            }
            assert!(Instant::now() < deadline, "the REPL did not end");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn tab_completes_and_history_survives_the_session() {
    let dir = std::env::temp_dir().join(format!("rpsl-repl-terminal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let history = dir.join("history");
    let Some(mut terminal) = Terminal::start(&history) else {
        return;
    };
    terminal.expect("rpsl> ");
    terminal.send("graphics node DrawThing(rtv rt : SV_Target0);\r");
    terminal.expect("frame: 0 nodes");
    terminal.expect("rpsl> ");
    // `DrawTh` + Tab completes the node declared above.
    terminal.send("DrawTh\t(backbuffer)\r");
    terminal.expect("+ node 0: DrawThing(rt = backbuffer)");
    terminal.expect("rpsl> ");
    // `:sch` + Tab completes the command.
    terminal.send(":sch\t\r");
    terminal.expect("    0  DrawThing (node 0, queue 0)");
    terminal.expect("rpsl> ");
    terminal.send(":quit\r");
    terminal.finish();
    let saved = std::fs::read_to_string(&history).unwrap();
    assert!(saved.contains("DrawThing(backbuffer)"), "{saved}");
    assert!(saved.contains(":schedule"), "{saved}");

    // A new session: four times Up recalls the node declaration of the last session.
    let mut terminal = Terminal::start(&history).unwrap();
    terminal.expect("rpsl> ");
    terminal.send("\x1b[A\x1b[A\x1b[A\x1b[A\r");
    terminal.expect("frame: 0 nodes");
    terminal.expect("rpsl> ");
    terminal.send("DrawThing(backbuffer)\r");
    terminal.expect("+ node 0: DrawThing(rt = backbuffer)");
    terminal.send(":quit\r");
    terminal.finish();
    std::fs::remove_dir_all(&dir).unwrap();
}
