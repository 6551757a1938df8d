//! Tests of the access table: records, boxes and keys against the recorded accesses.

use super::*;
use crate::decl::AccessMode;
use crate::shapes::{declare_shapes, record_chain};
use crate::view::TextureRange;
use crate::*;

/// What the table must hold for `access`, computed the slow way from the record, its
/// resource and [`super::full_box`].
fn expected(graph: &RecordedGraph, access: &AccessRecord) -> (SubresourceBox, AccessInfo) {
    let record = &graph.resources[access.resource.index()];
    let desc = &record.desc;
    let region = access.subresource_box(desc);
    let full = super::full_box(desc);
    let attr = access.access;
    let bits = flag(desc.kind.is_texture(), TEXTURE)
        | flag(record.outlives_frame(), OUTLIVES)
        | flag(desc.format.is_depth_stencil(), DEPTH_FORMAT)
        | flag(attr.mode.reads(), READS)
        | flag(attr.mode.writes(), WRITES)
        | flag(attr.reads(), ANY_READS)
        | flag(attr.writes(), ANY_WRITES)
        | flag(attr.relaxed, RELAXED)
        | flag(
            attr.flags.contains(AccessFlags::DISCARD_BEFORE),
            DISCARD_BEFORE,
        )
        | flag(
            attr.flags.contains(AccessFlags::DISCARD_AFTER),
            DISCARD_AFTER,
        )
        | flag(attr.flags.contains(AccessFlags::CPU), CPU)
        | flag(full.hi[2] - full.lo[2] == 1 && region == full, WHOLE);
    (
        region,
        AccessInfo {
            resource: access.resource.0,
            bits,
        },
    )
}

#[test]
fn records_match_the_slow_computation() {
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    builder.begin_frame(0);
    record_chain(&mut builder, decls, 24).unwrap();
    let mut graph = builder.finish().unwrap().clone();
    // Edited by hand below: the builder's serials no longer stand for the contents.
    graph.invalidate_structure();
    // Resource 1: two planes (never whole); 2: a buffer; 3: temporal (slice 1 of 2); 4:
    // a mip chain accessed in part.
    graph.resources[1].desc = ResourceDesc::tex2d(Format::D24_UNORM_S8_UINT, 64, 64);
    graph.resources[2].desc = ResourceDesc::buffer(4096);
    graph.resources[3].desc.temporal_layers = 2;
    graph.resources[4].desc.mip_levels = 4;
    let modes = [
        AccessMode::ReadOnly,
        AccessMode::WriteOnly,
        AccessMode::ReadWrite,
    ];
    for (index, access) in graph.accesses.iter_mut().enumerate() {
        let resource = 1 + index as u32 % 5;
        access.resource = ResourceId(resource);
        access.access.stencil_mode = [None, Some(modes[index / 3 % 3])][index / 9 % 2];
        access.access.relaxed = index % 4 == 0;
        access.access.mode = modes[index % 3];
        access.access.flags =
            AccessFlags(((index as u32).wrapping_mul(0x9e37_79b9) >> 3) & 0x0fff_ffff);
        access.param = (index % 5) as u16;
        access.temporal_slice = (resource == 3) as u32 * (index as u32 / 5 % 2);
        access.range = if resource == 2 {
            AccessRange::Buffer {
                offset: (index % 2) as u64 * 1024,
                size: 4096 - (index % 2) as u64 * 1024,
            }
        } else {
            AccessRange::Texture(TextureRange {
                base_mip: (resource == 4) as u32 * (index as u32 / 5 % 2),
                mip_count: if resource == 4 {
                    4 - (index as u32 / 5 % 2)
                } else {
                    1
                },
                base_layer: 0,
                layer_count: 1,
                planes: [1, 2, 3][index / 5 % 3],
            })
        };
    }
    let mut table = AccessTable::default();
    // Twice: the second build reuses the per-resource facts.
    for _ in 0..2 {
        table.build(&graph);
        let mut whole = 0;
        for (index, access) in graph.accesses.iter().enumerate() {
            let (region, info) = expected(&graph, access);
            assert_eq!(table.boxes().get(index), region, "box of access {index}");
            assert_eq!(table.infos[index], info, "record of access {index}");
            whole += info.has(WHOLE) as usize;
            let key = table.keys[index];
            assert_eq!(key >> KEY_PARAM_SHIFT, access.param as u64);
            assert_eq!(
                key & ((1 << KEY_PARAM_SHIFT) - 1),
                attribute_key(&access.access)
            );
        }
        assert!(whole > 0 && whole < graph.accesses.len());
        assert_eq!(
            table.any_partial_transient(),
            slow_any_partial_transient(&graph)
        );
        assert!(table.any_partial_transient());
    }
    // A description change reaches the facts.
    graph.resources[1].desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
    table.build(&graph);
    for (index, access) in graph.accesses.iter().enumerate() {
        assert_eq!(table.infos[index], expected(&graph, access).1);
    }
}

/// [`AccessTable::any_partial_transient`] the slow way: some access's box is not its
/// resource's one-plane whole box, and the resource does not outlive the frame.
fn slow_any_partial_transient(graph: &RecordedGraph) -> bool {
    graph.accesses.iter().any(|access| {
        !expected(graph, access).1.has(WHOLE)
            && !graph.resources[access.resource.index()].outlives_frame()
    })
}

/// A frame of whole accesses has no partial access of a transient; one access of one mip of
/// a transient of two has, and not once that resource outlives the frame.
#[test]
fn partial_accesses_of_transients_are_noted() {
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    builder.begin_frame(0);
    record_chain(&mut builder, decls, 8).unwrap();
    let mut graph = builder.finish().unwrap().clone();
    let mut table = AccessTable::default();
    table.build(&graph);
    assert!(!table.any_partial_transient());
    graph.invalidate_structure();
    let resource = graph.accesses[0].resource.index();
    assert!(!graph.resources[resource].outlives_frame());
    graph.resources[resource].desc.mip_levels = 2;
    table.build(&graph);
    assert!(table.any_partial_transient());
    assert!(slow_any_partial_transient(&graph));
    graph.resources[resource].external = true;
    table.build(&graph);
    assert!(!table.any_partial_transient());
    assert!(!slow_any_partial_transient(&graph));
}

/// Records one external and three textures (the second `second` texels wide) and `calls`
/// draws of `decl` over them (which ones depends on `shift`); returns the frame's graph.
fn record_frame(
    builder: &mut GraphBuilder,
    decl: DeclId,
    frame: u64,
    (second, calls, shift): (u32, usize, usize),
) -> RecordedGraph {
    builder.begin_frame(frame);
    let out = builder
        .import_external("out", ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64))
        .unwrap();
    let mut views = vec![builder.default_texture_view(out).unwrap()];
    for index in 0..3 {
        let width = if index == 1 { second } else { 64 };
        let id = builder
            .create_resource(
                ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, width, 64),
                index,
            )
            .unwrap();
        views.push(builder.default_texture_view(id).unwrap());
    }
    for call in 0..calls {
        let src = views[1 + (call + shift) % 3];
        let dst = if call + 1 == calls {
            views[0]
        } else {
            views[1 + (call + shift + 1) % 3]
        };
        let mut args = ArgsWriter::new(builder.decl(decl).unwrap());
        args.write_texture(0, &src).write_texture(1, &dst);
        builder
            .call_node(decl, args.bytes(), CallFlags::default(), call as u64)
            .unwrap();
    }
    builder.finish().unwrap().clone()
}

#[test]
fn resource_serial_follows_the_resources_and_compiles_agree() {
    let mut builder = GraphBuilder::new();
    let decl = builder.declare_node(NodeDeclDesc::new(
        "Draw",
        QueueClass::Graphics,
        vec![
            ParamDesc::new("src", ValueType::Texture)
                .with_access(AccessDesc::readonly(AccessFlags::PS)),
            ParamDesc::new("rt", ValueType::Texture)
                .with_access(AccessDesc::writeonly(AccessFlags::RENDER_TARGET))
                .with_semantic(SemanticKind::Target, 0),
        ],
    ));
    let graphs: Vec<RecordedGraph> = [
        (64, 5, 0),
        // Other passes, same resources.
        (64, 7, 1),
        // One resource description changed (another allocation size).
        (1024, 7, 1),
    ]
    .into_iter()
    .enumerate()
    .map(|(frame, spec)| record_frame(&mut builder, decl, frame as u64, spec))
    .collect();
    assert_ne!(graphs[0].resource_serial(), 0);
    assert_eq!(graphs[0].resource_serial(), graphs[1].resource_serial());
    assert_ne!(graphs[0].structure_serial(), graphs[1].structure_serial());
    assert_ne!(graphs[1].resource_serial(), graphs[2].resource_serial());
    // One compiler across the frames gives what a fresh compiler gives for each.
    let mut kept = FrameCompiler::new(CompileOptions::default());
    for graph in &graphs {
        let reused = format!("{:?}", kept.compile(graph).unwrap());
        let fresh = format!(
            "{:?}",
            FrameCompiler::new(CompileOptions::default())
                .compile(graph)
                .unwrap()
        );
        assert_eq!(reused, fresh);
    }
}
