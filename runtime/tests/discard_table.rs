//! `subres_data_lifetime` of `tests_console_test_scheduler.rpsl`: the discard flags inferred per
//! resource argument (program order, no culling), built by hand through the builder.

mod common;
use common::*;
use rpsl_runtime::*;

const B: u8 = 1;
const A: u8 = 2;
const SB: u8 = 4;
const SA: u8 = 8;

fn ro(flags: AccessFlags) -> AccessDesc {
    AccessDesc::readonly(flags)
}

#[test]
fn subres_data_lifetime_discard_flags() {
    let mut rec = Recorder::new();
    let draw = rec.declare(
        "draw",
        QueueClass::Graphics,
        vec![uint_param("id"), rtv("rt", 0)],
    );
    let blt = rec.declare(
        "blt",
        QueueClass::Graphics,
        vec![uint_param("id"), rtv("dst", 0), ps_srv("src")],
    );
    let mrt = rec.declare(
        "draw_mrt_wo_rt0",
        QueueClass::Graphics,
        vec![uint_param("id"), discard_rtv("rt", 0), rtv("rt1", 1)],
    );
    let ds_param = |mode_depth: AccessMode, mode_stencil: AccessMode| {
        let mut access = AccessDesc::new(mode_depth, AccessFlags::DEPTH | AccessFlags::STENCIL);
        if mode_stencil != mode_depth {
            access.stencil_mode = Some(mode_stencil);
        }
        tex_param("d", access).with_semantic(SemanticKind::DepthStencil, 0)
    };
    use AccessMode::{ReadOnly as RO, ReadWrite as RW, WriteOnly as WO};
    let ds_clear = rec.declare(
        "draw_with_ds_clear",
        QueueClass::Graphics,
        vec![
            uint_param("id"),
            rtv("rt", 0),
            ds_param(RW, WO),
            ParamDesc::new("clearDepth", ValueType::Scalar(ScalarType::F32))
                .with_semantic(SemanticKind::ClearDepth, 0),
            uint_param("clearStencil").with_semantic(SemanticKind::ClearStencil, 0),
        ],
    );
    let ds_wo_stencil = rec.declare(
        "draw_with_ds_wo_stencil",
        QueueClass::Graphics,
        vec![uint_param("id"), rtv("rt", 0), ds_param(RW, WO)],
    );
    let ds_wo_depth = rec.declare(
        "draw_with_ds_wo_depth",
        QueueClass::Graphics,
        vec![uint_param("id"), rtv("rt", 0), ds_param(WO, RW)],
    );
    let ds_wo_both = rec.declare(
        "draw_with_ds_wo_depthstencil",
        QueueClass::Graphics,
        vec![uint_param("id"), rtv("rt", 0), ds_param(WO, WO)],
    );
    let ds_ro_both = rec.declare(
        "draw_with_ds_ro_depthstencil",
        QueueClass::Graphics,
        vec![uint_param("id"), rtv("rt", 0), ds_param(RO, RO)],
    );
    let depth_srv = rec.declare(
        "draw_with_depth_srv",
        QueueClass::Graphics,
        vec![uint_param("id"), rtv("rt", 0), ps_srv("d")],
    );
    let stencil_srv = rec.declare(
        "draw_with_stencil_srv",
        QueueClass::Graphics,
        vec![uint_param("id"), rtv("rt", 0), ps_srv("s")],
    );
    let cs = AccessFlags::CS;
    let db = AccessFlags::CS | AccessFlags::DISCARD_BEFORE;
    let da = AccessFlags::CS | AccessFlags::DISCARD_AFTER;
    let overlapped = rec.declare(
        "draw_with_overlapped_views",
        QueueClass::Graphics,
        vec![
            uint_param("id"),
            tex_param("t0", ro(cs)),
            tex_param("u0", AccessDesc::writeonly(cs)),
            tex_param("t1", ro(db)),
            tex_param("t2", ro(cs)),
            tex_param("t3", ro(cs)),
            tex_param("t4", ro(da)),
            tex_param("t5", ro(cs)),
            tex_param("t6", ro(cs)),
            tex_param("t7", ro(cs)),
            tex_param("t8", ro(da)),
        ],
    );
    let overlapped2 = rec.declare(
        "draw_with_overlapped_views2",
        QueueClass::Graphics,
        vec![
            uint_param("id"),
            tex_param("t0", ro(da)),
            tex_param("t1", ro(db)),
        ],
    );

    rec.begin(0);
    let output = rec.output();
    let mut t0_desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080);
    t0_desc.mip_levels = 5;
    t0_desc.depth_or_array_size = 10;
    let t0 = rec.texture(t0_desc);
    let mut t1_desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080);
    t1_desc.temporal_layers = 3;
    let t1 = rec.texture(t1_desc);
    let mut t2_desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080);
    t2_desc.mip_levels = 5;
    let t2 = rec.texture(t2_desc);
    let d0 = rec.texture(ResourceDesc::tex2d(
        Format::D32_FLOAT_S8X24_UINT,
        1920,
        1080,
    ));
    // t.array(layer, count).mips(mip)
    let arr = |base: u32, count: u32| sub(t0, 0, 1, base, count);
    let mip = |base: u32, count: u32| sub(t2, base, count, 0, 1);
    let tex = Arg::Tex;

    rec.call(draw, &[Arg::U32(0), tex(arr(0, 1))]);
    rec.call(mrt, &[Arg::U32(1), tex(arr(1, 1)), tex(arr(0, 1))]);
    rec.call(draw, &[Arg::U32(2), tex(arr(2, 1))]);
    rec.call(mrt, &[Arg::U32(3), tex(arr(2, 1)), tex(arr(3, 1))]);
    rec.call(draw, &[Arg::U32(4), tex(arr(0, 4))]);
    rec.call(mrt, &[Arg::U32(5), tex(arr(0, 2)), tex(arr(3, 1))]);
    rec.call(draw, &[Arg::U32(6), tex(arr(0, 3))]);
    rec.call(mrt, &[Arg::U32(7), tex(arr(1, 3)), tex(arr(5, 1))]);
    rec.call(draw, &[Arg::U32(8), tex(t1)]);
    rec.call(
        ds_clear,
        &[Arg::U32(9), tex(t1), tex(d0), Arg::F32(1.0), Arg::U32(0)],
    );
    rec.call(ds_wo_stencil, &[Arg::U32(10), tex(t1), tex(d0)]);
    rec.call(ds_wo_depth, &[Arg::U32(11), tex(t1), tex(d0)]);
    let depth_plane = TextureView {
        view_format: Format::R32_FLOAT_X8X24_TYPELESS.0,
        ..d0
    };
    rec.call(depth_srv, &[Arg::U32(12), tex(t1), tex(depth_plane)]);
    rec.call(ds_wo_both, &[Arg::U32(13), tex(t1), tex(d0)]);
    let stencil_plane = TextureView {
        view_format: Format::X32_TYPELESS_G8X24_UINT.0,
        ..d0
    };
    rec.call(stencil_srv, &[Arg::U32(14), tex(t1), tex(stencil_plane)]);
    rec.call(ds_ro_both, &[Arg::U32(15), tex(t1), tex(d0)]);
    rec.call(blt, &[Arg::U32(16), tex(output), tex(t0)]);
    rec.call(blt, &[Arg::U32(17), tex(output), tex(t1)]);
    for i in 0..4 {
        rec.call(draw, &[Arg::U32(18 + i), tex(mip(i, 1))]);
    }
    let views22 = [
        mip(0, 1),
        mip(2, 1),
        mip(0, 1),
        mip(0, 1),
        mip(1, 1),
        mip(1, 1),
        mip(1, 1),
        mip(3, 1),
        mip(3, 1),
        mip(4, 1),
    ];
    let mut args22 = vec![Arg::U32(22)];
    args22.extend(views22.iter().map(|view| tex(*view)));
    rec.call(overlapped, &args22);
    let views23 = [
        mip(0, 1),
        mip(2, 1),
        mip(1, 1),
        mip(3, 1),
        mip(3, 1),
        mip(4, 1),
        mip(3, 1),
        mip(3, 1),
        mip(3, 1),
        mip(4, 1),
    ];
    let mut args23 = vec![Arg::U32(23)];
    args23.extend(views23.iter().map(|view| tex(*view)));
    rec.call(overlapped, &args23);
    rec.call(blt, &[Arg::U32(24), tex(output), tex(mip(1, 1))]);
    rec.call(blt, &[Arg::U32(25), tex(output), tex(mip(2, 1))]);
    rec.call(blt, &[Arg::U32(26), tex(output), tex(mip(4, 1))]);
    rec.call(overlapped2, &[Arg::U32(27), tex(mip(0, 3)), tex(mip(2, 3))]);
    rec.call(blt, &[Arg::U32(28), tex(output), tex(mip(2, 1))]);
    rec.call(blt, &[Arg::U32(29), tex(output), tex(mip(1, 1))]);
    rec.call(blt, &[Arg::U32(30), tex(output), tex(t2)]);
    let graph = rec.finish().clone();
    let frame = compile(&graph, SchedulePreference::ProgramOrder, false);
    assert_eq!(rec.ids_of(&frame.order), (0..31).collect::<Vec<_>>());

    let expected: [&[u8]; 31] = [
        &[B],
        &[B, 0],
        &[B | A],
        &[B, B],
        &[0],
        &[B, A],
        &[0],
        &[B, B],
        &[0],
        &[0, B | SB | SA],
        &[0, A | SB],
        &[0, B | SA],
        &[0, A],
        &[0, B | SB],
        &[0, 0],
        &[0, A | SA],
        &[0, A],
        &[0, 0],
        &[B],
        &[B],
        &[B | A],
        &[B],
        &[0, B | A, B, 0, A, A, A, 0, 0, B | A],
        &[0, B, B, A, A, A | B, A, A, A, B | A],
        &[0, 0],
        &[0, 0],
        &[0, B | A],
        &[A, B],
        &[0, 0],
        &[0, B],
        &[0, A],
    ];
    for (node, expect) in expected.iter().enumerate() {
        let range = graph.nodes[node].accesses.clone();
        let actual: Vec<u8> = frame.access_discard[range.start as usize..range.end as usize]
            .iter()
            .map(|flags| flags.0)
            .collect();
        assert_eq!(&actual[..], *expect, "node {node}");
    }
}
