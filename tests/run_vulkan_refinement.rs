//! Memory refinement on the GPU: `rpsl run` searches a steady frame's plan after 30 frames of
//! its structure (blocking, docs/semantics.md "Memory refinement"), and the frames after that
//! run with the searched plan, whose transients share memory differently. They must render the
//! same pixels, clean under validation with synchronization validation (lavapipe in CI).
//! Skips when no Vulkan device exists unless `RPSL_REQUIRE_VULKAN=1`.

mod run_vulkan_support;

use run_vulkan_support::{rpsl, scratch, scratch_dir, vulkan_available};

/// Four lanes of 24 textures whose sizes cycle pseudo-randomly (1 MiB down to 4 KiB): each
/// lane clears its first texture to its colour and carries texel (0, 0) from texture to texture
/// with copies; `result`'s texel `lane` receives the lane's last one. Under the default
/// schedule the lanes advance side by side; the searched one staggers them to hold less.
const LANES: &str = r#"texture sized(uint i)
{
    uint cls = (i * 2654435761u >> 7) & 3;
    if (cls == 0)
        return create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 512, 512);
    if (cls == 1)
        return create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 256, 256);
    if (cls == 2)
        return create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 128, 128);
    return create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 32, 32);
}

export void main(texture bb, out texture result)
{
    clear(bb, float4(0, 0, 0, 1));
    result = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 1);
    clear(result, float4(1, 1, 1, 1));
    for (uint lane = 0; lane < 4; lane++)
    {
        texture head = sized(lane * 97u);
        clear(head, float4(lane == 0 ? 1 : 0, lane == 1 ? 1 : 0, lane == 2 ? 1 : 0, 1));
        for (uint step = 1; step < 24; step++)
        {
            texture next = sized(lane * 97u + step);
            copy_texture(next, uint3(0, 0, 0), head, uint3(0, 0, 0), uint3(1, 1, 1));
            head = next;
        }
        copy_texture(result, uint3(lane, 0, 0), head, uint3(0, 0, 0), uint3(1, 1, 1));
    }
}
"#;

#[test]
fn a_refined_plan_renders_the_same_pixels_under_validation() {
    if !vulkan_available() {
        return;
    }
    let script = scratch("refined_lanes.rpsl", LANES);
    let dir = scratch_dir().join("refined_lanes");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("frames.json");
    let output = rpsl(&[
        "run",
        script.to_str().unwrap(),
        "--validate",
        "--frames",
        "33",
        "--arg",
        "bb=8x8",
        "--dump",
        dump.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("validation"), "{stderr}");
    // Frames 0..=30 (the first and 30 more of one structure) have the default plan; the search
    // runs at the end of frame 30, and frames 31 and 32 have the searched one.
    let dump: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    let heaps: Vec<u64> = dump["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|frame| {
            frame["schedule"]["memory"]["transient_bytes"]
                .as_u64()
                .unwrap()
        })
        .collect();
    let mut expected = vec![7_405_568; 31];
    expected.extend([3_735_552; 2]);
    assert_eq!(heaps, expected);
    // The last frame's texels, carried through 24 aliased textures per lane.
    let (width, height, pixels) = rpsl_vulkan::read_png(&dir.join("result.png")).unwrap();
    assert_eq!((width, height), (4, 1));
    assert_eq!(
        pixels,
        [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 0, 0, 0, 255]
    );
}
