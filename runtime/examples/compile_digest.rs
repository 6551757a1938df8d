//! Prints one line per case with a hash of everything the frame compiler produced (the compiled
//! frame's fields in debug form, each barrier with its resolved region, and the dependency
//! graph) for a fixed set of random graphs and the `chain` / `lanes` shapes under every option
//! combination: `compile_digest [CASES]`. Run it before and after a change to the compiler and
//! diff the outputs to check that the change keeps every result identical. One compiler object
//! compiles all cases of an option set in a row, so stale scratch state between frames shows up
//! as a difference too. With `DIGEST_EDGE_SETS=1` the dependency graph enters as each node's
//! set of predecessors (a data edge standing for an order edge from the same node), for changes
//! that may list a node's edges in another order or repeat one.

use rpsl_runtime::shapes::{declare_shapes, record_chain, record_lanes, ShapeRng};
use rpsl_runtime::*;
use std::hash::{Hash, Hasher};

/// FNV-1a over 64 bits: a hash that stays the same across Rust releases (std's `DefaultHasher`
/// may change), so a digest can be pinned by a test (`runtime/tests/compile_digest.rs`).
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Fnv64 {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv64 {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

fn declare(builder: &mut GraphBuilder) -> Vec<DeclId> {
    let tex = |name: &str, access: AccessDesc| {
        ParamDesc::new(name, ValueType::Texture).with_access(access)
    };
    let buf = |name: &str, access: AccessDesc| {
        ParamDesc::new(name, ValueType::Buffer).with_access(access)
    };
    let mut relaxed_uav = AccessDesc::readwrite(AccessFlags::CS);
    relaxed_uav.relaxed = true;
    let mut discard_rt = AccessDesc::writeonly(AccessFlags::RENDER_TARGET);
    discard_rt.flags |= AccessFlags::DISCARD_AFTER;
    let mut discard_read = AccessDesc::readonly(AccessFlags::PS);
    discard_read.flags |= AccessFlags::DISCARD_BEFORE;
    let mut depth_rw = AccessDesc::readwrite(AccessFlags::DEPTH | AccessFlags::STENCIL);
    depth_rw.stencil_mode = Some(AccessMode::ReadOnly);
    let specs = vec![
        NodeDeclDesc::new(
            "ro_rt",
            QueueClass::Graphics,
            vec![
                tex("a", AccessDesc::readonly(AccessFlags::PS)),
                tex("rt", AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                    .with_semantic(SemanticKind::Target, 0),
            ],
        ),
        NodeDeclDesc::new(
            "ro_rw",
            QueueClass::Graphics,
            vec![
                tex("a", discard_read),
                tex("b", AccessDesc::readwrite(AccessFlags::PS)),
            ],
        ),
        NodeDeclDesc::new(
            "wo",
            QueueClass::Compute,
            vec![tex("a", AccessDesc::writeonly(AccessFlags::CS))],
        ),
        NodeDeclDesc::new("relaxed", QueueClass::Compute, vec![tex("a", relaxed_uav)]),
        NodeDeclDesc::new(
            "bufs",
            QueueClass::Compute,
            vec![
                buf("a", AccessDesc::readonly(AccessFlags::CS)),
                buf("b", AccessDesc::readwrite(AccessFlags::CS)),
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
            "discard_rt",
            QueueClass::Graphics,
            vec![tex("rt", discard_rt).with_semantic(SemanticKind::Target, 0)],
        ),
        NodeDeclDesc::new(
            "depth",
            QueueClass::Graphics,
            vec![
                tex("ds", depth_rw).with_semantic(SemanticKind::DepthStencil, 0),
                tex("s", AccessDesc::readonly(AccessFlags::PS)),
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

fn texture_view(
    builder: &GraphBuilder,
    rng: &mut ShapeRng,
    id: ResourceId,
    whole: bool,
) -> TextureView {
    let desc = builder.describe(id).unwrap();
    let view = builder.default_texture_view(id).unwrap();
    if whole {
        return view;
    }
    let base_mip = rng.below(desc.mip_levels as u64) as u32;
    let base_layer = rng.below(desc.array_layers() as u64) as u32;
    TextureView {
        base_mip_level: base_mip,
        mip_level_count: 1 + rng.below((desc.mip_levels - base_mip) as u64) as u32,
        base_array_layer: base_layer,
        array_layer_count: 1 + rng.below((desc.array_layers() - base_layer) as u64) as u32,
        ..view
    }
}

/// Records one random frame (the same seed gives the same frame for any frame index).
fn record_random(builder: &mut GraphBuilder, decls: &[DeclId], seed: u64, frame: u64) {
    let mut rng = ShapeRng(seed);
    let nodes = 1 + rng.below(60) as usize;
    let whole_views = rng.below(2) == 0;
    builder.begin_frame(frame);
    let mut textures = Vec::new();
    let mut depths = Vec::new();
    let mut buffers = Vec::new();
    let ext = builder
        .import_external_with_access(
            "out",
            ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64),
            Some(AccessDesc::readonly(AccessFlags::PRESENT)),
        )
        .unwrap();
    textures.push(ext);
    for key in 0..(2 + rng.below(8)) {
        let mut desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64 >> rng.below(2), 64);
        if !whole_views {
            desc.mip_levels = 1 + rng.below(3) as u32;
            desc.depth_or_array_size = 1 + rng.below(3) as u32;
        }
        match rng.below(8) {
            0 => desc.flags = ResourceFlags::PERSISTENT,
            1 => desc.temporal_layers = 2,
            _ => {}
        }
        textures.push(builder.create_resource(desc, key).unwrap());
    }
    for key in 0..(1 + rng.below(2)) {
        let format = if rng.below(2) == 0 {
            Format::D24_UNORM_S8_UINT
        } else {
            Format::D32_FLOAT
        };
        depths.push(
            builder
                .create_resource(ResourceDesc::tex2d(format, 64, 64), 50 + key)
                .unwrap(),
        );
    }
    for key in 0..(1 + rng.below(3)) {
        buffers.push(
            builder
                .create_resource(ResourceDesc::buffer(16 + 16 * rng.below(4)), 100 + key)
                .unwrap(),
        );
    }
    let mut subgraph_depth = 0;
    for node in 0..nodes {
        if rng.below(12) == 0 {
            builder.sch_barrier().unwrap();
        }
        if rng.below(10) == 0 {
            builder
                .begin_subgraph(rng.below(2) == 0, rng.below(2) == 0)
                .unwrap();
            subgraph_depth += 1;
        } else if subgraph_depth > 0 && rng.below(4) == 0 {
            builder.end_subgraph().unwrap();
            subgraph_depth -= 1;
        }
        let which = rng.below(decls.len() as u64) as usize;
        let decl = builder.decl(decls[which]).unwrap().clone();
        let mut args = ArgsWriter::new(&decl);
        for (index, param) in decl.params.iter().enumerate() {
            if param.value_type == ValueType::Texture {
                let attachment = param.semantic.is_some();
                let view = if param.semantic.map(|s| s.0) == Some(SemanticKind::DepthStencil) {
                    let id = depths[rng.below(depths.len() as u64) as usize];
                    builder.default_texture_view(id).unwrap()
                } else if attachment {
                    let id = textures[rng.below(textures.len() as u64) as usize];
                    let mut view = builder.default_texture_view(id).unwrap();
                    view.mip_level_count = 1;
                    view
                } else if rng.below(8) == 0 {
                    let id = depths[rng.below(depths.len() as u64) as usize];
                    builder.default_texture_view(id).unwrap()
                } else {
                    let id = textures[rng.below(textures.len() as u64) as usize];
                    texture_view(builder, &mut rng, id, whole_views)
                };
                args.write_texture(index, &view);
            } else {
                let id = buffers[rng.below(buffers.len() as u64) as usize];
                let size = builder.describe(id).unwrap().width;
                let offset = if whole_views { 0 } else { rng.below(size) & !3 };
                let view = BufferView {
                    offset,
                    size_in_bytes: if whole_views {
                        size
                    } else {
                        1 + rng.below(size - offset)
                    },
                    ..builder.default_buffer_view(id).unwrap()
                };
                args.write_buffer(index, &view);
            }
        }
        let flags = CallFlags {
            prefer_async: rng.below(3) == 0,
        };
        // A random format may not suit the access (a storage write to a depth format, say):
        // the builder refuses such a call, and the graph goes on without it.
        let id = match builder.call_node(decls[which], args.bytes(), flags, node as u64) {
            Ok(id) => id,
            Err(BuildError::InvalidViewFormat { .. }) => continue,
            Err(error) => panic!("{error:?}"),
        };
        if id.0 > 0 && rng.below(8) == 0 {
            let on = NodeId(rng.below(id.0 as u64) as u32);
            builder.add_dependency(id, on).unwrap();
        }
    }
    while subgraph_depth > 0 {
        builder.end_subgraph().unwrap();
        subgraph_depth -= 1;
    }
    builder.finish().unwrap();
}

/// Hashes everything of `frame` that the compiler produces, field by field, with each barrier
/// expanded to its resolved region (so the digest does not depend on how a barrier record
/// stores its region).
fn hash_frame(frame: &CompiledFrame, hasher: &mut Fnv64) {
    format!(
        "{:?} {:?} {:?} {:?} {:?}",
        frame.order, frame.culled, frame.node_queue, frame.queues, frame.position
    )
    .hash(hasher);
    format!(
        "{} {} {:?} {:?} {:?} {:?} {:?}",
        frame.batches,
        frame.transitions,
        frame.memory,
        frame.placements,
        frame.alias_after,
        frame.lifetimes,
        frame.access_discard
    )
    .hash(hasher);
    format!("{:?}", frame.batch_list).hash(hasher);
    for barrier in &frame.barriers {
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {}",
            barrier.resource,
            frame.barrier_region(barrier),
            barrier.src_stages,
            barrier.src_accesses,
            barrier.dst_stages,
            barrier.dst_accesses,
            barrier.old_layout,
            barrier.new_layout,
            barrier.src_queue,
            barrier.dst_queue
        )
        .hash(hasher);
    }
    format!(
        "{:?} {:?} {}",
        frame.queue_waits, frame.render_passes, frame.cache_hit
    )
    .hash(hasher);
}

fn digest(compiler: &mut FrameCompiler, graph: &RecordedGraph) -> String {
    let mut hasher = Fnv64::default();
    let result = compiler.compile(graph);
    let outcome = match &result {
        Ok(frame) => format!(
            "ok barriers={} passes={}",
            frame.transitions,
            frame.render_passes.len()
        ),
        Err(error) => format!("error ({error})"),
    };
    match &result {
        Ok(frame) => hash_frame(frame, &mut hasher),
        Err(error) => format!("{error:?}").hash(&mut hasher),
    }
    let deps = compiler.dependencies();
    if std::env::var_os("DIGEST_EDGE_SETS").is_some() {
        // Per node: its predecessors as a set (a data edge standing for an order edge too).
        for node in 0..deps.pred_start.len().saturating_sub(1) {
            let mut preds: Vec<(u32, bool)> = deps
                .preds(node)
                .iter()
                .map(|&(pred, kind)| (pred, kind == EdgeKind::Data))
                .collect();
            preds.sort();
            preds.dedup();
            let mut strongest: Vec<(u32, bool)> = Vec::new();
            for (pred, data) in preds {
                match strongest.last_mut() {
                    Some(last) if last.0 == pred => last.1 |= data,
                    _ => strongest.push((pred, data)),
                }
            }
            format!("{node} {strongest:?}").hash(&mut hasher);
        }
    } else {
        format!("{:?} {:?}", deps.pred_start, deps.edges).hash(&mut hasher);
    }
    format!("{outcome} {:016x}", hasher.finish())
}

fn main() {
    let cases: u64 = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(400);
    digest_lines(cases, |line| println!("{line}"));
}

/// Gives `emit` one line per case: the option set, the case and the digest of its compile.
pub fn digest_lines(cases: u64, mut emit: impl FnMut(String)) {
    let schedules = [
        SchedulePreference::Default,
        SchedulePreference::ProgramOrder,
        SchedulePreference::Memory,
    ];
    for schedule in schedules {
        for (cull, async_compute) in [(true, true), (false, false), (true, false)] {
            let options = CompileOptions {
                schedule,
                cull,
                cache: false,
                async_compute,
            };
            let mut compiler = FrameCompiler::new(options);
            let mut builder = GraphBuilder::new();
            let decls = declare(&mut builder);
            for seed in 0..cases {
                // Two frames of the same structure: history of temporal/persistent resources.
                for frame in 0..2 {
                    record_random(&mut builder, &decls, seed, frame);
                    let hash = digest(&mut compiler, builder.graph());
                    emit(format!(
                        "{schedule:?} cull={cull} async={async_compute} seed={seed} frame={frame} {hash}"
                    ));
                }
            }
            let mut builder = GraphBuilder::new();
            let shapes = declare_shapes(&mut builder);
            for (lanes, n) in [(false, 1000), (true, 1000), (false, 37), (true, 300)] {
                builder.begin_frame(0);
                if lanes {
                    record_lanes(&mut builder, shapes, n).unwrap();
                } else {
                    record_chain(&mut builder, shapes, n).unwrap();
                }
                let graph = builder.finish().unwrap().clone();
                let hash = digest(&mut compiler, &graph);
                emit(format!(
                    "{schedule:?} cull={cull} async={async_compute} lanes={lanes} n={n} {hash}"
                ));
            }
        }
    }
}
