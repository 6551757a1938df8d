//! The scheduler outcomes of `tests_console_test_scheduler.rpsl`, built by hand through the
//! builder (see `docs/rps-test-expectations.md`).

mod common;
use common::*;
use rpsl_runtime::*;

struct Decls {
    draw: DeclId,
    comp_draw: DeclId,
    blt: DeclId,
    blt_all: DeclId,
}

fn declare(rec: &mut Recorder) -> Decls {
    Decls {
        draw: rec.declare(
            "draw",
            QueueClass::Graphics,
            vec![uint_param("id"), rtv("rt", 0)],
        ),
        comp_draw: rec.declare(
            "comp_draw",
            QueueClass::Compute,
            vec![uint_param("id"), uav("rt")],
        ),
        blt: rec.declare(
            "blt",
            QueueClass::Graphics,
            vec![uint_param("id"), rtv("dst", 0), ps_srv("src")],
        ),
        blt_all: rec.declare(
            "blt_all",
            QueueClass::Graphics,
            vec![
                uint_param("id"),
                rtv("dst", 0),
                ParamDesc::new("srcs", ValueType::Array(Box::new(ValueType::Texture), 12))
                    .with_access(AccessDesc::readonly(AccessFlags::PS)),
            ],
        ),
    }
}

fn six_textures(rec: &mut Recorder, output: &TextureView) -> Vec<TextureView> {
    let desc = rec.builder.describe(ResourceId(output.resource)).unwrap();
    (0..6).map(|_| rec.texture(desc)).collect()
}

fn record_program_order(rec: &mut Recorder, d: &Decls) {
    rec.begin(0);
    let output = rec.output();
    let t = six_textures(rec, &output);
    for i in 0..6 {
        rec.call(d.draw, &[Arg::U32(i), Arg::Tex(t[i as usize])]);
    }
    for i in 0..6 {
        rec.call(
            d.blt,
            &[Arg::U32(6 + i), Arg::Tex(output), Arg::Tex(t[i as usize])],
        );
    }
    for i in 0..6 {
        rec.call(d.draw, &[Arg::U32(12 + 2 * i), Arg::Tex(t[i as usize])]);
        rec.call(
            d.blt,
            &[
                Arg::U32(13 + 2 * i),
                Arg::Tex(output),
                Arg::Tex(t[i as usize]),
            ],
        );
    }
}

#[test]
fn program_order_keeps_call_order() {
    let mut rec = Recorder::new();
    let d = declare(&mut rec);
    record_program_order(&mut rec, &d);
    let graph = rec.finish().clone();
    let frame = compile(&graph, SchedulePreference::ProgramOrder, true);
    assert_eq!(rec.ids_of(&frame.order), (0..24).collect::<Vec<_>>());
    assert!(frame.culled.is_empty());
}

#[test]
fn memory_saving_interleaves_draw_and_blt() {
    let mut rec = Recorder::new();
    let d = declare(&mut rec);
    rec.begin(0);
    let output = rec.output();
    let t = six_textures(&mut rec, &output);
    for i in 0..6 {
        rec.call(d.draw, &[Arg::U32(i), Arg::Tex(t[i as usize])]);
    }
    for i in 0..6 {
        rec.call(
            d.blt,
            &[Arg::U32(6 + i), Arg::Tex(output), Arg::Tex(t[i as usize])],
        );
    }
    let graph = rec.finish().clone();
    let frame = compile(&graph, SchedulePreference::Memory, true);
    assert_eq!(
        rec.ids_of(&frame.order),
        vec![0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11]
    );
    let one = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080).allocation_size();
    assert_eq!(frame.memory.lower_bound_bytes, one);
    assert_eq!(frame.memory.transient_bytes, one);
}

#[test]
fn random_order_ends_with_blt_all() {
    for schedule in [
        SchedulePreference::Default,
        SchedulePreference::Memory,
        SchedulePreference::ProgramOrder,
    ] {
        let mut rec = Recorder::new();
        let d = declare(&mut rec);
        rec.begin(0);
        let output = rec.output();
        let desc = rec.builder.describe(ResourceId(output.resource)).unwrap();
        let mut tmp = Vec::new();
        for i in 0..12 {
            let t = rec.texture(desc);
            tmp.push(t);
            rec.call(d.draw, &[Arg::U32(i), Arg::Tex(t)]);
        }
        rec.call(d.blt_all, &[Arg::U32(12), Arg::Tex(output), Arg::Texs(tmp)]);
        let graph = rec.finish().clone();
        let frame = compile(&graph, schedule, true);
        let ids = rec.ids_of(&frame.order);
        assert_eq!(ids.len(), 13);
        assert_eq!(*ids.last().unwrap(), 12);
    }
}

#[test]
fn dead_code_elimination_table() {
    let table: [(bool, bool, &[u32], &[u32]); 4] = [
        (true, true, &[0, 1, 2, 3], &[0, 1, 2, 3]),
        (false, true, &[1, 3], &[0, 1, 3]),
        (true, false, &[0, 2], &[0, 1, 2]),
        (false, false, &[], &[0, 1]),
    ];
    for (blt0, blt1, culled_expect, kept_expect) in table {
        let mut rec = Recorder::new();
        let d = declare(&mut rec);
        rec.begin(0);
        let output = rec.output();
        let desc = rec.builder.describe(ResourceId(output.resource)).unwrap();
        let t0 = rec.texture(desc);
        let t1 = rec.texture(desc);
        rec.call(d.draw, &[Arg::U32(0), Arg::Tex(t0)]);
        rec.call(d.draw, &[Arg::U32(1), Arg::Tex(t1)]);
        if blt0 {
            rec.call(d.blt, &[Arg::U32(2), Arg::Tex(output), Arg::Tex(t0)]);
        }
        if blt1 {
            rec.call(d.blt, &[Arg::U32(3), Arg::Tex(output), Arg::Tex(t1)]);
        }
        let graph = rec.finish().clone();
        for (cull, expect) in [(true, culled_expect), (false, kept_expect)] {
            let frame = compile(&graph, SchedulePreference::ProgramOrder, cull);
            let mut ids = rec.ids_of(&frame.order);
            ids.sort_unstable();
            assert_eq!(ids, expect, "bBlt0={blt0} bBlt1={blt1} cull={cull}");
        }
    }
}

#[test]
fn gfx_comp_batching_groups_queue_classes() {
    let mut rec = Recorder::new();
    let d = declare(&mut rec);
    rec.begin(0);
    let output = rec.output();
    let t = six_textures(&mut rec, &output);
    rec.call(d.draw, &[Arg::U32(0), Arg::Tex(t[0])]);
    rec.call(d.comp_draw, &[Arg::U32(1), Arg::Tex(t[1])]);
    rec.call(d.comp_draw, &[Arg::U32(2), Arg::Tex(t[2])]);
    rec.call(d.draw, &[Arg::U32(3), Arg::Tex(t[3])]);
    rec.call(d.draw, &[Arg::U32(4), Arg::Tex(t[4])]);
    rec.call(d.comp_draw, &[Arg::U32(5), Arg::Tex(t[5])]);
    for i in 0..6 {
        rec.call(
            d.blt,
            &[Arg::U32(6 + i), Arg::Tex(output), Arg::Tex(t[i as usize])],
        );
    }
    let graph = rec.finish().clone();
    let frame = compile(&graph, SchedulePreference::Default, true);
    assert_eq!(
        rec.ids_of(&frame.order),
        vec![0, 3, 4, 1, 2, 5, 6, 7, 8, 9, 10, 11]
    );
}
