//! View formats are checked when a node call is recorded (`runtime/src/view_format_check.rs`):
//! a view outside its resource's format compatibility class, or a format that does not fit the
//! kind of access, is the same located error (exit 3) on the null and the Vulkan backends —
//! never an invalid image view handed to the driver (lavapipe crashed with SIGSEGV on a colour
//! clear through a depth-format view). Compatible reinterpretations still run, pixel-exactly.
//! The Vulkan half skips without a device unless `RPSL_REQUIRE_VULKAN=1`.

mod run_vulkan_support;

use run_vulkan_support::{rpsl, scratch, scratch_dir, vulkan_available};

/// [`vulkan_available`], probed once: the probe rewrites one scratch script, which tests
/// running in parallel threads must not race on.
fn vulkan() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(vulkan_available)
}

/// Runs `rpsl run SCRIPT ARGS...` on the null backend and, where Vulkan is available, on
/// Vulkan with validation; both must exit 3 with exactly `expected` on stderr (the script
/// file's folder stripped).
fn assert_fails_on_both_backends(name: &str, text: &str, args: &[&str], expected: &str) {
    let script = scratch(name, text);
    let dir = format!("{}/", scratch_dir().display());
    let mut backends = vec![vec!["--backend", "null"]];
    if vulkan() {
        backends.push(vec!["--backend", "vulkan", "--validate", "--allow-unbound"]);
    }
    for backend in backends {
        let mut all = vec!["run", script.to_str().unwrap()];
        all.extend_from_slice(&backend);
        all.extend_from_slice(args);
        let output = rpsl(&all);
        let stderr = String::from_utf8_lossy(&output.stderr).replace(&dir, "");
        assert_eq!(output.status.code(), Some(3), "{all:?}: {stderr}");
        assert_eq!(stderr, expected, "{all:?}");
    }
}

/// The whole diagnostic of an error at column 5 of line `line` of `file`, a line holding `call`.
fn located(file: &str, line: u32, message: &str, call: &str) -> String {
    format!(
        "{file}:{line}:5: error: {message}\n  ┌─ {file}:{line}:5\n  │\n{line} │     {call}\n  │     {}\n\n",
        "^".repeat(call.trim_end_matches(';').len())
    )
}

fn clear_external(format: &str) -> String {
    format!(
        "export void main(texture bb)\n\
         {{\n    clear(bb.format(RPS_FORMAT_{format}), float4(0, 0, 1, 1));\n}}\n"
    )
}

fn clear_transient(format: &str) -> String {
    format!(
        "export void main(texture bb)\n\
         {{\n    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16);\n    \
         clear(t.format(RPS_FORMAT_{format}), float4(0, 0, 1, 1));\n    \
         copy_texture(bb, t);\n}}\n"
    )
}

/// The class that format `format` belongs to, as the diagnostic names it.
fn depth_class(format: &str) -> &'static str {
    match format {
        "D24_UNORM_S8_UINT" => "the D24_UNORM_S8_UINT depth/stencil class",
        "D32_FLOAT" => "the D32_FLOAT depth/stencil class",
        _ => "the D16_UNORM depth/stencil class",
    }
}

#[test]
fn colour_clears_through_depth_format_views_fail_at_the_call() {
    for format in ["D24_UNORM_S8_UINT", "D32_FLOAT", "D16_UNORM"] {
        let message = format!(
            "clear: argument `dst`: view format {format} is not compatible with the resource's \
             format R8G8B8A8_UNORM (R8G8B8A8_UNORM is in the 32-bit colour class; {format} is \
             in {})",
            depth_class(format)
        );
        let call = format!("clear(bb.format(RPS_FORMAT_{format}), float4(0, 0, 1, 1));");
        assert_fails_on_both_backends(
            "clear_external.rpsl",
            &clear_external(format),
            &[],
            &located("clear_external.rpsl", 3, &message, &call),
        );
        let call = format!("clear(t.format(RPS_FORMAT_{format}), float4(0, 0, 1, 1));");
        assert_fails_on_both_backends(
            "clear_transient.rpsl",
            &clear_transient(format),
            &["--arg", "bb=16x16"],
            &located("clear_transient.rpsl", 4, &message, &call),
        );
    }
}

#[test]
fn render_targets_outside_the_compatibility_class_fail_at_the_call() {
    assert_fails_on_both_backends(
        "rt_class.rpsl",
        "graphics node Draw(rtv target : SV_Target0);\n\
         export void main(texture bb)\n\
         {\n    Draw(bb.format(RPS_FORMAT_R16G16B16A16_FLOAT));\n}\n",
        &[],
        &located(
            "rt_class.rpsl",
            4,
            "Draw: argument `target`: view format R16G16B16A16_FLOAT is not compatible with the \
             resource's format R8G8B8A8_UNORM (R8G8B8A8_UNORM is in the 32-bit colour class; \
             R16G16B16A16_FLOAT is in the 64-bit colour class)",
            "Draw(bb.format(RPS_FORMAT_R16G16B16A16_FLOAT));",
        ),
    );
    assert_fails_on_both_backends(
        "rt_block.rpsl",
        "graphics node Draw(rtv target : SV_Target0);\n\
         export void main(texture bb)\n\
         {\n    Draw(bb.format(RPS_FORMAT_BC1_UNORM));\n}\n",
        &["--arg", "bb=16x16:R16G16B16A16_UNORM"],
        &located(
            "rt_block.rpsl",
            4,
            "Draw: argument `target`: view format BC1_UNORM is not compatible with the \
             resource's format R16G16B16A16_UNORM (R16G16B16A16_UNORM is in the 64-bit colour \
             class; BC1_UNORM is in the BC1 class)",
            "Draw(bb.format(RPS_FORMAT_BC1_UNORM));",
        ),
    );
}

#[test]
fn render_targets_and_colour_clears_of_depth_resources_fail_at_the_call() {
    assert_fails_on_both_backends(
        "rt_depth.rpsl",
        "graphics node Draw(rtv target : SV_Target0);\n\
         export void main(texture bb)\n\
         {\n    texture depth = create_tex2d(RPS_FORMAT_D32_FLOAT, 16, 16);\n    \
         Draw(depth);\n}\n",
        &[],
        &located(
            "rt_depth.rpsl",
            5,
            "Draw: argument `target`: a render target or colour clear needs an uncompressed \
             colour format; view format D32_FLOAT (the resource's) is not one",
            "Draw(depth);",
        ),
    );
    assert_fails_on_both_backends(
        "clear_depth_as_colour.rpsl",
        "export void main(texture bb)\n{\n    clear(bb, float4(1, 0, 0, 1));\n}\n",
        &["--arg", "bb=16x16:D24_UNORM_S8_UINT"],
        &located(
            "clear_depth_as_colour.rpsl",
            3,
            "clear: argument `dst`: a render target or colour clear needs an uncompressed colour \
             format; view format D24_UNORM_S8_UINT (the resource's) is not one",
            "clear(bb, float4(1, 0, 0, 1));",
        ),
    );
}

/// A view that passed for one use of a resource (a shader read of a depth texture) does not
/// let another use of the same resource and format (a render target) pass: the builder
/// remembers passes per use, not per resource.
#[test]
fn a_use_that_passed_does_not_let_another_use_pass() {
    assert_fails_on_both_backends(
        "read_then_rt_depth.rpsl",
        "graphics node Draw(rtv target : SV_Target0);\n\
         compute node Read([readonly(cs)] texture src);\n\
         export void main(texture bb)\n\
         {\n    texture depth = create_tex2d(RPS_FORMAT_D32_FLOAT, 16, 16);\n    \
         Read(depth);\n    Read(depth);\n    Draw(depth);\n}\n",
        &[],
        &located(
            "read_then_rt_depth.rpsl",
            8,
            "Draw: argument `target`: a render target or colour clear needs an uncompressed \
             colour format; view format D32_FLOAT (the resource's) is not one",
            "Draw(depth);",
        ),
    );
}

#[test]
fn depth_accesses_through_colour_formats_fail_at_the_call() {
    assert_fails_on_both_backends(
        "dsv_colour.rpsl",
        "graphics node DepthOnly(dsv depth : SV_DepthStencil);\n\
         export void main(texture bb)\n{\n    DepthOnly(bb);\n}\n",
        &[],
        &located(
            "dsv_colour.rpsl",
            4,
            "DepthOnly: argument `depth`: a depth/stencil access needs a depth/stencil format; \
             view format R8G8B8A8_UNORM (the resource's) has no depth or stencil",
            "DepthOnly(bb);",
        ),
    );
    assert_fails_on_both_backends(
        "clear_depth_colour.rpsl",
        "export void main(texture bb)\n\
         {\n    texture t = create_tex2d(RPS_FORMAT_R32_FLOAT, 16, 16);\n    \
         clear_depth(t, 1.0);\n    copy_texture(bb, t);\n}\n",
        &["--arg", "bb=16x16:R32_FLOAT"],
        &located(
            "clear_depth_colour.rpsl",
            4,
            "clear_depth: argument `dst`: a depth/stencil access needs a depth/stencil format; \
             view format R32_FLOAT (the resource's) has no depth or stencil",
            "clear_depth(t, 1.0);",
        ),
    );
    assert_fails_on_both_backends(
        "clear_stencil_d32.rpsl",
        "export void main(texture bb)\n\
         {\n    texture t = create_tex2d(RPS_FORMAT_D32_FLOAT, 16, 16);\n    \
         clear_stencil(t, 3);\n    clear(bb, float4(0, 0, 0, 1));\n}\n",
        &[],
        &located(
            "clear_stencil_d32.rpsl",
            4,
            "clear_stencil: argument `dst`: a stencil access needs a format with a stencil \
             plane; view format D32_FLOAT (the resource's) has none",
            "clear_stencil(t, 3);",
        ),
    );
}

#[test]
fn compatible_reinterpretations_still_run() {
    // RGBA8 cleared through a BGRA8 view (red lands in the third byte), an sRGB view and an
    // R32_UINT view (the uint's little-endian bytes), then copied into the outputs.
    let script = scratch(
        "reinterpret.rpsl",
        "export void main(texture bgra, texture srgb, texture bits)\n\
         {\n\
             clear(bgra.format(RPS_FORMAT_B8G8R8A8_UNORM), float4(1, 0, 0, 1));\n\
             clear(srgb.format(RPS_FORMAT_R8G8B8A8_UNORM_SRGB), float4(1, 0, 1, 0));\n\
             texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);\n\
             clear(t.format(RPS_FORMAT_R32_UINT), uint4(0x11223344, 0, 0, 0));\n\
             copy_texture(bits, t);\n\
         }\n",
    );
    let sizes = [
        "--arg", "bgra=4x4", "--arg", "srgb=4x4", "--arg", "bits=4x4",
    ];
    let mut null = vec!["run", script.to_str().unwrap(), "--backend", "null"];
    null.extend_from_slice(&sizes);
    let output = rpsl(&null);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    if !vulkan() {
        return;
    }
    let dir = scratch_dir().join("reinterpret");
    let _ = std::fs::remove_dir_all(&dir);
    let mut vulkan = vec!["run", script.to_str().unwrap(), "--validate", "--out"];
    vulkan.push(dir.to_str().unwrap());
    vulkan.extend_from_slice(&sizes);
    let output = rpsl(&vulkan);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
    for (name, expected) in [
        ("bgra", [0, 0, 255, 255]),
        ("srgb", [255, 0, 255, 0]),
        ("bits", [0x44, 0x33, 0x22, 0x11]),
    ] {
        let (width, height, pixels) =
            rpsl_vulkan::read_png(&dir.join(format!("{name}.png"))).unwrap();
        assert_eq!((width, height), (4, 4), "{name}");
        let expected: Vec<u8> = expected.iter().copied().cycle().take(64).collect();
        assert_eq!(pixels, expected, "{name}");
    }
}

/// Stores red into every texel of an `rgba8` storage image.
const FILL: &str = "#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, rgba8) uniform writeonly image2D dst;
void main() { imageStore(dst, ivec2(gl_GlobalInvocationID.xy), vec4(1.0, 0.0, 0.0, 1.0)); }
";

#[test]
fn storage_writes_through_formats_without_storage_support_are_backend_errors() {
    if !vulkan() {
        return;
    }
    // sRGB formats have no storage support on lavapipe (nor on most GPUs; Vulkan requires
    // none): the image cannot carry the usage, and an sRGB view of a storage image must not.
    let dir = scratch_dir().join("storage");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Fill.comp"), FILL).unwrap();
    for (call, message) in [
        (
            "Fill(t.format(RPS_FORMAT_R8G8B8A8_UNORM_SRGB));",
            "error: vulkan: unsupported: node `Fill`: argument `dst`: this device has no STORAGE \
             support for R8G8B8A8_UNORM_SRGB images\n",
        ),
        (
            "Fill(s);",
            "error: vulkan: unsupported: node `Fill`: argument `dst`: this device has no STORAGE \
             support for R8G8B8A8_UNORM_SRGB images\n",
        ),
        ("Fill(t);", ""),
    ] {
        let script = dir.join("storage.rpsl");
        std::fs::write(
            &script,
            format!(
                "compute node Fill([readwrite(cs)] texture dst);\n\
                 export void main(texture bb)\n{{\n    \
                 texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16);\n    \
                 texture s = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM_SRGB, 16, 16);\n    \
                 {call}\n    copy_texture(bb, t);\n    copy_texture(bb, s);\n}}\n"
            ),
        )
        .unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_rpsl"))
            .args([
                "run",
                script.to_str().unwrap(),
                "--validate",
                "--arg",
                "bb=16x16",
            ])
            .env("XDG_CACHE_HOME", dir.join("cache"))
            .output()
            .expect("the rpsl binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let code = if message.is_empty() { 0 } else { 3 };
        assert_eq!(output.status.code(), Some(code), "{call}: {stderr}");
        assert_eq!(stderr, message, "{call}");
    }
}

/// Stores 0x11223344 into every texel of an `r32ui` storage image.
const FILL_UINT: &str = "#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, r32ui) uniform writeonly uimage2D dst;
void main() { imageStore(dst, ivec2(gl_GlobalInvocationID.xy), uvec4(0x11223344u)); }
";

#[test]
fn storage_images_need_views_of_the_declared_numeric_type() {
    if !vulkan() {
        return;
    }
    let dir = scratch_dir().join("storage_uint");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("FillU.comp"), FILL_UINT).unwrap();
    let out = dir.join("out");
    for (view, message) in [
        (
            "t",
            "error: vulkan: node 0 (`FillU`): binding 0 is a storage image of unsigned integer \
             texels in the shader but parameter `dst` is viewed as R8G8B8A8_UNORM (float \
             texels): view it in a matching format with `.format(...)` or declare the matching \
             image format\n",
        ),
        ("t.format(RPS_FORMAT_R32_UINT)", ""),
    ] {
        let script = dir.join("fill.rpsl");
        std::fs::write(
            &script,
            format!(
                "compute node FillU([readwrite(cs)] texture dst);\n\
                 export void main(texture bb)\n{{\n    \
                 texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);\n    \
                 FillU({view});\n    copy_texture(bb, t);\n}}\n"
            ),
        )
        .unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_rpsl"))
            .args([
                "run",
                script.to_str().unwrap(),
                "--validate",
                "--arg",
                "bb=4x4",
            ])
            .args(["--out", out.to_str().unwrap()])
            .env("XDG_CACHE_HOME", dir.join("cache"))
            .output()
            .expect("the rpsl binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let code = if message.is_empty() { 0 } else { 3 };
        assert_eq!(output.status.code(), Some(code), "{view}: {stderr}");
        assert_eq!(stderr, message, "{view}");
    }
    // The R32_UINT view wrote the uint's little-endian bytes into every RGBA8 texel.
    let (width, height, pixels) = rpsl_vulkan::read_png(&out.join("bb.png")).unwrap();
    assert_eq!((width, height), (4, 4));
    let expected: Vec<u8> = [0x44, 0x33, 0x22, 0x11]
        .into_iter()
        .cycle()
        .take(64)
        .collect();
    assert_eq!(pixels, expected);
}

#[test]
fn a_typeless_resource_is_a_depth_target_or_a_colour_target_per_frame() {
    assert_fails_on_both_backends(
        "typeless_roles.rpsl",
        "export void main(texture bb)\n\
         {\n    texture z = create_tex2d(RPS_FORMAT_R32_TYPELESS, 16, 16);\n    \
         clear_depth(z.format(RPS_FORMAT_D32_FLOAT), 1.0);\n    \
         clear(z.format(RPS_FORMAT_R32_FLOAT), float4(1, 0, 0, 0));\n    \
         copy_texture(bb, z);\n}\n",
        &["--arg", "bb=16x16:R32_FLOAT"],
        &located(
            "typeless_roles.rpsl",
            5,
            "clear: argument `dst`: this R32_TYPELESS resource was a depth target earlier this \
             frame (`clear_depth`), so it cannot also be used as colour (a render target, colour \
             clear, storage write or copy): a typeless resource is a depth image or a colour \
             image for a whole frame",
            "clear(z.format(RPS_FORMAT_R32_FLOAT), float4(1, 0, 0, 0));",
        ),
    );
    assert_fails_on_both_backends(
        "typeless_roles_colour_first.rpsl",
        "graphics node DepthOnly(dsv depth : SV_DepthStencil);\n\
         export void main(texture bb)\n\
         {\n    texture z = create_tex2d(RPS_FORMAT_R16_TYPELESS, 16, 16);\n    \
         clear(z.format(RPS_FORMAT_R16_UNORM), float4(1, 0, 0, 0));\n    \
         DepthOnly(z.format(RPS_FORMAT_D16_UNORM));\n    copy_texture(bb, z);\n}\n",
        &["--arg", "bb=16x16:R16_UNORM"],
        &located(
            "typeless_roles_colour_first.rpsl",
            6,
            "DepthOnly: argument `depth`: this R16_TYPELESS resource was used as colour (a \
             render target, colour clear, storage write or copy) earlier this frame (`clear`), \
             so it cannot also be a depth target: a typeless resource is a depth image or a \
             colour image for a whole frame",
            "DepthOnly(z.format(RPS_FORMAT_D16_UNORM));",
        ),
    );
    // A copy makes it a colour image too: Vulkan copies a depth image to a colour image only
    // through a buffer.
    assert_fails_on_both_backends(
        "typeless_copy.rpsl",
        "export void main(texture bb)\n\
         {\n    texture z = create_tex2d(RPS_FORMAT_R32_TYPELESS, 16, 16);\n    \
         clear_depth(z.format(RPS_FORMAT_D32_FLOAT), 1.0);\n    \
         copy_texture(bb, z);\n}\n",
        &["--arg", "bb=16x16:R32_FLOAT"],
        &located(
            "typeless_copy.rpsl",
            5,
            "copy_texture: argument `src`: this R32_TYPELESS resource was a depth target \
             earlier this frame (`clear_depth`), so it cannot also be used as colour (a render \
             target, colour clear, storage write or copy): a typeless resource is a depth image \
             or a colour image for a whole frame",
            "copy_texture(bb, z);",
        ),
    );
    // One role per frame: depth in one run, colour in another.
    for body in [
        "clear_depth(z.format(RPS_FORMAT_D32_FLOAT), 0.5);\n    clear(bb, float4(0, 0, 0, 0));",
        "clear(z.format(RPS_FORMAT_R32_FLOAT), float4(0.5, 0, 0, 0));\n    copy_texture(bb, z);",
    ] {
        let script = scratch(
            "typeless_one_role.rpsl",
            &format!(
                "export void main(texture bb)\n{{\n    \
                 texture z = create_tex2d(RPS_FORMAT_R32_TYPELESS, 16, 16);\n    {body}\n}}\n"
            ),
        );
        let mut backends = vec![vec!["--backend", "null"]];
        if vulkan() {
            backends.push(vec!["--backend", "vulkan", "--validate"]);
        }
        for backend in backends {
            let mut all = vec![
                "run",
                script.to_str().unwrap(),
                "--arg",
                "bb=16x16:R32_FLOAT",
            ];
            all.extend_from_slice(&backend);
            let output = rpsl(&all);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                output.status.code(),
                Some(0),
                "{body} {backend:?}: {stderr}"
            );
            assert_eq!(stderr, "", "{body} {backend:?}");
        }
    }
}
