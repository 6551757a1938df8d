//! Shader-bound graphics stages on the local Vulkan device (lavapipe in CI), under validation
//! (issue 21): HLSL stages linked by semantic - a pixel shader reading its vertex shader's
//! outputs in another order renders the right colours (on a fresh compile and from the SPIR-V
//! cache), VS/GS/PS and VS/HS/DS/PS pipelines with nested-struct IO declared in different
//! member orders render exact golden pixels, stages that do not link fail naming the node, both
//! shaders and the semantic, and shapes glslang 12 miscompiles are rejected; GLSL stages link by
//! location (tessellation included) and validation names the shader module; `--out NAME=FILE`
//! reads back transients. The shaders and scripts are in `tests/stage_link/`. Skips when no
//! Vulkan device exists unless `RPSL_REQUIRE_VULKAN=1`.

mod run_vulkan_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use run_vulkan_support::{scratch_dir, vulkan_available};

/// The fixture folder (scripts and their shaders).
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stage_link")
}

/// Runs `rpsl run FIXTURE --validate ARGS...` with the SPIR-V cache in `cache`.
fn run_fixture(script: &str, cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .arg("run")
        .arg(fixtures().join(script))
        .arg("--validate")
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .output()
        .expect("the rpsl binary runs")
}

/// A fresh scratch folder called `name`.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = scratch_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `script` with `--out` and returns the RGBA bytes of the texture `name`.
fn render(script: &str, cache: &Path, out: &Path, args: &[&str], name: &str) -> Vec<u8> {
    let mut all = vec!["--out", out.to_str().unwrap()];
    all.extend_from_slice(args);
    let output = run_fixture(script, cache, &all);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
    rpsl_vulkan::read_png(&out.join(format!("{name}.png")))
        .unwrap()
        .2
}

#[test]
fn a_pixel_shader_reading_semantics_in_another_order_gets_the_right_values() {
    if !vulkan_available() {
        return;
    }
    let cache = fresh_dir("stage_link_cache");
    // COLOR0 = (1, 0, 0, 1) and TEXCOORD0 = (0, 1, 0, 0): color + coord * 0.5. Linked by
    // position the pixel shader would get them swapped: (0.5, 1, 0, 0.5).
    let expected = [255u8, 128, 0, 255].repeat(16);
    for (run, out) in ["compiled", "cached"].iter().enumerate() {
        let out = fresh_dir(&format!("stage_link_swapped_{out}"));
        let pixels = render("swapped.rpsl", &cache, &out, &["--arg", "bb=4x4"], "bb");
        assert_eq!(pixels, expected, "run {run}");
    }
    let cached = std::fs::read_dir(cache.join("rpsl/spirv")).unwrap().count();
    assert_eq!(cached, 2, "both stages are in the cache");
}

#[test]
fn stages_that_do_not_link_name_the_node_both_shaders_and_the_semantic() {
    if !vulkan_available() {
        return;
    }
    let cache = fresh_dir("stage_link_errors_cache");
    let dir = fixtures().display().to_string();
    let cases = [
        (
            "0",
            format!("node 0 (`Unwritten`): {dir}/Unwritten.frag.hlsl:2: input `TEXCOORD1` is not written by {dir}/Unwritten.vert.hlsl"),
        ),
        (
            "1",
            format!("node 0 (`Mistyped`): {dir}/Mistyped.frag.hlsl:2: input `COLOR0` is int4 but {dir}/Mistyped.vert.hlsl writes it as float4"),
        ),
        (
            "2",
            format!("node 0 (`NoVertex`): {dir}/NoVertex.frag.hlsl:2: input `COLOR0` is not written by the built-in full-screen vertex shader"),
        ),
    ];
    for (which, message) in cases {
        let output = run_fixture(
            "errors.rpsl",
            &cache,
            &["--arg", "bb=4x4", "--arg", &format!("which={which}")],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{stderr}");
        assert_eq!(stderr, format!("error: vulkan: {message}\n"));
    }
}

#[test]
fn glsl_stages_link_by_location_and_validation_names_the_shader_module() {
    if !vulkan_available() {
        return;
    }
    let cache = fresh_dir("stage_link_located_cache");
    let output = run_fixture("located.rpsl", &cache, &["--arg", "bb=4x4"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.starts_with("error: vulkan: 1 validation message(s)\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            ", name = Located.frag (node Located: fragment), type = VK_OBJECT_TYPE_SHADER_MODULE;"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "fragment shader consumes input location 1.0 which is not written by vertex shader"
        ),
        "{stderr}"
    );
}

#[test]
fn out_name_file_reads_back_transients_that_would_be_aliased_or_culled() {
    if !vulkan_available() {
        return;
    }
    let cache = fresh_dir("stage_link_keep_cache");
    let out = fresh_dir("stage_link_keep");
    let file = |name: &str| out.join(name).display().to_string();
    let args: Vec<String> = vec![
        "--arg".into(),
        "bb=4x4".into(),
        "--out".into(),
        format!("first={}", file("first.png")),
        "--out".into(),
        format!("unused={}", file("sub/unused.png")),
        "--out".into(),
        format!("bytes={}", file("bytes.bin")),
        "--out".into(),
        format!("bb={}", file("bb.png")),
        "--frames".into(),
        "2".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = run_fixture("keep.rpsl", &cache, &args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
    let read = |name: &str| rpsl_vulkan::read_png(&out.join(name)).unwrap();
    assert_eq!(read("first.png"), (4, 4, [255, 0, 0, 255].repeat(16)));
    assert_eq!(read("sub/unused.png"), (2, 1, [0, 0, 255, 255].repeat(2)));
    let mut bb = [255u8, 0, 0, 255].repeat(8);
    bb.extend([0, 255, 0, 255].repeat(8));
    assert_eq!(read("bb.png"), (4, 4, bb));
    assert_eq!(
        std::fs::read(out.join("bytes.bin")).unwrap(),
        [1, 2, 3, 4, 5, 6, 7, 8]
    );

    let output = run_fixture(
        "keep.rpsl",
        &cache,
        &[
            "--arg",
            "bb=4x4",
            "--out",
            &format!("nothing={}", file("n.png")),
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "error: --out nothing={}: the last frame has no resource named `nothing`\n",
            file("n.png")
        )
    );
    let output = run_fixture(
        "keep.rpsl",
        &cache,
        &["--out", "a=x.png", "--out", "a=y.png"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: `--out` names `a` twice\n"
    );
}

/// Runs `script` and returns its one texture `bb` (4x4) as rows of RGBA pixels.
fn render_rows(script: &str, name: &str) -> Vec<Vec<[u8; 4]>> {
    let cache = fresh_dir(&format!("{name}_cache"));
    let out = fresh_dir(name);
    let bytes = render(script, &cache, &out, &["--arg", "bb=4x4"], "bb");
    bytes
        .chunks(16)
        .map(|row| row.chunks(4).map(|p| p.try_into().unwrap()).collect())
        .collect()
}

#[test]
fn vertex_geometry_pixel_stages_link_nested_structs_in_any_member_order() {
    if !vulkan_available() {
        return;
    }
    // Split.geom.hlsl emits the left half from COLOR0 + TEXCOORD0 * 0.5 = (1, 0.5, 0, 1) with
    // TINT 0, the right half from TEXCOORD3 + COLOR0 * 0.25 = (0.25, 0, 0.5, 0.25) with TINT
    // (0, 0, 0, 0.5); the pixel shader returns COLOR0 + TINT * 0.5.
    let left = [255, 128, 0, 255];
    let right = [64, 0, 128, 128];
    let expected = vec![vec![left, left, right, right]; 4];
    assert_eq!(
        render_rows("geometry.rpsl", "stage_link_geometry"),
        expected
    );
}

#[test]
fn vertex_hull_domain_pixel_stages_link_nested_structs_and_patch_constants() {
    if !vulkan_available() {
        return;
    }
    // COLOR0 (1, 0, 0, 1) + BIAS (0, 0.5, 0, 0), then TEXCOORD3 (0, 0, 0.5, 0) * GAIN
    // (0, 0, 1, 0) as TINT; the pixel shader returns COLOR0 + TINT * 0.5.
    let expected = vec![vec![[255, 128, 64, 255]; 4]; 4];
    assert_eq!(
        render_rows("tessellation.rpsl", "stage_link_tessellation"),
        expected
    );
}

#[test]
fn interfaces_glslang_miscompiles_are_rejected_with_the_fix() {
    if !vulkan_available() {
        return;
    }
    let cache = fresh_dir("stage_link_unsupported_cache");
    let dir = fixtures().display().to_string();
    let cases = [
        (
            "0",
            format!("node 0 (`NestedHull`): {dir}/NestedHull.hull.hlsl:16: hull shader output `@entryPointOutput.inner.color` (`COLOR0`) is in a nested struct, which glslang 12 writes to the wrong control point: declare it directly in the output struct"),
        ),
        (
            "1",
            format!("node 0 (`ArrayGeom`): {dir}/ArrayGeom.geom.hlsl:9: `input.pair.parts[0]` (`PART`) is an array member of a struct passed per vertex, which glslang 12 compiles with the wrong array size: declare the elements as members of their own (`PART0`, `PART1`, ...)"),
        ),
    ];
    for (which, message) in cases {
        let output = run_fixture(
            "unsupported.rpsl",
            &cache,
            &["--arg", "bb=4x4", "--arg", &format!("which={which}")],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{stderr}");
        assert_eq!(stderr, format!("error: vulkan: {message}\n"));
    }
}

#[test]
fn glsl_tessellation_links_by_location_with_the_output_patch_size() {
    if !vulkan_available() {
        return;
    }
    let expected = vec![vec![[0, 128, 255, 255]; 4]; 4];
    assert_eq!(
        render_rows("glsl_tessellation.rpsl", "stage_link_glsl_tessellation"),
        expected
    );
}

#[test]
fn vertex_pixel_stages_link_nested_structs_and_arrays_in_any_order() {
    if !vulkan_available() {
        return;
    }
    // COLOR0 (0.5, 0, 0, 1) + TINT (0, 0.25, 0, 0) + (TEXCOORD0 (0, 0), EXTRA1.z 0.5 -
    // EXTRA0.z 0.25, 0).
    let expected = vec![vec![[128, 64, 64, 255]; 4]; 4];
    assert_eq!(render_rows("nested.rpsl", "stage_link_nested"), expected);
}
