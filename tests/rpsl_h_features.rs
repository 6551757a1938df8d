//! The rpsl.h feature sweep (issue 22): every feature group a script can use — resource
//! creation with each parameter, describe calls, view methods, access attributes and shorthands,
//! semantics, node kinds, built-in nodes, scheduling intrinsics, enums, entry parameters — run
//! through `Program` + `Session` on the null backend under both engines, with exact values checked
//! in the graph dump. `docs/feature-coverage.md` maps each group to these and other tests.
//! Resources, views, enums and HLSL are here; access attributes, shorthands and semantics in
//! `rpsl_h/access.rs`; node kinds, built-in nodes, barriers and scheduling in `rpsl_h/nodes.rs`.

mod rpsl_h;

use rpsl_h::support::*;
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// Resource creation and describe calls.

/// A node that records a `ResourceDesc` (dumped field by field) and a tag.
const PROBE_DESC: &str = "compute node ProbeDesc(ResourceDesc d, uint tag);\n";

#[test]
fn create_calls_pass_every_parameter_into_the_resource() {
    let script = r#"
compute node Keep([readwrite(cs)] texture a, [readwrite(cs)] texture b, [readwrite(cs)] texture c,
                  [readwrite(cs)] buffer d);
export void main()
{
    texture line = create_tex1d(RPS_FORMAT_R32_FLOAT, 256, 4, 3, 2, RPS_RESOURCE_FLAG_PREFER_GPU_LOCAL_CPU_VISIBLE);
    texture msaa = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 32, 1, 6, 1, 4, 0, RPS_RESOURCE_FLAG_PREFER_DEDICATED_ALLOCATION);
    texture volume = create_tex3d(RPS_FORMAT_R11G11B10_FLOAT, 16, 8, 4, 2, 1, RPS_RESOURCE_FLAG_ROWMAJOR_IMAGE);
    buffer history = create_buffer(4096, 2, RPS_RESOURCE_FLAG_PERSISTENT);
    Keep(line, msaa, volume, history);
    texture defaults = create_tex2d(RPS_FORMAT_R16G16_UNORM, 5, 7);
    texture cube = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 6, 1, 1, 0, RPS_RESOURCE_FLAG_CUBEMAP_COMPATIBLE);
    buffer plain = create_buffer(12);
}
"#;
    let frame = frame0(script, &[]);
    assert_eq!(
        resource(&frame, 0),
        json!({"id": 0, "name": "line", "kind": "tex1d", "format": "R32_FLOAT", "width": 256,
               "height": 1, "depth_or_array_size": 3, "mips": 4, "samples": 1,
               "temporal_layers": 2, "flags": ["prefer_gpu_local_cpu_visible"], "external": false})
    );
    assert_eq!(
        resource(&frame, 1),
        json!({"id": 1, "name": "msaa", "kind": "tex2d", "format": "R8G8B8A8_UNORM", "width": 64,
               "height": 32, "depth_or_array_size": 6, "mips": 1, "samples": 4,
               "temporal_layers": 1, "flags": ["prefer_dedicated_allocation"], "external": false})
    );
    assert_eq!(
        resource(&frame, 2),
        json!({"id": 2, "name": "volume", "kind": "tex3d", "format": "R11G11B10_FLOAT",
               "width": 16, "height": 8, "depth_or_array_size": 4, "mips": 2, "samples": 1,
               "temporal_layers": 1, "flags": ["rowmajor_image"], "external": false})
    );
    assert_eq!(
        resource(&frame, 3),
        json!({"id": 3, "name": "history", "kind": "buffer", "format": "UNKNOWN", "width": 4096,
               "height": 1, "depth_or_array_size": 1, "mips": 1, "samples": 1,
               "temporal_layers": 2, "flags": ["persistent"], "external": false})
    );
    assert_eq!(
        resource(&frame, 4),
        json!({"id": 4, "name": "defaults", "kind": "tex2d", "format": "R16G16_UNORM", "width": 5,
               "height": 7, "depth_or_array_size": 1, "mips": 1, "samples": 1,
               "temporal_layers": 1, "flags": [], "external": false})
    );
    assert_eq!(resource(&frame, 5)["flags"], json!(["cubemap_compatible"]));
    assert_eq!(resource(&frame, 5)["depth_or_array_size"], 6);
    assert_eq!(
        (
            resource(&frame, 6)["kind"].clone(),
            resource(&frame, 6)["width"].clone()
        ),
        (json!("buffer"), json!(12))
    );
}

#[test]
fn invalid_creation_parameters_fail_the_frame_at_the_call() {
    let error = frame0_error(
        "export void main()\n{\n    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 32, 1, 2, 1, 1, 0, RPS_RESOURCE_FLAG_CUBEMAP_COMPATIBLE);\n}\n",
    );
    assert_eq!(
        error.lines().next().unwrap(),
        "features.rpsl:3:17: error: invalid resource: a cubemap-compatible texture must be a square \
         2-D texture with at least 6 array layers"
    );
}

#[test]
fn describe_calls_return_every_field() {
    let script = format!(
        "{PROBE_DESC}{}",
        r#"
export void main()
{
    texture line = create_tex1d(RPS_FORMAT_R32_FLOAT, 256, 4, 3, 2, RPS_RESOURCE_FLAG_PREFER_GPU_LOCAL_CPU_VISIBLE);
    texture msaa = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 32, 1, 6, 1, 4);
    texture volume = create_tex3d(RPS_FORMAT_R11G11B10_FLOAT, 16, 8, 4, 2, 1, RPS_RESOURCE_FLAG_ROWMAJOR_IMAGE);
    buffer history = create_buffer(4096, 2, RPS_RESOURCE_FLAG_PERSISTENT);
    ProbeDesc(line.desc(), 0);
    ProbeDesc(describe_texture(msaa), 1);
    ProbeDesc(describe_resource(volume), 2);
    ProbeDesc(describe_buffer(history), 3);
    ProbeDesc(history.desc(), 4);
    ProbeDesc(describe_resource(history.bytes(16, 16)), 5);
    ProbeDesc(msaa.mips(0).array(3).desc(), 6);
    uint w = describe_texture(volume).Width + volume.desc().DepthOrArraySize;
    ProbeDesc(describe_resource(line), w);
}
"#
    );
    let frame = frame0(&script, &[]);
    let desc = |id| arg(&frame, id, "d").clone();
    assert_eq!(
        desc(0),
        json!({"Type": 1, "TemporalLayers": 2, "Flags": 8, "Width": 256, "Height": 1,
               "DepthOrArraySize": 3, "MipLevels": 4, "Format": 41, "SampleCount": 1})
    );
    let msaa = json!({"Type": 2, "TemporalLayers": 1, "Flags": 0, "Width": 64, "Height": 32,
                      "DepthOrArraySize": 6, "MipLevels": 1, "Format": 28, "SampleCount": 4});
    assert_eq!(desc(1), msaa);
    assert_eq!(
        desc(2),
        json!({"Type": 3, "TemporalLayers": 1, "Flags": 4, "Width": 16, "Height": 8,
               "DepthOrArraySize": 4, "MipLevels": 2, "Format": 26, "SampleCount": 1})
    );
    // A buffer's Width/Height are the low/high 32 bits of its byte size.
    let history = json!({"Type": 0, "TemporalLayers": 2, "Flags": 32768, "Width": 4096,
                         "Height": 0, "DepthOrArraySize": 1, "MipLevels": 1, "Format": 0,
                         "SampleCount": 1});
    assert_eq!(desc(3), history);
    assert_eq!(desc(4), history);
    assert_eq!(desc(5), history, "a view describes its whole resource");
    assert_eq!(desc(6), msaa, "a view describes its whole resource");
    assert_eq!(arg(&frame, 7, "tag"), 20, "fields read in script code");
}

#[test]
fn create_texture_and_create_buffer_take_a_description() {
    let script = r#"
compute node Keep([readwrite(cs)] texture t, [readwrite(cs)] buffer b);
export void main()
{
    texture source = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 32, 1, 6, 1, 4);
    ResourceDesc d = source.desc();
    d.Width = 8; d.Height = 4; d.SampleCount = 1; d.DepthOrArraySize = 2; d.MipLevels = 3;
    d.Format = RPS_FORMAT_R16_UINT;
    ResourceDesc bd;
    bd.Type = RPS_RESOURCE_BUFFER; bd.TemporalLayers = 1; bd.Flags = RPS_RESOURCE_FLAG_NONE;
    bd.Width = 100; bd.Height = 0; bd.DepthOrArraySize = 1; bd.MipLevels = 1;
    bd.Format = RPS_FORMAT_UNKNOWN; bd.SampleCount = 1;
    Keep(create_texture(d), create_buffer(bd));
}
"#;
    let frame = frame0(script, &[]);
    assert_eq!(
        resource(&frame, 1),
        json!({"id": 1, "name": null, "kind": "tex2d", "format": "R16_UINT", "width": 8,
               "height": 4, "depth_or_array_size": 2, "mips": 3, "samples": 1,
               "temporal_layers": 1, "flags": [], "external": false})
    );
    assert_eq!(
        resource(&frame, 2),
        json!({"id": 2, "name": null, "kind": "buffer", "format": "UNKNOWN", "width": 100,
               "height": 1, "depth_or_array_size": 1, "mips": 1, "samples": 1,
               "temporal_layers": 1, "flags": [], "external": false})
    );
}

// ---------------------------------------------------------------------------------------------
// Views.

const VIEWS: &str = r#"
compute node Probe([readonly(cs)] texture v, uint tag);
compute node ProbeBuffer([readonly(cs)] buffer v, uint tag);
"#;

/// The identity component mapping (R, G, B, A = bytes 0, 1, 2, 3) of every texture view.
const IDENTITY_MAPPING: u32 = 0x0302_0100;

fn texture_view(
    resource: u32,
    format: &str,
    temporal: u32,
    mips: [u32; 2],
    layers: [u32; 2],
) -> serde_json::Value {
    json!({"resource": resource, "format": format, "temporal": temporal, "flags": 0,
           "mips": mips, "layers": layers, "min_lod": 0, "component_mapping": IDENTITY_MAPPING})
}

#[test]
fn texture_view_methods_set_their_ranges() {
    let script = format!(
        "{VIEWS}{}",
        r#"
export void main()
{
    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16, 5, 4);
    Probe(t, 0);
    Probe(t.mips(2), 1);
    Probe(t.mips(1, 3), 2);
    Probe(t.mips(3, -1), 3);
    Probe(t.array(2), 4);
    Probe(t.array(1, 2), 5);
    Probe(t.array(1, -1).mips(4), 6);
    Probe(t.format(RPS_FORMAT_R8G8B8A8_UNORM_SRGB), 7);
    Probe(create_texture_view(t, 1, 2, 1, 3, 0, RPS_FORMAT_R8G8B8A8_UINT), 8);
    Probe(create_texture_view(t), 9);
}
"#
    );
    let frame = frame0(&script, &[]);
    // (view value, access mips [base, count], access layers [base, count])
    let expected = [
        (
            texture_view(0, "UNKNOWN", 0, [0, 5], [0, 4]),
            [0, 5],
            [0, 4],
        ),
        (
            texture_view(0, "UNKNOWN", 0, [2, 1], [0, 4]),
            [2, 1],
            [0, 4],
        ),
        (
            texture_view(0, "UNKNOWN", 0, [1, 3], [0, 4]),
            [1, 3],
            [0, 4],
        ),
        // -1: every remaining mip; the view keeps the marker, the access resolves it.
        (
            texture_view(0, "UNKNOWN", 0, [3, u32::MAX], [0, 4]),
            [3, 2],
            [0, 4],
        ),
        (
            texture_view(0, "UNKNOWN", 0, [0, 5], [2, 1]),
            [0, 5],
            [2, 1],
        ),
        (
            texture_view(0, "UNKNOWN", 0, [0, 5], [1, 2]),
            [0, 5],
            [1, 2],
        ),
        (
            texture_view(0, "UNKNOWN", 0, [4, 1], [1, u32::MAX]),
            [4, 1],
            [1, 3],
        ),
        (
            texture_view(0, "R8G8B8A8_UNORM_SRGB", 0, [0, 5], [0, 4]),
            [0, 5],
            [0, 4],
        ),
        (
            texture_view(0, "R8G8B8A8_UINT", 0, [1, 2], [1, 3]),
            [1, 2],
            [1, 3],
        ),
        (
            texture_view(0, "UNKNOWN", 0, [0, 1], [0, 1]),
            [0, 1],
            [0, 1],
        ),
    ];
    for (id, (value, mips, layers)) in expected.iter().enumerate() {
        assert_eq!(view(&frame, id, "v"), value, "node {id}");
        let access = access(&frame, id, "v");
        assert_eq!(
            (&access["mips"], &access["layers"]),
            (&json!(mips), &json!(layers)),
            "node {id}"
        );
    }
}

#[test]
fn base_returns_the_whole_default_view() {
    let script = format!(
        "{VIEWS}{}",
        r#"
export void main()
{
    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16, 3, 2);
    Probe(t, 0);
    Probe(t.mips(2).array(1).format(RPS_FORMAT_R8G8B8A8_UNORM_SRGB).base(), 1);
    texture v = create_tex3d(RPS_FORMAT_R8_UNORM, 4, 4, 8, 2);
    Probe(v.mips(1).base(), 2);
    buffer b = create_buffer(100);
    ProbeBuffer(b.bytes(4, 8).stride(4).base(), 3);
}
"#
    );
    let frame = frame0(&script, &[]);
    assert_eq!(view(&frame, 1, "v"), view(&frame, 0, "v"));
    assert_eq!(
        view(&frame, 1, "v"),
        &texture_view(0, "UNKNOWN", 0, [0, 3], [0, 2])
    );
    assert_eq!(
        view(&frame, 2, "v"),
        &texture_view(1, "UNKNOWN", 0, [0, 2], [0, 1])
    );
    assert_eq!(
        view(&frame, 3, "v"),
        &json!({"resource": 2, "format": "UNKNOWN", "temporal": 0, "flags": 0, "offset": 0,
                "size": 100, "stride": 0})
    );
}

#[test]
fn cubemap_and_temporal_views() {
    let script = format!(
        "{VIEWS}{}",
        r#"
compute node ProbeCube([readonly(cs, cubemap)] texture v, uint tag);
export void main(uint frameIndex)
{
    texture cube = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 12, 1, 1, 0, RPS_RESOURCE_FLAG_CUBEMAP_COMPATIBLE);
    ProbeCube(cube.cubemap(), 0);
    ProbeCube(cube.array(6, 6).cubemap(), 1);
    texture history = create_tex2d(RPS_FORMAT_R16G16B16A16_FLOAT, 8, 8, 1, 1, 3);
    Probe(history, 2);
    Probe(history.temporal(1), 3);
    Probe(history.temporal(2).mips(0), 4);
    buffer counts = create_buffer(64, 2);
    ProbeBuffer(counts.temporal(1), 5);
}
"#
    );
    let frame = frame0(&script, &["frameIndex=5"]);
    let cube_bit = |mut v: serde_json::Value| {
        v["flags"] = json!(1);
        v
    };
    assert_eq!(
        view(&frame, 0, "v"),
        &cube_bit(texture_view(0, "UNKNOWN", 0, [0, 1], [0, 12]))
    );
    assert_eq!(
        view(&frame, 1, "v"),
        &cube_bit(texture_view(0, "UNKNOWN", 0, [0, 1], [6, 6]))
    );
    let (args, mode) = attributes(access(&frame, 1, "v"));
    assert_eq!(
        (args, mode.as_str()),
        (vec!["cs".to_string(), "cubemap".to_string()], "readonly")
    );
    assert_eq!(access(&frame, 1, "v")["layers"], json!([6, 6]));
    for (id, temporal) in [(2, 0), (3, 1), (4, 2)] {
        assert_eq!(view(&frame, id, "v")["temporal"], temporal, "node {id}");
        assert_eq!(access(&frame, id, "v")["temporal"], temporal, "node {id}");
    }
    assert_eq!(
        view(&frame, 5, "v"),
        &json!({"resource": 2, "format": "UNKNOWN", "temporal": 1, "flags": 0, "offset": 0,
                "size": 64, "stride": 0})
    );
    assert_eq!(access(&frame, 5, "v")["temporal"], 1);
}

#[test]
fn cubemap_views_need_six_layers_of_a_2d_texture() {
    for (create, what) in [
        (
            "create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 12).array(8, 4)",
            "4 layers",
        ),
        ("create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8)", "1 layer"),
        (
            "create_tex3d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 6)",
            "a 3-D texture",
        ),
    ] {
        let error = frame0_error(&format!(
            "compute node Sample([readonly(cs)] texture v);\nexport void main()\n{{\n    Sample({create}.cubemap());\n}}\n"
        ));
        assert_eq!(
            error.lines().next().unwrap(),
            "features.rpsl:4:5: error: argument `v`: a cubemap view needs a 2-D texture view of at \
             least 6 array layers",
            "{what}"
        );
    }
}

#[test]
fn buffer_view_methods_set_their_ranges() {
    let script = format!(
        "{VIEWS}{}",
        r#"
export void main()
{
    buffer b = create_buffer(100);
    ProbeBuffer(b, 0);
    ProbeBuffer(b.bytes(16, 64), 1);
    ProbeBuffer(b.format(RPS_FORMAT_R32_FLOAT).elements(2, 3), 2);
    ProbeBuffer(b.stride(12).elements(1, 2), 3);
    ProbeBuffer(b.elements(5, 7), 4);
    ProbeBuffer(b.format(RPS_FORMAT_R16G16B16A16_UINT).stride(6).elements(2, 2), 5);
    ProbeBuffer(create_buffer_view(b, 8, 16, 0, RPS_FORMAT_R32_UINT), 6);
    ProbeBuffer(b.bytes(96, 4), 7);
}
"#
    );
    let frame = frame0(&script, &[]);
    let buffer_view = |format: &str, offset: u64, size: u64, stride: u32| {
        json!({"resource": 0, "format": format, "temporal": 0, "flags": 0, "offset": offset,
               "size": size, "stride": stride})
    };
    let expected = [
        buffer_view("UNKNOWN", 0, 100, 0),
        buffer_view("UNKNOWN", 16, 64, 0),
        buffer_view("R32_FLOAT", 8, 12, 0),
        buffer_view("UNKNOWN", 12, 24, 12),
        // Neither stride nor format: one-byte elements.
        buffer_view("UNKNOWN", 5, 7, 0),
        // The stride wins over the format's 8 bytes.
        buffer_view("R16G16B16A16_UINT", 12, 12, 6),
        buffer_view("R32_UINT", 8, 16, 0),
        buffer_view("UNKNOWN", 96, 4, 0),
    ];
    for (id, value) in expected.iter().enumerate() {
        assert_eq!(view(&frame, id, "v"), value, "node {id}");
        // An access's bytes are [offset, size], like a view's.
        assert_eq!(
            access(&frame, id, "v")["bytes"],
            json!([value["offset"], value["size"]]),
            "node {id}"
        );
    }
}

#[test]
fn view_fields_read_in_script_code() {
    let script = r#"
compute node Fields(uint4 texture_fields, uint4 buffer_fields);
export void main()
{
    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16, 4, 3).mips(1, 2).array(2);
    buffer b = create_buffer(64).format(RPS_FORMAT_R32_UINT).elements(3, 5);
    SubResourceRange r = t.SubresourceRange;
    Fields(uint4(r.BaseMipLevel, r.MipLevelCount, r.BaseArrayLayer, r.ArrayLayerCount),
           uint4(b.Resource, b.ViewFormat, uint(b.Offset), uint(b.SizeInBytes)));
}
"#;
    let frame = frame0(script, &[]);
    assert_eq!(arg(&frame, 0, "texture_fields"), &json!([1, 2, 2, 1]));
    assert_eq!(arg(&frame, 0, "buffer_fields"), &json!([1, 42, 12, 20]));
}

#[test]
fn null_views_record_no_access() {
    let script = format!(
        "{VIEWS}{}",
        r#"
compute node Pair([readonly(cs)] texture optional, [readwrite(cs)] buffer required);
export void main()
{
    texture none = null;
    buffer b = create_buffer(16);
    Pair(none, b);
    Pair(null, b);
}
"#
    );
    let frame = frame0(&script, &[]);
    for id in 0..2 {
        assert_eq!(arg(&frame, id, "optional"), &json!({"view": null}));
        let params: Vec<_> = accesses(&frame, id)
            .iter()
            .map(|a| a["param"].clone())
            .collect();
        assert_eq!(params, [json!("required")], "node {id}");
    }
}

// ---------------------------------------------------------------------------------------------
// Enums.

#[test]
fn enum_values_match_rpsl_h() {
    let script = r#"
compute node Values(uint v[24]);
export void main()
{
    uint v[24] = {
        RPS_FORMAT_UNKNOWN, RPS_FORMAT_R32G32B32A32_FLOAT, RPS_FORMAT_D32_FLOAT,
        RPS_FORMAT_D24_UNORM_S8_UINT, RPS_FORMAT_R10G10B10_XR_BIAS_A2_UNORM,
        RPS_FORMAT_B8G8R8X8_UNORM_SRGB, RPS_FORMAT_BC7_UNORM_SRGB, RPS_FORMAT_B4G4R4A4_UNORM,
        RPS_RESOURCE_TEX3D, RPS_RESOURCE_FLAG_CUBEMAP_COMPATIBLE,
        RPS_RESOURCE_FLAG_PREFER_DEDICATED_ALLOCATION, RPS_RESOURCE_FLAG_PERSISTENT,
        RPS_RESOURCE_VIEW_FLAG_CUBEMAP_BIT, RPS_CLEAR_COLOR, RPS_CLEAR_DEPTHSTENCIL,
        RPS_CLEAR_UAV_FLOAT, RPS_CLEAR_UAV_UINT, RPS_RESOLVE_MODE_AVERAGE, RPS_RESOLVE_MODE_MIN,
        RPS_RESOLVE_MODE_MAX, RPS_RESOLVE_MODE_DECODE_SAMPLER_FEEDBACK,
        RPS_FORMAT_R8G8B8A8_UNORM | 0, RPS_RESOURCE_FLAG_ROWMAJOR_IMAGE | RPS_RESOURCE_FLAG_PERSISTENT,
        RPS_FORMAT_NV12
    };
    Values(v);
}
"#;
    let frame = frame0(script, &[]);
    assert_eq!(
        arg(&frame, 0, "v"),
        &json!([
            0, 2, 40, 45, 89, 93, 99, 115, 3, 2, 16, 32768, 1, 1, 6, 8, 16, 0, 1, 2, 4, 28, 32772,
            103
        ])
    );
}

// ---------------------------------------------------------------------------------------------
// The HLSL subset scripts use.

#[test]
fn hlsl_statements_and_expressions_compute_exact_values() {
    let script = r#"
compute node Out(uint4 u, int4 i, float4 f, bool2 b);
struct Pair { uint a; float b; };
uint fib(uint n) { uint x = 0; uint y = 1; for (uint k = 0; k < n; ++k) { uint t = x + y; x = y; y = t; } return x; }
void bump(inout uint v, out float w) { v += 5; w = 0.5; }
export void main(uint n)
{
    uint total = 0;
    uint k = 0;
    while (k < n) { if (k % 2 == 0) { k++; continue; } total += k; k++; }
    do { total *= 2; } while (total < 100);
    int s = 0;
    switch (n) { case 3: s = 30; break; case 4: s = 40; break; default: s = -1; }
    Pair p; p.a = fib(10); p.b = 1.5;
    uint v = 1; float w = 0;
    bump(v, w);
    float3 c = float3(1, 2, 3) * 2 + float3(0.5, 0.5, 0.5);
    int4 swz = int4(1, 2, 3, 4).wzyx;
    uint packed = (0xF0u >> 4) | (1u << 8) ^ 3u;
    Out(uint4(total, p.a, v, packed), int4(s, swz.x, -7 / 2, -7 % 2),
        float4(c.z, n > 3 ? 1.0 : -1.0, p.b + w, float(int(-2.75))),
        bool2(any(c > 6.0), all(swz > 0)));
}
"#;
    let frame = frame0(script, &["n=4"]);
    // total: odd k < 4 are 1 and 3 -> 4, doubled to 128; fib(10) = 55; v = 6;
    // packed = 0x0F | (0x100 ^ 3) = 0x10F.
    assert_eq!(arg(&frame, 0, "u"), &json!([128, 55, 6, 271]));
    // HLSL integer division and remainder truncate toward zero.
    assert_eq!(arg(&frame, 0, "i"), &json!([40, 4, -3, -1]));
    assert_eq!(arg(&frame, 0, "f"), &json!([6.5, 1, 2, -2]));
    assert_eq!(arg(&frame, 0, "b"), &json!([true, true]));
}

#[test]
fn hlsl_macros_constants_nested_structs_and_intrinsics() {
    let script = r#"
#define SCALE(x) ((x) * 3)
static const uint kSizes[3] = { 4, 8, 16 };
compute node Out(uint4 u, int4 i, float4 f, uint2 bits);
struct Inner { uint v[2]; };
struct Outer { Inner inner; float w; };
uint sum(Outer o) { return o.inner.v[0] + o.inner.v[1]; }
export void main(uint n)
{
    Outer o;
    o.inner.v[0] = 3;
    o.inner.v[1] = 4;
    o.w = 2;
    uint acc = 0;
    [unroll] for (uint i = 0; i < 3; i++) { if (kSizes[i] > 8) break; acc += kSizes[i]; }
    // `&&` short-circuits: the division by n - 4 = 0 never runs.
    uint guard = (n > 100 && (acc / (n - 4)) > 0) ? 1 : 0;
    int neg = -5;
    float3 v = normalize(float3(3, 0, 4));
    Out(uint4(SCALE(acc), sum(o), guard, uint(-1)),
        int4(neg >> 1, abs(neg), min(neg, 2), max(-3, neg)),
        float4(v.x, v.z, lerp(1.0, 3.0, 0.25), frac(2.75)),
        uint2(asuint(1.0f), countbits(0xF0F0u)));
}
"#;
    let frame = frame0(script, &["n=4"]);
    assert_eq!(arg(&frame, 0, "u"), &json!([36, 7, 0, 4_294_967_295u32]));
    // `>>` of a negative int is arithmetic.
    assert_eq!(arg(&frame, 0, "i"), &json!([-3, 5, -5, -3]));
    assert_eq!(arg(&frame, 0, "f"), &json!([0.6, 0.8, 1.5, 0.75]));
    assert_eq!(arg(&frame, 0, "bits"), &json!([0x3F80_0000u32, 8]));
}
