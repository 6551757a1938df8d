//! Tests of the level search of the `Searched` schedule: a frame whose optimum an exhaustive
//! enumeration proves, and properties over random frames (dependencies, budget, a peak never
//! above the balanced one, the compiled frame's segments equal to the searched levels,
//! determinism).

use super::super::super::deps::DepGraph;
use super::super::super::liveness::find_live_nodes;
use super::super::super::table::AccessTable;
use super::super::balance::extra_levels;
use super::super::tests::analysis;
use super::super::{Schedule, Scheduler};
use crate::shapes::{declare_shapes, ShapeDecls, ShapeRng};
use crate::*;

/// Allocation units of a 1920x1080 RGBA16F texture and of a 480x270 R32F one.
const BIG: u64 = 254;
const SMALL: u64 = 8;

/// Compiles `graph` under `schedule` without the cache.
fn compile(graph: &RecordedGraph, schedule: SchedulePreference) -> CompiledFrame {
    let mut compiler = FrameCompiler::new(CompileOptions {
        schedule,
        cache: false,
        cull: false,
        ..CompileOptions::default()
    });
    compiler.compile(graph).unwrap().clone()
}

/// The barrier segment each call ran in (`u32::MAX` for a culled call).
fn segments_by_call(frame: &CompiledFrame, calls: usize) -> Vec<u32> {
    let segments = frame.barrier_segments();
    (0..calls)
        .map(|call| match frame.position.get(call) {
            Some(&position) if position != u32::MAX => segments[position as usize],
            _ => u32::MAX,
        })
        .collect()
}

/// The peak over levels of the transient bytes live, each transient from the level of its
/// first user to that of its last (`level_of` by call; resources that outlive the frame do
/// not count).
fn model_peak(graph: &RecordedGraph, table: &AccessTable, level_of: &[u32]) -> u64 {
    let mut span = vec![(u32::MAX, 0u32); graph.resources.len()];
    for (node, record) in graph.nodes.iter().enumerate() {
        let level = level_of[node];
        if level == u32::MAX {
            continue;
        }
        for access in &graph.accesses[record.accesses.start as usize..record.accesses.end as usize]
        {
            let (first, last) = &mut span[access.resource.index()];
            *first = (*first).min(level);
            *last = (*last).max(level);
        }
    }
    let levels = level_of
        .iter()
        .filter(|&&level| level != u32::MAX)
        .max()
        .map_or(0, |&level| level as usize + 1);
    let mut live = vec![0u64; levels];
    for (resource, &(first, last)) in span.iter().enumerate() {
        if first == u32::MAX || graph.resources[resource].outlives_frame() {
            continue;
        }
        for slot in &mut live[first as usize..=last as usize] {
            *slot += table.sizes()[resource];
        }
    }
    live.into_iter().max().unwrap_or(0)
}

/// Records two chains of 20 compute nodes: node `j` of a chain reads the chain's previous
/// output and writes its own (1920x1080 RGBA16F for `j` in `big`, else 480x270 R32F); the last
/// node of each chain writes an external output instead. Calls 0..20 are chain A, 20..40
/// chain B.
fn record_two_chains(builder: &mut GraphBuilder, decls: ShapeDecls, big: [&[u32]; 2]) {
    builder.begin_frame(0);
    for (chain, big) in big.into_iter().enumerate() {
        let name = if chain == 0 { "out_a" } else { "out_b" };
        let output = builder
            .import_external(name, ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64))
            .unwrap();
        let output = builder.default_texture_view(output).unwrap();
        let mut previous = TextureView::NULL;
        for j in 0..20u32 {
            let written = if j == 19 {
                output
            } else {
                let desc = if big.contains(&j) {
                    ResourceDesc::tex2d(Format::R16G16B16A16_FLOAT, 1920, 1080)
                } else {
                    ResourceDesc::tex2d(Format::R32_FLOAT, 480, 270)
                };
                let key = (chain * 100) as u64 + j as u64;
                let id = builder.create_resource(desc, key).unwrap();
                builder.default_texture_view(id).unwrap()
            };
            let decl = builder.decl(decls.compute).unwrap().clone();
            let mut args = ArgsWriter::new(&decl);
            args.write_texture(0, &previous)
                .write_texture(1, &previous)
                .write_texture(2, &written);
            let key = (chain * 100) as u64 + j as u64;
            builder
                .call_node(decls.compute, args.bytes(), CallFlags::default(), key)
                .unwrap();
            previous = written;
        }
    }
}

/// The least peak (in allocation units) of the two chains of [`record_two_chains`] over every
/// schedule in the budget of 21 levels, by enumeration: each chain skips one level `gap` (node
/// `j` runs at `j`, or `j + 1` from the gap on; a gap of 20 skips none). With `bound_only`,
/// schedules with a level whose nodes all lack a predecessor one level below (which the
/// search never makes: such nodes may run a segment early) are left out. Returns the least
/// peak and the gaps of every schedule that reaches it.
fn least_two_chain_peak(big: [&[u32]; 2], bound_only: bool) -> (u64, Vec<(u32, u32)>) {
    let units = |chain: usize, j: u32| if big[chain].contains(&j) { BIG } else { SMALL };
    let level = |gap: u32, j: u32| if j < gap { j } else { j + 1 };
    let mut best = (u64::MAX, Vec::new());
    for gap_a in 0..=20 {
        for gap_b in 0..=20 {
            let mut live = [0u64; 21];
            let (mut used, mut bound) = ([false; 21], [false; 21]);
            for (chain, gap) in [gap_a, gap_b].into_iter().enumerate() {
                for j in 0..20 {
                    let at = level(gap, j) as usize;
                    used[at] = true;
                    bound[at] |= j > 0 && level(gap, j - 1) as usize + 1 == at;
                    if j < 19 {
                        for slot in &mut live[at..=level(gap, j + 1) as usize] {
                            *slot += units(chain, j);
                        }
                    }
                }
            }
            if bound_only && (1..21).any(|at| used[at] && !bound[at]) {
                continue;
            }
            let peak = live.into_iter().max().unwrap();
            if peak < best.0 {
                best = (peak, Vec::new());
            }
            if peak == best.0 {
                best.1.push((gap_a, gap_b));
            }
        }
    }
    best
}

/// The gap (see [`least_two_chain_peak`]) of a chain that ran at `levels`.
fn gap_of(levels: &[u32]) -> u32 {
    (0..20).find(|&j| levels[j as usize] != j).unwrap_or(20)
}

/// Two chains whose large textures (outputs 8 and 9 of each) line up as soon as possible. The
/// search alone, from the as-soon-as-possible levels, reaches the least peak of the schedules
/// it may make (enumerated: 770 units; it delays chain A from node 2 on); the `Searched`
/// preference compiles the balanced schedule instead, which is lower (762 units, the least of
/// every schedule in the budget): the search keeps only levels below the balanced ones.
#[test]
fn search_reaches_the_proven_optimum_of_two_chains() {
    let big: [&[u32]; 2] = [&[8, 9], &[8, 9]];
    let (least_bound, bound_gaps) = least_two_chain_peak(big, true);
    let (least, gaps) = least_two_chain_peak(big, false);
    assert_eq!((least_bound, least), (3 * BIG + SMALL, 3 * BIG));
    assert_eq!(gaps, [(9, 10), (10, 9)]);
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    record_two_chains(&mut builder, decls, big);
    let graph = builder.finish().unwrap().clone();

    // The search from the as-soon-as-possible levels.
    let (mut table, mut deps) = (AccessTable::default(), DepGraph::default());
    let frame = analysis(&graph, &mut table, &mut deps);
    let alive = vec![true; graph.nodes.len()];
    let mut scheduler = Scheduler::default();
    let mut asap = Schedule::default();
    assert!(scheduler.levels.schedule(frame, &alive, &mut asap));
    let as_soon_as_possible = asap.levels.clone();
    scheduler.search.remember_asap(&asap);
    let mut balanced = Schedule {
        order: asap.order.clone(),
        levels: asap.levels.clone(),
        ..Schedule::default()
    };
    scheduler.balance.balance(frame, &alive, &mut balanced);
    let prepared = scheduler.balance.prepared().unwrap();
    let outcome = scheduler.search.search(prepared, &mut asap).unwrap();
    assert_ne!(asap.levels, as_soon_as_possible);
    let mut level_of = vec![u32::MAX; 40];
    for (&node, &level) in asap.order.iter().zip(&asap.levels) {
        level_of[node as usize] = level;
    }
    let found = (gap_of(&level_of[..20]), gap_of(&level_of[20..]));
    assert!(bound_gaps.contains(&found), "{found:?} {bound_gaps:?}");
    assert_eq!(found, (2, 20));
    assert_eq!(
        model_peak(&graph, &table, &level_of),
        least_bound * ALLOCATION_ALIGNMENT
    );
    assert_eq!(
        (outcome.before, outcome.peak, outcome.written),
        (
            4 * BIG * ALLOCATION_ALIGNMENT,
            least_bound * ALLOCATION_ALIGNMENT,
            true
        )
    );

    // The preference: the balanced schedule, at the least peak of every schedule.
    let default = compile(&graph, SchedulePreference::Default);
    assert_eq!(
        default.segment_live_peak_bytes(),
        4 * BIG * ALLOCATION_ALIGNMENT
    );
    let frame = compile(&graph, SchedulePreference::Searched);
    assert_eq!(
        frame.segment_live_peak_bytes(),
        least * ALLOCATION_ALIGNMENT
    );
    assert_eq!(frame.batches, 22);
    let segments = segments_by_call(&frame, 40);
    assert_eq!((gap_of(&segments[..20]), gap_of(&segments[20..])), (10, 9));
}

/// Records a random frame of `nodes` calls: each writes a new texture of one of the shapes'
/// four sizes and reads up to two of the last twelve outputs no call has read yet (so every
/// transient has one writer and at most one reader, the frames are deep and a few nodes
/// wide, and no two nodes of one level touch one resource); the last call writes an external
/// output.
fn record_random(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    rng: &mut ShapeRng,
    nodes: u32,
) -> RecordedGraph {
    builder.begin_frame(0);
    let output = builder
        .import_external("out", ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64))
        .unwrap();
    let output = builder.default_texture_view(output).unwrap();
    let mut unread: Vec<TextureView> = Vec::new();
    for call in 0..nodes {
        let mut pick = |rng: &mut ShapeRng| {
            if unread.is_empty() || rng.below(12) == 0 {
                TextureView::NULL
            } else {
                let back = 1 + rng.below(unread.len().min(12) as u64) as usize;
                unread.remove(unread.len() - back)
            }
        };
        let (a, b) = (pick(rng), pick(rng));
        let target = if call + 1 == nodes {
            output
        } else {
            let desc = crate::shapes::shape_resource(rng.below(1 << 20) as u32);
            let id = builder.create_resource(desc, call as u64).unwrap();
            builder.default_texture_view(id).unwrap()
        };
        call_random_node(builder, decls, rng, [a, b, target], call as u64);
        unread.push(target);
    }
    builder.finish().unwrap().clone()
}

/// Calls the compute or the raster node of the shapes (a coin toss) on `views` (two reads, one
/// write).
fn call_random_node(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    rng: &mut ShapeRng,
    views: [TextureView; 3],
    key: u64,
) {
    let decl = if rng.below(2) == 0 {
        decls.compute
    } else {
        decls.raster
    };
    crate::shapes::call(builder, decl, views, key).unwrap();
}

/// Records random lanes: 2 to 6 chains of 20 to 39 nodes, each node reading its chain's
/// previous output and writing a texture of one of the shapes' four sizes, then a chain of
/// merges, each reading the previous merge's output (or the first chain's head) and the next
/// chain's head; the last merge writes an external output.
fn record_random_lanes(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    rng: &mut ShapeRng,
) -> RecordedGraph {
    builder.begin_frame(0);
    let output = builder
        .import_external("out", ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64))
        .unwrap();
    let output = builder.default_texture_view(output).unwrap();
    let mut key = 0u64;
    let mut call = |builder: &mut GraphBuilder,
                    rng: &mut ShapeRng,
                    reads: [TextureView; 2],
                    target: Option<TextureView>| {
        key += 1;
        let target = target.unwrap_or_else(|| {
            let desc = crate::shapes::shape_resource(rng.below(1 << 20) as u32);
            let id = builder.create_resource(desc, key).unwrap();
            builder.default_texture_view(id).unwrap()
        });
        call_random_node(builder, decls, rng, [reads[0], reads[1], target], key);
        target
    };
    let chains = 2 + rng.below(5);
    let mut heads = Vec::new();
    for _ in 0..chains {
        let mut previous = TextureView::NULL;
        for _ in 0..20 + rng.below(20) {
            previous = call(builder, rng, [previous, TextureView::NULL], None);
        }
        heads.push(previous);
    }
    let mut merged = heads[0];
    for (index, &head) in heads.iter().enumerate().skip(1) {
        let target = (index + 1 == heads.len()).then_some(output);
        merged = call(builder, rng, [merged, head], target);
    }
    builder.finish().unwrap().clone()
}

/// Over random frames: the searched levels keep every dependency, the order rule and the
/// balancing's budget; their peak is never above the balanced schedule's; the compiled frame
/// runs every node in its level's segment (its segment peak is the searched levels' peak) and
/// two compiles give the same frame.
#[test]
fn searched_levels_keep_dependencies_budget_and_never_raise_the_peak() {
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    let mut rng = ShapeRng(0x5ea4c4);
    let mut scheduler = Scheduler::default();
    let (mut table, mut deps) = (AccessTable::default(), DepGraph::default());
    let (mut alive, mut stack) = (Vec::new(), Vec::new());
    let (mut searched, mut lowered) = (0, 0);
    for case in 0..16 {
        let graph = if case % 2 == 0 {
            let nodes = 60 + rng.below(120) as u32;
            record_random(&mut builder, decls, &mut rng, nodes)
        } else {
            record_random_lanes(&mut builder, decls, &mut rng)
        };
        let frame = analysis(&graph, &mut table, &mut deps);
        find_live_nodes(
            &graph,
            frame.table,
            frame.deps,
            false,
            &mut alive,
            &mut stack,
        );
        let mut plain = Schedule::default();
        assert!(scheduler.levels.schedule(frame, &alive, &mut plain));
        let mut balanced = Schedule::default();
        scheduler.schedule(frame, &alive, SchedulePreference::Balanced, &mut balanced);
        let mut schedule = Schedule::default();
        scheduler.schedule(frame, &alive, SchedulePreference::Searched, &mut schedule);
        assert!(schedule.searched, "case {case}");
        let level_by_call = |schedule: &Schedule| {
            let mut level_of = vec![u32::MAX; graph.nodes.len()];
            for (&node, &level) in schedule.order.iter().zip(&schedule.levels) {
                level_of[node as usize] = level;
            }
            level_of
        };
        let level_of = level_by_call(&schedule);
        let (mut sorted, mut live) = (schedule.order.clone(), plain.order.clone());
        sorted.sort_unstable();
        live.sort_unstable();
        assert_eq!(sorted, live, "case {case}");
        assert!(schedule.levels.windows(2).all(|pair| pair[0] <= pair[1]));
        for &node in &schedule.order {
            for &(pred, _) in deps.preds(node as usize) {
                if alive[pred as usize] {
                    assert!(
                        level_of[pred as usize] < level_of[node as usize],
                        "case {case}"
                    );
                }
            }
        }
        let min_levels = plain.levels.last().unwrap() + 1;
        let levels = schedule.levels.last().unwrap() + 1;
        assert!(
            levels <= min_levels + extra_levels(min_levels),
            "case {case}"
        );
        let peak = model_peak(&graph, &table, &level_of);
        let balanced_peak = model_peak(&graph, &table, &level_by_call(&balanced));
        assert!(peak <= balanced_peak, "case {case}: {peak} {balanced_peak}");
        if extra_levels(min_levels) > 0 {
            searched += 1;
            lowered += (peak < balanced_peak) as usize;
        }
        // Compiled: every node runs in the segment of its level, twice the same.
        let compiled = compile(&graph, SchedulePreference::Searched);
        let segments = segments_by_call(&compiled, graph.nodes.len());
        let outcome = scheduler.search.outcome;
        if outcome.is_some_and(|outcome| outcome.written) {
            assert_eq!(segments, level_of, "case {case}");
            assert_eq!(compiled.segment_live_peak_bytes(), peak, "case {case}");
        }
        // The compiled order keeps every dependency.
        for &node in &schedule.order {
            for &(pred, _) in deps.preds(node as usize) {
                let (before, after) = (
                    compiled.position[pred as usize],
                    compiled.position[node as usize],
                );
                assert!(before < after, "case {case}: {pred} -> {node}");
            }
        }
        let again = compile(&graph, SchedulePreference::Searched);
        assert_eq!(again.order, compiled.order, "case {case}");
        assert_eq!(again.placements, compiled.placements, "case {case}");
        assert_eq!(again.batches, compiled.batches, "case {case}");
        let balanced_frame = compile(&graph, SchedulePreference::Balanced);
        assert!(
            compiled.segment_live_peak_bytes() <= balanced_frame.segment_live_peak_bytes(),
            "case {case}"
        );
    }
    assert_eq!((searched, lowered), (16, 6));
}
