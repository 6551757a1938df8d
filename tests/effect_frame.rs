//! MagpieFX effects called from RPSL frames: a script node bound to an effect file in the
//! shader directory (`Tint.hlsl` for node `Tint`) records the effect's passes into the frame.
//! Golden pixels of `tests/effect_frame/frame.rpsl` (effects between shader-bound nodes) on
//! Vulkan under validation (skipped without a device unless `RPSL_REQUIRE_VULKAN=1`), the graph
//! with the passes, and each error with its whole message.

use std::path::PathBuf;

use rpsl::vulkan::read_png;

mod effect_support;

use effect_support::{fixture_folder, rpsl_in, stderr, vulkan_ran};

/// A fresh folder holding `tests/effect_frame/` and the test effects Tint and Invert.
fn frame_folder(test: &str) -> PathBuf {
    fixture_folder("tests/effect_frame", test, &["Tint.hlsl", "Invert.hlsl"])
}

/// The picture `frame.rpsl` makes: Gradient, then Tint (blue lerped towards
/// `1 - strength / 2 / width` by `strength`), Invert, and Quantize (the high six bits of each
/// colour channel).
fn expected_frame(width: u32, height: u32, strength: f64) -> Vec<u8> {
    let target = 1.0 - strength * 0.5 / width as f64;
    let mut pixels = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let blue = (40 + 3 * x + 2 * y) as f64 / 255.0;
            let tinted = ((blue + (target - blue) * strength) * 255.0).round() as u8;
            let gradient = [(9 * x) as u8, (17 * y) as u8, tinted];
            for channel in gradient {
                pixels.push((255 - channel) & 0xFC);
            }
            pixels.push(255);
        }
    }
    pixels
}

#[test]
fn a_frame_with_effects_between_nodes_renders_the_exact_pixels() {
    let dir = frame_folder("golden");
    let output = rpsl_in(
        &dir,
        &[
            "run",
            "frame.rpsl",
            "--validate",
            "--frames",
            "2",
            "--arg",
            "backbuffer=26x14",
            "--arg",
            "strength=0.75",
            "--out",
            "out",
        ],
    );
    if !vulkan_ran(&output) {
        return;
    }
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    let (width, height, pixels) = read_png(&dir.join("out/backbuffer.png")).unwrap();
    assert_eq!((width, height), (26, 14));
    assert_eq!(pixels, expected_frame(26, 14, 0.75));
}

/// The names of a frame's nodes (in call order) and resources from a JSON dump.
fn names(json: &str) -> (Vec<String>, Vec<String>, Vec<u64>) {
    let dump: serde_json::Value = serde_json::from_str(json).unwrap();
    let frame = &dump["frames"][0];
    let list = |key: &str| -> Vec<String> {
        frame[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["name"].as_str().unwrap().to_string())
            .collect()
    };
    let order = frame["order"]
        .as_array()
        .map(|order| order.iter().map(|id| id.as_u64().unwrap()).collect())
        .unwrap_or_default();
    (list("nodes"), list("resources"), order)
}

#[test]
fn the_graph_holds_the_effects_passes_and_their_transients() {
    let dir = frame_folder("graph");
    let graph = rpsl_in(&dir, &["graph", "frame.rpsl", "--arg", "backbuffer=26x14"]);
    assert_eq!(stderr(&graph), "");
    assert_eq!(graph.status.code(), Some(0));
    let run = rpsl_in(
        &dir,
        &[
            "run",
            "frame.rpsl",
            "--backend",
            "null",
            "--arg",
            "backbuffer=26x14",
            "--dump",
            "-",
        ],
    );
    assert_eq!(stderr(&run), "");
    let graph_names = names(&String::from_utf8_lossy(&graph.stdout));
    assert_eq!(graph_names, names(&String::from_utf8_lossy(&run.stdout)));
    let (nodes, resources, _) = graph_names;
    assert_eq!(
        nodes,
        [
            "Gradient",
            "Tint.constants",
            "Tint.Pass1",
            "Invert.constants",
            "Invert.Pass1",
            "Quantize",
            "copy_texture"
        ]
    );
    assert_eq!(
        resources,
        [
            "backbuffer",
            "scene",
            "tinted",
            "inverted",
            "quantized",
            "Tint.constants",
            "Invert.constants"
        ]
    );
    let dot = rpsl_in(
        &dir,
        &[
            "graph",
            "frame.rpsl",
            "--arg",
            "backbuffer=26x14",
            "--format",
            "dot",
        ],
    );
    let dot = String::from_utf8_lossy(&dot.stdout);
    for edge in [
        "n0 -> n2;",
        "n1 -> n2;",
        "n2 -> n4;",
        "n3 -> n4;",
        "n4 -> n5;",
    ] {
        assert!(dot.contains(edge), "{edge} in {dot}");
    }
}

/// A frame folder whose `frame.rpsl` calls the effect Tint `async`.
fn async_frame_folder(test: &str) -> PathBuf {
    let dir = frame_folder(test);
    let script = std::fs::read_to_string(dir.join("frame.rpsl")).unwrap();
    let edited = script.replace(
        "    Tint(scene, tinted, strength);",
        "    async Tint(scene, tinted, strength);",
    );
    assert_ne!(edited, script);
    std::fs::write(dir.join("frame.rpsl"), edited).unwrap();
    dir
}

#[test]
fn an_async_effect_call_puts_its_passes_on_the_compute_queue() {
    let dir = async_frame_folder("async-dump");
    let run = rpsl_in(
        &dir,
        &[
            "run",
            "frame.rpsl",
            "--backend",
            "null",
            "--arg",
            "backbuffer=26x14",
            "--dump",
            "-",
        ],
    );
    assert_eq!(stderr(&run), "");
    assert_eq!(run.status.code(), Some(0));
    let dump: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let frame = &dump["frames"][0];
    let nodes: Vec<(String, String, bool)> = frame["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| {
            (
                node["name"].as_str().unwrap().to_string(),
                node["queue"].as_str().unwrap().to_string(),
                node["async"].as_bool().unwrap(),
            )
        })
        .collect();
    let expected_nodes = [
        ("Gradient", "compute", false),
        // The call's flag goes to every node it expands to; the upload is a graphics node and
        // stays on the main queue.
        ("Tint.constants", "graphics", true),
        ("Tint.Pass1", "compute", true),
        ("Invert.constants", "graphics", false),
        ("Invert.Pass1", "compute", false),
        ("Quantize", "compute", false),
        ("copy_texture", "graphics", false),
    ]
    .map(|(name, queue, flag)| (name.to_string(), queue.to_string(), flag));
    assert_eq!(nodes, expected_nodes);
    let schedule = &frame["schedule"];
    assert_eq!(
        schedule["queues"],
        serde_json::json!({"0": "graphics", "1": "compute"})
    );
    // Only the pass runs on the compute queue.
    assert_eq!(
        schedule["node_queues"],
        serde_json::json!({"0": 0, "1": 0, "2": 1, "3": 0, "4": 0, "5": 0, "6": 0})
    );
    assert_eq!(schedule["order"], serde_json::json!([1, 3, 0, 2, 4, 5, 6]));
    // The compute queue waits for the upload (position 0) and Gradient (position 2) before
    // the pass (position 3); the main queue waits for the pass before Invert.Pass1.
    assert_eq!(
        schedule["queue_waits"],
        serde_json::json!([
            {"wait_queue": 1, "signal_queue": 0, "signal_after": 0, "wait_before": 3},
            {"wait_queue": 1, "signal_queue": 0, "signal_after": 2, "wait_before": 3},
            {"wait_queue": 0, "signal_queue": 1, "signal_after": 3, "wait_before": 4},
        ])
    );
    // Queue ownership transfers: `Tint.constants` (5) and `scene` (1) to the compute queue,
    // `tinted` (2) back to the main queue.
    let transfers: Vec<(u64, u64, u64, u64)> = schedule["barrier_batches"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|batch| {
            let position = batch["position"].as_u64().unwrap();
            batch["barriers"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|barrier| barrier.get("src_queue").is_some())
                .map(move |barrier| {
                    (
                        position,
                        barrier["resource"].as_u64().unwrap(),
                        barrier["src_queue"].as_u64().unwrap(),
                        barrier["dst_queue"].as_u64().unwrap(),
                    )
                })
        })
        .collect();
    assert_eq!(transfers, [(2, 5, 0, 1), (3, 1, 0, 1), (4, 2, 1, 0)]);
}

#[test]
fn an_async_effect_call_renders_the_same_pixels_under_validation() {
    let dir = async_frame_folder("async-vulkan");
    let output = rpsl_in(
        &dir,
        &[
            "run",
            "frame.rpsl",
            "--validate",
            "--frames",
            "2",
            "--arg",
            "backbuffer=26x14",
            "--arg",
            "strength=0.75",
            "--out",
            "out",
        ],
    );
    if !vulkan_ran(&output) {
        return;
    }
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    let (width, height, pixels) = read_png(&dir.join("out/backbuffer.png")).unwrap();
    assert_eq!((width, height), (26, 14));
    assert_eq!(pixels, expected_frame(26, 14, 0.75));
}

/// Runs `rpsl ARGS` on `script` (written into a fresh frame folder as `bad.rpsl`), with extra
/// files; returns stderr and the exit code.
fn run_bad(test: &str, script: &str, files: &[(&str, &str)], args: &[&str]) -> (String, i32) {
    let dir = frame_folder(test);
    std::fs::write(dir.join("bad.rpsl"), script).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let output = rpsl_in(&dir, args);
    (stderr(&output), output.status.code().unwrap_or(-1))
}

const SHAPE: &str = "an effect node takes one readonly texture (the effect's INPUT), one \
                     writable texture (its OUTPUT) and scalars named like its parameters";

#[test]
fn declarations_that_do_not_fit_their_effect_are_located_errors() {
    let cases = [
        (
            "compute node Tint([readonly(cs)] texture src, [readonly(cs)] texture other);\n",
            format!(
                "bad.rpsl:1:47: error: `other` is a second readonly texture: {SHAPE}\n  \
                 ┌─ bad.rpsl:1:47\n  │\n1 │ compute node Tint([readonly(cs)] texture src, \
                 [readonly(cs)] texture other);\n  │                                           \
                 \u{20}   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  │\n  = node `Tint` is bound to the \
                 MagpieFX effect ./Tint.hlsl\n\n"
            ),
        ),
        (
            "compute node Tint([readonly(cs)] texture src, [readwrite(cs)] texture dst, float gain);\n",
            "bad.rpsl:1:76: error: `gain` names no parameter of the effect Tint.hlsl (it has \
             strength, channel)\n  ┌─ bad.rpsl:1:76\n  │\n1 │ compute node Tint([readonly(cs)] \
             texture src, [readwrite(cs)] texture dst, float gain);\n  │                      \
             \u{20}                                                     ^^^^^^^^^^\n  │\n  = \
             node `Tint` is bound to the MagpieFX effect ./Tint.hlsl\n\n"
                .to_string(),
        ),
        (
            "compute node Invert([readonly(cs)] texture src, float2 offset, [writeonly(cs)] texture dst);\n",
            format!(
                "bad.rpsl:1:49: error: `offset` is neither a texture nor a scalar: {SHAPE}\n  \
                 ┌─ bad.rpsl:1:49\n  │\n1 │ compute node Invert([readonly(cs)] texture src, \
                 float2 offset, [writeonly(cs)] texture dst);\n  │                           \
                 \u{20}                     ^^^^^^^^^^^^^\n  │\n  = node `Invert` is bound to \
                 the MagpieFX effect ./Invert.hlsl\n\n"
            ),
        ),
        (
            "compute node Tint([readonly(cs)] texture src, float strength);\n",
            format!(
                "bad.rpsl:1:1: error: `Tint` has no writable texture: {SHAPE}\n  ┌─ \
                 bad.rpsl:1:1\n  │\n1 │ compute node Tint([readonly(cs)] texture src, float \
                 strength);\n  │ ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  \
                 │\n  = node `Tint` is bound to the MagpieFX effect ./Tint.hlsl\n\n"
            ),
        ),
    ];
    for (index, (declaration, expected)) in cases.iter().enumerate() {
        let script =
            format!("{declaration}export void main([readonly(present)] texture backbuffer) {{}}\n");
        let (message, code) = run_bad(
            &format!("decl{index}"),
            &script,
            &[],
            &["graph", "bad.rpsl"],
        );
        assert_eq!(message, *expected, "{declaration}");
        assert_eq!(code, 1, "{declaration}");
    }
}

const BLUR_SCRIPT: &str =
    "compute node Blur([readonly(cs)] texture src, [readwrite(cs)] texture dst);\n\
    export void main([readonly(present)] texture backbuffer) {\n\
    \x20   ResourceDesc desc = backbuffer.desc();\n\
    \x20   texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, (uint)desc.Width, desc.Height);\n\
    \x20   Blur(backbuffer, t);\n\
    }\n";

#[test]
fn an_effect_that_does_not_parse_names_its_own_line_and_the_node() {
    let effect = "//!MAGPIE EFFECT\n//!VERSION 4\n//!SAMPLER\n//!FILTER CUBIC\nSamplerState sam;\n\
                  //!PASS 1\n//!STYLE PS\n//!IN INPUT\n//!OUT OUTPUT\n\
                  float4 Pass1(float2 pos) { return 1; }\n";
    let (message, code) = run_bad(
        "parse",
        BLUR_SCRIPT,
        &[("Blur.hlsl", effect)],
        &["run", "bad.rpsl", "--backend", "null"],
    );
    assert_eq!(
        message,
        "./Blur.hlsl:4:11: error: unknown filter `CUBIC` (expected LINEAR or POINT)\n  ┌─ \
         ./Blur.hlsl:4:11\n  │\n4 │ //!FILTER CUBIC\n  │           ^^^^^\n\n\
         bad.rpsl:1:1: error: node `Blur` is bound to the MagpieFX effect ./Blur.hlsl, which \
         has errors\n  ┌─ bad.rpsl:1:1\n  │\n1 │ compute node Blur([readonly(cs)] texture src, \
         [readwrite(cs)] texture dst);\n  │ \
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n\n"
    );
    assert_eq!(code, 1);
}

#[test]
fn an_effect_that_does_not_compile_names_its_own_line_and_the_node() {
    let effect = "//!MAGPIE EFFECT\n//!VERSION 4\n//!PASS 1\n//!STYLE PS\n//!IN INPUT\n\
                  //!OUT OUTPUT\nfloat4 Pass1(float2 pos) { return undefined_thing; }\n";
    let (message, code) = run_bad(
        "compile",
        BLUR_SCRIPT,
        &[("Blur.hlsl", effect)],
        &["run", "bad.rpsl", "--arg", "backbuffer=8x8"],
    );
    if code == 3 && message.contains("no usable device") {
        assert!(
            std::env::var("RPSL_REQUIRE_VULKAN").as_deref() != Ok("1"),
            "{message}"
        );
        return;
    }
    assert_eq!(
        message,
        "error: ./Blur.hlsl: pass 1 does not compile: ./Blur.hlsl:7: 'undefined_thing' : \
         unknown variable\n./Blur.hlsl:7: 'return' : type does not match, or is not \
         convertible to, the function's return type\n\
         bad.rpsl:1:1: error: node `Blur` is bound to the MagpieFX effect ./Blur.hlsl, which \
         does not compile\n  ┌─ bad.rpsl:1:1\n  │\n1 │ compute node Blur([readonly(cs)] \
         texture src, [readwrite(cs)] texture dst);\n  │ \
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n\n"
    );
    assert_eq!(code, 1);
}

#[test]
fn calls_that_do_not_fit_their_effect_are_located_runtime_faults() {
    let script = "compute node Tint([readonly(cs)] texture src, [readwrite(cs)] texture dst, float strength);\n\
        export void main([readonly(present)] texture backbuffer, uint which)\n\
        {\n\
        \x20   ResourceDesc desc = backbuffer.desc();\n\
        \x20   texture half = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 13, 7);\n\
        \x20   texture wide = create_tex2d(RPS_FORMAT_R16G16B16A16_FLOAT, (uint)desc.Width, desc.Height);\n\
        \x20   texture full = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, (uint)desc.Width, desc.Height);\n\
        \x20   if (which == 0) { Tint(full, wide, 0.5); }\n\
        \x20   if (which == 1) { Tint(full, half, 0.5); }\n\
        \x20   if (which == 2) { Tint(full, full, 1.5); }\n\
        }\n";
    let expected = [
        "bad.rpsl:8:23: error: node `Tint`: `dst` is R16G16B16A16_FLOAT but the effect writes \
         R8G8B8A8_UNORM\n  ┌─ bad.rpsl:8:23\n  │\n8 │     if (which == 0) { Tint(full, wide, \
         0.5); }\n  │                       ^^^^^^^^^^^^^^^^^^^^^\n\n",
        "bad.rpsl:9:23: error: node `Tint`: the effect's OUTPUT is 26x14 for a 26x14 input, but \
         `dst` is 13x7\n  ┌─ bad.rpsl:9:23\n  │\n9 │     if (which == 1) { Tint(full, half, \
         0.5); }\n  │                       ^^^^^^^^^^^^^^^^^^^^^\n\n",
        "bad.rpsl:10:23: error: node `Tint`: `strength` is 1.5, outside the effect's 0..=1\n   \
         ┌─ bad.rpsl:10:23\n   │\n10 │     if (which == 2) { Tint(full, full, 1.5); }\n   │  \
         \u{20}                    ^^^^^^^^^^^^^^^^^^^^^\n\n",
    ];
    for (which, expected) in expected.iter().enumerate() {
        let which_arg = format!("which={which}");
        let (message, code) = run_bad(
            &format!("call{which}"),
            script,
            &[],
            &[
                "run",
                "bad.rpsl",
                "--backend",
                "null",
                "--arg",
                "backbuffer=26x14",
                "--arg",
                &which_arg,
            ],
        );
        assert_eq!(message, *expected, "which = {which}");
        assert_eq!(code, 3, "which = {which}");
    }
}
