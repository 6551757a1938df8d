//! Node kinds and queues, the built-in nodes, barriers from access attributes, and the
//! scheduling intrinsics.

use super::access::attrs;
use super::support::*;
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// Node kinds and queues.

#[test]
fn node_kinds_and_async_pick_queues() {
    let script = r#"
node Plain(rtv rt : SV_Target0);
graphics node Draw([readonly(ps)] texture src, rtv rt : SV_Target0);
compute node Blur([readonly(cs)] texture src, [writeonly(cs)] texture dst);
copy node Upload([writeonly(copy)] texture dst, [readonly(copy)] texture src);
export void main([readonly(present)] texture backbuffer)
{
    texture a = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64);
    texture b = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64);
    texture c = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64);
    Plain(a);
    async Blur(a, b);
    Upload(c, b);
    Blur(c, a);
    Draw(a, backbuffer);
}
"#;
    let frame = frame0(script, &["backbuffer=64x64"]);
    let kinds: Vec<_> = frame["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["name"].clone(), n["queue"].clone(), n["async"].clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            (json!("Plain"), json!("graphics"), json!(false)),
            (json!("Blur"), json!("compute"), json!(true)),
            (json!("Upload"), json!("copy"), json!(false)),
            (json!("Blur"), json!("compute"), json!(false)),
            (json!("Draw"), json!("graphics"), json!(false)),
        ]
    );
    let schedule = &frame["schedule"];
    assert_eq!(schedule["order"], json!([0, 1, 2, 3, 4]));
    // Only the `async` call leaves the graphics queue.
    assert_eq!(
        schedule["node_queues"],
        json!({"0": 0, "1": 1, "2": 0, "3": 0, "4": 0})
    );
    assert_eq!(schedule["queues"], json!({"0": "graphics", "1": "compute"}));
}

// ---------------------------------------------------------------------------------------------
// Built-in nodes.

/// One access of a built-in: its access arguments, mode, and planes (texture) or bytes (buffer).
type AccessSummary = (Vec<String>, String, serde_json::Value);

/// A built-in node call: its name, queue and accesses.
type NodeSummary = (String, String, Vec<AccessSummary>);

/// `(name, queue, [(access arguments, mode, planes or bytes)])` of node `id`.
fn builtin_summary(frame: &serde_json::Value, id: usize) -> NodeSummary {
    let node = node(frame, id);
    let accesses = accesses(frame, id)
        .iter()
        .map(|a| {
            let (args, mode) = attributes(a);
            let extent = a.get("planes").or_else(|| a.get("bytes")).cloned().unwrap();
            (args, mode, extent)
        })
        .collect();
    (
        node["name"].as_str().unwrap().to_string(),
        node["queue"].as_str().unwrap().to_string(),
        accesses,
    )
}

fn summary(
    name: &str,
    queue: &str,
    accesses: &[(&[&str], &str, serde_json::Value)],
) -> NodeSummary {
    (
        name.to_string(),
        queue.to_string(),
        accesses
            .iter()
            .map(|(args, mode, extent)| {
                let (args, mode) = attrs(args, mode);
                (args, mode, extent.clone())
            })
            .collect(),
    )
}

#[test]
fn builtin_clears_record_their_accesses_and_values() {
    let script = r#"
export void main()
{
    texture c = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16);
    texture u = create_tex2d(RPS_FORMAT_R32_UINT, 16, 16);
    texture ds = create_tex2d(RPS_FORMAT_D32_FLOAT_S8X24_UINT, 16, 16);
    buffer b = create_buffer(256);
    buffer b2 = create_buffer(256);
    clear(c, float4(0.5, 0, 0, 1));
    clear(u, uint4(1, 2, 3, 4));
    clear(ds, 0.5, 7);
    clear_depth(ds, 0.25);
    clear_stencil(ds, 9);
    clear(b, float4(1, 2, 3, 4));
    clear(b2, uint4(5, 6, 7, 8));
    int4 rects[2] = { int4(0, 0, 4, 4), int4(8, 8, 2, 2) };
    clear_color_regions(c, float4(1, 1, 0, 1), 2, rects);
    clear_depth_stencil_regions(ds, RPS_CLEAR_DEPTHSTENCIL, 1.0, 2, 1, rects);
    clear_texture_regions(u, uint4(9, 9, 9, 9), 1, rects);
    clear_texture(u, RPS_CLEAR_UAV_UINT, uint4(3, 3, 3, 3));
    clear_buffer(b.bytes(16, 32), RPS_CLEAR_UAV_FLOAT, uint4(1, 1, 1, 1));
}
"#;
    let frame = frame0(script, &[]);
    let target = &["rendertarget", "clear", "discard_before"][..];
    let expected = [
        summary("clear", "graphics", &[(target, "writeonly", json!(1))]),
        summary("clear", "graphics", &[(target, "writeonly", json!(1))]),
        summary(
            "clear",
            "graphics",
            &[(
                &["depth", "stencil", "clear", "discard_before"],
                "writeonly",
                json!(3),
            )],
        ),
        summary(
            "clear_depth",
            "graphics",
            &[(&["depth", "clear", "discard_before"], "writeonly", json!(1))],
        ),
        summary(
            "clear_stencil",
            "graphics",
            &[(
                &["stencil", "clear", "discard_before"],
                "writeonly",
                json!(2),
            )],
        ),
        summary(
            "clear",
            "graphics",
            &[(&["clear"], "readwrite", json!([0, 256]))],
        ),
        summary(
            "clear",
            "graphics",
            &[(&["clear"], "readwrite", json!([0, 256]))],
        ),
        summary(
            "clear_color_regions",
            "graphics",
            &[(&["rendertarget", "clear"], "readwrite", json!(1))],
        ),
        summary(
            "clear_depth_stencil_regions",
            "graphics",
            &[(&["depth", "stencil", "clear"], "readwrite", json!(3))],
        ),
        summary(
            "clear_texture_regions",
            "compute",
            &[(&["clear"], "readwrite", json!(1))],
        ),
        summary(
            "clear_texture",
            "compute",
            &[(&["clear", "discard_before"], "writeonly", json!(1))],
        ),
        summary(
            "clear_buffer",
            "compute",
            &[(&["clear", "discard_before"], "writeonly", json!([16, 32]))],
        ),
    ];
    for (id, expected) in expected.iter().enumerate() {
        assert_eq!(&builtin_summary(&frame, id), expected, "node {id}");
    }
    let values = [
        ("clearValue", json!([0.5, 0, 0, 1])),
        ("clearValue", json!([1, 2, 3, 4])),
        ("depth", json!(0.5)),
        ("depth", json!(0.25)),
        ("stencil", json!(9)),
        ("val", json!([1, 2, 3, 4])),
        ("val", json!([5, 6, 7, 8])),
        ("data", json!([1, 1, 0, 1])),
        ("option", json!(6)),
        ("data", json!([9, 9, 9, 9])),
        ("option", json!(16)),
        ("option", json!(8)),
    ];
    for (id, (param, value)) in values.iter().enumerate() {
        assert_eq!(arg(&frame, id, param), value, "node {id}");
    }
    assert_eq!(arg(&frame, 2, "stencil"), 7);
    assert_eq!(
        arg(&frame, 7, "rects"),
        &json!([[0, 0, 4, 4], [8, 8, 2, 2]])
    );
    assert_eq!(
        (
            arg(&frame, 8, "d"),
            arg(&frame, 8, "s"),
            arg(&frame, 8, "numRects")
        ),
        (&json!(1), &json!(2), &json!(1))
    );
    assert_eq!(accesses(&frame, 7)[0]["semantic"], "SV_Target0");
}

#[test]
fn builtin_copies_and_resolve_record_their_accesses_and_values() {
    let script = r#"
export void main([readonly(present)] texture backbuffer)
{
    texture c = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16);
    texture c2 = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16);
    buffer b = create_buffer(256);
    buffer b2 = create_buffer(256);
    copy_texture(c2, c);
    copy_texture(c2, uint3(1, 2, 0), c, uint3(3, 4, 0), uint3(4, 4, 1));
    copy_buffer(b2, b);
    copy_buffer(b2, 8, b, 16, 32);
    copy_texture_to_buffer(b, 0, 64, uint3(4, 4, 1), uint3(0, 0, 0), c, uint3(0, 0, 0), uint3(4, 4, 1));
    copy_buffer_to_texture(c2, uint3(2, 2, 0), b, 16, 64, uint3(4, 4, 1), uint3(0, 0, 0), uint3(4, 4, 1));
    texture ms = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16, 1, 1, 1, 4);
    clear(ms, float4(0, 0, 0, 0));
    resolve(backbuffer, uint2(0, 0), ms, uint2(0, 0), uint2(16, 16), RPS_RESOLVE_MODE_AVERAGE);
}
"#;
    let frame = frame0(script, &["backbuffer=16x16"]);
    let copy_dst = &["copy"][..];
    let expected = [
        summary(
            "copy_texture",
            "graphics",
            &[
                (&["copy", "discard_before"], "writeonly", json!(1)),
                (copy_dst, "readonly", json!(1)),
            ],
        ),
        summary(
            "copy_texture",
            "copy",
            &[
                (copy_dst, "readwrite", json!(1)),
                (copy_dst, "readonly", json!(1)),
            ],
        ),
        summary(
            "copy_buffer",
            "graphics",
            &[
                (copy_dst, "readwrite", json!([0, 256])),
                (copy_dst, "readonly", json!([0, 256])),
            ],
        ),
        summary(
            "copy_buffer",
            "copy",
            &[
                (copy_dst, "readwrite", json!([0, 256])),
                (copy_dst, "readonly", json!([0, 256])),
            ],
        ),
        summary(
            "copy_texture_to_buffer",
            "copy",
            &[
                (copy_dst, "readwrite", json!([0, 256])),
                (copy_dst, "readonly", json!(1)),
            ],
        ),
        summary(
            "copy_buffer_to_texture",
            "copy",
            &[
                (copy_dst, "readwrite", json!(1)),
                (copy_dst, "readonly", json!([0, 256])),
            ],
        ),
        summary(
            "clear",
            "graphics",
            &[(
                &["rendertarget", "clear", "discard_before"],
                "writeonly",
                json!(1),
            )],
        ),
        summary(
            "resolve",
            "graphics",
            &[
                (&["resolve"], "readwrite", json!(1)),
                (&["resolve"], "readonly", json!(1)),
            ],
        ),
    ];
    for (id, expected) in expected.iter().enumerate() {
        assert_eq!(&builtin_summary(&frame, id), expected, "node {id}");
    }
    let scalars = |id: usize, params: &[&str]| -> Vec<serde_json::Value> {
        params.iter().map(|p| arg(&frame, id, p).clone()).collect()
    };
    assert_eq!(
        scalars(1, &["dstOffset", "srcOffset", "extent"]),
        [json!([1, 2, 0]), json!([3, 4, 0]), json!([4, 4, 1])]
    );
    assert_eq!(
        scalars(3, &["dstOffset", "srcOffset", "size"]),
        [json!(8), json!(16), json!(32)]
    );
    assert_eq!(
        scalars(
            4,
            &[
                "dstByteOffset",
                "rowPitch",
                "bufferImageSize",
                "dstOffset",
                "srcOffset",
                "extent"
            ]
        ),
        [
            json!(0),
            json!(64),
            json!([4, 4, 1]),
            json!([0, 0, 0]),
            json!([0, 0, 0]),
            json!([4, 4, 1])
        ]
    );
    assert_eq!(
        scalars(
            5,
            &[
                "dstOffset",
                "srcByteOffset",
                "rowPitch",
                "bufferImageSize",
                "srcOffset",
                "extent"
            ]
        ),
        [
            json!([2, 2, 0]),
            json!(16),
            json!(64),
            json!([4, 4, 1]),
            json!([0, 0, 0]),
            json!([4, 4, 1])
        ]
    );
    assert_eq!(
        scalars(7, &["dstOffset", "srcOffset", "extent", "resolveMode"]),
        [json!([0, 0]), json!([0, 0]), json!([16, 16]), json!(0)]
    );
    // Nothing reads the copies' destinations: only the clear and the resolve into the
    // external backbuffer survive.
    assert_eq!(frame["schedule"]["order"], json!([6, 7]));
    assert_eq!(frame["schedule"]["culled"], json!([0, 1, 2, 3, 4, 5]));
}

#[test]
fn builtin_transfer_arguments_are_checked_at_the_call() {
    let error = frame0_error(
        "export void main()\n{\n    texture c = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16);\n    buffer b = create_buffer(64);\n    copy_texture_to_buffer(b, 0, 64, uint3(4, 4, 1), uint3(0, 0, 0), c, uint3(0, 0, 0), uint3(4, 4, 1));\n}\n",
    );
    assert_eq!(
        error.lines().next().unwrap(),
        "features.rpsl:5:5: error: copy_texture_to_buffer: the buffer range 0..0+208 goes past the \
         end of its view (64 bytes)"
    );
}

// ---------------------------------------------------------------------------------------------
// Barriers from access attributes.

// Vulkan values the planner uses (VK_PIPELINE_STAGE_2_*, VK_ACCESS_2_*, VK_IMAGE_LAYOUT_*).
const STAGE_COLOR_OUTPUT: u64 = 0x400;
const STAGE_FRAGMENT: u64 = 0x80;
const STAGE_BOTTOM: u64 = 0x2000;
const STAGE_ALL_COMMANDS: u64 = 0x1_0000;
const ACCESS_COLOR_WRITE: u64 = 0x100;
const ACCESS_COLOR_READ_WRITE: u64 = 0x80 | 0x100;
const ACCESS_MEMORY_WRITE: u64 = 0x1_0000;
const ACCESS_SAMPLED_READ: u64 = 0x1_0000_0000;
const LAYOUT_UNDEFINED: u64 = 0;
const LAYOUT_COLOR_ATTACHMENT: u64 = 2;
const LAYOUT_SHADER_READ_ONLY: u64 = 5;
const LAYOUT_PRESENT_SRC: u64 = 1_000_001_002;

fn barrier(resource: u32, src: (u64, u64, u64), dst: (u64, u64, u64)) -> serde_json::Value {
    json!({"resource": resource, "lo": [0, 0, 0], "hi": [1, 1, 1],
           "src_stages": src.0, "src_access": src.1, "dst_stages": dst.0, "dst_access": dst.1,
           "old_layout": src.2, "new_layout": dst.2})
}

#[test]
fn access_attributes_decide_the_barriers() {
    let script = r#"
graphics node Draw(rtv rt : SV_Target0);
graphics node Compose([readonly(ps)] texture src, rtv rt : SV_Target0);
export void main([readonly(present)] texture backbuffer)
{
    texture scene = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8);
    Draw(scene);
    Compose(scene, backbuffer);
}
"#;
    let frame = frame0(script, &["backbuffer=8x8"]);
    assert_eq!(frame["schedule"]["order"], json!([0, 1]));
    assert_eq!(
        barriers(&frame),
        [
            // Before Draw: the transient starts undefined; nothing to wait for.
            (
                0,
                barrier(
                    1,
                    (0, 0, LAYOUT_UNDEFINED),
                    (
                        STAGE_COLOR_OUTPUT,
                        ACCESS_COLOR_READ_WRITE,
                        LAYOUT_COLOR_ATTACHMENT
                    )
                )
            ),
            // Before Compose: the render target becomes a pixel-shader read, and the external
            // backbuffer (first used here) leaves its present layout.
            (
                1,
                barrier(
                    1,
                    (
                        STAGE_COLOR_OUTPUT,
                        ACCESS_COLOR_WRITE,
                        LAYOUT_COLOR_ATTACHMENT
                    ),
                    (STAGE_FRAGMENT, ACCESS_SAMPLED_READ, LAYOUT_SHADER_READ_ONLY)
                )
            ),
            (
                1,
                barrier(
                    0,
                    (STAGE_ALL_COMMANDS, ACCESS_MEMORY_WRITE, LAYOUT_PRESENT_SRC),
                    (
                        STAGE_COLOR_OUTPUT,
                        ACCESS_COLOR_READ_WRITE,
                        LAYOUT_COLOR_ATTACHMENT
                    )
                )
            ),
            // After the frame the external backbuffer returns to its present layout.
            (
                2,
                barrier(
                    0,
                    (
                        STAGE_COLOR_OUTPUT,
                        ACCESS_COLOR_WRITE,
                        LAYOUT_COLOR_ATTACHMENT
                    ),
                    (STAGE_BOTTOM, 0, LAYOUT_PRESENT_SRC)
                )
            ),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Scheduling intrinsics.

#[test]
fn scheduling_intrinsics_mark_the_recorded_graph() {
    let script = r#"
compute node Step([readwrite(cs)] texture t, uint tag);
[subgraph(atomic, sequential)]
void pair(texture t, uint first)
{
    Step(t, first);
    Step(t, first + 1);
}
export void main([readonly(present)] texture backbuffer)
{
    Step(backbuffer, 0);
    sch_barrier();
    pair(backbuffer, 1);
    [subgraph(atomic)]
    {
        Step(backbuffer, 3);
    }
    sch_barrier();
    Step(backbuffer, 4);
}
"#;
    let program = rpsl::Program::from_source("features.rpsl", script).unwrap();
    let mut recorded = Vec::new();
    for mode in [rpsl::Mode::Jit, rpsl::Mode::Interp] {
        let options = rpsl::SessionOptions {
            mode,
            ..rpsl::SessionOptions::default()
        };
        let mut session = rpsl::Session::new(&program, None, options).unwrap();
        let args = rpsl::EntryArgs::parse(&program, session.entry(), [""; 0]).unwrap();
        let frame = session.run_frame(&args).unwrap();
        let graph = frame.graph;
        let epochs: Vec<u32> = graph.nodes.iter().map(|n| n.barrier_epoch).collect();
        let subgraphs: Vec<_> = graph
            .subgraphs
            .iter()
            .map(|s| (s.first_node, s.end_node, s.atomic, s.sequential, s.parent))
            .collect();
        let order: Vec<u32> = frame.compiled.order.iter().map(|n| n.0).collect();
        recorded.push((graph.barrier_count, epochs, subgraphs, order));
    }
    assert_eq!(
        recorded[0], recorded[1],
        "the JIT and the interpreter differ"
    );
    let (barrier_count, epochs, subgraphs, order) = &recorded[0];
    assert_eq!(*barrier_count, 2);
    assert_eq!(epochs, &[0, 1, 1, 1, 2]);
    assert_eq!(
        subgraphs,
        &[(1, 3, true, true, None), (3, 4, true, false, None)]
    );
    assert_eq!(order, &[0, 1, 2, 3, 4]);
}

/// A colour clear of a depth texture (and a depth clear of a colour texture) records an access
/// the format cannot take: a located error at the call on every backend (the view-format check
/// of the builder; on Vulkan the first one used to crash the driver with SIGSEGV).
#[test]
fn attachment_accesses_must_suit_the_format() {
    for (format, clear, message) in [
        (
            "D32_FLOAT",
            "clear(t, float4(0, 0, 0, 0));",
            "a render target or colour clear needs an uncompressed colour format; \
             view format D32_FLOAT (the resource's) is not one",
        ),
        (
            "R8G8B8A8_UNORM",
            "clear(t, 1.0, 0);",
            "a depth/stencil access needs a depth/stencil format; \
             view format R8G8B8A8_UNORM (the resource's) has no depth or stencil",
        ),
    ] {
        let error = frame0_error(&format!(
            "export void main()\n{{\n    texture t = create_tex2d(RPS_FORMAT_{format}, 8, 8);\n    {clear}\n}}\n"
        ));
        assert_eq!(
            error.lines().next().unwrap(),
            format!("features.rpsl:4:5: error: clear: argument `dst`: {message}"),
            "{format}"
        );
    }
}

#[test]
fn node_handles_become_explicit_dependencies() {
    let script = r#"
compute node Produce([readwrite(cs)] texture t);
compute node Consume([readwrite(cs)] texture u, node after);
export void main([readonly(present)] texture backbuffer, out [readonly(cs)] texture other)
{
    other = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8);
    node p = Produce(backbuffer);
    Consume(other, p);
    texture scratch = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8);
    Consume(scratch, p);
}
"#;
    let frame = frame0(script, &[]);
    assert_eq!(arg(&frame, 1, "after"), &json!({"node": 0}));
    assert_eq!(arg(&frame, 2, "after"), &json!({"node": 0}));
    // Nothing reads `scratch`: its Consume is culled, the handle does not keep it.
    assert_eq!(frame["schedule"]["order"], json!([0, 1]));
    assert_eq!(frame["schedule"]["culled"], json!([2]));

    let program = rpsl::Program::from_source("features.rpsl", script).unwrap();
    for mode in [rpsl::Mode::Jit, rpsl::Mode::Interp] {
        let options = rpsl::SessionOptions {
            mode,
            ..rpsl::SessionOptions::default()
        };
        let mut session = rpsl::Session::new(&program, None, options).unwrap();
        let args = rpsl::EntryArgs::parse(&program, session.entry(), [""; 0]).unwrap();
        let graph = session.record_frame(&args).unwrap();
        let deps: Vec<(u32, u32)> = graph
            .explicit_deps
            .iter()
            .map(|(n, on)| (n.0, on.0))
            .collect();
        assert_eq!(deps, [(1, 0), (2, 0)], "{mode:?}");
    }
}
