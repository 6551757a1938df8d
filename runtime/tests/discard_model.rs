//! Discard inference against a reference model on random graphs: textures accessed by mip and
//! layer ranges, depth-stencil textures with per-plane modes, buffers by byte ranges, explicit
//! `discard_before` / `discard_after`, several accesses of one node to one resource, external,
//! persistent and temporal resources, culling and every schedule preference.
//!
//! The model follows rpsl.h's rules one subresource (or byte) at a time over the executed
//! order, with none of the compiler's machinery (whole-resource walk, region maps, dense
//! states): a forward pass for `discard_before` (no defined data, or the access does not read
//! the plane, or the flag is explicit) and a backward pass for `discard_after` (no later access
//! needs the data, or the flag is explicit), where a node's own `discard_after` drops data only
//! where none of its accesses without the flag keeps it.

use proptest::prelude::*;
use rpsl_runtime::shapes::ShapeRng;
use rpsl_runtime::*;
use std::collections::HashMap;

/// One subresource (resource, mip, layer, plane) or one byte (resource, byte, 0, 0).
type Cell = (u32, u64, u64, u64);

/// Declarations: which kind of resource each parameter takes, with its access.
struct Decls {
    ids: Vec<DeclId>,
    /// Per declaration, per parameter: `Color`, `Depth` or `Buffer`.
    kinds: Vec<Vec<Kind>>,
}

#[derive(Copy, Clone, PartialEq, Debug)]
enum Kind {
    Color,
    Depth,
    Buffer,
}

fn with(mut access: AccessDesc, extra: AccessFlags) -> AccessDesc {
    access.flags = AccessFlags(access.flags.0 | extra.0);
    access
}

/// A node declaration of the model: name, queue, parameters with their kind.
type NodeSpec = (&'static str, QueueClass, Vec<(ParamDesc, Kind)>);
fn declare(builder: &mut GraphBuilder) -> Decls {
    use Kind::*;
    let param = |name: &str, kind: Kind, access: AccessDesc| {
        let value = if kind == Buffer {
            ValueType::Buffer
        } else {
            ValueType::Texture
        };
        (ParamDesc::new(name, value).with_access(access), kind)
    };
    let mut depth_ro_stencil_rw =
        AccessDesc::readonly(AccessFlags(AccessFlags::DEPTH.0 | AccessFlags::STENCIL.0));
    depth_ro_stencil_rw.stencil_mode = Some(AccessMode::ReadWrite);
    let specs: Vec<NodeSpec> = vec![
        (
            "read_write",
            QueueClass::Graphics,
            vec![
                param("a", Color, AccessDesc::readonly(AccessFlags::PS)),
                param(
                    "b",
                    Color,
                    AccessDesc::readwrite(AccessFlags::RENDER_TARGET),
                ),
            ],
        ),
        (
            "write",
            QueueClass::Compute,
            vec![param("a", Color, AccessDesc::writeonly(AccessFlags::CS))],
        ),
        (
            "update_then_drop",
            QueueClass::Compute,
            vec![param(
                "a",
                Color,
                with(
                    AccessDesc::readwrite(AccessFlags::CS),
                    AccessFlags::DISCARD_AFTER,
                ),
            )],
        ),
        (
            "read_ignoring_old",
            QueueClass::Compute,
            vec![param(
                "a",
                Color,
                with(
                    AccessDesc::readonly(AccessFlags::CS),
                    AccessFlags::DISCARD_BEFORE,
                ),
            )],
        ),
        (
            "read_and_drop",
            QueueClass::Compute,
            vec![
                param("a", Color, AccessDesc::readonly(AccessFlags::CS)),
                param(
                    "b",
                    Color,
                    with(
                        AccessDesc::readonly(AccessFlags::CS),
                        AccessFlags::DISCARD_AFTER,
                    ),
                ),
            ],
        ),
        (
            "copy",
            QueueClass::Copy,
            vec![
                param("dst", Color, AccessDesc::writeonly(AccessFlags::COPY)),
                param("src", Color, AccessDesc::readonly(AccessFlags::COPY)),
            ],
        ),
        (
            "depth_test_stencil_write",
            QueueClass::Graphics,
            vec![param("ds", Depth, depth_ro_stencil_rw)],
        ),
        (
            "depth_write",
            QueueClass::Graphics,
            vec![param(
                "ds",
                Depth,
                AccessDesc::readwrite(AccessFlags::DEPTH),
            )],
        ),
        (
            "stencil_clear",
            QueueClass::Graphics,
            vec![param(
                "ds",
                Depth,
                AccessDesc::writeonly(AccessFlags::STENCIL),
            )],
        ),
        (
            "depth_sample",
            QueueClass::Compute,
            vec![param("ds", Depth, AccessDesc::readonly(AccessFlags::CS))],
        ),
        (
            "buffers",
            QueueClass::Compute,
            vec![
                param("a", Buffer, AccessDesc::readonly(AccessFlags::CS)),
                param("b", Buffer, AccessDesc::readwrite(AccessFlags::CS)),
            ],
        ),
        (
            "buffer_scratch",
            QueueClass::Compute,
            vec![param(
                "a",
                Buffer,
                with(
                    AccessDesc::writeonly(AccessFlags::CS),
                    AccessFlags::DISCARD_AFTER,
                ),
            )],
        ),
    ];
    let mut ids = Vec::new();
    let mut kinds = Vec::new();
    for (name, queue, params) in specs {
        let (params, param_kinds): (Vec<ParamDesc>, Vec<Kind>) = params.into_iter().unzip();
        ids.push(builder.declare_node(NodeDeclDesc::new(name, queue, params)));
        kinds.push(param_kinds);
    }
    Decls { ids, kinds }
}

/// A random frame: colour textures with mips and layers (some persistent or temporal, one
/// external), depth-stencil textures, buffers, and `nodes` calls with random views (whole
/// resources only unless `partial`: such frames take the compiler's whole-resource walk alone).
fn build(seed: u64, nodes: usize, partial: bool) -> RecordedGraph {
    let mut rng = ShapeRng(seed);
    let mut builder = GraphBuilder::new();
    let decls = declare(&mut builder);
    builder.begin_frame(0);
    let mut colors = vec![builder
        .import_external("out", ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64))
        .unwrap()];
    for key in 0..(2 + rng.below(4)) {
        let mut desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8 << rng.below(3), 8);
        desc.mip_levels = 1 + rng.below(4) as u32;
        desc.depth_or_array_size = 1 + rng.below(3) as u32;
        match rng.below(8) {
            0 => desc.flags = ResourceFlags::PERSISTENT,
            1 => desc.temporal_layers = 2,
            _ => {}
        }
        colors.push(builder.create_resource(desc, key).unwrap());
    }
    let mut depths = Vec::new();
    for key in 0..(1 + rng.below(2)) {
        let mut desc = ResourceDesc::tex2d(Format::D24_UNORM_S8_UINT, 16, 16);
        desc.mip_levels = 1 + rng.below(2) as u32;
        desc.depth_or_array_size = 1 + rng.below(2) as u32;
        depths.push(builder.create_resource(desc, 50 + key).unwrap());
    }
    let mut buffers = Vec::new();
    for key in 0..(1 + rng.below(3)) {
        let desc = ResourceDesc::buffer(16 + 16 * rng.below(3));
        buffers.push(builder.create_resource(desc, 100 + key).unwrap());
    }
    for node in 0..nodes {
        let which = rng.below(decls.ids.len() as u64) as usize;
        let decl = builder.decl(decls.ids[which]).unwrap().clone();
        let mut args = ArgsWriter::new(&decl);
        for (index, kind) in decls.kinds[which].iter().enumerate() {
            if *kind == Kind::Buffer {
                let id = buffers[rng.below(buffers.len() as u64) as usize];
                let size = builder.describe(id).unwrap().width;
                let (offset, bytes) = if !partial || rng.below(3) == 0 {
                    (0, size)
                } else {
                    let offset = rng.below(size) & !3;
                    (offset, 1 + rng.below(size - offset))
                };
                let view = BufferView {
                    offset,
                    size_in_bytes: bytes,
                    ..builder.default_buffer_view(id).unwrap()
                };
                args.write_buffer(index, &view);
                continue;
            }
            let pool = if *kind == Kind::Depth {
                &depths
            } else {
                &colors
            };
            let id = pool[rng.below(pool.len() as u64) as usize];
            let desc = builder.describe(id).unwrap();
            let mut view = builder.default_texture_view(id).unwrap();
            if partial && rng.below(3) != 0 {
                let base_mip = rng.below(desc.mip_levels as u64) as u32;
                let base_layer = rng.below(desc.array_layers() as u64) as u32;
                view.base_mip_level = base_mip;
                view.mip_level_count = 1 + rng.below((desc.mip_levels - base_mip) as u64) as u32;
                view.base_array_layer = base_layer;
                view.array_layer_count =
                    1 + rng.below((desc.array_layers() - base_layer) as u64) as u32;
            }
            if desc.temporal_layers > 1 {
                view.temporal_layer = rng.below(desc.temporal_layers as u64) as u32;
            }
            args.write_texture(index, &view);
        }
        // A call the builder refuses (none expected) is simply left out.
        let _ = builder.call_node(
            decls.ids[which],
            args.bytes(),
            CallFlags::default(),
            node as u64,
        );
    }
    builder.finish().unwrap().clone()
}

/// The cells of `access` on `plane` (every cell of a buffer access is on plane 0).
fn plane_cells(graph: &RecordedGraph, access: &AccessRecord, plane: u64) -> Vec<Cell> {
    let desc = &graph.resources[access.resource.index()].desc;
    let region = access.subresource_box(desc);
    let texture = desc.kind.is_texture();
    let mut cells = Vec::new();
    for a in region.lo[0]..region.hi[0] {
        for b in region.lo[1]..region.hi[1] {
            for c in region.lo[2]..region.hi[2] {
                if !texture || c == plane {
                    cells.push((access.resource.0, a, b, c));
                }
            }
        }
    }
    cells
}

/// The planes an access has cells on (a buffer's bytes are all on plane 0).
fn planes(graph: &RecordedGraph, access: &AccessRecord) -> Vec<u64> {
    if !graph.resources[access.resource.index()]
        .desc
        .kind
        .is_texture()
    {
        return vec![0];
    }
    (0..2)
        .filter(|&plane| !plane_cells(graph, access, plane).is_empty())
        .collect()
}

fn plane_flag(plane: u64, color: DiscardFlags, stencil: DiscardFlags) -> DiscardFlags {
    if plane == 1 {
        stencil
    } else {
        color
    }
}

/// The discard flags of every access by the rules alone (see the module documentation).
fn model(graph: &RecordedGraph, order: &[NodeId]) -> Vec<DiscardFlags> {
    let mut flags = vec![DiscardFlags::NONE; graph.accesses.len()];
    let tracked = |access: &AccessRecord| {
        let record = &graph.resources[access.resource.index()];
        !record.external
            && !record.desc.flags.contains(ResourceFlags::PERSISTENT)
            && record.desc.temporal_layers <= 1
    };
    let node_accesses = |node: &NodeId| {
        let range = graph.nodes[node.index()].accesses.clone();
        (range.start as usize..range.end as usize).filter(|&index| tracked(&graph.accesses[index]))
    };
    let carries = |access: &AccessRecord, flag: AccessFlags| access.access.flags.contains(flag);
    // Forward: is the data defined, and which node last kept it.
    let mut valid: HashMap<Cell, bool> = HashMap::new();
    let mut kept_by: HashMap<Cell, usize> = HashMap::new();
    for (step, node) in order.iter().enumerate() {
        for index in node_accesses(node) {
            let access = &graph.accesses[index];
            for plane in planes(graph, access) {
                let mode = access.access.mode_for_plane(plane as u32);
                let no_data = plane_cells(graph, access, plane)
                    .iter()
                    .all(|cell| !valid.get(cell).copied().unwrap_or(false));
                if carries(access, AccessFlags::DISCARD_BEFORE) || !mode.reads() || no_data {
                    let flag =
                        plane_flag(plane, DiscardFlags::BEFORE, DiscardFlags::STENCIL_BEFORE);
                    flags[index] = flags[index] | flag;
                }
            }
        }
        for index in node_accesses(node) {
            let access = &graph.accesses[index];
            for plane in planes(graph, access) {
                let writes = access.access.mode_for_plane(plane as u32).writes();
                for cell in plane_cells(graph, access, plane) {
                    if writes {
                        valid.insert(cell, true);
                    }
                    if !carries(access, AccessFlags::DISCARD_AFTER) {
                        kept_by.insert(cell, step);
                    }
                }
            }
        }
        for index in node_accesses(node) {
            let access = &graph.accesses[index];
            if !carries(access, AccessFlags::DISCARD_AFTER) {
                continue;
            }
            for plane in planes(graph, access) {
                for cell in plane_cells(graph, access, plane) {
                    if kept_by.get(&cell) != Some(&step) {
                        valid.insert(cell, false);
                    }
                }
            }
        }
    }
    // Backward: does a later access need the data.
    let mut needed: HashMap<Cell, bool> = HashMap::new();
    for node in order.iter().rev() {
        for index in node_accesses(node) {
            let access = &graph.accesses[index];
            for plane in planes(graph, access) {
                let unneeded = plane_cells(graph, access, plane)
                    .iter()
                    .all(|cell| !needed.get(cell).copied().unwrap_or(false));
                if carries(access, AccessFlags::DISCARD_AFTER) || unneeded {
                    let flag = plane_flag(plane, DiscardFlags::AFTER, DiscardFlags::STENCIL_AFTER);
                    flags[index] = flags[index] | flag;
                }
            }
        }
        for index in node_accesses(node) {
            let access = &graph.accesses[index];
            for plane in planes(graph, access) {
                for cell in plane_cells(graph, access, plane) {
                    needed.insert(cell, false);
                }
            }
        }
        for index in node_accesses(node) {
            let access = &graph.accesses[index];
            if carries(access, AccessFlags::DISCARD_BEFORE) {
                continue;
            }
            for plane in planes(graph, access) {
                if access.access.mode_for_plane(plane as u32).reads() {
                    for cell in plane_cells(graph, access, plane) {
                        needed.insert(cell, true);
                    }
                }
            }
        }
    }
    flags
}

fn check(seed: u64, nodes: usize, partial: bool, schedule: SchedulePreference, cull: bool) {
    let graph = build(seed, nodes, partial);
    let mut compiler = FrameCompiler::new(CompileOptions {
        schedule,
        cull,
        cache: false,
        async_compute: true,
    });
    let frame = compiler.compile(&graph).unwrap().clone();
    let expected = model(&graph, &frame.order);
    for (index, (got, want)) in frame.access_discard.iter().zip(&expected).enumerate() {
        let access = &graph.accesses[index];
        assert_eq!(
            got, want,
            "seed {seed} nodes {nodes} partial {partial} {schedule:?} cull {cull}: access {index} ({access:?}) \
             of node {:?}",
            access.node
        );
    }
    assert_eq!(frame.access_discard.len(), graph.accesses.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn discard_flags_follow_the_rules(
        seed in any::<u64>(),
        nodes in 1usize..40,
        partial in any::<bool>(),
        schedule in 0u8..3,
        cull in any::<bool>(),
    ) {
        let schedule = [
            SchedulePreference::Default,
            SchedulePreference::ProgramOrder,
            SchedulePreference::Memory,
        ][schedule as usize];
        check(seed, nodes, partial, schedule, cull);
    }
}

/// Larger frames than the property cases, fixed seeds.
#[test]
fn discard_flags_follow_the_rules_on_larger_frames() {
    for seed in 0..40 {
        check(
            seed * 7919 + 1,
            120,
            seed % 4 != 0,
            SchedulePreference::Default,
            seed % 2 == 0,
        );
    }
}
