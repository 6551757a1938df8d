//! `rpsl run --watch` on Vulkan (lavapipe here): the first frame is written, a script edit and a
//! shader edit each render again and rewrite the picture, and a broken edit prints its
//! diagnostic and keeps the last good picture. Pixels are read back from the written PNGs.

mod run_vulkan_support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use run_vulkan_support::{scratch_dir, vulkan_available};

/// How long to wait for one render (the first includes compiling the shader).
const RENDER_TIMEOUT: Duration = Duration::from_secs(120);

const SCRIPT_RED: &str = "graphics node Fill(rtv target : SV_Target0);\n\
    export void main([readonly(present)] texture bb)\n{\n    clear(bb, float4(1, 0, 0, 1));\n}\n";
const SCRIPT_FILL: &str = "graphics node Fill(rtv target : SV_Target0);\n\
    export void main([readonly(present)] texture bb)\n{\n    Fill(bb);\n}\n";
const SCRIPT_BROKEN: &str = "graphics node Fill(rtv target : SV_Target0);\n\
    export void main([readonly(present)] texture bb)\n{\n    Fill(bb)\n}\n";

fn fill_shader(rgb: &str) -> String {
    format!(
        "#version 450\nlayout(location = 0) out vec4 color;\n\
         void main() {{ color = vec4({rgb}, 1.0); }}\n"
    )
}

/// The lines a child prints, one channel per stream.
fn lines(stream: impl std::io::Read + Send + 'static) -> Receiver<String> {
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
fn expect_line(lines: &Receiver<String>, prefix: &str) -> String {
    loop {
        match lines.recv_timeout(RENDER_TIMEOUT) {
            Ok(line) if line.starts_with(prefix) => return line,
            Ok(_) => {}
            Err(_) => panic!("no line starting with `{prefix}`"),
        }
    }
}

/// The first pixel of `png` (RGBA).
fn first_pixel(png: &Path) -> [u8; 4] {
    let (_, _, pixels) = rpsl_vulkan::read_png(png).unwrap();
    [pixels[0], pixels[1], pixels[2], pixels[3]]
}

/// Rewrites `path` and makes sure its modification time moves (coarse clocks).
fn edit(path: &Path, text: &str) {
    let before = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    loop {
        std::fs::write(path, text).unwrap();
        let after = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        if after != before {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn watch_renders_again_after_script_and_shader_edits() {
    if !vulkan_available() {
        return;
    }
    let dir = scratch_dir().join("watch");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("frame.rpsl");
    let shader = dir.join("Fill.frag");
    let out = dir.join("out");
    std::fs::write(&script, SCRIPT_RED).unwrap();
    std::fs::write(&shader, fill_shader("0.0, 0.0, 1.0")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args([
            "run",
            script.to_str().unwrap(),
            "--arg",
            "bb=4x4",
            "--watch",
        ])
        .args(["--validate", "--out", out.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    let stderr = lines(child.stderr.take().unwrap());
    let _child = Killed(child);
    let picture = out.join("bb.png");

    expect_line(&stdout, "rendered (start): 1 nodes, ");
    assert_eq!(first_pixel(&picture), [255, 0, 0, 255]);

    // The script now draws through the shader (blue).
    edit(&script, SCRIPT_FILL);
    expect_line(&stdout, "rendered (script edit): 1 nodes, ");
    assert_eq!(first_pixel(&picture), [0, 0, 255, 255]);

    // The shader turns green.
    edit(&shader, &fill_shader("0.0, 1.0, 0.0"));
    expect_line(&stdout, "rendered (shader edit): 1 nodes, ");
    assert_eq!(first_pixel(&picture), [0, 255, 0, 255]);

    // A broken edit: its diagnostic, and the green picture stays.
    edit(&script, SCRIPT_BROKEN);
    let headline = expect_line(&stderr, &format!("{}:", script.display()));
    assert_eq!(
        headline,
        format!("{}:4:13: error: expected `;`, found `}}`", script.display())
    );
    expect_line(
        &stderr,
        "(the last good frame stays; waiting for the next edit)",
    );
    assert_eq!(first_pixel(&picture), [0, 255, 0, 255]);

    // Fixed again: red.
    edit(&script, SCRIPT_RED);
    expect_line(&stdout, "rendered (script edit): 1 nodes, ");
    assert_eq!(first_pixel(&picture), [255, 0, 0, 255]);
}
