//! MagpieFX effects called from a script that reloads itself (`rpsl run --watch`, headless, on
//! Vulkan under validation): the effect nodes are installed in every session the script builds,
//! an edit of the effect or of a file it includes renders again with exact new pixels, a broken
//! effect prints its located diagnostic and keeps the last good picture, and the fix renders.

mod live_support;
mod run_vulkan_support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::Receiver;

use live_support::{edit, expect_line, lines, Killed, RENDER_TIMEOUT};
use run_vulkan_support::{scratch_dir, vulkan_available};

/// Clears a texture to (1.0, 0.6, 0.2) = bytes (255, 153, 51), runs the effect `Gain` on it and
/// copies the result to `bb`.
const SCRIPT: &str =
    "compute node Gain([readonly(cs)] texture src, [readwrite(cs)] texture dst);\n\
    export void main([readonly(present)] texture bb)\n{\n\
    \x20   texture scene = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);\n\
    \x20   texture lit = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);\n\
    \x20   clear(scene, float4(1.0, 0.6, 0.2, 1.0));\n\
    \x20   Gain(scene, lit);\n\
    \x20   copy_texture(bb, lit);\n}\n";

/// A pixel-shader-style effect scaling the colour by `kGain` of `gain.hlsli`; `filter` is the
/// sampler's filter, `tail` a last line (a comment).
fn gain_effect(filter: &str, tail: &str) -> String {
    format!(
        "//!MAGPIE EFFECT\n//!VERSION 4\n\n//!TEXTURE\nTexture2D INPUT;\n\n//!SAMPLER\n\
         //!FILTER {filter}\nSamplerState sam;\n\n//!COMMON\n#include \"gain.hlsli\"\n\n\
         //!PASS 1\n//!STYLE PS\n//!IN INPUT\n//!OUT OUTPUT\n\
         float4 Pass1(float2 pos) {{\n\
         \treturn float4(INPUT.SampleLevel(sam, pos, 0).rgb * kGain, 1);\n}}\n{tail}\n"
    )
}

fn gain_include(gain: &str) -> String {
    format!("static const float kGain = {gain};\n")
}

/// Every pixel of the 4x4 picture, RGBA.
fn picture(path: &Path) -> Vec<[u8; 4]> {
    let (width, height, pixels) = rpsl_vulkan::read_png(path).unwrap();
    assert_eq!((width, height), (4, 4));
    pixels.chunks(4).map(|p| [p[0], p[1], p[2], p[3]]).collect()
}

/// The next line the watch prints on stdout (one per render), which must start with `prefix`:
/// no render in between (a broken edit renders nothing).
fn next_render(stdout: &Receiver<String>, prefix: &str) {
    let line = stdout.recv_timeout(RENDER_TIMEOUT).expect("a render");
    assert!(line.starts_with(prefix), "{line}");
}

/// Waits for the diagnostic of a failed reload: its first line, starting with `headline_prefix`
/// (returned), the error at the node's declaration in `script` ending in `, which {what}`, and
/// the closing note.
fn expect_kept(
    stderr: &Receiver<String>,
    headline_prefix: &str,
    script: &Path,
    effect: &Path,
    what: &str,
) -> String {
    let headline = expect_line(stderr, headline_prefix);
    expect_line(
        stderr,
        &format!(
            "{}:1:1: error: node `Gain` is bound to the MagpieFX effect {}, which {what}",
            script.display(),
            effect.display()
        ),
    );
    expect_line(
        stderr,
        "(the last good frame stays; waiting for the next edit)",
    );
    headline
}

#[test]
fn watch_reloads_effect_edits_and_keeps_the_last_frame_of_a_broken_one() {
    if !vulkan_available() {
        return;
    }
    let dir = scratch_dir().join("effect-watch");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("frame.rpsl");
    let effect = dir.join("Gain.hlsl");
    let include = dir.join("gain.hlsli");
    let out = dir.join("out");
    std::fs::write(&script, SCRIPT).unwrap();
    std::fs::write(&effect, gain_effect("POINT", "")).unwrap();
    std::fs::write(&include, gain_include("0.25")).unwrap();
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
    let bb = out.join("bb.png");

    // Gain.constants, Gain.Pass1, the clear and the copy.
    next_render(&stdout, "rendered (start): 4 nodes, ");
    // 255 * 0.25 = 63.75, 153 * 0.25 = 38.25, 51 * 0.25 = 12.75.
    assert_eq!(picture(&bb), vec![[64, 38, 13, 255]; 16]);

    // The constant in the included file changes: 191.25, 114.75, 38.25.
    edit(&include, &gain_include("0.75"));
    next_render(&stdout, "rendered (effect edit): 4 nodes, ");
    assert_eq!(picture(&bb), vec![[191, 115, 38, 255]; 16]);

    // HLSL that does not compile: the compiler's error in the include, then the node.
    edit(&include, "static const float kGain = ;\n");
    let headline = expect_kept(&stderr, "error: ", &script, &effect, "does not compile");
    assert_eq!(
        headline,
        format!(
            "error: {}: pass 1 does not compile: {}:1: 'initializer' : Expected",
            effect.display(),
            include.display()
        )
    );
    assert_eq!(picture(&bb), vec![[191, 115, 38, 255]; 16]);

    // Fixed, with the colour kept as it is.
    edit(&include, &gain_include("1.0"));
    next_render(&stdout, "rendered (effect edit): 4 nodes, ");
    assert_eq!(picture(&bb), vec![[255, 153, 51, 255]; 16]);

    // An effect that does not parse: its located error, then the node's declaration.
    edit(&effect, &gain_effect("CUBIC", ""));
    let headline = expect_kept(
        &stderr,
        &effect.display().to_string(),
        &script,
        &effect,
        "has errors",
    );
    assert_eq!(
        headline,
        format!(
            "{}:8:11: error: unknown filter `CUBIC` (expected LINEAR or POINT)",
            effect.display()
        )
    );
    assert_eq!(picture(&bb), vec![[255, 153, 51, 255]; 16]);

    // Fixed: a new frame, with the include's gain of 0.25 restored at the same time.
    edit(&include, &gain_include("0.25"));
    let headline = expect_kept(
        &stderr,
        &effect.display().to_string(),
        &script,
        &effect,
        "has errors",
    );
    assert!(headline.ends_with("unknown filter `CUBIC` (expected LINEAR or POINT)"));
    edit(&effect, &gain_effect("LINEAR", "// fixed"));
    next_render(&stdout, "rendered (effect edit): 4 nodes, ");
    assert_eq!(picture(&bb), vec![[64, 38, 13, 255]; 16]);
}
