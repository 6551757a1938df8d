//! `rpsl effect`: exact exit codes and messages for bad command lines, and golden runs on
//! Vulkan (one image, a chain over a folder) that skip without a device unless
//! `RPSL_REQUIRE_VULKAN=1`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rpsl::vulkan::{read_png, write_png};

mod effect_support;

use effect_support::{effects, stderr, vulkan_ran};

fn effect(name: &str) -> String {
    effects().join(name).display().to_string()
}

/// A fresh scratch folder for one test.
fn scratch(test: &str) -> PathBuf {
    effect_support::scratch("effect-cli", test)
}

fn rpsl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args(args)
        .output()
        .expect("runs")
}

/// Writes a `width` x `height` PNG of distinct colours; returns its pixels.
fn write_input(path: &Path, width: u32, height: u32) -> Vec<u8> {
    let pixels: Vec<u8> = (0..width * height)
        .flat_map(|i| [(i * 9) as u8, (i * 5 + 3) as u8, (200 - i) as u8, 255])
        .collect();
    write_png(path, width, height, &pixels).unwrap();
    pixels
}

#[test]
fn bad_command_lines_fail_with_exact_messages() {
    let dir = scratch("errors");
    let input = dir.join("in.png");
    write_input(&input, 4, 2);
    let input = input.to_str().unwrap();
    let folder = dir.to_str().unwrap();
    let out = dir.join("out.png");
    let out = out.to_str().unwrap();
    let tint = effect("Tint.hlsl");
    let cases: Vec<(Vec<&str>, i32, String)> = vec![
        (
            vec![&tint, "--in", input, "--out", out, "--param", "strength=3"],
            2,
            format!("error: {tint}: parameter `strength` must be between 0 and 1 (got 3)\n"),
        ),
        (
            vec![&tint, "--in", input, "--out", out, "--param", "channel=1.5"],
            2,
            format!("error: {tint}: parameter `channel` is an int (got 1.5)\n"),
        ),
        (
            vec![&tint, "--in", input, "--out", out, "--param", "gain=1"],
            2,
            "error: no effect of the chain has a parameter named `gain`\n".to_string(),
        ),
        (
            vec![&tint, "--in", input, "--out", out, "--param", "strength"],
            2,
            "error: --param must be NAME=NUMBER, not `strength`\n".to_string(),
        ),
        (
            vec![&tint, "--in", input, "--out", out, "--size", "0x4"],
            2,
            "error: --size must be WIDTHxHEIGHT with sides from 1 to 16384, not `0x4`\n"
                .to_string(),
        ),
        (
            vec![&tint, "--in", input, "--out", out, "--scale", "0"],
            2,
            "error: --scale must be a number above 0 and at most 16, not 0\n".to_string(),
        ),
        (
            vec![&tint, "--in", "nowhere.png", "--out", out],
            2,
            "error: input image nowhere.png does not exist\n".to_string(),
        ),
        (
            vec!["--in", input, "--out", out],
            2,
            "error: no effect file given (rpsl effect FILE... --in IMAGE --out IMAGE)\n"
                .to_string(),
        ),
        (
            vec![&tint, "--in", input],
            2,
            "error: no --out given (rpsl effect FILE... --in IMAGE --out IMAGE)\n".to_string(),
        ),
        (
            vec![&tint, "--in", input, "--out", out, "--backend", "null"],
            2,
            "error: `--out` needs `--backend vulkan`\n".to_string(),
        ),
        (
            vec![&tint, "--in", input, "--backend", "null", "--validate"],
            2,
            "error: `--validate` needs `--backend vulkan`\n".to_string(),
        ),
        (
            vec![&tint, "--in", input, "--out", "x.exr", "--bit-depth", "16"],
            2,
            "error: --bit-depth applies to PNG output, not x.exr\n".to_string(),
        ),
        (
            vec![
                &tint,
                "--in",
                folder,
                "--out",
                out,
                "--out-format",
                "exr",
                "--bit-depth",
                "8",
            ],
            2,
            "error: --bit-depth applies to PNG output, not --out-format exr\n".to_string(),
        ),
        (
            vec![&tint, "--in", input, "--out", out, "--out-format", "exr"],
            2,
            "error: --out-format is for a folder input (one output image's format comes from \
             its extension: .exr for OpenEXR, else PNG)\n"
                .to_string(),
        ),
        (
            vec![
                &tint,
                "--in",
                folder,
                "--backend",
                "null",
                "--out-format",
                "png",
            ],
            2,
            "error: `--out-format` needs `--backend vulkan`\n".to_string(),
        ),
    ];
    for (args, code, message) in cases {
        let mut full = vec!["effect"];
        full.extend(args.iter().copied());
        let output = rpsl(&full);
        assert_eq!(stderr(&output), message, "rpsl {}", full.join(" "));
        assert_eq!(output.status.code(), Some(code), "rpsl {}", full.join(" "));
    }
    assert!(!Path::new(out).exists());
}

#[test]
fn a_missing_or_invalid_effect_exits_1_with_its_diagnostic() {
    let dir = scratch("missing");
    let input = dir.join("in.png");
    write_input(&input, 2, 2);
    let missing = dir.join("Nope.hlsl");
    let output = rpsl(&[
        "effect",
        missing.to_str().unwrap(),
        "--in",
        input.to_str().unwrap(),
        "--out",
        dir.join("out.png").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).starts_with(&format!(
        "{}:1:1: error: cannot read `{}`: ",
        missing.display(),
        missing.display()
    )));

    let bad = dir.join("Bad.hlsl");
    std::fs::write(
        &bad,
        "//!MAGPIE EFFECT\n//!VERSION 4\n//!SAMPLER\n//!FILTER CUBIC\nSamplerState s;\n",
    )
    .unwrap();
    let output = rpsl(&[
        "effect",
        bad.to_str().unwrap(),
        "--in",
        input.to_str().unwrap(),
        "--out",
        dir.join("out.png").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).starts_with(&format!(
        "{}:4:11: error: unknown filter `CUBIC` (expected LINEAR or POINT)",
        bad.display()
    )));
}

#[test]
fn invert_golden_run_writes_the_exact_pixels() {
    let dir = scratch("golden");
    let input = dir.join("in.png");
    let pixels = write_input(&input, 5, 3);
    let out = dir.join("out.png");
    let output = rpsl(&[
        "effect",
        &effect("Invert.hlsl"),
        "--in",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--validate",
    ]);
    if !vulkan_ran(&output) {
        return;
    }
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    let (width, height, written) = read_png(&out).unwrap();
    assert_eq!((width, height), (5, 3));
    let expected: Vec<u8> = pixels
        .chunks(4)
        .flat_map(|p| [255 - p[0], 255 - p[1], 255 - p[2], p[3]])
        .collect();
    assert_eq!(written, expected);
}

#[test]
fn a_folder_runs_a_chain_on_every_image() {
    let dir = scratch("folder");
    let images = dir.join("images");
    std::fs::create_dir_all(&images).unwrap();
    let first = write_input(&images.join("a.png"), 4, 4);
    let second = write_input(&images.join("b.png"), 3, 2);
    std::fs::write(images.join("notes.txt"), "not an image").unwrap();
    let out = dir.join("out");
    let output = rpsl(&[
        "effect",
        &effect("Invert.hlsl"),
        "--effect",
        &effect("Invert.hlsl"),
        "--in",
        images.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--validate",
    ]);
    if !vulkan_ran(&output) {
        return;
    }
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.png", "b.png"]);
    // Inverting twice gives the input back.
    assert_eq!(read_png(&out.join("a.png")).unwrap(), (4, 4, first));
    assert_eq!(read_png(&out.join("b.png")).unwrap(), (3, 2, second));
}

#[test]
fn graph_shows_an_effect_as_its_passes() {
    let output = rpsl(&["graph", &effect("Mrt.hlsl"), "--format", "dot"]);
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "digraph \"Mrt\" {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n  \
         n0 [label=\"0: Mrt.Pass1\\ncompute\\n#0\"];\n  \
         n1 [label=\"1: Mrt.Pass2\\ncompute\\n#1\"];\n  \
         n2 [label=\"2: Mrt.Pass3\\ncompute\\n#2\"];\n  \
         n0 -> n1;\n  n0 -> n2;\n  n1 -> n2;\n}\n"
    );
    // The JSON dump sizes the effect for a 1920x1080 input: OUTPUT is twice that.
    let output = rpsl(&["graph", &effect("Mrt.hlsl")]);
    assert_eq!(output.status.code(), Some(0));
    let dump: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let resources = &dump["frames"][0]["resources"];
    assert_eq!(resources[1]["name"], "OUTPUT");
    assert_eq!(
        (
            resources[1]["width"].as_u64(),
            resources[1]["height"].as_u64()
        ),
        (Some(3840), Some(2160))
    );
}

/// What the test effect Hdr (an R16G16B16A16_FLOAT OUTPUT) writes for pixel (x, y) of
/// `input`: red / 64, -green / 128, x + y / 2, 1.5 (each exact in half precision).
fn hdr_values(input: &[u8], width: u32) -> Vec<f32> {
    input
        .chunks(4)
        .enumerate()
        .flat_map(|(index, pixel)| {
            let (x, y) = (index as u32 % width, index as u32 / width);
            [
                pixel[0] as f32 / 64.0,
                -(pixel[1] as f32) / 128.0,
                x as f32 + y as f32 * 0.5,
                1.5,
            ]
        })
        .collect()
}

#[test]
fn float_outputs_are_written_as_exr_and_16_bit_png_with_exact_values() {
    let dir = scratch("float");
    let input = dir.join("in.png");
    let pixels = write_input(&input, 5, 3);
    let hdr = effect("Hdr.hlsl");
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "effect",
            &hdr,
            "--in",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--validate",
        ];
        args.extend_from_slice(extra);
        rpsl(&args)
    };
    let exr = dir.join("out.exr");
    let output = run(&exr, &[]);
    if !vulkan_ran(&output) {
        return;
    }
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    let expected = hdr_values(&pixels, 5);
    let decoded = rpsl_effects::load_source_image(&exr).unwrap();
    assert_eq!((decoded.width, decoded.height), (5, 3));
    assert_eq!(decoded.format.name(), Some("R32G32B32A32_FLOAT"));
    let floats: Vec<f32> = decoded
        .data
        .chunks(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(floats, expected);

    // A PNG of a float output has 16 bits per channel unless asked otherwise: 0..1, rounded.
    let png16 = dir.join("out.png");
    let output = run(&png16, &[]);
    assert_eq!(
        (stderr(&output), output.status.code()),
        (String::new(), Some(0))
    );
    let decoded = rpsl_effects::load_source_image(&png16).unwrap();
    assert_eq!(decoded.format.name(), Some("R16G16B16A16_UNORM"));
    let words: Vec<u16> = decoded
        .data
        .chunks(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    let to16 = |v: &f32| (v.clamp(0.0, 1.0) * 65535.0).round() as u16;
    assert_eq!(words, expected.iter().map(to16).collect::<Vec<_>>());
    assert!(words.contains(&0) && words.contains(&65535) && words.iter().any(|w| *w % 257 != 0));

    let png8 = dir.join("out8.png");
    let output = run(&png8, &["--bit-depth", "8"]);
    assert_eq!(
        (stderr(&output), output.status.code()),
        (String::new(), Some(0))
    );
    let to8 = |v: &f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    assert_eq!(
        read_png(&png8).unwrap(),
        (5, 3, expected.iter().map(to8).collect::<Vec<_>>())
    );
}

#[test]
fn a_folder_is_written_as_exr_with_out_format() {
    let dir = scratch("folder-exr");
    let images = dir.join("images");
    std::fs::create_dir_all(&images).unwrap();
    let first = write_input(&images.join("a.png"), 5, 3);
    let second = write_input(&images.join("b.png"), 2, 4);
    let out = dir.join("out");
    let output = rpsl(&[
        "effect",
        &effect("Hdr.hlsl"),
        "--in",
        images.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--out-format",
        "exr",
        "--validate",
    ]);
    if !vulkan_ran(&output) {
        return;
    }
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.exr", "b.exr"]);
    for (name, pixels, (width, height)) in [("a.exr", &first, (5, 3)), ("b.exr", &second, (2, 4))] {
        let decoded = rpsl_effects::load_source_image(&out.join(name)).unwrap();
        assert_eq!((decoded.width, decoded.height), (width, height), "{name}");
        assert_eq!(decoded.format.name(), Some("R32G32B32A32_FLOAT"), "{name}");
        let floats: Vec<f32> = decoded
            .data
            .chunks(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(floats, hdr_values(pixels, width), "{name}");
    }
}

#[test]
fn the_null_backend_prints_each_images_frame_and_writes_nothing() {
    let dir = scratch("null");
    let images = dir.join("images");
    std::fs::create_dir_all(&images).unwrap();
    write_input(&images.join("a.png"), 4, 4);
    write_input(&images.join("b.png"), 6, 2);
    let output = rpsl(&[
        "effect",
        &effect("Mrt.hlsl"),
        "--effect",
        &effect("Tint.hlsl"),
        "--in",
        images.to_str().unwrap(),
        "--backend",
        "null",
    ]);
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    let dump: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(dump["entry"], "Mrt+Tint");
    let frames = dump["frames"].as_array().unwrap();
    let summary: Vec<(u64, Vec<String>, u64, u64)> = frames
        .iter()
        .map(|frame| {
            let nodes = frame["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|node| node["name"].as_str().unwrap().to_string())
                .collect();
            let output = frame["resources"]
                .as_array()
                .unwrap()
                .iter()
                .find(|resource| resource["name"] == "OUTPUT")
                .unwrap();
            (
                frame["index"].as_u64().unwrap(),
                nodes,
                output["width"].as_u64().unwrap(),
                output["height"].as_u64().unwrap(),
            )
        })
        .collect();
    let nodes: Vec<String> = ["Mrt.Pass1", "Mrt.Pass2", "Mrt.Pass3", "Tint.Pass1"]
        .map(String::from)
        .to_vec();
    // Mrt doubles the size; Tint keeps it.
    assert_eq!(summary, [(0, nodes.clone(), 8, 8), (1, nodes, 12, 4)]);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}
