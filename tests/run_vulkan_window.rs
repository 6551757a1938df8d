//! `rpsl run --window` under a virtual X server (Xvfb) on Vulkan (lavapipe here), validation
//! and synchronization validation on: N frames are presented and counted; a script edit, a
//! shader edit, a fix after a broken edit and a renamed presented parameter each show in the
//! next presented frame, read back from the presented image (`--window-capture`); Ctrl-C ends
//! the window with exit code 0; UNORM and sRGB presented textures keep their encodings; a
//! script calling a MagpieFX effect shows the effect's edits, keeps its last frame when the
//! effect breaks and shows the fix.
//!
//! Skipped (with a note) only where no `Xvfb` exists and `RPSL_REQUIRE_VULKAN` is unset.

mod live_support;
mod run_vulkan_support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use live_support::{edit, expect_line, first_pixel, lines, Killed};
use run_vulkan_support::{scratch_dir, vulkan_available};

/// A virtual X server on a display of its own, stopped when dropped.
struct VirtualDisplay {
    server: Killed,
    display: String,
}

/// Starts Xvfb on a free display (from 140 + 8 x (this process's id modulo 100), a number of
/// its own per call, as tests run in parallel); `None` when there is no Xvfb (a failure when
/// `RPSL_REQUIRE_VULKAN=1`).
fn virtual_display() -> Option<VirtualDisplay> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static CALLS: AtomicU32 = AtomicU32::new(0);
    let required = std::env::var("RPSL_REQUIRE_VULKAN").is_ok_and(|v| v == "1");
    let first = 140 + 8 * (std::process::id() % 100);
    loop {
        let number = first + CALLS.fetch_add(1, Ordering::Relaxed);
        if number >= first + 400 {
            panic!("no free display for Xvfb");
        }
        if Path::new(&format!("/tmp/.X{number}-lock")).exists() {
            continue;
        }
        let spawned = Command::new("Xvfb")
            .args([
                &format!(":{number}"),
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let mut server = match spawned {
            Ok(server) => server,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound && !required => {
                eprintln!("skipping: no Xvfb here");
                return None;
            }
            Err(error) => panic!("cannot start Xvfb: {error}"),
        };
        let socket = format!("/tmp/.X11-unix/X{number}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            // Ours once the socket is there and the server still runs (a server that lost the
            // display to another exits at once).
            if Path::new(&socket).exists() {
                std::thread::sleep(Duration::from_millis(100));
                if server.try_wait().ok().flatten().is_some() {
                    break;
                }
                return Some(VirtualDisplay {
                    server: Killed(server),
                    display: format!(":{number}"),
                });
            }
            if server.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = server.kill();
        let _ = server.wait();
    }
}

/// `rpsl run SCRIPT --window --validate ARGS...` on `display`.
fn window(display: &VirtualDisplay, script: &Path, args: &[&str]) -> Command {
    let _ = &display.server;
    let mut command = Command::new(env!("CARGO_BIN_EXE_rpsl"));
    command
        .args(["run", script.to_str().unwrap(), "--window", "--validate"])
        .args(args)
        .env("DISPLAY", &display.display)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

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

/// A fresh folder for one test.
fn folder(name: &str) -> std::path::PathBuf {
    let dir = scratch_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The size and every pixel of a PNG are `rgba`.
fn assert_uniform(png: &Path, size: (u32, u32), rgba: [u8; 4]) {
    let (width, height, pixels) = rpsl_vulkan::read_png(png).unwrap();
    assert_eq!((width, height), size, "{}", png.display());
    assert_eq!(first_pixel(png), rgba, "{}", png.display());
    assert!(
        pixels.chunks_exact(4).all(|texel| texel == rgba),
        "{} is not uniformly {rgba:?}",
        png.display()
    );
}

#[test]
fn window_presents_n_frames_and_counts_them() {
    if !vulkan_available() {
        return;
    }
    let Some(display) = virtual_display() else {
        return;
    };
    let dir = folder("window-frames");
    let script = dir.join("frame.rpsl");
    std::fs::write(&script, SCRIPT_RED).unwrap();
    let output = window(&display, &script, &["--frames", "7", "--arg", "bb=40x30"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(stderr, "");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with("rendered (start): 1 nodes, ")
            && lines[0].ends_with(" ms from the change to the presented frame"),
        "{stdout}"
    );
    assert_eq!(lines[1], "presented 7 frames");
}

/// Sends SIGINT (Ctrl-C) to a child.
fn interrupt(child: &Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn edits_show_in_the_next_presented_frame_and_ctrl_c_ends_cleanly() {
    if !vulkan_available() {
        return;
    }
    let Some(display) = virtual_display() else {
        return;
    };
    let dir = folder("window-edits");
    let script = dir.join("frame.rpsl");
    let shader = dir.join("Fill.frag");
    let captures = dir.join("captures");
    std::fs::write(&script, SCRIPT_RED).unwrap();
    std::fs::write(&shader, fill_shader("0.0, 0.0, 1.0")).unwrap();
    let capture_arg = captures.to_str().unwrap();
    let mut child = window(
        &display,
        &script,
        &["--arg", "bb=32x24", "--window-capture", capture_arg],
    )
    .spawn()
    .unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    let stderr = lines(child.stderr.take().unwrap());
    let mut child = Killed(child);
    let size = (32, 24);

    expect_line(&stdout, "rendered (start): 1 nodes, ");
    assert_uniform(&captures.join("0.png"), size, [255, 0, 0, 255]);

    // The script now draws through the shader: blue in the next presented frame.
    edit(&script, SCRIPT_FILL);
    expect_line(&stdout, "rendered (script edit): 1 nodes, ");
    assert_uniform(&captures.join("1.png"), size, [0, 0, 255, 255]);

    // The shader turns green.
    edit(&shader, &fill_shader("0.0, 1.0, 0.0"));
    expect_line(&stdout, "rendered (shader edit): 1 nodes, ");
    assert_uniform(&captures.join("2.png"), size, [0, 255, 0, 255]);

    // A broken edit: its diagnostic; no new capture, the last good program keeps running.
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
    assert!(!captures.join("3.png").exists());

    // Fixed again: red.
    edit(&script, SCRIPT_RED);
    expect_line(&stdout, "rendered (script edit): 1 nodes, ");
    assert_uniform(&captures.join("3.png"), size, [255, 0, 0, 255]);

    // The presented parameter is renamed: the window presents the new one, at the same size.
    edit(
        &script,
        "export void main([readonly(present)] texture backbuffer)\n\
         {\n    clear(backbuffer, float4(0, 1, 1, 1));\n}\n",
    );
    expect_line(&stdout, "rendered (script edit): 1 nodes, ");
    assert_uniform(&captures.join("4.png"), size, [0, 255, 255, 255]);

    // Ctrl-C: a clean end, the count of presented frames, no validation message.
    interrupt(&child.0);
    let presented = expect_line(&stdout, "presented ");
    let count: u64 = presented
        .trim_start_matches("presented ")
        .trim_end_matches(" frames")
        .parse()
        .unwrap();
    assert!(count >= 5, "{presented}");
    let status = child.0.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let rest: Vec<String> = stderr.try_iter().collect();
    assert!(rest.is_empty(), "{rest:?}");
}

#[test]
fn the_swapchain_keeps_unorm_values_and_encodes_srgb_ones() {
    if !vulkan_available() {
        return;
    }
    let Some(display) = virtual_display() else {
        return;
    };
    let dir = folder("window-formats");
    let script = dir.join("frame.rpsl");
    std::fs::write(
        &script,
        "export void main([readonly(present)] texture bb)\n\
         {\n    clear(bb, float4(0.5, 0.25, 1, 1));\n}\n",
    )
    .unwrap();
    // (format asked for, presented pixel, note on stderr)
    let cases = [
        ("8x4", [128, 64, 255, 255], String::new()),
        (
            "8x4:R8G8B8A8_UNORM_SRGB",
            [188, 137, 255, 255],
            "note: `bb` is presented as B8G8R8A8_UNORM_SRGB (the window's format)\n".to_string(),
        ),
    ];
    for (index, (arg, pixel, note)) in cases.into_iter().enumerate() {
        let captures = dir.join(format!("captures{index}"));
        let output = window(
            &display,
            &script,
            &[
                "--frames",
                "1",
                "--arg",
                &format!("bb={arg}"),
                "--window-capture",
                captures.to_str().unwrap(),
            ],
        )
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        assert_eq!(stderr, note);
        assert_uniform(&captures.join("0.png"), (8, 4), pixel);
    }
}

#[test]
fn without_a_display_or_on_the_null_backend_the_window_is_refused() {
    let dir = folder("window-refused");
    let script = dir.join("frame.rpsl");
    std::fs::write(&script, SCRIPT_RED).unwrap();
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_rpsl"))
            .args(["run", script.to_str().unwrap(), "--window"])
            .args(extra)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap()
    };
    let output = run(&[]);
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: cannot open a window: DISPLAY is not set (an X server is needed; `xvfb-run -a \
         rpsl run ...` gives a virtual one)\n"
    );
    let output = run(&["--backend", "null"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: `--window` needs `--backend vulkan`\n"
    );
    let output = run(&["--present", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: `--present nope`: entry point `main` has no texture parameter `nope` (texture \
         parameters: bb)\n"
    );
}

/// Clears a texture to (0.6, 0.2, 0.6) = bytes (153, 51, 153), runs the effect `Gain` on it and
/// copies the result to `bb` (red equals blue: the window's BGRA image shows the same bytes).
const EFFECT_SCRIPT: &str = "compute node Gain([readonly(cs)] texture src, [readwrite(cs)] texture dst);\n\
    export void main([readonly(present)] texture bb)\n{\n\
    \x20   ResourceDesc desc = bb.desc();\n\
    \x20   texture scene = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, (uint)desc.Width, desc.Height);\n\
    \x20   texture lit = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, (uint)desc.Width, desc.Height);\n\
    \x20   clear(scene, float4(0.6, 0.2, 0.6, 1.0));\n\
    \x20   Gain(scene, lit);\n\
    \x20   copy_texture(bb, lit);\n}\n";

/// A compute-style effect scaling the colour by `gain`.
fn gain_effect(gain: &str) -> String {
    format!(
        "//!MAGPIE EFFECT\n//!VERSION 4\n//!TEXTURE\nTexture2D INPUT;\n\
         //!PASS 1\n//!IN INPUT\n//!OUT OUTPUT\n//!BLOCK_SIZE 8\n//!NUM_THREADS 8, 8\n\
         void Pass1(uint2 blockStart, uint3 threadId) {{\n\
         \tconst uint2 pixel = blockStart + threadId.xy;\n\
         \tif (pixel.x >= GetOutputSize().x || pixel.y >= GetOutputSize().y) return;\n\
         \tOUTPUT[pixel] = float4(INPUT[pixel].rgb * {gain}, 1);\n}}\n"
    )
}

#[test]
fn an_effect_called_by_the_script_reloads_in_the_window() {
    if !vulkan_available() {
        return;
    }
    let Some(display) = virtual_display() else {
        return;
    };
    let dir = folder("window-effect");
    let script = dir.join("frame.rpsl");
    let effect = dir.join("Gain.hlsl");
    let captures = dir.join("captures");
    std::fs::write(&script, EFFECT_SCRIPT).unwrap();
    std::fs::write(&effect, gain_effect("0.25")).unwrap();
    let capture_arg = captures.to_str().unwrap();
    let mut child = window(
        &display,
        &script,
        &["--arg", "bb=16x8", "--window-capture", capture_arg],
    )
    .spawn()
    .unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    let stderr = lines(child.stderr.take().unwrap());
    let mut child = Killed(child);
    let size = (16, 8);

    // 153 * 0.25 = 38.25, 51 * 0.25 = 12.75.
    expect_line(&stdout, "rendered (start): 4 nodes, ");
    assert_uniform(&captures.join("0.png"), size, [38, 13, 38, 255]);

    // 153 * 0.75 = 114.75, 51 * 0.75 = 38.25.
    edit(&effect, &gain_effect("0.75"));
    expect_line(&stdout, "rendered (effect edit): 4 nodes, ");
    assert_uniform(&captures.join("1.png"), size, [115, 38, 115, 255]);

    // A broken effect: its diagnostic; no new capture, the last good frame stays.
    edit(&effect, &gain_effect("0.75 +"));
    let headline = expect_line(&stderr, "error: ");
    assert!(
        headline.starts_with(&format!(
            "error: {}: pass 1 does not compile: ",
            effect.display()
        )),
        "{headline}"
    );
    expect_line(
        &stderr,
        "(the last good frame stays; waiting for the next edit)",
    );
    assert!(!captures.join("2.png").exists());

    // Fixed: the effect's output as it is.
    edit(&effect, &gain_effect("1.0"));
    expect_line(&stdout, "rendered (effect edit): 4 nodes, ");
    assert_uniform(&captures.join("2.png"), size, [153, 51, 153, 255]);

    interrupt(&child.0);
    expect_line(&stdout, "presented ");
    assert_eq!(child.0.wait().unwrap().code(), Some(0));
}
