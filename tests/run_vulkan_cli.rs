//! `rpsl run --backend vulkan` end to end on the local Vulkan device (lavapipe in CI), under
//! validation: `--out` PNGs read back pixel-exactly (entry textures and `out` parameters),
//! async compute work on the compute queue ordered by timeline semaphores, `--timings`,
//! unbound nodes (exit 3 without `--allow-unbound`) and Vulkan-only flags on the null backend.
//! Skips when no Vulkan device exists unless `RPSL_REQUIRE_VULKAN=1`.

mod run_vulkan_support;

use run_vulkan_support::{rpsl, scratch, scratch_dir, vulkan_available};
use std::path::PathBuf;

fn out_dir(name: &str) -> PathBuf {
    let dir = scratch_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read(dir: &std::path::Path, name: &str) -> (u32, u32, Vec<u8>) {
    rpsl_vulkan::read_png(&dir.join(format!("{name}.png"))).unwrap()
}

fn pixel(image: &(u32, u32, Vec<u8>), x: u32, y: u32) -> [u8; 4] {
    let at = ((y * image.0 + x) * 4) as usize;
    image.2[at..at + 4].try_into().unwrap()
}

/// Asserts every pixel of an RGBA8 image of `size` against `expected(x, y)`.
fn assert_image(
    image: &(u32, u32, Vec<u8>),
    size: (u32, u32),
    what: &str,
    expected: impl Fn(u32, u32) -> [u8; 4],
) {
    assert_eq!((image.0, image.1), size, "{what}: size");
    for y in 0..size.1 {
        for x in 0..size.0 {
            assert_eq!(pixel(image, x, y), expected(x, y), "{what} ({x}, {y})");
        }
    }
}

/// `rpsl run SCRIPT --validate --out DIR ARGS...` must succeed with no validation output.
fn run_to_pngs(script: &std::path::Path, dir: &std::path::Path, args: &[&str]) {
    let mut all = vec!["run", script.to_str().unwrap(), "--validate", "--out"];
    all.push(dir.to_str().unwrap());
    all.extend_from_slice(args);
    run_ok(&all);
}

fn run_ok(args: &[&str]) -> String {
    let output = rpsl(args);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
    assert!(!stderr.contains("validation"), "{stderr}");
    String::from_utf8_lossy(&output.stdout).to_string()
}

#[test]
fn out_writes_entry_textures_and_out_parameters_exactly() {
    if !vulkan_available() {
        return;
    }
    let script = scratch(
        "out.rpsl",
        "export void main(texture bb, out texture result, uint frameIndex)\n\
         {\n\
             result = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 3, 2);\n\
             clear(result, float4(0, 1, 0, 1));\n\
             texture red = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 4);\n\
             clear(red, float4(1, 0, 0, 1));\n\
             clear(bb, float4(0, 0, frameIndex * 0.25, 1));\n\
             copy_texture(bb, uint3(2, 1, 0), red, uint3(0, 0, 0), uint3(3, 2, 1));\n\
         }\n",
    );
    let dir = out_dir("out");
    run_to_pngs(&script, &dir, &["--frames", "3", "--arg", "bb=8x4"]);
    let bb = read(&dir, "bb");
    assert_eq!((bb.0, bb.1), (8, 4));
    assert_image(&bb, (8, 4), "bb", |x, y| {
        let inside = (2..5).contains(&x) && (1..3).contains(&y);
        // The last frame (frameIndex 2) cleared to blue 0.5 = 128.
        if inside {
            [255, 0, 0, 255]
        } else {
            [0, 0, 128, 255]
        }
    });
    let result = read(&dir, "result");
    assert_eq!(result, (3, 2, [0, 255, 0, 255].repeat(6)));
}

#[test]
fn async_compute_work_is_ordered_by_semaphores() {
    if !vulkan_available() {
        return;
    }
    // 0x3f800000 = 1.0f, 0x3f000000 = 0.5f: clear_texture takes the bits of float clear values.
    let script = scratch(
        "async.rpsl",
        "export void main(texture bb)\n\
         {\n\
             texture a = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);\n\
             async clear_texture(a, RPS_CLEAR_UAV_FLOAT, uint4(0x3f800000, 0x3f000000, 0, 0x3f800000));\n\
             clear(bb, float4(0, 0, 1, 1));\n\
             copy_texture(bb, uint3(0, 0, 0), a, uint3(0, 0, 0), uint3(2, 4, 1));\n\
         }\n",
    );
    let dir = out_dir("async");
    let dump = dir.with_extension("json");
    run_to_pngs(
        &script,
        &dir,
        &[
            "--frames",
            "3",
            "--arg",
            "bb=4x4",
            "--dump",
            dump.to_str().unwrap(),
        ],
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    let nodes = json["frames"][0]["nodes"].as_array().unwrap();
    let clear_texture = nodes.iter().find(|n| n["name"] == "clear_texture").unwrap();
    assert_eq!(clear_texture["queue"], "compute", "{clear_texture}");
    let bb = read(&dir, "bb");
    assert_image(&bb, (4, 4), "bb", |x, _| {
        if x < 2 {
            [255, 128, 0, 255]
        } else {
            [0, 0, 255, 255]
        }
    });
}

/// The queues `scripts/bench/async_overlap.rpsl` ran on (from its dump) and its backbuffer.
fn run_async_overlap(extra: &[&str]) -> (Vec<u64>, (u32, u32, Vec<u8>)) {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/bench/async_overlap.rpsl"
    );
    let name = format!("async_overlap{}", extra.join(""));
    let dir = out_dir(&name);
    let dump = dir.with_extension("json");
    let mut args = vec![
        "run",
        script,
        "--validate",
        "--frames",
        "2",
        "--arg",
        "backbuffer=16x8",
        "--arg",
        "GraphicsPasses=3",
        "--arg",
        "ComputePasses=4",
        "--out",
        dir.to_str().unwrap(),
        "--dump",
        dump.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run_ok(&args);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    let schedule = &json["frames"][1]["schedule"];
    let order = schedule["order"].as_array().unwrap();
    let queues = order
        .iter()
        .map(|node| schedule["node_queues"][node.to_string()].as_u64().unwrap())
        .collect();
    (queues, read(&dir, "backbuffer"))
}

#[test]
fn async_overlap_runs_on_two_queues_or_one_with_the_same_pixels() {
    if !vulkan_available() {
        return;
    }
    // Graphics chain: clear + 2 copies + the top-half copy; async chain: compute clear + 3
    // copies on queue 1, then the bottom-half copy back on the graphics queue.
    let (queues, image) = run_async_overlap(&[]);
    assert_eq!(queues.iter().filter(|&&q| q == 1).count(), 4, "{queues:?}");
    assert_eq!(queues.len(), 9, "{queues:?}");
    let (single, single_image) = run_async_overlap(&["--no-async"]);
    assert_eq!(single, vec![0; 9]);
    for picture in [&image, &single_image] {
        assert_image(picture, (16, 8), "backbuffer", |_, y| {
            if y < 4 {
                [255, 128, 0, 255]
            } else {
                [0, 128, 255, 255]
            }
        });
    }
}

#[test]
fn timings_print_a_row_per_node_and_the_frame() {
    if !vulkan_available() {
        return;
    }
    let script = scratch(
        "timings.rpsl",
        "export void main(texture bb)\n\
         {\n\
             texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16);\n\
             clear(t, float4(1, 1, 1, 1));\n\
             copy_texture(bb, uint3(0, 0, 0), t, uint3(0, 0, 0), uint3(16, 16, 1));\n\
         }\n",
    );
    let stdout = run_ok(&[
        "run",
        script.to_str().unwrap(),
        "--validate",
        "--timings",
        "--frames",
        "4",
        "--arg",
        "bb=16x16",
    ]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0], "GPU timings of frame 3 (microseconds)",
        "{stdout}"
    );
    assert!(
        lines[2].ends_with("  clear") && lines[2].contains("graphics"),
        "{stdout}"
    );
    assert!(lines[3].ends_with("  copy_texture"), "{stdout}");
    assert!(lines[4].ends_with("(whole frame)"), "{stdout}");
    assert!(
        lines[5].ends_with("(whole frame, mean of 4 frames)"),
        "{stdout}"
    );
    for line in &lines[2..6] {
        let micros: f64 = line
            .split_whitespace()
            .rev()
            .find_map(|w| w.parse().ok())
            .unwrap();
        assert!(micros >= 0.0 && micros.is_finite(), "{line}");
    }
}

#[test]
fn unbound_nodes_fail_unless_allowed_and_vulkan_flags_need_vulkan() {
    if !vulkan_available() {
        return;
    }
    let script = scratch(
        "unbound.rpsl",
        "graphics node Draw(rtv rt : SV_Target0);\n\
         export void main(texture bb) { Draw(bb); }\n",
    );
    let path = script.to_str().unwrap();
    let output = rpsl(&["run", path, "--validate"]);
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.trim_end(),
        "error: vulkan: node 0 (`Draw`) has no implementation (allow unbound nodes to skip it)"
    );
    run_ok(&[
        "run",
        path,
        "--validate",
        "--allow-unbound",
        "--frames",
        "2",
    ]);
    for flag in [&["--out", "x"][..], &["--validate"], &["--timings"]] {
        let mut args = vec!["run", path, "--backend", "null"];
        args.extend_from_slice(flag);
        let output = rpsl(&args);
        assert_eq!(output.status.code(), Some(2), "{flag:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("needs `--backend vulkan`"));
    }
}

#[test]
fn buffer_views_render_through_a_scratch_image() {
    if !vulkan_available() {
        return;
    }
    // Two 16-texel buffer views as render targets (one row each), cleared by their passes, then
    // copied as a 4x8 image into `bb`: rows 0-3 red, rows 4-7 green.
    let script = scratch(
        "buffer_target.rpsl",
        "node fill([readwrite(rendertarget)] buffer rt : SV_Target0, float4 c : SV_ClearColor0);\n\
         export void main(texture bb)\n\
         {\n\
             buffer buf = create_buffer(128, 1, RPS_RESOURCE_FLAG_ROWMAJOR_IMAGE);\n\
             buffer first = create_buffer_view(buf, 0, 64, 0, RPS_FORMAT_R8G8B8A8_UNORM);\n\
             buffer second = create_buffer_view(buf, 64, 64, 0, RPS_FORMAT_R8G8B8A8_UNORM);\n\
             fill(first, float4(1, 0, 0, 1));\n\
             fill(second, float4(0, 1, 0, 1));\n\
             copy_buffer_to_texture(bb, uint3(0, 0, 0), buf, 0, 16, uint3(4, 8, 1), uint3(0, 0, 0), uint3(4, 8, 1));\n\
         }\n",
    );
    let dir = out_dir("buffer_target");
    run_to_pngs(
        &script,
        &dir,
        &["--allow-unbound", "--frames", "2", "--arg", "bb=4x8"],
    );
    let bb = read(&dir, "bb");
    assert_image(&bb, (4, 8), "bb", |_, y| {
        if y < 4 {
            [255, 0, 0, 255]
        } else {
            [0, 255, 0, 255]
        }
    });
}

/// Region clears with an `int4 rects[]` argument, as a render-target clear
/// (`clear_color_regions`) and as a texture clear on the async compute queue
/// (`clear_texture_regions`): the rectangles (x, y, width, height) reach the backend, are
/// clipped to the target, and nothing outside them changes, on every frame in flight.
#[test]
fn region_clears_touch_only_their_rectangles() {
    if !vulkan_available() {
        return;
    }
    let clears = [
        (
            "color_regions",
            "clear_color_regions(result, float4(1, 1, 0, 1), 2, rects);",
        ),
        (
            "texture_regions",
            "async clear_texture_regions(result, asuint(float4(1, 1, 0, 1)), 2, rects);",
        ),
    ];
    for (name, clear) in clears {
        let script = scratch(
            &format!("{name}.rpsl"),
            &format!(
                "export void main(texture bb, out texture result)\n\
                 {{\n\
                     result = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 5);\n\
                     clear(result, float4(0, 0, 1, 1));\n\
                     int4 rects[2] = {{ int4(1, 1, 2, 3), int4(6, 2, 10, 10) }};\n\
                     {clear}\n\
                     clear(bb, float4(0, 0, 0, 1));\n\
                 }}\n"
            ),
        );
        let dir = out_dir(name);
        run_to_pngs(&script, &dir, &["--frames", "3", "--arg", "bb=8x5"]);
        assert_image(&read(&dir, "result"), (8, 5), name, |x, y| {
            let first = (1..3).contains(&x) && (1..4).contains(&y);
            let second = x >= 6 && y >= 2; // clipped at the right and bottom edges
            if first || second {
                [255, 255, 0, 255]
            } else {
                [0, 0, 255, 255]
            }
        });
    }
}

/// Two colour targets cleared from `SV_ClearColor0/1`, then a shader-bound full-screen draw
/// limited by `SV_Viewport0` and `SV_ScissorRect` (x, y, width, height): each target holds its
/// own clear colour outside the viewport ∩ scissor and the shader's colour inside.
#[test]
fn mrt_clears_with_viewport_and_scissor_are_exact() {
    if !vulkan_available() {
        return;
    }
    let script = scratch(
        "mrt.rpsl",
        "graphics node Mark(rtv a : SV_Target0, rtv b : SV_Target1,\n\
                            float4 clearA : SV_ClearColor0, float4 clearB : SV_ClearColor1,\n\
                            RpsViewport vp : SV_Viewport0, uint4 scissor : SV_ScissorRect);\n\
         export void main(texture bb, out texture second)\n\
         {\n\
             second = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 6);\n\
             Mark(bb, second, float4(0, 0, 1, 1), float4(0, 1, 0, 1),\n\
                  viewport(1.0f, 1.0f, 5.0f, 4.0f), uint4(2, 0, 8, 3));\n\
         }\n",
    );
    std::fs::write(
        script.with_file_name("Mark.frag"),
        "#version 450\n\
         layout(location = 0) out vec4 a;\n\
         layout(location = 1) out vec4 b;\n\
         void main() { a = vec4(1.0, 0.0, 0.0, 1.0); b = vec4(1.0, 1.0, 1.0, 1.0); }\n",
    )
    .unwrap();
    let dir = out_dir("mrt");
    run_to_pngs(&script, &dir, &["--arg", "bb=8x6"]);
    // Viewport x 1..6, y 1..5; scissor x 2..8 (clipped at 8), y 0..3.
    let drawn = |x: u32, y: u32| (2..6).contains(&x) && (1..3).contains(&y);
    assert_image(&read(&dir, "bb"), (8, 6), "target 0", |x, y| {
        if drawn(x, y) {
            [255, 0, 0, 255]
        } else {
            [0, 0, 255, 255]
        }
    });
    assert_image(&read(&dir, "second"), (8, 6), "target 1", |x, y| {
        if drawn(x, y) {
            [255, 255, 255, 255]
        } else {
            [0, 255, 0, 255]
        }
    });
}

/// The SDK's temporal test (`tests_gui_test_temporal.rpsl`) with a shader for its `Triangle`
/// node: frames 0-2 clear and draw into the backbuffer and the history slice, later frames copy
/// slice to slice and show the slice written two frames before. After 5 frames the backbuffer
/// must hold exactly the picture drawn in frame 2 (a broken history would be black or stale).
#[test]
fn sdk_temporal_history_survives_across_frames() {
    if !vulkan_available() {
        return;
    }
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/rps-sdk/tests_gui_test_temporal.rpsl");
    let Ok(text) = std::fs::read_to_string(&corpus) else {
        eprintln!("skipping: {} is missing", corpus.display());
        return;
    };
    let script = scratch("temporal_sdk.rpsl", &text);
    std::fs::write(
        script.with_file_name("Triangle.frag"),
        "#version 450\n\
         layout(location = 0) in vec2 uv;\n\
         layout(location = 0) out vec4 color;\n\
         void main() { if (uv.x >= uv.y) discard; color = vec4(1.0, 0.0, 0.0, 1.0); }\n",
    )
    .unwrap();
    let dir = out_dir("temporal_sdk");
    run_to_pngs(
        &script,
        &dir,
        &[
            "--allow-unbound",
            "--frames",
            "5",
            "--arg",
            "backbuffer=16x16",
        ],
    );
    let bb = read(&dir, "backbuffer");
    assert_image(&bb, (16, 16), "bb", |x, y| {
        // Pixel centres: uv = (x + 0.5) / 16; the triangle covers uv.x < uv.y.
        if x < y {
            [255, 0, 0, 255]
        } else {
            [0, 51, 102, 255]
        }
    });
}

/// Min/max resolves of integer formats (compute variants for `uint` samples): every sample of a
/// cleared 4x `R8G8B8A8_UINT` texture holds the value, so MIN and MAX both give it back exactly.
#[test]
fn integer_min_max_resolves_keep_exact_values() {
    if !vulkan_available() {
        return;
    }
    for mode in ["RPS_RESOLVE_MODE_MIN", "RPS_RESOLVE_MODE_MAX"] {
        let script = scratch(
            "int_resolve.rpsl",
            &format!(
                "export void main(texture bb, out texture resolved)\n\
                 {{\n\
                     texture ms = create_tex2d(RPS_FORMAT_R8G8B8A8_UINT, 6, 4, 1, 1, 1, 4);\n\
                     clear(ms, uint4(7, 80, 200, 255));\n\
                     resolved = create_tex2d(RPS_FORMAT_R8G8B8A8_UINT, 6, 4);\n\
                     resolve(resolved, uint2(0, 0), ms, uint2(0, 0), uint2(6, 4), {mode});\n\
                     clear(bb, float4(0, 0, 0, 1));\n\
                 }}\n"
            ),
        );
        let dir = out_dir(&format!("int_resolve_{mode}"));
        run_to_pngs(&script, &dir, &["--arg", "bb=6x4"]);
        assert_eq!(
            read(&dir, "resolved"),
            (6, 4, [7, 80, 200, 255].repeat(24)),
            "{mode}"
        );
    }
}

/// A broken shader, compiled in the sandboxed child process that `rpsl run` uses: the run fails
/// with exit 3 and a message naming the node, the shader file and the line.
#[test]
fn shader_compile_errors_name_node_file_and_line() {
    if !vulkan_available() {
        return;
    }
    let script = scratch(
        "broken_shader.rpsl",
        "graphics node Broken(rtv target : SV_Target0);\n\
         export void main(texture bb) { Broken(bb); }\n",
    );
    let shader = script.with_file_name("Broken.frag");
    std::fs::write(
        &shader,
        "#version 450\n\
         layout(location = 0) out vec4 color;\n\
         void main() { color = vec4(undefined_value, 0.0, 0.0, 1.0); }\n",
    )
    .unwrap();
    let output = rpsl(&["run", script.to_str().unwrap(), "--validate"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("node 0 (`Broken`): "), "{stderr}");
    assert!(
        stderr.contains(&format!("{}:3:", shader.display())),
        "{stderr}"
    );
    assert!(stderr.contains("undefined_value"), "{stderr}");
}
