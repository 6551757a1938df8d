//! `rpsl run` compiles shader-bound nodes in its sandboxed child process (`rpsl` started with the
//! hidden child argument, `src/main.rs`'s first call) with a time limit: working GLSL compute and
//! fragment shaders compile there, land in the SPIR-V cache under `$XDG_CACHE_HOME`, and render
//! the exact pixels over several frames, under validation; a second run hits the cache. (A broken
//! shader through the same path: `run_vulkan_cli.rs`.) Skips without a Vulkan device unless
//! `RPSL_REQUIRE_VULKAN=1`.

mod run_vulkan_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use run_vulkan_support::{scratch_dir, vulkan_available};

/// Writes `(16 x, 16 y, blue, 255)` at texel (x, y) of `dst`.
const GRADIENT: &str = include_str!("../backends/vulkan/tests/shaders/Gradient.comp");

/// Tiles `src` over the render target.
const BLIT: &str = include_str!("../backends/vulkan/tests/shaders/Blit.frag");

const SCRIPT: &str = "compute node Gradient([writeonly(cs)] texture dst, float blue);
graphics node Blit(srv src, rtv target : SV_Target0);

export void main([readonly(present)] texture bb, uint frameIndex)
{
    texture tile = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);
    Gradient(tile, frameIndex * 10.0f / 255.0f);
    Blit(tile, bb);
}
";

/// A fresh folder under the test's scratch folder.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = scratch_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs three frames of the script in `dir` with `cache` as `$XDG_CACHE_HOME`, writing PNGs to
/// `out`; asserts success with validation silent.
fn run(dir: &Path, cache: &Path, out: &Path) {
    let script = dir.join("tiles.rpsl");
    let output = Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args([
            "run",
            script.to_str().unwrap(),
            "--validate",
            "--frames",
            "3",
        ])
        .args(["--arg", "bb=8x8", "--out", out.to_str().unwrap()])
        .env("XDG_CACHE_HOME", cache)
        .output()
        .expect("the rpsl binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("validation"), "{stderr}");
}

/// The SPIR-V cache entries (`<sha256>.spv`) under `cache`.
fn cache_entries(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cache.join("rpsl").join("spirv"))
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok())
                .map(|entry| entry.file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The backbuffer of frame 2 (blue = 20): the 4x4 gradient tiled over 8x8.
fn assert_backbuffer(out: &Path) {
    let (width, height, pixels) = rpsl_vulkan::read_png(&out.join("bb.png")).unwrap();
    assert_eq!((width, height), (8, 8));
    let expected: Vec<u8> = (0..8u32)
        .flat_map(|y| (0..8u32).map(move |x| (x, y)))
        .flat_map(|(x, y)| [(16 * (x % 4)) as u8, (16 * (y % 4)) as u8, 20, 255])
        .collect();
    assert_eq!(pixels, expected);
}

#[test]
fn shaders_compiled_in_the_child_render_and_are_cached() {
    if !vulkan_available() {
        return;
    }
    let dir = fresh_dir("child_compile");
    std::fs::write(dir.join("tiles.rpsl"), SCRIPT).unwrap();
    std::fs::write(dir.join("Gradient.comp"), GRADIENT).unwrap();
    std::fs::write(dir.join("Blit.frag"), BLIT).unwrap();
    let cache = fresh_dir("child_compile_cache");
    let out = dir.join("out");
    run(&dir, &cache, &out);
    assert_backbuffer(&out);
    let entries = cache_entries(&cache);
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert!(
        entries.iter().all(|name| name.ends_with(".spv")),
        "{entries:?}"
    );
    // Again: both shaders come from the cache, the picture is the same.
    let again = dir.join("out_again");
    run(&dir, &cache, &again);
    assert_backbuffer(&again);
    assert_eq!(cache_entries(&cache), entries);
}

/// A view whose type differs from the shader's image declaration (a 3-layer texture for an
/// `image2D` or a `sampler2D`) is an error naming the binding and the parameter, not a
/// descriptor a GPU would read wrongly; one layer of it (`.array(1)`) renders.
#[test]
fn a_view_of_another_image_type_than_the_shader_declares_is_an_error() {
    if !vulkan_available() {
        return;
    }
    let cache = fresh_dir("view_type_cache");
    let cases = [
        (
            "texture tile = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4, 1, 3);\n    Gradient(tile, 0.0f);\n    Blit(tile.array(1), bb);",
            Some("node 0 (`Gradient`): binding 0 is a 2D image in the shader but parameter `dst` is a 2D array image (3 layer(s))"),
        ),
        (
            "texture tile = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4, 1, 3);\n    Gradient(tile.array(1), 0.0f);\n    Blit(tile.array(1, 2), bb);",
            Some("node 1 (`Blit`): binding 0 is a 2D image in the shader but parameter `src` is a 2D array image (2 layer(s))"),
        ),
        (
            "texture tile = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4, 1, 3);\n    Gradient(tile.array(2), 0.0f);\n    Blit(tile.array(2), bb);",
            None,
        ),
    ];
    for (index, (body, error)) in cases.into_iter().enumerate() {
        let dir = fresh_dir(&format!("view_type_{index}"));
        let script = SCRIPT.replace(
            "texture tile = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);\n    Gradient(tile, frameIndex * 10.0f / 255.0f);\n    Blit(tile, bb);",
            body,
        );
        assert!(script.contains(body), "the template changed");
        std::fs::write(dir.join("tiles.rpsl"), &script).unwrap();
        std::fs::write(dir.join("Gradient.comp"), GRADIENT).unwrap();
        std::fs::write(dir.join("Blit.frag"), BLIT).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_rpsl"))
            .args([
                "run",
                dir.join("tiles.rpsl").to_str().unwrap(),
                "--validate",
            ])
            .args(["--arg", "bb=8x8"])
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .expect("the rpsl binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        match error {
            Some(message) => {
                assert_eq!(output.status.code(), Some(3), "case {index}: {stderr}");
                assert!(
                    stderr.starts_with(&format!("error: vulkan: {message}")),
                    "case {index}: {stderr}"
                );
            }
            None => assert_eq!(output.status.code(), Some(0), "case {index}: {stderr}"),
        }
        assert!(!stderr.contains("VUID"), "case {index}: {stderr}");
    }
}
