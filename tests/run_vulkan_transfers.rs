//! rpsl.h's transfer built-ins from a script on the local Vulkan device (lavapipe in CI), under
//! validation with synchronization validation, in both engines: `copy_texture` (both overloads),
//! `copy_texture_to_buffer`, `copy_buffer` (both overloads) and `copy_buffer_to_texture` chained
//! so that every offset, pitch and extent shows in the pixels read back.
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

#[test]
fn transfer_builtins_move_exact_texels_in_both_engines() {
    if !vulkan_available() {
        return;
    }
    let script = scratch("transfers.rpsl", SCRIPT);
    for mode in ["jit", "interp"] {
        let dir = scratch_dir().join(format!("transfers-{mode}"));
        let _ = std::fs::remove_dir_all(&dir);
        let args = [
            "run",
            script.to_str().unwrap(),
            "--validate",
            "--mode",
            mode,
            "--arg",
            "bb=8x4",
            "--out",
            dir.to_str().unwrap(),
        ];
        let output = rpsl(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{mode}: {stderr}");
        assert!(!stderr.contains("validation"), "{mode}: {stderr}");
        for (name, expected) in [
            ("bb", backbuffer_pixel as fn(u32, u32) -> [u8; 4]),
            ("result", source_pixel),
        ] {
            let (width, height, pixels) =
                rpsl_vulkan::read_png(&dir.join(format!("{name}.png"))).unwrap();
            assert_eq!((width, height), (8, 4), "{mode} {name}");
            for y in 0..4 {
                for x in 0..8 {
                    let at = ((y * 8 + x) * 4) as usize;
                    assert_eq!(
                        pixels[at..at + 4],
                        expected(x, y),
                        "{mode} {name} ({x}, {y})"
                    );
                }
            }
        }
    }
}
