//! Differential tests of the scheduler: the level-by-level `Default` path (and the call-order
//! path) must give exactly the general list scheduler's order and levels on every frame they
//! accept.

use super::super::deps::stage::Analysis;
use super::super::deps::{DepBuilder, DepGraph};
use super::super::liveness::find_live_nodes;
use super::super::options::SchedulePreference;
use super::super::table::AccessTable;
use super::{Schedule, Scheduler};
use crate::shapes::ShapeRng;
use crate::*;

/// An order and its levels.
type Scheduled = (Vec<u32>, Vec<u32>);

/// The analysis the schedulers take of `graph`: its access table and dependencies, built into
/// `table` and `deps`.
pub(super) fn analysis<'a>(
    graph: &'a RecordedGraph,
    table: &'a mut AccessTable,
    deps: &'a mut DepGraph,
) -> Analysis<'a> {
    table.build(graph);
    DepBuilder::default().build(graph, None, deps);
    let (table, deps): (&'a AccessTable, &'a DepGraph) = (table, deps);
    Analysis { graph, table, deps }
}

/// The level path's schedule (and whether it applied) and the list scheduler's, both for the
/// `Default` preference, of one frame.
fn level_and_list(
    (fast, general): (&mut Scheduler, &mut Scheduler),
    graph: &RecordedGraph,
    table: &AccessTable,
    deps: &DepGraph,
    alive: &[bool],
) -> (bool, Scheduled, Scheduled) {
    let frame = Analysis { graph, table, deps };
    let (mut got, mut want) = (Schedule::default(), Schedule::default());
    let done = fast.levels.schedule(frame, alive, &mut got);
    general.schedule_general(frame, alive, SchedulePreference::Default, &mut want);
    (done, (got.order, got.levels), (want.order, want.levels))
}

/// Declarations of several queue classes reading and writing textures.
fn declare(builder: &mut GraphBuilder) -> Vec<DeclId> {
    let tex = |name: &str, access: AccessDesc| {
        ParamDesc::new(name, ValueType::Texture).with_access(access)
    };
    let specs = vec![
        NodeDeclDesc::new(
            "g_read_rw",
            QueueClass::Graphics,
            vec![
                tex("a", AccessDesc::readonly(AccessFlags::PS)),
                tex("b", AccessDesc::readwrite(AccessFlags::PS)),
            ],
        ),
        NodeDeclDesc::new(
            "g_read2",
            QueueClass::Graphics,
            vec![
                tex("a", AccessDesc::readonly(AccessFlags::PS)),
                tex("b", AccessDesc::readonly(AccessFlags::PS)),
            ],
        ),
        NodeDeclDesc::new(
            "c_read_write",
            QueueClass::Compute,
            vec![
                tex("a", AccessDesc::readonly(AccessFlags::CS)),
                tex("b", AccessDesc::readonly(AccessFlags::CS)),
                tex("c", AccessDesc::writeonly(AccessFlags::CS)),
            ],
        ),
        NodeDeclDesc::new(
            "copy",
            QueueClass::Copy,
            vec![
                tex("dst", AccessDesc::writeonly(AccessFlags::COPY)),
                tex("src", AccessDesc::readonly(AccessFlags::COPY)),
            ],
        ),
        NodeDeclDesc::new(
            "present",
            QueueClass::Graphics,
            vec![tex("a", AccessDesc::readonly(AccessFlags::PRESENT))],
        ),
    ];
    specs
        .into_iter()
        .map(|decl| builder.declare_node(decl))
        .collect()
}

/// Records a random frame without barriers or subgraphs: few resources of varied sizes, so
/// that nodes of one level often share resources.
fn record(builder: &mut GraphBuilder, decls: &[DeclId], rng: &mut ShapeRng) -> RecordedGraph {
    builder.begin_frame(0);
    let out = builder
        .import_external("out", ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64))
        .unwrap();
    let mut textures = vec![out];
    for key in 0..(1 + rng.below(12)) {
        let format = match rng.below(3) {
            0 => Format::R8G8B8A8_UNORM,
            1 => Format::R16G16B16A16_FLOAT,
            _ => Format::R32_FLOAT,
        };
        let mut desc = ResourceDesc::tex2d(format, 8 + 8 * rng.below(64) as u32, 16);
        if rng.below(10) == 0 {
            desc.flags = ResourceFlags::PERSISTENT;
        }
        textures.push(builder.create_resource(desc, key).unwrap());
    }
    let nodes = 1 + rng.below(90);
    for key in 0..nodes {
        let decl_id = decls[rng.below(decls.len() as u64) as usize];
        let decl = builder.decl(decl_id).unwrap().clone();
        let mut args = ArgsWriter::new(&decl);
        for index in 0..decl.params.len() {
            let id = textures[rng.below(textures.len() as u64) as usize];
            let view = builder.default_texture_view(id).unwrap();
            args.write_texture(index, &view);
        }
        let Ok(node) = builder.call_node(decl_id, args.bytes(), CallFlags::default(), key) else {
            continue;
        };
        if node.0 > 0 && rng.below(6) == 0 {
            let on = NodeId(rng.below(node.0 as u64) as u32);
            builder.add_dependency(node, on).unwrap();
        }
    }
    builder.finish().unwrap().clone()
}

#[test]
fn level_path_matches_the_list_scheduler() {
    let mut builder = GraphBuilder::new();
    let decls = declare(&mut builder);
    let mut rng = ShapeRng(0x5eed);
    let mut fast = Scheduler::default();
    let mut general = Scheduler::default();
    let mut table = AccessTable::default();
    let (mut deps, mut alive, mut stack) = (DepGraph::default(), Vec::new(), Vec::new());
    let mut taken = 0;
    for case in 0..3000 {
        let graph = record(&mut builder, &decls, &mut rng);
        table.build(&graph);
        let cull = case % 2 == 0;
        DepBuilder::default().build(&graph, None, &mut deps);
        find_live_nodes(&graph, &table, &deps, cull, &mut alive, &mut stack);
        if cull {
            // Built for every node: where something was culled, the builder's levels do not
            // fit `alive`, and the level path walks the edges itself (as the list scheduler).
            let schedulers = (&mut fast, &mut general);
            let (done, got, want) = level_and_list(schedulers, &graph, &table, &deps, &alive);
            if done {
                assert_eq!(got, want, "case {case}, levels built for every node");
            }
            DepBuilder::default().build(&graph, Some(&alive), &mut deps);
        }
        let schedulers = (&mut fast, &mut general);
        let (done, _, (want_order, want_levels)) =
            level_and_list(schedulers, &graph, &table, &deps, &alive);
        taken += done as usize;
        let frame = Analysis {
            graph: &graph,
            table: &table,
            deps: &deps,
        };
        let mut got = Schedule::default();
        fast.schedule(frame, &alive, SchedulePreference::Default, &mut got);
        if got.balanced.is_none() {
            // (Balanced schedules are checked by `balancing_keeps_...` below.)
            assert_eq!(got.order, want_order, "case {case}");
            assert_eq!(got.levels, want_levels, "case {case}");
        }
        // Call order with levels.
        assert!(fast.levels.program_order(frame, &alive, &mut got));
        let mut want = Schedule::default();
        general.schedule_general(frame, &alive, SchedulePreference::ProgramOrder, &mut want);
        assert_eq!(got.order, want.order, "case {case}");
        assert_eq!(got.levels, want.levels, "case {case}");
    }
    assert_eq!(taken, 3000);
}

/// Records `width` lanes of `steps` nodes each: every node reads its lane's previous output and
/// writes a new resource of a random size, with a random declaration (so the levels are wide,
/// of mixed classes, and no resource is shared within a level).
fn record_lanes(
    builder: &mut GraphBuilder,
    decls: &[DeclId],
    rng: &mut ShapeRng,
    width: u64,
    steps: u64,
) -> RecordedGraph {
    builder.begin_frame(0);
    let mut previous = vec![None; width as usize];
    let mut key = 0;
    for _ in 0..steps {
        for lane in previous.iter_mut() {
            let desc = ResourceDesc::tex2d(
                Format::R8G8B8A8_UNORM,
                8 + 8 * rng.below(8) as u32,
                8 + 8 * rng.below(8) as u32,
            );
            let out = builder.create_resource(desc, key).unwrap();
            key += 1;
            // "c_read_write" (compute) or "copy": read the previous output, write `out`.
            let (decl_id, read, write) = if rng.below(2) == 0 {
                (decls[2], 0, 2)
            } else {
                (decls[3], 1, 0)
            };
            let decl = builder.decl(decl_id).unwrap().clone();
            let mut args = ArgsWriter::new(&decl);
            let input = lane.unwrap_or(out);
            args.write_texture(read, &builder.default_texture_view(input).unwrap());
            args.write_texture(write, &builder.default_texture_view(out).unwrap());
            if decl_id == decls[2] {
                args.write_texture(1, &builder.default_texture_view(input).unwrap());
            }
            builder
                .call_node(decl_id, args.bytes(), CallFlags::default(), key)
                .unwrap();
            *lane = Some(out);
        }
    }
    builder.finish().unwrap().clone()
}

#[test]
fn level_path_matches_the_list_scheduler_on_wide_lanes() {
    let mut builder = GraphBuilder::new();
    let decls = declare(&mut builder);
    let mut rng = ShapeRng(0x1a4e5);
    let mut fast = Scheduler::default();
    let mut general = Scheduler::default();
    let mut table = AccessTable::default();
    let mut deps = DepGraph::default();
    for case in 0..60 {
        let width = 1 + rng.below(100);
        let steps = 1 + rng.below(4);
        let graph = record_lanes(&mut builder, &decls, &mut rng, width, steps);
        table.build(&graph);
        DepBuilder::default().build(&graph, None, &mut deps);
        let alive = vec![true; graph.nodes.len()];
        let schedulers = (&mut fast, &mut general);
        let (done, got, want) = level_and_list(schedulers, &graph, &table, &deps, &alive);
        assert!(done, "case {case}");
        assert_eq!(got, want, "case {case}");
    }
}

/// The memory-saving schedule runs backwards from the sinks. Three two-node lanes `a`, `b`, `c`
/// (every output 256x256 RGBA16F except `c`'s first, 64x64), `j1` joins `a` and `b`, `j2` joins
/// `j1` and `c` and writes the external output. Forwards, most freed then fewest allocated
/// starts lane `c` first (its first output is the smallest) and holds `c`'s head through `a`,
/// `b` and `j1` (four large textures live). Backwards, `j2` is taken first, then `c`'s nodes
/// (each frees its output), then `j1`, `b` and `a`: in execution order `c` runs just before
/// `j2`, and at most three large textures are live.
#[test]
fn memory_schedule_runs_each_lane_just_before_its_join() {
    let mut builder = GraphBuilder::new();
    let decls = declare(&mut builder);
    builder.begin_frame(0);
    let source = builder
        .import_external(
            "source",
            ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64),
        )
        .unwrap();
    let out = builder
        .import_external("out", ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64))
        .unwrap();
    let mut key = 0;
    let mut texture = |builder: &mut GraphBuilder, size: u32| {
        key += 1;
        let desc = ResourceDesc::tex2d(Format::R16G16B16A16_FLOAT, size, size);
        builder.create_resource(desc, key).unwrap()
    };
    // "c_read_write": reads `a` and `b`, writes `c`.
    let call = |builder: &mut GraphBuilder, a: ResourceId, b: ResourceId, c: ResourceId| {
        let decl = builder.decl(decls[2]).unwrap().clone();
        let mut args = ArgsWriter::new(&decl);
        for (index, id) in [a, b, c].into_iter().enumerate() {
            args.write_texture(index, &builder.default_texture_view(id).unwrap());
        }
        builder
            .call_node(decls[2], args.bytes(), CallFlags::default(), c.0 as u64)
            .unwrap();
    };
    let mut heads = Vec::new();
    for first_size in [256, 256, 64] {
        let first = texture(&mut builder, first_size);
        let head = texture(&mut builder, 256);
        call(&mut builder, source, source, first);
        call(&mut builder, first, first, head);
        heads.push(head);
    }
    let joined = texture(&mut builder, 256);
    call(&mut builder, heads[0], heads[1], joined);
    call(&mut builder, joined, heads[2], out);
    let graph = builder.finish().unwrap().clone();

    let (mut table, mut deps) = (AccessTable::default(), DepGraph::default());
    let frame = analysis(&graph, &mut table, &mut deps);
    let alive = vec![true; graph.nodes.len()];
    let mut scheduler = Scheduler::default();
    let mut schedule = Schedule::default();
    scheduler.schedule(frame, &alive, SchedulePreference::Memory, &mut schedule);
    // Nodes: a1 a2 b1 b2 c1 c2 j1 j2 in call order.
    assert_eq!(schedule.order, [0, 1, 2, 3, 6, 4, 5, 7]);
    assert_eq!(schedule.levels, [0, 1, 0, 1, 2, 0, 1, 3]);
}

/// The peak over levels of the live bytes of `schedule`: a resource occupies its memory from
/// the level of its first user to the level of its last user.
fn live_peak(graph: &RecordedGraph, table: &AccessTable, schedule: &Schedule) -> u64 {
    let levels = schedule
        .levels
        .last()
        .map_or(0, |&level| level as usize + 1);
    let mut span = vec![(u32::MAX, 0u32); graph.resources.len()];
    for (&node, &level) in schedule.order.iter().zip(&schedule.levels) {
        let record = &graph.nodes[node as usize];
        for access in &graph.accesses[record.accesses.start as usize..record.accesses.end as usize]
        {
            let (first, last) = &mut span[access.resource.index()];
            *first = (*first).min(level);
            *last = (*last).max(level);
        }
    }
    let mut deltas = vec![0i64; levels + 1];
    for (resource, &(first, last)) in span.iter().enumerate() {
        if first != u32::MAX {
            deltas[first as usize] += table.sizes()[resource] as i64;
            deltas[last as usize + 1] -= table.sizes()[resource] as i64;
        }
    }
    let (mut live, mut peak) = (0i64, 0i64);
    for delta in deltas {
        live += delta;
        peak = peak.max(live);
    }
    peak as u64
}

/// Memory balancing of the `Default` schedule on the `lanes` shape at several sizes (eight
/// lanes with a sawtooth of texture sizes, then merges): every node stays above its
/// predecessors, levels never fall along the order, the level count stays within the minimum
/// plus 5%, and a balanced schedule's live peak is at most the as-soon-as-possible peak less
/// 1/32 of it (else the schedule is left as it was).
#[test]
fn balancing_keeps_dependencies_the_budget_and_lowers_the_peak() {
    let mut builder = GraphBuilder::new();
    let decls = crate::shapes::declare_shapes(&mut builder);
    let mut scheduler = Scheduler::default();
    let mut table = AccessTable::default();
    let mut deps = DepGraph::default();
    let mut balanced = 0;
    for n in (100..=1000).step_by(150) {
        builder.begin_frame(0);
        crate::shapes::record_lanes(&mut builder, decls, n).unwrap();
        let graph = builder.finish().unwrap().clone();
        let frame = analysis(&graph, &mut table, &mut deps);
        let alive = vec![true; graph.nodes.len()];
        let mut plain = Schedule::default();
        assert!(scheduler.levels.schedule(frame, &alive, &mut plain));
        let mut schedule = Schedule::default();
        scheduler.schedule(frame, &alive, SchedulePreference::Balanced, &mut schedule);
        if schedule.balanced.is_none() {
            assert_eq!(
                (&schedule.order, &schedule.levels),
                (&plain.order, &plain.levels),
                "n {n}"
            );
            continue;
        }
        balanced += 1;
        let mut level_of = vec![u32::MAX; graph.nodes.len()];
        for (&node, &level) in schedule.order.iter().zip(&schedule.levels) {
            level_of[node as usize] = level;
        }
        let mut sorted = schedule.order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..graph.nodes.len() as u32).collect::<Vec<_>>());
        assert!(schedule.levels.windows(2).all(|pair| pair[0] <= pair[1]));
        for node in 0..graph.nodes.len() {
            for &(pred, _) in deps.preds(node) {
                assert!(level_of[pred as usize] < level_of[node], "n {n}");
            }
        }
        let min_levels = plain.levels.last().unwrap() + 1;
        let levels = schedule.levels.last().unwrap() + 1;
        assert!(levels <= min_levels + min_levels / 20, "n {n}");
        let (peak, plain_peak) = (
            live_peak(&graph, &table, &schedule),
            live_peak(&graph, &table, &plain),
        );
        assert!(
            peak <= plain_peak - plain_peak / 32,
            "n {n}: {peak} {plain_peak}"
        );
    }
    // n = 100 has 19 levels: too short for a batch budget, it keeps its order.
    assert_eq!(balanced, 6);
}
