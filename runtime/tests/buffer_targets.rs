//! Formatted buffer views bound as color attachments (RPS's row-major image buffers): the render
//! pass extent comes from the view's bytes and format and the node's viewport; unformatted
//! views and buffer depth-stencil attachments are refused.

use rpsl_runtime::*;

fn viewport_type() -> ValueType {
    let f = || ValueType::Scalar(ScalarType::F32);
    ValueType::Struct(std::sync::Arc::new(StructType::with_c_layout(
        "RpsViewport",
        ["x", "y", "width", "height", "minZ", "maxZ"]
            .iter()
            .map(|n| (n.to_string(), f()))
            .collect(),
    )))
}

fn buffer_target(name: &str) -> ParamDesc {
    ParamDesc::new(name, ValueType::Buffer)
        .with_access(AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
        .with_semantic(SemanticKind::Target, 0)
}

/// Records one call of a node with a buffer target `rt` (parameter 0), an optional viewport
/// (parameter 1) and a clear color (last parameter), and compiles it without culling.
fn compile_buffer_pass(
    view_format: Format,
    viewport: Option<[f32; 6]>,
    semantic: SemanticKind,
) -> Result<CompiledFrame, CompileError> {
    let graph = record_buffer_pass(view_format, viewport, semantic).unwrap();
    let mut compiler = FrameCompiler::new(CompileOptions {
        cull: false,
        ..CompileOptions::default()
    });
    compiler.compile(&graph).cloned()
}

/// The recorded graph of [`compile_buffer_pass`], or the error of the call.
fn record_buffer_pass(
    view_format: Format,
    viewport: Option<[f32; 6]>,
    semantic: SemanticKind,
) -> Result<RecordedGraph, BuildError> {
    let mut params = vec![buffer_target("rt").with_semantic(semantic, 0)];
    if viewport.is_some() {
        params.push(ParamDesc::new("vp", viewport_type()).with_semantic(SemanticKind::Viewport, 0));
    }
    params.push(
        ParamDesc::new("clear", ValueType::Vector(ScalarType::F32, 4))
            .with_semantic(SemanticKind::ClearColor, 0),
    );
    let mut builder = GraphBuilder::new();
    let decl = builder.declare_node(NodeDeclDesc::new("draw", QueueClass::Graphics, params));
    builder.begin_frame(0);
    // 256 x 120 texels of 4 bytes, as the SDK's `test_buffer_rtv_and_clear` creates it.
    let mut desc = ResourceDesc::buffer(256 * 120 * 4);
    desc.flags = ResourceFlags::ROWMAJOR_IMAGE;
    let buffer = builder.create_resource(desc, 1).unwrap();
    let view = BufferView {
        view_format: view_format.0,
        offset: 0,
        size_in_bytes: 256 * 60 * 4,
        ..builder.default_buffer_view(buffer).unwrap()
    };
    let node_decl = builder.decl(decl).unwrap().clone();
    let mut args = ArgsWriter::new(&node_decl);
    args.write_buffer(0, &view);
    let clear_param = node_decl.params.len() - 1;
    for (channel, value) in [1.0f32, 0.0, 0.0, 1.0].iter().enumerate() {
        args.write_f32(clear_param, channel as u32 * 4, *value);
    }
    if let Some(fields) = viewport {
        for (field, value) in fields.iter().enumerate() {
            args.write_f32(1, field as u32 * 4, *value);
        }
    }
    builder.call_node(decl, args.bytes(), CallFlags::default(), 1)?;
    Ok(builder.finish()?.clone())
}

#[test]
fn buffer_view_without_viewport_is_one_row() {
    let frame = compile_buffer_pass(Format::B8G8R8A8_UNORM, None, SemanticKind::Target).unwrap();
    assert_eq!(frame.render_passes.len(), 1);
    let pass = &frame.render_passes[0];
    assert_eq!(
        (pass.width, pass.height, pass.layers, pass.samples),
        (256 * 60, 1, 1, 1)
    );
    assert_eq!(pass.colors.len(), 1);
    assert_eq!(pass.colors[0].load, LoadOp::Clear);
    assert_eq!(pass.colors[0].clear_color, [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(pass.colors[0].resource, ResourceId(0));
    assert_eq!(
        pass.scissors.as_slice(),
        [ScissorRect {
            x: 0,
            y: 0,
            width: 256 * 60,
            height: 1
        }]
    );
}

#[test]
fn buffer_view_rows_follow_the_viewport() {
    let viewport = [0.0, 0.0, 256.0, 60.0, 0.0, 1.0];
    let frame =
        compile_buffer_pass(Format::B8G8R8A8_UNORM, Some(viewport), SemanticKind::Target).unwrap();
    let pass = &frame.render_passes[0];
    assert_eq!((pass.width, pass.height, pass.layers), (256, 60, 1));
    assert_eq!(pass.viewports[0].width, 256.0);
    // A viewport reaching to x = 100.5 makes 101-texel rows: 15360 / 101 = 152 whole rows.
    let narrow = [0.5, 0.0, 100.0, 10.0, 0.0, 1.0];
    let frame =
        compile_buffer_pass(Format::B8G8R8A8_UNORM, Some(narrow), SemanticKind::Target).unwrap();
    let pass = &frame.render_passes[0];
    assert_eq!((pass.width, pass.height), (101, 152));
}

#[test]
fn unformatted_or_depth_buffer_attachments_are_refused() {
    let error = compile_buffer_pass(Format::UNKNOWN, None, SemanticKind::Target).unwrap_err();
    assert_eq!(
        error,
        CompileError::RenderPass {
            node: NodeId(0),
            message: "attachment `rt` must be a texture or a buffer view with a texel format"
                .to_string(),
        }
    );
    // A block-compressed view format is refused when the call is recorded (view_format_check).
    let error = record_buffer_pass(Format::BC1_UNORM, None, SemanticKind::Target).unwrap_err();
    assert_eq!(
        error.to_string(),
        "draw: argument `rt`: a render target or colour clear needs an uncompressed colour \
         format; view format BC1_UNORM is not one"
    );
    let error =
        record_buffer_pass(Format::D32_FLOAT, None, SemanticKind::DepthStencil).unwrap_err();
    assert_eq!(
        error.to_string(),
        "draw: argument `rt`: a render target or colour clear needs an uncompressed colour \
         format; view format D32_FLOAT is not one"
    );
    let error =
        compile_buffer_pass(Format::R32_FLOAT, None, SemanticKind::DepthStencil).unwrap_err();
    assert_eq!(
        error,
        CompileError::RenderPass {
            node: NodeId(0),
            message: "attachment `rt` must be a texture".to_string(),
        }
    );
}
