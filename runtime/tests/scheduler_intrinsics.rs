//! Scheduling intrinsics of `tests_console_test_scheduler_intrinsics.rpsl` (elimination
//! disabled): explicit node dependencies, `sch_barrier`, atomic and sequential subgraphs.

mod common;
use common::*;
use rpsl_runtime::*;

struct Decls {
    ending: DeclId,
    n: DeclId,
    cpu_only: DeclId,
    waits: DeclId,
}

fn declare(rec: &mut Recorder) -> Decls {
    let ps_buf = |name: &str| buf_param(name, AccessDesc::readonly(AccessFlags::PS));
    Decls {
        ending: rec.declare(
            "Ending",
            QueueClass::Graphics,
            vec![
                uint_param("id"),
                rtv("dst", 0),
                ps_buf("src0"),
                ps_buf("src1"),
                ps_buf("src2"),
            ],
        ),
        n: rec.declare(
            "N",
            QueueClass::Compute,
            vec![
                uint_param("id"),
                buf_param("b", AccessDesc::readwrite(AccessFlags::CS)),
            ],
        ),
        cpu_only: rec.declare("N_CpuOnly", QueueClass::Graphics, vec![uint_param("id")]),
        waits: rec.declare(
            "M_WaitsN",
            QueueClass::Graphics,
            vec![
                uint_param("id"),
                rtv("dst", 0),
                ParamDesc::new("n", ValueType::NodeHandle),
            ],
        ),
    }
}

fn make_id(call: u32, local: u32) -> u32 {
    (call << 16) | local
}

fn foo(rec: &mut Recorder, d: &Decls, x: BufferView, y: BufferView, call: u32, barrier: bool) {
    let bufs = [x, x, x, x, y, y, y, y, x, y, x, y];
    for (local, buf) in bufs.iter().enumerate() {
        if barrier && local % 4 == 0 {
            rec.builder.sch_barrier().unwrap();
        }
        rec.call(
            d.n,
            &[Arg::U32(make_id(call, local as u32)), Arg::Buf(*buf)],
        );
    }
    if barrier {
        rec.builder.sch_barrier().unwrap();
    }
}

/// Positions (in the executed order) of the 12 calls made with callId 2, by local id.
fn run_case(
    atomic: bool,
    sequential: bool,
    barrier: bool,
    schedule: SchedulePreference,
) -> (Vec<usize>, Vec<u32>) {
    let mut rec = Recorder::new();
    let d = declare(&mut rec);
    rec.begin(0);
    let back = rec.output();
    let x = rec.buffer(32);
    let y = rec.buffer(32);
    let z = rec.buffer(32);
    rec.call(d.n, &[Arg::U32(0), Arg::Buf(z)]);
    rec.call(d.n, &[Arg::U32(1), Arg::Buf(z)]);
    let scoped = atomic || sequential;
    if scoped {
        rec.builder.begin_subgraph(atomic, sequential).unwrap();
    }
    foo(&mut rec, &d, x, y, 2, barrier);
    if scoped {
        rec.builder.end_subgraph().unwrap();
    }
    let n3 = rec.call(d.cpu_only, &[Arg::U32(3)]);
    rec.call(d.cpu_only, &[Arg::U32(4)]);
    rec.call(d.n, &[Arg::U32(5), Arg::Buf(z)]);
    rec.call(d.n, &[Arg::U32(6), Arg::Buf(x)]);
    rec.call(d.n, &[Arg::U32(6), Arg::Buf(x)]);
    rec.call(d.waits, &[Arg::U32(7), Arg::Tex(back), Arg::Node(n3)]);
    rec.call(
        d.ending,
        &[
            Arg::U32(8),
            Arg::Tex(back),
            Arg::Buf(x),
            Arg::Buf(y),
            Arg::Buf(z),
        ],
    );
    let graph = rec.finish().clone();
    let frame = compile(&graph, schedule, false);
    let ids = rec.ids_of(&frame.order);
    assert_eq!(ids.len(), graph.nodes.len());
    assert!(pos(&ids, 3) < pos(&ids, 7), "node 3 before 7: {ids:?}");
    let positions = (0..12).map(|local| pos(&ids, make_id(2, local))).collect();
    (positions, ids)
}

fn contiguous(positions: &[usize]) -> bool {
    let min = *positions.iter().min().unwrap();
    let max = *positions.iter().max().unwrap();
    max - min + 1 == positions.len()
}

fn ascending(positions: &[usize]) -> bool {
    positions.windows(2).all(|pair| pair[0] < pair[1])
}

#[test]
fn schedule_control_cases() {
    for schedule in [
        SchedulePreference::Default,
        SchedulePreference::Memory,
        SchedulePreference::ProgramOrder,
    ] {
        for barrier in [false, true] {
            let (p, ids) = run_case(false, false, barrier, schedule);
            if barrier {
                for group in 0..3 {
                    assert!(contiguous(&p[group * 4..group * 4 + 4]), "{ids:?}");
                }
                assert!(
                    p[3].max(p[0]).max(p[1]).max(p[2]) < p[4..8].iter().copied().min().unwrap()
                );
                assert!(p[4..8].iter().max() < p[8..12].iter().min());
            }
            let (p, ids) = run_case(true, false, barrier, schedule);
            assert!(
                contiguous(&p),
                "atomic {schedule:?} barrier={barrier}: {ids:?}"
            );
            let (p, ids) = run_case(false, true, barrier, schedule);
            assert!(
                ascending(&p),
                "sequential {schedule:?} barrier={barrier}: {ids:?}"
            );
            let (p, ids) = run_case(true, true, barrier, schedule);
            assert!(
                contiguous(&p) && ascending(&p),
                "atomic+sequential: {ids:?}"
            );
        }
    }
}

#[test]
fn nested_atomic_subgraphs() {
    for schedule in [SchedulePreference::Default, SchedulePreference::Memory] {
        let mut rec = Recorder::new();
        let d = declare(&mut rec);
        rec.begin(0);
        let back = rec.output();
        let x = rec.buffer(32);
        let y = rec.buffer(32);
        let z = rec.buffer(32);
        let w = rec.buffer(32);
        let n = |rec: &mut Recorder, id: u32, b: BufferView| {
            rec.call(d.n, &[Arg::U32(id), Arg::Buf(b)]);
        };
        let sg = |rec: &mut Recorder, atomic: bool, sequential: bool| {
            rec.builder.begin_subgraph(atomic, sequential).unwrap()
        };
        let end = |rec: &mut Recorder| rec.builder.end_subgraph().unwrap();
        sg(&mut rec, true, false);
        n(&mut rec, 0, w);
        end(&mut rec);
        n(&mut rec, 1, z);
        sg(&mut rec, true, false);
        n(&mut rec, 2, z);
        n(&mut rec, 3, x);
        end(&mut rec);
        n(&mut rec, 4, y);
        sg(&mut rec, true, false);
        for (id, b) in [(5, x), (6, y), (7, x), (8, y)] {
            n(&mut rec, id, b);
        }
        sg(&mut rec, true, false);
        for (id, b) in [(9, x), (10, y), (11, x), (12, y)] {
            n(&mut rec, id, b);
        }
        sg(&mut rec, true, false);
        for (id, b) in [(13, x), (14, y), (15, w), (16, x), (17, y)] {
            n(&mut rec, id, b);
        }
        end(&mut rec);
        end(&mut rec);
        sg(&mut rec, true, false);
        for (id, b) in [(18, x), (19, y), (20, x), (21, y)] {
            n(&mut rec, id, b);
        }
        end(&mut rec);
        for (id, b) in [(22, x), (23, y), (24, z)] {
            n(&mut rec, id, b);
        }
        sg(&mut rec, true, true);
        for (id, b) in [(25, x), (26, y), (27, x), (28, y)] {
            n(&mut rec, id, b);
        }
        end(&mut rec);
        end(&mut rec);
        for (id, b) in [(30, x), (31, y), (32, z)] {
            n(&mut rec, id, b);
        }
        rec.call(
            d.ending,
            &[
                Arg::U32(40),
                Arg::Tex(back),
                Arg::Buf(x),
                Arg::Buf(y),
                Arg::Buf(z),
            ],
        );
        let graph = rec.finish().clone();
        let frame = compile(&graph, schedule, false);
        let ids = rec.ids_of(&frame.order);
        let range = |lo: u32, hi: u32| {
            (lo..hi)
                .filter(|id| *id != 29)
                .map(|id| pos(&ids, id))
                .collect::<Vec<_>>()
        };
        for (lo, hi) in [(5, 29), (9, 13), (13, 18), (18, 22)] {
            assert!(contiguous(&range(lo, hi)), "[{lo},{hi}) in {ids:?}");
        }
        let run = range(25, 29);
        assert!(contiguous(&run) && ascending(&run));
    }
}
