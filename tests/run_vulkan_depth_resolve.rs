//! `rpsl run --backend vulkan` of scripts that resolve multisampled depth (`resolve()` on
//! `RPS_FORMAT_D32_FLOAT`): every mode, whole images and a region whose source and destination
//! offsets differ, under validation with synchronization validation, for several frames; the
//! `out` depth textures are read back from the `--out` PNGs (depth as grey). Samples of one
//! pixel hold the same depth here (a script has no per-sample writes); the backend's own tests
//! (`backends/vulkan/tests/depth_resolve.rs`) cover samples that differ. Skips when no Vulkan
//! device exists unless `RPSL_REQUIRE_VULKAN=1`.

mod run_vulkan_support;

use run_vulkan_support::{rpsl, scratch, scratch_dir, vulkan_available};

/// Grey level of a depth in the PNGs.
fn grey(depth: f32) -> [u8; 4] {
    let v = (depth * 255.0).round() as u8;
    [v, v, v, 255]
}

#[test]
fn depth_resolves_of_a_script_write_exact_depths() {
    if !vulkan_available() {
        return;
    }
    // The source: 0.2 on the left half, 0.6 on the right half (columns 4..8).
    let script = scratch(
        "depth_resolve.rpsl",
        "export void main(out texture averaged, out texture lowest, out texture shifted)\n\
         {\n\
             texture ms = create_tex2d(RPS_FORMAT_D32_FLOAT, 8, 4, 1, 1, 1, 4);\n\
             clear(ms, 0.2, 0);\n\
             int4 rects[1] = { int4(4, 0, 4, 4) };\n\
             clear_depth_stencil_regions(ms, RPS_CLEAR_DEPTH, 0.6, 0, 1, rects);\n\
             averaged = create_tex2d(RPS_FORMAT_D32_FLOAT, 8, 4);\n\
             lowest = create_tex2d(RPS_FORMAT_D32_FLOAT, 8, 4);\n\
             shifted = create_tex2d(RPS_FORMAT_D32_FLOAT, 8, 4);\n\
             clear(shifted, 1.0, 0);\n\
             resolve(averaged, uint2(0, 0), ms, uint2(0, 0), uint2(8, 4), RPS_RESOLVE_MODE_AVERAGE);\n\
             resolve(lowest, uint2(0, 0), ms, uint2(0, 0), uint2(8, 4), RPS_RESOLVE_MODE_MIN);\n\
             resolve(shifted, uint2(1, 1), ms, uint2(2, 0), uint2(4, 2), RPS_RESOLVE_MODE_MAX);\n\
         }\n",
    );
    let dir = scratch_dir().join("depth_resolve");
    let _ = std::fs::remove_dir_all(&dir);
    let output = rpsl(&[
        "run",
        script.to_str().unwrap(),
        "--validate",
        "--frames",
        "3",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("validation"), "{stderr}");
    let source = |x: u32| if x >= 4 { 0.6 } else { 0.2 };
    let check = |name: &str, expected: &dyn Fn(u32, u32) -> f32| {
        let (width, height, pixels) =
            rpsl_vulkan::read_png(&dir.join(format!("{name}.png"))).unwrap();
        assert_eq!((width, height), (8, 4), "{name}");
        for y in 0..4 {
            for x in 0..8 {
                let at = ((y * 8 + x) * 4) as usize;
                assert_eq!(
                    pixels[at..at + 4],
                    grey(expected(x, y)),
                    "{name} ({x}, {y})"
                );
            }
        }
    };
    check("averaged", &|x, _| source(x));
    check("lowest", &|x, _| source(x));
    // Destination (1..5, 1..3) takes source columns 2..6: x - 1 + 2.
    check("shifted", &|x, y| {
        if (1..5).contains(&x) && (1..3).contains(&y) {
            source(x + 1)
        } else {
            1.0
        }
    });
}
