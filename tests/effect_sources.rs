//! MagpieFX effects with `//!SOURCE` textures called from RPSL frames: `tests/effect_sources/
//! sources.rpsl` calls the test effect Lut (effects/tests/effects/Lut.hlsl, which reads a PNG
//! and a half-float DDS lookup table) twice. Each table is a persistent texture of the frame,
//! uploaded by its own node in the first frame only. Golden pixels of frames 1 to 3 on Vulkan
//! under validation and synchronization validation (skipped without a device unless
//! `RPSL_REQUIRE_VULKAN=1`), the nodes and resources of each frame, and the whole diagnostics of
//! a missing and of a corrupt image.

use std::path::{Path, PathBuf};

use rpsl::vulkan::read_png;

mod effect_support;

use effect_support::{fixture_folder, repo, rpsl_in, stderr, vulkan_ran};

/// A fresh folder holding `tests/effect_sources/`, the test effect Lut and its two images.
fn sources_folder(test: &str) -> PathBuf {
    fixture_folder(
        "tests/effect_sources",
        test,
        &["Lut.hlsl", "lut2x2.png", "lut2x2_f16.dds"],
    )
}

/// Lut's factor for channel `channel` of texel `texel` (x % 2 + 2 (y % 2)) of its 2x2 tables:
/// the PNG's byte over 255 times the DDS's half float, in quarters (the test images' values).
fn lut_factor(texel: usize, channel: usize) -> f64 {
    const PNG: [[f64; 4]; 4] = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0],
    ];
    const DDS: [[f64; 4]; 4] = [
        [0.0, 0.25, 0.5, 1.0],
        [0.25, 0.5, 0.75, 1.0],
        [0.5, 0.75, 1.0, 1.0],
        [1.0, 0.5, 0.0, 1.0],
    ];
    PNG[texel][channel] * DDS[texel][channel]
}

/// The picture `sources.rpsl` makes: Steps' multiples of 16, multiplied twice by Lut's factors.
fn expected_frame(width: usize, height: usize) -> Vec<u8> {
    let mut pixels = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let steps = [16 * (x % 16), 16 * (y % 16), 16 * ((x + y) % 16), 255];
            let texel = x % 2 + 2 * (y % 2);
            for (channel, value) in steps.into_iter().enumerate() {
                let factor = lut_factor(texel, channel);
                pixels.push((value as f64 * factor * factor).round() as u8);
            }
        }
    }
    pixels
}

/// The names of each frame's nodes (in call order) and resources in a JSON dump.
fn frame_names(json: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let dump: serde_json::Value = serde_json::from_str(json).unwrap();
    let names = |items: &serde_json::Value| -> Vec<String> {
        items
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["name"].as_str().unwrap().to_string())
            .collect()
    };
    dump["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|frame| (names(&frame["nodes"]), names(&frame["resources"])))
        .collect()
}

/// The nodes of the first frame: each Lut call uploads both tables (a frame's second call has
/// textures of its own).
const FIRST_FRAME_NODES: [&str; 10] = [
    "Steps",
    "Lut.constants",
    "Lut.lut.upload",
    "Lut.lutHalf.upload",
    "Lut.Pass1",
    "Lut.constants",
    "Lut.lut.upload",
    "Lut.lutHalf.upload",
    "Lut.Pass1",
    "copy_texture",
];

/// The nodes of every later frame: the tables are there already.
const LATER_FRAME_NODES: [&str; 6] = [
    "Steps",
    "Lut.constants",
    "Lut.Pass1",
    "Lut.constants",
    "Lut.Pass1",
    "copy_texture",
];

/// The resources of every frame.
const RESOURCES: [&str; 10] = [
    "backbuffer",
    "steps",
    "once",
    "twice",
    "Lut.constants",
    "Lut.lut",
    "Lut.lutHalf",
    "Lut.constants",
    "Lut.lut",
    "Lut.lutHalf",
];

fn assert_uploads_only_in_the_first_frame(frames: &[(Vec<String>, Vec<String>)], count: usize) {
    assert_eq!(frames.len(), count);
    for (index, (nodes, resources)) in frames.iter().enumerate() {
        if index == 0 {
            assert_eq!(nodes, &FIRST_FRAME_NODES, "frame {index}");
        } else {
            assert_eq!(nodes, &LATER_FRAME_NODES, "frame {index}");
        }
        assert_eq!(resources, &RESOURCES, "frame {index}");
    }
}

#[test]
fn source_textures_render_exact_pixels_in_every_frame_and_upload_once() {
    let dir = sources_folder("golden");
    for frames in 1..=3usize {
        let out = format!("out{frames}");
        let output = rpsl_in(
            &dir,
            &[
                "run",
                "sources.rpsl",
                "--validate",
                "--frames",
                &frames.to_string(),
                "--arg",
                "backbuffer=20x18",
                "--out",
                &out,
                "--dump",
                "-",
            ],
        );
        if !vulkan_ran(&output) {
            return;
        }
        assert_eq!(stderr(&output), "", "{frames} frames");
        assert_eq!(output.status.code(), Some(0), "{frames} frames");
        let (width, height, pixels) = read_png(&dir.join(&out).join("backbuffer.png")).unwrap();
        assert_eq!((width, height), (20, 18));
        assert!(
            pixels == expected_frame(20, 18),
            "frame {frames} differs from the expected picture"
        );
        let executed = frame_names(&String::from_utf8_lossy(&output.stdout));
        assert_uploads_only_in_the_first_frame(&executed, frames);
    }
}

#[test]
fn the_graph_and_the_null_backend_show_the_source_textures_and_their_uploads() {
    let dir = sources_folder("graph");
    let graph = rpsl_in(
        &dir,
        &["graph", "sources.rpsl", "--arg", "backbuffer=20x18"],
    );
    assert_eq!(stderr(&graph), "");
    assert_eq!(graph.status.code(), Some(0));
    let shown = frame_names(&String::from_utf8_lossy(&graph.stdout));
    assert_uploads_only_in_the_first_frame(&shown, 1);
    let dump: serde_json::Value = serde_json::from_slice(&graph.stdout).unwrap();
    let lut = &dump["frames"][0]["resources"][5];
    let described = |resource: &serde_json::Value| {
        let field = |key: &str| resource[key].to_string();
        ["name", "format", "width", "height", "flags"].map(field)
    };
    assert_eq!(
        described(lut),
        [
            "\"Lut.lut\"",
            "\"R8G8B8A8_UNORM\"",
            "2",
            "2",
            "[\"persistent\"]"
        ]
    );
    let half = &dump["frames"][0]["resources"][6];
    assert_eq!(
        described(half),
        [
            "\"Lut.lutHalf\"",
            "\"R16G16B16A16_FLOAT\"",
            "2",
            "2",
            "[\"persistent\"]"
        ]
    );
    let upload = &dump["frames"][0]["nodes"][2]["accesses"][0];
    assert_eq!(
        [&upload["resource"], &upload["access"], &upload["mode"]].map(|v| v.to_string()),
        ["5", "[\"copy\"]", "\"writeonly\""]
    );
    let run = rpsl_in(
        &dir,
        &[
            "run",
            "sources.rpsl",
            "--backend",
            "null",
            "--frames",
            "3",
            "--arg",
            "backbuffer=20x18",
            "--dump",
            "-",
        ],
    );
    assert_eq!(stderr(&run), "");
    assert_eq!(run.status.code(), Some(0));
    let ran = frame_names(&String::from_utf8_lossy(&run.stdout));
    assert_uploads_only_in_the_first_frame(&ran, 3);
}

/// The error of `rpsl graph sources.rpsl` after `change` altered the copied effect folder.
fn graph_error(test: &str, change: impl FnOnce(&Path)) -> (String, Option<i32>) {
    let dir = sources_folder(test);
    change(&dir);
    let output = rpsl_in(
        &dir,
        &["graph", "sources.rpsl", "--arg", "backbuffer=20x18"],
    );
    (stderr(&output), output.status.code())
}

/// The error at the declaration of `Lut` that follows the effect's own diagnostics.
fn at_lut_declaration(what: &str) -> String {
    format!(
        "sources.rpsl:8:1: error: node `Lut` is bound to the MagpieFX effect ./Lut.hlsl, \
         {what}\n  ┌─ sources.rpsl:8:1\n  │\n8 │ compute node Lut([readonly(cs)] texture src, \
         [readwrite(cs)] texture dst);\n  │ \
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n\n"
    )
}

#[test]
fn a_missing_source_image_is_located_in_the_effect_and_at_the_node() {
    let (message, code) = graph_error("missing", |dir| {
        std::fs::remove_file(dir.join("lut2x2_f16.dds")).unwrap();
    });
    assert_eq!(
        message,
        format!(
            "./Lut.hlsl:12:11: error: cannot find texture file `lut2x2_f16.dds`\n   ┌─ \
             ./Lut.hlsl:12:11\n   │\n12 │ //!SOURCE lut2x2_f16.dds\n   │           \
             ^^^^^^^^^^^^^^\n\n{}",
            at_lut_declaration("which has errors")
        )
    );
    assert_eq!(code, Some(1));
}

#[test]
fn a_corrupt_source_image_is_located_at_its_source_line_and_at_the_node() {
    let (message, code) = graph_error("corrupt-png", |dir| {
        std::fs::write(dir.join("lut2x2.png"), b"not a picture").unwrap();
    });
    assert_eq!(
        message,
        format!(
            "./Lut.hlsl:7:11: error: cannot load `lut2x2.png`: not an image file this program \
             reads (PNG, BMP, JPEG, OpenEXR or DDS)\n  ┌─ ./Lut.hlsl:7:11\n  │\n7 │ \
             //!SOURCE lut2x2.png\n  │           ^^^^^^^^^^\n\n{}",
            at_lut_declaration("whose //!SOURCE image cannot be loaded")
        )
    );
    assert_eq!(code, Some(1));
    let (message, code) = graph_error("truncated-dds", |dir| {
        let path = dir.join("lut2x2_f16.dds");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 16]).unwrap();
    });
    assert_eq!(
        message,
        format!(
            "./Lut.hlsl:12:11: error: cannot load `lut2x2_f16.dds`: the DDS file holds 16 bytes \
             of texels where a 2x2 texture needs 32\n   ┌─ ./Lut.hlsl:12:11\n   │\n12 │ \
             //!SOURCE lut2x2_f16.dds\n   │           ^^^^^^^^^^^^^^\n\n{}",
            at_lut_declaration("whose //!SOURCE image cannot be loaded")
        )
    );
    assert_eq!(code, Some(1));
}

/// The effects under `folder` (recursively) that read a `//!SOURCE` image, sorted.
fn effects_with_sources(folder: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "hlsl")
                && std::fs::read_to_string(&path).is_ok_and(|text| text.contains("//!SOURCE"))
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// What running one public effect from a script gave.
enum PublicRun {
    /// Validation-clean over three frames, uploads in the first only, and the pixels of
    /// `rpsl effect` on the same input.
    Same,
    /// The effect does not compile (for `rpsl effect` either).
    DoesNotCompile,
}

/// Runs the public effect `path` from a script (its folder copied with Steps.comp; the node
/// named after the effect; a 64x48 input, the output as the effect sizes it for 128x96) for
/// three frames under validation, and compares the result with `rpsl effect` on the same input.
fn run_public_effect(path: &Path) -> Result<PublicRun, String> {
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let effect = rpsl_effects::parse_effect_file(path).map_err(|e| e.to_string())?;
    let output = rpsl_effects::resolve_sizes(&effect, [64, 48], Some([128, 96]))
        .map_err(|e| e.to_string())?
        .output;
    let dir = std::env::temp_dir().join(format!(
        "rpsl-effect-sources-{}-public-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(path.parent().unwrap()).unwrap().flatten() {
        if entry.path().is_file() {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    std::fs::copy(
        repo().join("tests/effect_sources/Steps.comp"),
        dir.join("Steps.comp"),
    )
    .unwrap();
    let script = format!(
        "compute node Steps([writeonly(cs)] texture dst);\n\
         compute node {name}([readonly(cs)] texture src, [readwrite(cs)] texture dst);\n\
         export void main([readonly(present)] texture backbuffer)\n{{\n\
         \x20   ResourceDesc desc = backbuffer.desc();\n\
         \x20   texture low = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 48);\n\
         \x20   texture high = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, (uint)desc.Width, desc.Height);\n\
         \x20   Steps(low);\n    {name}(low, high);\n    copy_texture(backbuffer, high);\n}}\n"
    );
    std::fs::write(dir.join("public.rpsl"), script).unwrap();
    let size = format!("{}x{}", output[0], output[1]);
    let backbuffer = format!("backbuffer={size}");
    let run = rpsl_in(
        &dir,
        &[
            "run",
            "public.rpsl",
            "--validate",
            "--frames",
            "3",
            "--arg",
            &backbuffer,
            "--out",
            "out",
            "--out",
            "low=low.png",
            "--dump",
            "-",
        ],
    );
    let direct = rpsl_in(
        &dir,
        &[
            "effect",
            &format!("{name}.hlsl"),
            "--in",
            "low.png",
            "--out",
            "direct.png",
            "--size",
            &size,
            "--validate",
        ],
    );
    if run.status.code() == Some(1) && stderr(&run).contains("does not compile") {
        return match direct.status.code() {
            Some(0) => Err(format!("only the script fails: {}", stderr(&run))),
            _ => Ok(PublicRun::DoesNotCompile),
        };
    }
    if run.status.code() != Some(0) || !stderr(&run).is_empty() {
        return Err(format!("the script run failed: {}", stderr(&run)));
    }
    let uploads: Vec<usize> = frame_names(&String::from_utf8_lossy(&run.stdout))
        .iter()
        .map(|(nodes, _)| nodes.iter().filter(|n| n.ends_with(".upload")).count())
        .collect();
    let sources = effect
        .textures
        .iter()
        .filter(|t| t.source.is_some())
        .count();
    if uploads != [sources, 0, 0] {
        return Err(format!("uploads per frame: {uploads:?}"));
    }
    if direct.status.code() != Some(0) {
        return Err(format!("rpsl effect failed: {}", stderr(&direct)));
    }
    let from_script = read_png(&dir.join("out/backbuffer.png")).map_err(|e| e.to_string())?;
    let from_effect = read_png(&dir.join("direct.png")).map_err(|e| e.to_string())?;
    if from_script != from_effect {
        return Err("the pixels differ from `rpsl effect`'s".to_string());
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(PublicRun::Same)
}

/// The public Magpie collection's effects with `//!SOURCE` images, when `RPSL_MAGPIE_EFFECTS`
/// names a folder holding it (never committed: Magpie is GPL-3.0): each one called from a
/// script must run validation-clean over three frames, upload its images in the first only and
/// give `rpsl effect`'s pixels, unless it does not compile at all.
#[test]
fn public_effects_with_source_images_run_from_scripts_like_rpsl_effect() {
    let Some(folder) = std::env::var_os("RPSL_MAGPIE_EFFECTS") else {
        eprintln!("RPSL_MAGPIE_EFFECTS is not set: skipped");
        return;
    };
    let (mut same, mut not_compiling, mut failures) = (0, Vec::new(), Vec::new());
    for path in effects_with_sources(Path::new(&folder)) {
        match run_public_effect(&path) {
            Ok(PublicRun::Same) => same += 1,
            Ok(PublicRun::DoesNotCompile) => not_compiling.push(path.display().to_string()),
            Err(error) => failures.push(format!("{}: {error}", path.display())),
        }
    }
    eprintln!(
        "{same} effects with source images ran from scripts like `rpsl effect`; {} do not \
         compile: {not_compiling:?}",
        not_compiling.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(same > 0, "no effect with source images under {folder:?}");
}
