//! `rpsl run --watch` on Vulkan (lavapipe here): the first frame is written, a script edit and a
//! shader edit each render again and rewrite the picture, and a broken edit prints its
//! diagnostic and keeps the last good picture. Pixels are read back from the written PNGs.

mod live_support;
mod run_vulkan_support;

use std::process::{Command, Stdio};

use live_support::{edit, expect_line, first_pixel, lines, Killed};
use run_vulkan_support::{scratch_dir, vulkan_available};

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

/// A temporal texture that counts frames: frame 0 clears it, every later frame adds 1/255 to
/// the previous frame's slice; `bb` shows the count. `{extra}` is put before the creation, so
/// that an edit there moves every later location of the program.
fn counting_script(extra: &str) -> String {
    format!(
        "compute node Accumulate([readonly(cs)] texture prev, [readwrite(cs)] texture cur);\n\
         export void main([readonly(present)] texture bb, uint frameIndex)\n{{\n{extra}\
         \x20   texture history = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4, 1, 1, 2);\n\
         \x20   if (frameIndex == 0) {{\n\
         \x20       clear(history, float4(0, 0, 0, 0));\n\
         \x20   }} else {{\n\
         \x20       Accumulate(create_texture_view(history, 0, 1, 0, 1, 1), history);\n\
         \x20   }}\n\
         \x20   copy_texture(bb, history);\n}}\n"
    )
}

const ACCUMULATE: &str = "#version 450\n\
    #extension GL_EXT_samplerless_texture_functions : require\n\
    layout(local_size_x = 8, local_size_y = 8) in;\n\
    layout(binding = 0) uniform texture2D prev;\n\
    layout(binding = 1, rgba8) uniform image2D cur;\n\
    void main() {\n\
    \x20   ivec2 at = ivec2(gl_GlobalInvocationID.xy);\n\
    \x20   if (any(greaterThanEqual(at, imageSize(cur)))) return;\n\
    \x20   imageStore(cur, at, texelFetch(prev, at, 0) + vec4(1.0 / 255.0));\n\
    }\n";

#[test]
fn temporal_history_continues_across_an_unrelated_edit() {
    if !vulkan_available() {
        return;
    }
    let dir = scratch_dir().join("history");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("frame.rpsl");
    let out = dir.join("out");
    std::fs::write(&script, counting_script("")).unwrap();
    std::fs::write(dir.join("Accumulate.comp"), ACCUMULATE).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args(["run", script.to_str().unwrap(), "--arg", "bb=4x4"])
        .args(["--watch", "--frames", "3", "--validate"])
        .args(["--out", out.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    let _stderr = lines(child.stderr.take().unwrap());
    let _child = Killed(child);
    let picture = out.join("bb.png");

    // Frames 0, 1, 2: cleared, then counted twice.
    expect_line(&stdout, "rendered (start): 2 nodes, ");
    assert_eq!(first_pixel(&picture), [2, 2, 2, 2]);

    // An unrelated resource and node before `history`: every location after it moves. Frames
    // 3, 4, 5 continue the count from the slices frames 0 to 2 left.
    let unrelated = "    texture scratch = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 2, 2);\n\
                     \x20   clear(scratch, float4(1, 1, 1, 1));\n";
    edit(&script, &counting_script(unrelated));
    expect_line(&stdout, "rendered (script edit): 3 nodes, ");
    assert_eq!(first_pixel(&picture), [5, 5, 5, 5]);
}
