//! The builder's structure serial and the compiled-frame cache: unchanged frames share a serial
//! and hit without a comparison in the compiler; any structural change gets a new serial and
//! misses; graphs without a serial (edited by hand) fall back to the exact comparison.

use rpsl_runtime::shapes::{declare_shapes, record_chain, shape_resource, ShapeDecls};
use rpsl_runtime::*;

fn record(builder: &mut GraphBuilder, decls: ShapeDecls, frame: u64, n: u32) -> RecordedGraph {
    builder.begin_frame(frame);
    record_chain(builder, decls, n).unwrap();
    builder.finish().unwrap().clone()
}

#[test]
fn unchanged_frames_share_a_serial_and_hit() {
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let mut serials = Vec::new();
    let mut hits = Vec::new();
    for (frame, n) in [(0, 40), (1, 40), (2, 40), (3, 41), (4, 41), (5, 40)] {
        let graph = record(&mut builder, decls, frame, n);
        assert_ne!(graph.structure_serial(), 0);
        serials.push(graph.structure_serial());
        let compiled = compiler.compile(&graph).unwrap();
        hits.push(compiled.cache_hit);
        assert_eq!(compiled.order.len(), n as usize);
    }
    assert_eq!(hits, vec![false, true, true, false, true, false]);
    assert_eq!(serials[0], serials[1]);
    assert_eq!(serials[1], serials[2]);
    assert_ne!(serials[2], serials[3]);
    assert_eq!(serials[3], serials[4]);
    assert_ne!(serials[4], serials[5]);
    assert_ne!(serials[0], serials[5]);
}

#[test]
fn a_changed_resource_description_changes_the_serial() {
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    let first = record(&mut builder, decls, 0, 8);
    // Same calls, but one resource three times as wide.
    builder.begin_frame(1);
    let back = builder
        .import_external_with_access(
            "backbuffer",
            ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080),
            Some(AccessDesc::readonly(AccessFlags::PRESENT)),
        )
        .unwrap();
    let mut wide = shape_resource(0);
    wide.width *= 3;
    let tex = builder.create_resource(wide, 0).unwrap();
    let views = [
        builder.default_texture_view(tex).unwrap(),
        builder.default_texture_view(back).unwrap(),
    ];
    let mut args = ArgsWriter::new(builder.decl(decls.raster).unwrap());
    args.write_texture(0, &TextureView::NULL)
        .write_texture(1, &TextureView::NULL)
        .write_texture(2, &views[0]);
    builder
        .call_node(decls.raster, args.bytes(), CallFlags::default(), 1)
        .unwrap();
    let second = builder.finish().unwrap().clone();
    assert_ne!(first.structure_serial(), second.structure_serial());
    // Recording the original again after a different frame is a change too.
    let third = record(&mut builder, decls, 2, 8);
    assert_ne!(third.structure_serial(), second.structure_serial());
    let fourth = record(&mut builder, decls, 3, 8);
    assert_eq!(third.structure_serial(), fourth.structure_serial());
}

#[test]
fn graphs_edited_by_hand_are_compared_exactly() {
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    let graph = record(&mut builder, decls, 0, 30);
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let order = compiler.compile(&graph).unwrap().order.clone();

    let mut same = graph.clone();
    same.invalidate_structure();
    assert_eq!(same.structure_serial(), 0);
    let compiled = compiler.compile(&same).unwrap();
    assert!(!compiled.cache_hit, "a serial and no serial never match");
    let compiled = compiler.compile(&same).unwrap();
    assert!(compiled.cache_hit, "an exact comparison finds no change");
    assert_eq!(compiled.order, order);

    let mut edited = same.clone();
    edited.resources[3].desc.width += 64;
    let compiled = compiler.compile(&edited).unwrap();
    assert!(!compiled.cache_hit);
    let mut edited_access = same.clone();
    edited_access.accesses[5].access.flags = AccessFlags::CS;
    let compiled = compiler.compile(&edited_access).unwrap();
    assert!(!compiled.cache_hit);
}

#[test]
fn declaring_a_node_between_frames_changes_the_serial() {
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    let first = record(&mut builder, decls, 0, 10);
    let second = record(&mut builder, decls, 1, 10);
    assert_eq!(first.structure_serial(), second.structure_serial());
    builder.declare_node(NodeDeclDesc::new("extra", QueueClass::Graphics, vec![]));
    let third = record(&mut builder, decls, 2, 10);
    assert_ne!(second.structure_serial(), third.structure_serial());
    let fourth = record(&mut builder, decls, 3, 10);
    assert_eq!(third.structure_serial(), fourth.structure_serial());
}

#[test]
fn a_cache_hit_still_takes_clear_colours_and_viewports_from_the_arguments() {
    let viewport = ValueType::Struct(std::sync::Arc::new(StructType::with_c_layout(
        "RpsViewport",
        ["x", "y", "width", "height", "minZ", "maxZ"]
            .iter()
            .map(|name| (name.to_string(), ValueType::Scalar(ScalarType::F32)))
            .collect(),
    )));
    let mut builder = GraphBuilder::new();
    let decl = builder.declare_node(NodeDeclDesc::new(
        "Draw",
        QueueClass::Graphics,
        vec![
            ParamDesc::new("rt", ValueType::Texture)
                .with_access(AccessDesc::writeonly(AccessFlags::RENDER_TARGET))
                .with_semantic(SemanticKind::Target, 0),
            ParamDesc::new("clear", ValueType::Vector(ScalarType::F32, 4))
                .with_semantic(SemanticKind::ClearColor, 0),
            ParamDesc::new("viewport", viewport).with_semantic(SemanticKind::Viewport, 0),
        ],
    ));
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let mut seen = Vec::new();
    for (frame, red, width) in [(0u64, 1.0f32, 32.0f32), (1, 0.25, 16.0), (2, 0.25, 16.0)] {
        builder.begin_frame(frame);
        let target = builder
            .import_external("rt", ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 32, 32))
            .unwrap();
        let view = builder.default_texture_view(target).unwrap();
        let decl_desc = builder.decl(decl).unwrap().clone();
        let mut args = ArgsWriter::new(&decl_desc);
        args.write_texture(0, &view);
        for (lane, value) in [red, 0.5, 0.0, 1.0].into_iter().enumerate() {
            args.write_f32(1, lane as u32 * 4, value);
        }
        for (field, value) in [0.0, 0.0, width, 32.0, 0.0, 1.0].into_iter().enumerate() {
            args.write_f32(2, field as u32 * 4, value);
        }
        builder
            .call_node(decl, args.bytes(), CallFlags::default(), 1)
            .unwrap();
        let graph = builder.finish().unwrap().clone();
        let compiled = compiler.compile(&graph).unwrap();
        let pass = &compiled.render_passes[0];
        seen.push((
            compiled.cache_hit,
            pass.colors[0].clear_color,
            pass.viewports[0].width,
        ));
    }
    assert_eq!(
        seen,
        vec![
            (false, [1.0, 0.5, 0.0, 1.0], 32.0),
            (true, [0.25, 0.5, 0.0, 1.0], 16.0),
            (true, [0.25, 0.5, 0.0, 1.0], 16.0),
        ]
    );
}

#[test]
fn an_output_marked_after_recording_keeps_the_serial() {
    // A resource assigned to an `out` parameter is created as a transient and marked as an
    // output when the script has finished: the frame after is unchanged all the same. Marking a
    // resource the previous frame did not mark is a change.
    let mut builder = GraphBuilder::new();
    let frame = |builder: &mut GraphBuilder, index: u64, mark: &[u32]| {
        builder.begin_frame(index);
        for key in 0..3 {
            builder
                .create_resource(shape_resource(key), key as u64)
                .unwrap();
        }
        for &resource in mark {
            builder
                .mark_output(
                    ResourceId(resource),
                    Some(AccessDesc::readonly(AccessFlags::PRESENT)),
                )
                .unwrap();
        }
        builder.finish().unwrap().structure_serial()
    };
    let first = frame(&mut builder, 0, &[1]);
    assert_eq!(frame(&mut builder, 1, &[1]), first);
    let both = frame(&mut builder, 2, &[1, 2]);
    assert_ne!(both, first);
    assert_eq!(frame(&mut builder, 3, &[1, 2]), both);
    assert_ne!(frame(&mut builder, 4, &[2]), both);
    assert_eq!(
        builder.mark_output(ResourceId(3), None),
        Err(BuildError::NoSuchResource(3))
    );
}

/// One frame of a single call of `decl` with views of two created textures: `source` in
/// parameter `a` or `b`, `target` in the third.
fn one_call(
    builder: &mut GraphBuilder,
    decl: DeclId,
    frame: u64,
    source_in_b: bool,
) -> RecordedGraph {
    builder.begin_frame(frame);
    let source = builder.create_resource(shape_resource(0), 1).unwrap();
    let target = builder.create_resource(shape_resource(0), 2).unwrap();
    let source = builder.default_texture_view(source).unwrap();
    let target = builder.default_texture_view(target).unwrap();
    let (a, b) = if source_in_b {
        (TextureView::NULL, source)
    } else {
        (source, TextureView::NULL)
    };
    let mut args = ArgsWriter::new(builder.decl(decl).unwrap());
    args.write_texture(0, &a)
        .write_texture(1, &b)
        .write_texture(2, &target);
    builder
        .call_node(decl, args.bytes(), CallFlags::default(), 1)
        .unwrap();
    builder.finish().unwrap().clone()
}

#[test]
fn a_view_in_another_parameter_or_another_declaration_changes_the_serial() {
    // The same resources, ranges and access counts each time: only the parameter of the read
    // view or the declaration (so the access attributes) differs.
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    let first = one_call(&mut builder, decls.raster, 0, false);
    let again = one_call(&mut builder, decls.raster, 1, false);
    assert_eq!(first.structure_serial(), again.structure_serial());
    let moved = one_call(&mut builder, decls.raster, 2, true);
    assert_ne!(moved.structure_serial(), again.structure_serial());
    assert_eq!(moved.accesses[0].param, 1);
    let compute = one_call(&mut builder, decls.compute, 3, true);
    assert_ne!(compute.structure_serial(), moved.structure_serial());
    assert_eq!(
        compute.accesses[0].access,
        AccessDesc::readonly(AccessFlags::CS)
    );
    let compute_again = one_call(&mut builder, decls.compute, 4, true);
    assert_eq!(compute.structure_serial(), compute_again.structure_serial());
}
