//! Replay records what recording records: random frames, each a small edit of the last, recorded
//! by a builder that replays and by one that never does, give the same results, records and
//! serial behaviour.

use super::super::*;

use crate::args_writer::ArgsWriter;
use crate::decl::{AccessFlags, ParamDesc, QueueClass, SemanticKind};
use crate::format::Format;
use crate::graph::{AccessRecord, CallFlags, NodeRecord};
use crate::resource::{ResourceFlags, RpslResourceDesc};
use crate::{ScalarType, ValueType};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
}

/// `draw(uint c, texture src, texture rt : SV_Target0)`.
fn draw_decl() -> NodeDeclDesc {
    NodeDeclDesc::new(
        "draw",
        QueueClass::Graphics,
        vec![
            ParamDesc::new("c", ValueType::Scalar(ScalarType::U32)),
            ParamDesc::new("src", ValueType::Texture)
                .with_access(AccessDesc::readonly(AccessFlags::PS)),
            ParamDesc::new("rt", ValueType::Texture)
                .with_access(AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                .with_semantic(SemanticKind::Target, 0),
        ],
    )
}

/// `depth(texture ds : SV_DepthStencil)`.
fn depth_decl() -> NodeDeclDesc {
    NodeDeclDesc::new(
        "depth",
        QueueClass::Graphics,
        vec![ParamDesc::new("ds", ValueType::Texture)
            .with_access(AccessDesc::readwrite(AccessFlags::DEPTH))
            .with_semantic(SemanticKind::DepthStencil, 0)],
    )
}

/// Declares the nodes the frames call: `draw`, `copy_texture` (with a region), `depth`.
fn declare_nodes(builder: &mut GraphBuilder) {
    builder.declare_node(draw_decl());
    builder.declare_node(crate::BuiltinNode::CopyTextureRegion.declaration());
    builder.declare_node(depth_decl());
}

/// The descriptions frames use: transient ones, a temporal, a persistent, a depth-capable
/// typeless one, one that fails validation and one of no resource type.
fn description(index: u64) -> RpslResourceDesc {
    let color = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
    let desc = match index {
        0 => color,
        1 => ResourceDesc {
            mip_levels: 3,
            ..ResourceDesc::tex2d(Format::R32_FLOAT, 32, 32)
        },
        2 => ResourceDesc {
            temporal_layers: 2,
            ..color
        },
        3 => ResourceDesc {
            flags: ResourceFlags::PERSISTENT,
            ..ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 16, 16)
        },
        4 => ResourceDesc::tex2d(Format(39), 64, 64),
        5 => ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 0, 64),
        _ => {
            return RpslResourceDesc {
                ty: 9,
                ..color.to_rpsl()
            }
        }
    };
    desc.to_rpsl()
}

/// A view argument.
#[derive(Clone, Copy, Debug, PartialEq)]
enum ViewArg {
    Null,
    /// The whole resource.
    Whole(u32),
    /// From mip 1 on.
    FromMip1(u32),
    /// The previous frame's slice of a temporal resource.
    Older(u32),
}

/// One builder call.
#[derive(Clone, Debug, PartialEq)]
enum Op {
    Import {
        temporal: bool,
        access: bool,
    },
    Create {
        desc: u64,
        key: u64,
    },
    /// A resource made through the builder's API, not a script's.
    CreateByApi {
        desc: u64,
        key: u64,
    },
    Call {
        constant: u32,
        src: ViewArg,
        rt: ViewArg,
        prefer_async: bool,
        key: u64,
    },
    /// `copy_texture(dst, dstOffset, src, srcOffset, extent)`: a built-in node, recorded the
    /// general way, whose checks read its constants.
    Copy {
        dst: u32,
        src: u32,
        offset: u32,
        extent: u32,
    },
    /// `depth(ds)`.
    Depth(u32),
    Barrier,
    BeginSubgraph,
    EndSubgraph,
    Describe(u32),
    SoFar,
    Name(u32),
    Mark(u32, bool),
}

/// A view of one of the `made` resources made before it, now and then of one not made yet.
fn random_view(rng: &mut Rng, made: u64) -> ViewArg {
    let bound = if rng.below(16) == 0 {
        made + 2
    } else {
        made.max(1)
    };
    let resource = rng.below(bound) as u32;
    match rng.below(10) {
        0 => ViewArg::Null,
        1 => ViewArg::FromMip1(resource),
        2 => ViewArg::Older(resource),
        _ => ViewArg::Whole(resource),
    }
}

/// A random call after `made` resources: mostly resources and node calls, now and then
/// anything else.
fn random_op(rng: &mut Rng, made: u64) -> Op {
    match rng.below(100) {
        0..=1 => Op::Import {
            temporal: rng.below(2) == 0,
            access: rng.below(2) == 0,
        },
        _ if made == 0 => Op::Create {
            desc: rng.below(2),
            key: 1 << 32,
        },
        2..=6 => Op::CreateByApi {
            desc: rng.below(6),
            key: 5 << 32 | made,
        },
        7..=36 => Op::Create {
            // Mostly transient descriptions.
            desc: if rng.below(6) == 0 {
                rng.below(7)
            } else {
                rng.below(2)
            },
            // As the VM passes them, keys count the creations at a site; now and then one
            // repeats (as a builder driven by hand may pass).
            key: 1 << 32
                | if rng.below(8) == 0 {
                    rng.below(made + 1)
                } else {
                    made
                },
        },
        37..=84 => Op::Call {
            constant: rng.below(3) as u32,
            src: random_view(rng, made),
            rt: random_view(rng, made),
            prefer_async: rng.below(8) == 0,
            key: 2 << 32 | rng.below(3),
        },
        85..=90 => Op::Copy {
            dst: rng.below(made) as u32,
            src: rng.below(made) as u32,
            // 80 lies outside a 64-texel texture.
            offset: [0, 16, 80][rng.below(3) as usize],
            extent: 16 << rng.below(3),
        },
        91 => Op::Depth(rng.below(made) as u32),
        92 => Op::Barrier,
        93 => Op::BeginSubgraph,
        94 => Op::EndSubgraph,
        95 => Op::Describe(rng.below(made + 1) as u32),
        96 => Op::SoFar,
        97 => Op::Name(rng.below(made + 1) as u32),
        _ => Op::Mark(rng.below(made + 1) as u32, rng.below(2) == 0),
    }
}

/// How many calls of `ops` make a resource.
fn made(ops: &[Op]) -> u64 {
    ops.iter()
        .filter(|op| {
            matches!(
                op,
                Op::Create { .. } | Op::CreateByApi { .. } | Op::Import { .. }
            )
        })
        .count() as u64
}

/// A frame of `len` random calls.
fn random_frame(rng: &mut Rng, len: u64) -> Vec<Op> {
    let mut ops = Vec::new();
    for _ in 0..len {
        let op = random_op(rng, made(&ops));
        ops.push(op);
    }
    ops
}

/// The next frame's calls: mostly the same, else one to three edits (anywhere: a changed,
/// inserted or removed call, a cut or grown tail).
fn edit(rng: &mut Rng, ops: &[Op]) -> Vec<Op> {
    let mut next = ops.to_vec();
    if rng.below(2) == 0 {
        return next;
    }
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(next.len() as u64 + 1) as usize;
        match rng.below(5) {
            0 if at < next.len() => next[at] = random_op(rng, made(&next[..at])),
            1 => next.insert(at, random_op(rng, made(&next[..at]))),
            2 if at < next.len() => {
                next.remove(at);
            }
            3 => next.truncate(at),
            _ => next.push(random_op(rng, made(&next))),
        }
    }
    next
}

/// A builder's outcome of one frame: every call's result, then the records.
#[derive(Debug, PartialEq)]
struct FrameOutcome {
    results: Vec<String>,
    resources: Vec<ResourceRecord>,
    nodes: Vec<NodeRecord>,
    accesses: Vec<AccessRecord>,
    args: Vec<u8>,
    explicit_deps: Vec<(NodeId, NodeId)>,
    subgraphs: Vec<SubgraphRecord>,
    barrier_count: u32,
    /// The structure and resource serials stayed those of the last frame.
    kept_serials: Option<(bool, bool)>,
}

fn run_frame(builder: &mut GraphBuilder, frame: u64, ops: &[Op], finish: bool) -> FrameOutcome {
    let decl = DeclId::from_index(0);
    let copy = DeclId::from_index(1);
    let depth = DeclId::from_index(2);
    let before = (
        builder.graph().structure_serial(),
        builder.graph().resource_serial(),
    );
    builder.begin_frame(frame);
    let mut results = Vec::new();
    for op in ops {
        let result = match *op {
            Op::Import { temporal, access } => {
                let desc = ResourceDesc::from_rpsl(&description(if temporal { 2 } else { 0 }));
                let access = access.then(|| AccessDesc::readonly(AccessFlags::PRESENT));
                format!(
                    "{:?}",
                    builder.import_external_with_access("bb", desc.unwrap(), access)
                )
            }
            Op::CreateByApi { desc, key } => {
                let desc = ResourceDesc::from_rpsl(&description(desc)).unwrap();
                format!("{:?}", builder.create_resource(desc, key))
            }
            Op::Create { desc, key } => {
                format!(
                    "{:?}",
                    builder.create_script_resource(&description(desc), key)
                )
            }
            Op::Call {
                constant,
                src,
                rt,
                prefer_async,
                key,
            } => {
                let mut args = ArgsWriter::new(builder.decl(decl).unwrap());
                args.write_u32(0, constant);
                for (param, view) in [(1, src), (2, rt)] {
                    let bytes = match view {
                        ViewArg::Null => rpsl_types::NULL_VIEW,
                        ViewArg::Whole(id) | ViewArg::FromMip1(id) | ViewArg::Older(id) => {
                            match builder.default_texture_view(ResourceId(id)) {
                                Ok(mut whole) => {
                                    if let ViewArg::FromMip1(_) = view {
                                        whole.base_mip_level = 1;
                                        whole.mip_level_count -= 1;
                                    }
                                    if let ViewArg::Older(_) = view {
                                        whole.temporal_layer = 1;
                                    }
                                    whole.to_bytes()
                                }
                                // A view of a resource not made yet.
                                Err(_) => TextureView::whole(
                                    ResourceId(id),
                                    &ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64),
                                )
                                .to_bytes(),
                            }
                        }
                    };
                    args.write_texture(param, &TextureView::from_bytes(&bytes).unwrap());
                }
                let flags = CallFlags { prefer_async };
                format!("{:?}", builder.call_node(decl, args.bytes(), flags, key))
            }
            Op::Copy {
                dst,
                src,
                offset,
                extent,
            } => {
                let mut args = ArgsWriter::new(builder.decl(copy).unwrap());
                for (param, id) in [(0, dst), (2, src)] {
                    if let Ok(view) = builder.default_texture_view(ResourceId(id)) {
                        args.write_texture(param, &view);
                    }
                }
                let words = |values: [u32; 3]| -> Vec<u8> {
                    values.iter().flat_map(|word| word.to_le_bytes()).collect()
                };
                args.write_raw(1, 0, &words([offset, 0, 0]));
                args.write_raw(3, 0, &words([0, offset, 0]));
                args.write_raw(4, 0, &words([extent, extent, 1]));
                let flags = CallFlags::default();
                format!(
                    "{:?}",
                    builder.call_node(copy, args.bytes(), flags, 3 << 32)
                )
            }
            Op::Depth(id) => {
                let mut args = ArgsWriter::new(builder.decl(depth).unwrap());
                if let Ok(view) = builder.default_texture_view(ResourceId(id)) {
                    args.write_texture(0, &view);
                }
                let flags = CallFlags::default();
                format!(
                    "{:?}",
                    builder.call_node(depth, args.bytes(), flags, 4 << 32)
                )
            }
            Op::Barrier => format!("{:?}", builder.sch_barrier()),
            Op::BeginSubgraph => format!("{:?}", builder.begin_subgraph(false, true)),
            Op::EndSubgraph => format!("{:?}", builder.end_subgraph()),
            Op::Describe(id) => format!(
                "{:?} {:?}",
                builder.describe(ResourceId(id)),
                builder.default_view_bytes(ResourceId(id))
            ),
            Op::SoFar => {
                let graph = builder.graph_so_far();
                format!(
                    "{} {} {}",
                    graph.resources.len(),
                    graph.nodes.len(),
                    graph.accesses.len()
                )
            }
            Op::Name(id) => format!("{:?}", builder.set_resource_name(ResourceId(id), "out")),
            Op::Mark(id, access) => {
                let access = access.then(|| AccessDesc::readonly(AccessFlags::PS));
                format!("{:?}", builder.mark_output(ResourceId(id), access))
            }
        };
        results.push(result);
    }
    let kept_serials = if finish {
        results.push(format!("{:?}", builder.finish().err()));
        let graph = builder.graph();
        Some((
            graph.structure_serial() == before.0,
            graph.resource_serial() == before.1,
        ))
    } else {
        None
    };
    let graph = builder.graph_so_far();
    FrameOutcome {
        results,
        resources: graph.resources.clone(),
        nodes: graph.nodes.clone(),
        accesses: graph.accesses.clone(),
        args: graph.args.clone(),
        explicit_deps: graph.explicit_deps.clone(),
        subgraphs: graph.subgraphs.clone(),
        barrier_count: graph.barrier_count,
        kept_serials,
    }
}

#[test]
fn replayed_frames_record_what_recorded_frames_record() {
    let mut replayed_frames = 0;
    let mut kept_structures = 0;
    for seed in 1..800u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut replaying = GraphBuilder::new();
        let mut recording = GraphBuilder::new();
        for builder in [&mut replaying, &mut recording] {
            declare_nodes(builder);
        }
        let len = 4 + rng.below(12);
        let mut ops = random_frame(&mut rng, len);
        let mut frame = 0;
        for _ in 0..8 {
            // Now and then a frame index is skipped (storage starts over), a frame fails to
            // finish, or the bounds are set again (the same, or tight enough to be reached).
            frame += 1 + u64::from(rng.below(10) == 0);
            let finish = rng.below(12) != 0;
            match rng.below(10) {
                0 => {
                    for builder in [&mut replaying, &mut recording] {
                        builder.set_limits(GraphLimits::default());
                    }
                }
                1 => {
                    let tight = GraphLimits {
                        max_nodes: 1 + rng.below(6) as u32,
                        max_resources: 1 + rng.below(6) as u32,
                        ..GraphLimits::default()
                    };
                    for builder in [&mut replaying, &mut recording] {
                        builder.set_limits(tight);
                    }
                }
                _ => {}
            }
            let nodes_before = replaying.graph().nodes.as_ptr();
            // The recording builder never replays.
            recording.replayable = false;
            let expected = run_frame(&mut recording, frame, &ops, finish);
            let got = run_frame(&mut replaying, frame, &ops, finish);
            assert_eq!(got, expected, "seed {seed}, frame {frame}, calls {ops:?}");
            if finish && !got.nodes.is_empty() && replaying.graph().nodes.as_ptr() == nodes_before {
                replayed_frames += 1;
            }
            kept_structures += usize::from(got.kept_serials == Some((true, true)));
            ops = edit(&mut rng, &ops);
        }
    }
    // Replay took place, often.
    assert!(replayed_frames > 200, "{replayed_frames} frames replayed");
    assert!(
        kept_structures > 500,
        "{kept_structures} frames kept their structure"
    );
}

/// Frames that differ from the last one only in what replay must not take over: a barrier, a
/// subgraph, an output mark or a name gone or new, calls after fewer resources.
#[test]
fn replay_stops_where_frames_differ() {
    // Each frame below makes each description once: keys by description are first uses.
    let create = |desc| Op::Create {
        desc,
        key: 1 << 32 | desc,
    };
    let call = |src, rt| Op::Call {
        constant: 0,
        src: ViewArg::Whole(src),
        rt: ViewArg::Whole(rt),
        prefer_async: false,
        key: 2 << 32,
    };
    let import = Op::Import {
        temporal: false,
        access: true,
    };
    let copy = |offset| Op::Copy {
        dst: 1,
        src: 0,
        offset,
        extent: 16,
    };
    let base = vec![import.clone(), create(0), create(1), call(1, 2), copy(0)];
    let with = |at: usize, op: Op| {
        let mut ops = base.clone();
        ops.insert(at, op);
        ops
    };
    let pairs = [
        with(3, Op::Barrier),
        with(3, Op::BeginSubgraph),
        with(4, Op::Mark(0, true)),
        with(4, Op::Mark(2, false)),
        with(4, Op::Name(1)),
        with(4, Op::Name(0)),
        vec![import.clone(), create(0), call(1, 1), create(1)],
        vec![
            import.clone(),
            create(0),
            create(1),
            call(1, 2),
            Op::BeginSubgraph,
            call(2, 1),
            Op::EndSubgraph,
        ],
        vec![
            import.clone(),
            create(0),
            create(1),
            Op::BeginSubgraph,
            call(1, 2),
            Op::EndSubgraph,
            copy(0),
        ],
        // A copy's constants decide its checks: its offset is out of range now.
        with(4, copy(128)),
        vec![
            import.clone(),
            create(0),
            create(1),
            call(1, 2),
            Op::Barrier,
            copy(0),
        ],
        vec![
            import.clone(),
            create(0),
            create(1),
            call(1, 2),
            Op::BeginSubgraph,
            copy(0),
            Op::EndSubgraph,
        ],
        // A typeless resource written as colour, then as depth.
        vec![import.clone(), create(4), call(0, 1), create(1), copy(0)],
        vec![
            import.clone(),
            create(4),
            call(0, 1),
            create(1),
            copy(0),
            Op::Depth(1),
        ],
    ];
    // Resources made through the builder's API: the same key, another description.
    let by_api = |desc| Op::CreateByApi { desc, key: 5 << 32 };
    let api_base = vec![import, by_api(0), create(1), call(1, 2), copy(0)];
    let mut api_other = api_base.clone();
    api_other[1] = by_api(2);
    let pairs: Vec<(&Vec<Op>, &Vec<Op>)> = pairs
        .iter()
        .map(|other| (&base, other))
        .chain([(&api_base, &api_other)])
        .collect();
    for (case, (base, other)) in pairs.into_iter().enumerate() {
        for order in [[base, other], [other, base]] {
            let mut replaying = GraphBuilder::new();
            let mut recording = GraphBuilder::new();
            for builder in [&mut replaying, &mut recording] {
                declare_nodes(builder);
            }
            for (frame, ops) in [order[0], order[0], order[0], order[1], order[1], order[0]]
                .into_iter()
                .enumerate()
            {
                recording.replayable = false;
                let expected = run_frame(&mut recording, frame as u64, ops, true);
                let got = run_frame(&mut replaying, frame as u64, ops, true);
                assert_eq!(got, expected, "case {case}, frame {frame}, calls {ops:?}");
            }
        }
    }
}
