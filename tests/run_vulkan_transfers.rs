//! rpsl.h's transfer and clear built-ins from a script on the local Vulkan device (lavapipe in
//! CI), under validation with synchronization validation, in both engines: `copy_texture` (both
//! overloads), `copy_texture_to_buffer`, `copy_buffer` (both overloads) and
//! `copy_buffer_to_texture` chained so that every offset, pitch and extent shows in the pixels
//! read back; `clear_texture`, clears of single mips, a whole copy from a mip view, and a
//! `resolve` into an offset region.
//! Skips when no Vulkan device exists unless `RPSL_REQUIRE_VULKAN=1`.

mod run_vulkan_support;

use run_vulkan_support::{rpsl, scratch, scratch_dir, vulkan_available};

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];

/// An 8x4 source, red with a green 2x2 square at (6, 2), goes to a buffer (8 texels of 4 bytes
/// a row, 32-byte pitch), is copied whole to a second buffer and then again one row up (bytes
/// 32..128 to 0..96), and comes back into the blue backbuffer one texel to the right. `result`
/// is a whole copy of the source.
const SCRIPT: &str = r#"export void main(texture bb, out texture result)
{
    texture src = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 4);
    clear(src, float4(1, 0, 0, 1));
    texture green = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 2, 2);
    clear(green, float4(0, 1, 0, 1));
    copy_texture(src, uint3(6, 2, 0), green, uint3(0, 0, 0), uint3(2, 2, 1));
    buffer staging = create_buffer(128);
    copy_texture_to_buffer(staging, 0, 32, uint3(8, 4, 1), uint3(0, 0, 0), src, uint3(0, 0, 0), uint3(8, 4, 1));
    buffer shifted = create_buffer(128);
    copy_buffer(shifted, staging);
    copy_buffer(shifted, 0, staging, 32, 96);
    clear(bb, float4(0, 0, 1, 1));
    copy_buffer_to_texture(bb, uint3(1, 0, 0), shifted, 0, 32, uint3(8, 4, 1), uint3(0, 0, 0), uint3(7, 4, 1));
    result = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 4);
    copy_texture(result, src);
}
"#;

fn source_pixel(x: u32, y: u32) -> [u8; 4] {
    if x >= 6 && y >= 2 {
        GREEN
    } else {
        RED
    }
}

fn backbuffer_pixel(x: u32, y: u32) -> [u8; 4] {
    if x == 0 {
        BLUE
    } else {
        // Row y of the shifted buffer is source row y + 1; its last row kept source row 3.
        source_pixel(x - 1, (y + 1).min(3))
    }
}

/// A texture `--out` writes: its name, width, height, and the pixel expected at (x, y).
type ExpectedImage<'a> = (&'a str, u32, u32, &'a dyn Fn(u32, u32) -> [u8; 4]);

/// Runs `script` under validation in both engines with `--arg bb=WxH` and checks every pixel
/// of each `(name, width, height, expected)` texture written by `--out`.
fn assert_pixels_in_both_engines(
    name: &str,
    script: &str,
    backbuffer: &str,
    images: &[ExpectedImage<'_>],
) {
    let script = scratch(&format!("{name}.rpsl"), script);
    for mode in ["jit", "interp"] {
        let dir = scratch_dir().join(format!("{name}-{mode}"));
        let _ = std::fs::remove_dir_all(&dir);
        let bb = format!("bb={backbuffer}");
        let args = [
            "run",
            script.to_str().unwrap(),
            "--validate",
            "--mode",
            mode,
            "--arg",
            &bb,
            "--out",
            dir.to_str().unwrap(),
        ];
        let output = rpsl(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{mode}: {stderr}");
        assert!(!stderr.contains("validation"), "{mode}: {stderr}");
        for (image, width, height, expected) in images {
            let (w, h, pixels) = rpsl_vulkan::read_png(&dir.join(format!("{image}.png"))).unwrap();
            assert_eq!((w, h), (*width, *height), "{mode} {image}");
            for y in 0..h {
                for x in 0..w {
                    let at = ((y * w + x) * 4) as usize;
                    assert_eq!(
                        pixels[at..at + 4],
                        expected(x, y),
                        "{mode} {image} ({x}, {y})"
                    );
                }
            }
        }
    }
}

#[test]
fn transfer_builtins_move_exact_texels_in_both_engines() {
    if !vulkan_available() {
        return;
    }
    assert_pixels_in_both_engines(
        "transfers",
        SCRIPT,
        "8x4",
        &[
            ("bb", 8, 4, &backbuffer_pixel),
            ("result", 8, 4, &source_pixel),
        ],
    );
}

/// `clear_texture` with float data, a `resolve` of a 2x1 region to offset (2, 1), and a whole
/// copy from the second mip of a texture whose mips were cleared one by one.
const CLEARS_AND_RESOLVE: &str = r#"export void main(texture bb, out texture a, out texture b, out texture c)
{
    a = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 2);
    clear_texture(a, RPS_CLEAR_UAV_FLOAT, asuint(float4(1, 0, 1, 1)));
    texture ms = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 2, 1, 1, 1, 4);
    clear(ms, float4(0, 1, 1, 1));
    b = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 2);
    clear(b, float4(0, 0, 0, 1));
    resolve(b, uint2(2, 1), ms, uint2(0, 0), uint2(2, 1), RPS_RESOLVE_MODE_AVERAGE);
    texture mipped = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 4, 2);
    clear(mipped.mips(0), float4(1, 1, 1, 1));
    clear(mipped.mips(1), float4(1, 0, 0, 1));
    c = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 2);
    copy_texture(c, mipped.mips(1));
    clear(bb, float4(0, 0, 0, 1));
}
"#;

#[test]
fn clears_mip_copies_and_offset_resolves_are_exact_in_both_engines() {
    if !vulkan_available() {
        return;
    }
    const MAGENTA: [u8; 4] = [255, 0, 255, 255];
    const CYAN: [u8; 4] = [0, 255, 255, 255];
    const BLACK: [u8; 4] = [0, 0, 0, 255];
    let resolved = |x: u32, y: u32| if x >= 2 && y == 1 { CYAN } else { BLACK };
    assert_pixels_in_both_engines(
        "clears_and_resolve",
        CLEARS_AND_RESOLVE,
        "4x2",
        &[
            ("a", 4, 2, &|_, _| MAGENTA),
            ("b", 4, 2, &resolved),
            ("c", 4, 2, &|_, _| RED),
        ],
    );
}
