//! Entry arguments: struct, array, vector, enum and texture values reach the nodes exactly as
//! given; view ranges of `.mips()` / `.array()` chains; argument errors name the problem.

mod run_support;

use rpsl::{EntryArgs, Program};
use run_support::{accesses, arg, nodes, run_dump};
use serde_json::json;

const SCRIPT: &str = r#"struct Box { float2 origin; uint count; bool on; };
enum Mode { MODE_A = 3, MODE_B = 7 };
graphics node Use(rtv rt, Box b, uint list[3], int4 v, Mode m, uint frame, double d, int64_t big);
graphics node Mips([readonly(ps)] texture src, rtv rt);

export void main(texture bb, Box b, uint list[3], int4 v, Mode m, uint frameIndex, double d, int64_t big)
{
    Use(bb, b, list, v, m, frameIndex, d, big);
    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 256, 256, 6, 4);
    Mips(t.mips(2, 3).array(1, 2), bb);
    Mips(t.array(3).mips(1).mips(1, 2), bb);
    Mips(t.mips(4), bb);
}
"#;

#[test]
fn struct_array_vector_enum_and_scalar_values_in_the_dump() {
    let program = Program::from_source("args.rpsl", SCRIPT).unwrap();
    let dump = run_dump(
        &program,
        "main",
        &[
            "b=1.5,-2,7,true",
            "list=1,0x10,4294967295",
            "v=-1,2,-3,4",
            "m=MODE_B",
            "d=0.1",
            "big=-9000000000",
            "bb=320x200:B8G8R8A8_UNORM",
        ],
        2,
        false,
    );
    for frame in 0..2 {
        let node = &nodes(&dump, frame)[0];
        assert_eq!(
            arg(node, "b"),
            &json!({"origin": [1.5, -2], "count": 7, "on": true})
        );
        assert_eq!(arg(node, "list"), &json!([1, 16, 4294967295u32]));
        assert_eq!(arg(node, "v"), &json!([-1, 2, -3, 4]));
        assert_eq!(arg(node, "m"), &json!(7));
        assert_eq!(
            arg(node, "frame"),
            &json!(frame),
            "frameIndex gets the frame counter"
        );
        assert_eq!(arg(node, "d"), &json!(0.1));
        assert_eq!(arg(node, "big"), &json!(-9000000000i64));
    }
    let bb = &dump["frames"][0]["resources"][0];
    assert_eq!(
        (bb["width"].clone(), bb["height"].clone()),
        (json!(320), json!(200))
    );
    assert_eq!(bb["format"], "B8G8R8A8_UNORM");
    assert_eq!(bb["external"], true);
    // View ranges: [base, count] of mips and layers.
    let nodes = nodes(&dump, 0);
    let src = |i: usize| {
        accesses(&nodes[i])
            .into_iter()
            .find(|a| a.0 == "src")
            .unwrap()
    };
    assert_eq!(src(1), ("src".into(), 1, json!([2, 3]), json!([1, 2])));
    assert_eq!(src(2), ("src".into(), 1, json!([2, 2]), json!([3, 1])));
    assert_eq!(src(3), ("src".into(), 1, json!([4, 1]), json!([0, 4])));
}

#[test]
fn defaults_are_zero_and_a_1280x720_texture() {
    let program = Program::from_source("args.rpsl", SCRIPT).unwrap();
    let dump = run_dump(&program, "main", &["frameIndex=41"], 1, false);
    let node = &nodes(&dump, 0)[0];
    assert_eq!(
        arg(node, "b"),
        &json!({"origin": [0, 0], "count": 0, "on": false})
    );
    assert_eq!(
        arg(node, "frame"),
        &json!(41),
        "an explicit frameIndex wins"
    );
    let bb = &dump["frames"][0]["resources"][0];
    assert_eq!(
        (bb["width"].clone(), bb["height"].clone()),
        (json!(1280), json!(720))
    );
    assert_eq!(bb["format"], "R8G8B8A8_UNORM");
}

#[test]
fn argument_errors_name_the_problem() {
    let program = Program::from_source("args.rpsl", SCRIPT).unwrap();
    let entry = program.entry(None).unwrap();
    let error = |arg: &str| {
        EntryArgs::parse(&program, entry, [arg])
            .unwrap_err()
            .message
    };
    assert_eq!(
        error("nope=1"),
        "entry point `main` has no parameter `nope` (parameters: `bb`, `b`, `list`, `v`, `m`, \
         `frameIndex`, `d`, `big`)"
    );
    assert_eq!(
        error("b=1,2,3"),
        "parameter `b` (Box) takes 4 values, got 3"
    );
    assert_eq!(
        error("list=1,2,-3"),
        "bad value `-3` for `list[2]`: -3 is out of range for uint"
    );
    assert_eq!(
        error("b=1,2,3,maybe"),
        "bad value `maybe` for `b.on`: expected `true` or `false`"
    );
    assert!(error("m=MODE_C").starts_with("bad value `MODE_C` for `m`: `Mode` has no enumerator"));
    assert!(error("bb=12").starts_with("bad texture `12` for `bb`"));
    assert!(error("bb=64x64:NOT_A_FORMAT").contains("unknown format"));
    assert_eq!(error("b"), "`--arg` expects NAME=VALUE, got `b`");
}

/// `.elements()` sizes elements by the view's stride, else its format, else one byte (rpsl.h).
#[test]
fn buffer_elements_use_stride_then_format_then_bytes() {
    let script = r#"compute node Use([readwrite(cs)] buffer a, [readwrite(cs)] buffer b, [readwrite(cs)] buffer c);
export void main()
{
    buffer buf = create_buffer(4096);
    Use(buf.stride(12).elements(2, 3),
        buf.format(RPS_FORMAT_R32G32B32A32_FLOAT).elements(1, 4),
        buf.bytes(100, 1000).elements(5, 7));
}
"#;
    let program = rpsl::Program::from_source("elements.rpsl", script).unwrap();
    let mut session = rpsl::Session::new(&program, None, rpsl::SessionOptions::default()).unwrap();
    let args = rpsl::EntryArgs::defaults(session.entry());
    let graph = session.record_frame(&args).unwrap();
    let ranges: Vec<(u64, u64)> = graph
        .accesses
        .iter()
        .map(|a| match a.range {
            rpsl::runtime::AccessRange::Buffer { offset, size } => (offset, size),
            rpsl::runtime::AccessRange::Texture(_) => panic!("buffer accesses only"),
        })
        .collect();
    assert_eq!(ranges, vec![(24, 36), (16, 64), (105, 7)]);
}

/// `out` and `inout` arguments may be swizzles: copied in (for `inout`) and copied back after the
/// call, as HLSL does.
#[test]
fn swizzled_out_and_inout_arguments_copy_back() {
    let script = r#"node Show(float4 value);
void fill(out float2 v) { v = float2(1.5f, 2.5f); }
void twice(inout float2 v) { v *= 2.0f; }
export void main()
{
    float4 c = float4(10.0f, 20.0f, 30.0f, 40.0f);
    fill(c.wy);
    twice(c.xz);
    Show(c);
}
"#;
    let program = rpsl::Program::from_source("swizzle_out.rpsl", script).unwrap();
    let mut session = rpsl::Session::new(&program, None, rpsl::SessionOptions::default()).unwrap();
    let args = rpsl::EntryArgs::defaults(session.entry());
    let graph = session.record_frame(&args).unwrap();
    let node = graph.nodes.last().expect("Show was called");
    let block = &graph.args[node.args.start as usize..node.args.end as usize];
    let values: Vec<f32> = block
        .chunks(4)
        .take(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(values, vec![20.0, 2.5, 60.0, 1.5]);
}
