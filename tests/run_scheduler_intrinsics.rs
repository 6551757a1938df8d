//! `tests_console_test_scheduler_intrinsics.rpsl` (elimination disabled): the node `id` values and
//! the subgraph/barrier markers as recorded, and the ordering constraints of
//! `docs/rps-test-expectations.md` on the compiled schedule.

mod run_support;

use rpsl::runtime::RecordedGraph;
use rpsl::{abort_code, EntryArgs, Session};
use run_support::{corpus, load, options};

/// The `id` argument (first parameter, `uint`) of every node.
fn ids(graph: &RecordedGraph) -> Vec<u32> {
    (0..graph.nodes.len())
        .map(|i| {
            let args = graph.node_args(rpsl::runtime::NodeId::from_index(i));
            u32::from_le_bytes(args[0..4].try_into().unwrap())
        })
        .collect()
}

/// Positions of nodes `range` in the schedule.
fn positions(order: &[u32], nodes: std::ops::Range<u32>) -> Vec<usize> {
    nodes
        .map(|n| order.iter().position(|&o| o == n).expect("scheduled"))
        .collect()
}

fn contiguous(positions: &[usize]) -> bool {
    let (min, max) = (
        positions.iter().min().unwrap(),
        positions.iter().max().unwrap(),
    );
    max - min + 1 == positions.len()
}

fn ascending(positions: &[usize]) -> bool {
    positions.windows(2).all(|w| w[0] < w[1])
}

#[test]
fn schedule_control_markers_and_order() {
    let Some(path) = corpus("tests_console_test_scheduler_intrinsics.rpsl") else {
        return;
    };
    let program = load(&path);
    for test_case in 0..4u32 {
        for use_barrier in [false, true] {
            let mut session =
                Session::new(&program, Some("test_schedule_control"), options(false)).unwrap();
            let args = [
                format!("testCase={test_case}"),
                format!("useBarrier={use_barrier}"),
            ];
            let args = EntryArgs::parse(&program, session.entry(), &args).unwrap();
            let frame = session.run_frame(&args).unwrap();
            let graph = frame.graph;
            let mut want_ids = vec![0, 1];
            want_ids.extend((0..12).map(|k| (2 << 16) | k));
            want_ids.extend([3, 4, 5, 6, 6, 7, 8]);
            assert_eq!(ids(graph), want_ids, "case {test_case}");
            // Subgraph markers: one subgraph around the 12 calls for cases 1..3.
            if test_case == 0 {
                assert!(graph.subgraphs.is_empty());
            } else {
                assert_eq!(graph.subgraphs.len(), 1);
                let sub = &graph.subgraphs[0];
                assert_eq!((sub.first_node, sub.end_node), (2, 14));
                assert_eq!(
                    (sub.atomic, sub.sequential),
                    (test_case & 1 != 0, test_case & 2 != 0)
                );
                assert_eq!(sub.parent, None);
            }
            // Barriers: 4 `sch_barrier()`s split the 12 calls into epochs 1, 2, 3.
            let epochs: Vec<u32> = graph.nodes.iter().map(|n| n.barrier_epoch).collect();
            if use_barrier {
                assert_eq!(graph.barrier_count, 4);
                let mut want = vec![0, 0];
                want.extend([1; 4]);
                want.extend([2; 4]);
                want.extend([3; 4]);
                want.extend([4; 7]);
                assert_eq!(epochs, want);
            } else {
                assert_eq!(graph.barrier_count, 0);
                assert!(epochs.iter().all(|&e| e == 0));
            }
            // `M_WaitsN(7, .., n)` got the handle of `N_CpuOnly(3)` (node 14).
            let m = rpsl::runtime::NodeId::from_index(19);
            let decl = graph.decl_of(m);
            let n_param = decl.param("n").unwrap();
            let args = graph.node_args(m);
            let at = n_param.offset as usize;
            assert_eq!(u32::from_le_bytes(args[at..at + 4].try_into().unwrap()), 14);

            let order: Vec<u32> = frame.compiled.order.iter().map(|n| n.0).collect();
            assert_eq!(order.len(), 21);
            let p = |r: std::ops::Range<u32>| positions(&order, r);
            assert!(p(14..15)[0] < p(19..20)[0], "N_CpuOnly(3) before M_WaitsN");
            let calls = p(2..14);
            let atomic = test_case & 1 != 0;
            let sequential = test_case & 2 != 0;
            if atomic {
                assert!(contiguous(&calls), "atomic, case {test_case}: {order:?}");
            }
            if sequential {
                assert!(ascending(&calls), "sequential, case {test_case}: {order:?}");
            }
            if use_barrier {
                for group in [2..6, 6..10, 10..14] {
                    assert!(contiguous(&p(group.clone())), "group {group:?}: {order:?}");
                }
                assert!(p(2..6).iter().max() < p(6..10).iter().min());
                assert!(p(6..10).iter().max() < p(10..14).iter().min());
            }
        }
    }
}

#[test]
fn nested_atomic_subgraphs() {
    let Some(path) = corpus("tests_console_test_scheduler_intrinsics.rpsl") else {
        return;
    };
    let program = load(&path);
    let mut session = Session::new(
        &program,
        Some("test_schedule_control_nested_atomic_subgraph"),
        options(false),
    )
    .unwrap();
    let args = EntryArgs::defaults(session.entry());
    let frame = session.run_frame(&args).unwrap();
    let mut want_ids: Vec<u32> = (0..29).collect();
    want_ids.extend([30, 31, 32, 40]);
    assert_eq!(ids(frame.graph), want_ids);
    let subs: Vec<(u32, u32, bool, bool)> = frame
        .graph
        .subgraphs
        .iter()
        .map(|s| (s.first_node, s.end_node, s.atomic, s.sequential))
        .collect();
    assert_eq!(
        subs,
        vec![
            (0, 1, true, false),
            (2, 4, true, false),
            (5, 29, true, false),
            (9, 18, true, false),
            (13, 18, true, false),
            (18, 22, true, false),
            (25, 29, true, true),
        ]
    );
    let order: Vec<u32> = frame.compiled.order.iter().map(|n| n.0).collect();
    for range in [5..29, 9..13, 13..18, 18..22, 25..29] {
        assert!(
            contiguous(&positions(&order, range.clone())),
            "{range:?}: {order:?}"
        );
    }
    let run = positions(&order, 25..29);
    assert!(ascending(&run) && contiguous(&run));
}

#[test]
fn abort_fails_the_frame_exactly_for_negative_codes() {
    let Some(path) = corpus("tests_console_test_scheduler_intrinsics.rpsl") else {
        return;
    };
    let program = load(&path);
    let mut session = Session::new(&program, Some("test_abort"), options(false)).unwrap();
    for code in [-5, 0, -1, 3] {
        let args =
            EntryArgs::parse(&program, session.entry(), [format!("errorCode={code}")]).unwrap();
        match session.run_frame(&args) {
            Ok(frame) => {
                assert!(code >= 0);
                assert_eq!(frame.graph.nodes.len(), 1);
            }
            Err(error) => {
                assert_eq!(abort_code(&error), Some(code));
                assert!(error.render().contains("error: script aborted with code"));
            }
        }
    }
}
