//! Helpers of the tests that drive a long-running `rpsl run` (`--watch`, `--window`): the lines
//! the child prints, waiting for one, editing a file so that its modification time moves, and
//! a child that is killed when the test ends.
#![allow(dead_code, reason = "each test binary uses a subset")]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Child;
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// How long to wait for one render (the first includes compiling the shaders).
pub const RENDER_TIMEOUT: Duration = Duration::from_secs(120);

/// The lines a child prints, one channel per stream.
pub fn lines(stream: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (sender, receiver) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

/// Waits for a line starting with `prefix`; returns it.
pub fn expect_line(lines: &Receiver<String>, prefix: &str) -> String {
    loop {
        match lines.recv_timeout(RENDER_TIMEOUT) {
            Ok(line) if line.starts_with(prefix) => return line,
            Ok(_) => {}
            Err(_) => panic!("no line starting with `{prefix}`"),
        }
    }
}

/// The first pixel of `png` (RGBA).
pub fn first_pixel(png: &Path) -> [u8; 4] {
    let (_, _, pixels) = rpsl_vulkan::read_png(png).unwrap();
    [pixels[0], pixels[1], pixels[2], pixels[3]]
}

/// Rewrites `path` at once, as editors that save through a renamed temporary file do (a
/// watcher never reads it half-written), and makes sure its modification time moves (coarse
/// clocks).
pub fn edit(path: &Path, text: &str) {
    let before = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let temporary = path.with_extension("saving");
    loop {
        std::fs::write(&temporary, text).unwrap();
        std::fs::rename(&temporary, path).unwrap();
        let after = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        if after != before {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A child process killed (and reaped) when dropped.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
