//! Ordering across queues: with `async` nodes on the compute queue, two transients may share
//! memory only when every access of the first happens before every access of the second, and
//! two conflicting accesses of one resource on different queues must be ordered, both through
//! what the GPU will actually do: program order on one queue and the frame's semaphore waits
//! between queues. Random graphs of graphics, compute and copy nodes (half of the compute and
//! copy calls `async`), plus the shape that exposed the bug: a graphics chain and an async chain
//! running side by side.

use proptest::prelude::*;
use rpsl_runtime::shapes::ShapeRng;
use rpsl_runtime::*;

struct Decls {
    draw: DeclId,
    dispatch: DeclId,
    copy: DeclId,
}

fn declare(builder: &mut GraphBuilder) -> Decls {
    let tex = |name: &str, access: AccessDesc| {
        ParamDesc::new(name, ValueType::Texture).with_access(access)
    };
    let draw = builder.declare_node(NodeDeclDesc::new(
        "draw",
        QueueClass::Graphics,
        vec![
            tex("src", AccessDesc::readonly(AccessFlags::PS)),
            tex("rt", AccessDesc::writeonly(AccessFlags::RENDER_TARGET))
                .with_semantic(SemanticKind::Target, 0),
        ],
    ));
    let dispatch = builder.declare_node(NodeDeclDesc::new(
        "dispatch",
        QueueClass::Compute,
        vec![
            tex("src", AccessDesc::readonly(AccessFlags::CS)),
            tex("dst", AccessDesc::writeonly(AccessFlags::CS)),
        ],
    ));
    let copy = builder.declare_node(NodeDeclDesc::new(
        "copy",
        QueueClass::Copy,
        vec![
            tex("src", AccessDesc::readonly(AccessFlags::COPY)),
            tex("dst", AccessDesc::writeonly(AccessFlags::COPY)),
        ],
    ));
    Decls {
        draw,
        dispatch,
        copy,
    }
}

fn call(
    builder: &mut GraphBuilder,
    decl: DeclId,
    src: Option<ResourceId>,
    dst: ResourceId,
    prefer_async: bool,
    key: u64,
) {
    let decl_desc = builder.decl(decl).unwrap().clone();
    let mut args = ArgsWriter::new(&decl_desc);
    if let Some(src) = src {
        args.write_texture(0, &builder.default_texture_view(src).unwrap());
    }
    args.write_texture(1, &builder.default_texture_view(dst).unwrap());
    builder
        .call_node(decl, args.bytes(), CallFlags { prefer_async }, key)
        .unwrap();
}

/// Random chains: each node reads one earlier texture (or none) and writes a new transient, so
/// lifetimes are short and memory is reused often; the last node writes the external output.
fn random_graph(seed: u64, nodes: usize) -> RecordedGraph {
    let mut rng = ShapeRng(seed);
    let mut builder = GraphBuilder::new();
    let decls = declare(&mut builder);
    builder.begin_frame(0);
    let out = builder
        .import_external("out", ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64))
        .unwrap();
    let mut written: Vec<ResourceId> = Vec::new();
    for node in 0..nodes {
        let src = if written.is_empty() || rng.below(5) == 0 {
            None
        } else {
            // Mostly recent textures, sometimes an old one (a long lifetime).
            let back = if rng.below(4) == 0 {
                rng.below(written.len() as u64)
            } else {
                rng.below(3.min(written.len() as u64))
            };
            Some(written[written.len() - 1 - back as usize])
        };
        let dst = if node + 1 == nodes {
            out
        } else {
            let size = 16 << rng.below(2);
            builder
                .create_resource(
                    ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, size, size),
                    node as u64,
                )
                .unwrap()
        };
        let (decl, can_be_async) = match rng.below(3) {
            0 => (decls.draw, false),
            1 => (decls.dispatch, true),
            _ => (decls.copy, true),
        };
        let prefer_async = can_be_async && rng.below(2) == 0;
        call(&mut builder, decl, src, dst, prefer_async, node as u64);
        written.push(dst);
    }
    builder.finish().unwrap().clone()
}

/// `clocks[position][queue]`: the latest position on `queue` that completes before `position`
/// starts, through program order and the frame's semaphore waits (-1: none).
fn happens_before_clocks(frame: &CompiledFrame) -> Vec<Vec<i64>> {
    let queues = frame.queues.len();
    let mut clocks: Vec<Vec<i64>> = Vec::with_capacity(frame.order.len());
    let mut last_on_queue: Vec<Option<usize>> = vec![None; queues];
    for (position, node) in frame.order.iter().enumerate() {
        let queue = frame.node_queue[node.index()] as usize;
        let mut clock = match last_on_queue[queue] {
            Some(previous) => clocks[previous].clone(),
            None => vec![-1; queues],
        };
        clock[queue] = position as i64;
        for wait in &frame.queue_waits {
            if wait.wait_queue as usize == queue && wait.wait_before as usize <= position {
                let signalled = &clocks[wait.signal_after as usize];
                for (mine, theirs) in clock.iter_mut().zip(signalled) {
                    *mine = (*mine).max(*theirs);
                }
            }
        }
        last_on_queue[queue] = Some(position);
        clocks.push(clock);
    }
    clocks
}

/// Every pair of transients sharing heap bytes: each access of the earlier one happens before
/// each access of the later one.
fn check_aliasing_is_ordered(graph: &RecordedGraph, frame: &CompiledFrame, what: &str) {
    let clocks = happens_before_clocks(frame);
    let queue_at = |position: usize| frame.node_queue[frame.order[position].index()] as usize;
    let mut positions_of: Vec<Vec<usize>> = vec![Vec::new(); graph.resources.len()];
    for (position, node) in frame.order.iter().enumerate() {
        for access in graph.node_accesses(*node) {
            positions_of[access.resource.index()].push(position);
        }
    }
    let placed: Vec<(usize, Placement)> = frame
        .placements
        .iter()
        .enumerate()
        .filter_map(|(index, placement)| placement.map(|p| (index, p)))
        .collect();
    for (i, &(a, pa)) in placed.iter().enumerate() {
        for &(b, pb) in &placed[i + 1..] {
            let share = pa.offset < pb.offset + pb.size && pb.offset < pa.offset + pa.size;
            if !share {
                continue;
            }
            let (first, second) = if positions_of[a][0] < positions_of[b][0] {
                (a, b)
            } else {
                (b, a)
            };
            for &early in &positions_of[first] {
                for &late in &positions_of[second] {
                    assert!(
                        clocks[late][queue_at(early)] >= early as i64,
                        "{what}: r{first} (position {early}, queue {}) and r{second} (position \
                         {late}, queue {}) share memory but are not ordered",
                        queue_at(early),
                        queue_at(late),
                    );
                }
            }
        }
    }
}

/// Every two accesses of one resource on different queues, at least one writing: the earlier
/// happens before the later (a semaphore wait orders them, not only a barrier on one queue).
fn check_conflicts_are_ordered(graph: &RecordedGraph, frame: &CompiledFrame, what: &str) {
    let clocks = happens_before_clocks(frame);
    let mut seen: Vec<Vec<(usize, usize, bool)>> = vec![Vec::new(); graph.resources.len()];
    for (position, node) in frame.order.iter().enumerate() {
        let queue = frame.node_queue[node.index()] as usize;
        for access in graph.node_accesses(*node) {
            let writes = access.access.writes();
            for &(early, early_queue, early_writes) in &seen[access.resource.index()] {
                if early_queue != queue && (writes || early_writes) {
                    assert!(
                        clocks[position][early_queue] >= early as i64,
                        "{what}: r{} accessed at position {early} (queue {early_queue}) and \
                         {position} (queue {queue}) without a wait between",
                        access.resource.0
                    );
                }
            }
            seen[access.resource.index()].push((position, queue, writes));
        }
    }
}

fn compile(graph: &RecordedGraph, schedule: SchedulePreference) -> CompiledFrame {
    let mut compiler = FrameCompiler::new(CompileOptions {
        schedule,
        cull: false,
        cache: false,
        async_compute: true,
    });
    compiler.compile(graph).unwrap().clone()
}

#[test]
fn a_graphics_chain_and_an_async_chain_never_share_memory_unordered() {
    let mut builder = GraphBuilder::new();
    let decls = declare(&mut builder);
    builder.begin_frame(0);
    let out = builder
        .import_external("out", ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64))
        .unwrap();
    let texture = |builder: &mut GraphBuilder, key: u64| {
        builder
            .create_resource(ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64), key)
            .unwrap()
    };
    let mut key = 0;
    let mut graphics = texture(&mut builder, key);
    call(&mut builder, decls.draw, None, graphics, false, key);
    let mut compute = texture(&mut builder, 100);
    call(&mut builder, decls.dispatch, None, compute, true, 100);
    for _ in 0..4 {
        key += 1;
        let next = texture(&mut builder, key);
        call(&mut builder, decls.draw, Some(graphics), next, false, key);
        graphics = next;
        let next = texture(&mut builder, 100 + key);
        call(
            &mut builder,
            decls.copy,
            Some(compute),
            next,
            true,
            100 + key,
        );
        compute = next;
    }
    call(&mut builder, decls.draw, Some(graphics), out, false, 50);
    call(&mut builder, decls.copy, Some(compute), out, false, 51);
    let graph = builder.finish().unwrap().clone();
    for schedule in [
        SchedulePreference::Default,
        SchedulePreference::ProgramOrder,
        SchedulePreference::Memory,
    ] {
        let frame = compile(&graph, schedule);
        assert_eq!(frame.queues.len(), 2, "{schedule:?}");
        check_aliasing_is_ordered(&graph, &frame, &format!("{schedule:?}"));
        check_conflicts_are_ordered(&graph, &frame, &format!("{schedule:?}"));
        // Each chain still reuses memory on its own queue while the other runs: one 64x64 RGBA8
        // texture (64 KiB placed) in flight plus one being written, per chain.
        assert_eq!(frame.memory.transient_bytes, 4 * 65536, "{schedule:?}");
    }
}

#[test]
fn one_queue_keeps_plain_lifetimes() {
    // Without async nodes the extents are the lifetimes: same placements as before.
    let graph = random_graph(7, 30);
    let mut compiler = FrameCompiler::new(CompileOptions {
        async_compute: false,
        cull: false,
        cache: false,
        ..CompileOptions::default()
    });
    let frame = compiler.compile(&graph).unwrap();
    assert_eq!(frame.queues.len(), 1);
    check_aliasing_is_ordered(&graph, frame, "one queue");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn aliased_transients_are_ordered_across_queues(
        seed in any::<u64>(),
        nodes in 2usize..40,
        schedule in 0u8..3,
    ) {
        let graph = random_graph(seed, nodes);
        let schedule = match schedule {
            0 => SchedulePreference::Default,
            1 => SchedulePreference::ProgramOrder,
            _ => SchedulePreference::Memory,
        };
        let frame = compile(&graph, schedule);
        let what = format!("seed {seed}, {nodes} nodes, {schedule:?}");
        check_aliasing_is_ordered(&graph, &frame, &what);
        check_conflicts_are_ordered(&graph, &frame, &what);
    }
}
