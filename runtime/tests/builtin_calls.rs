//! `BuiltinCall::decode`: every built-in's arguments land in the named fields of its struct
//! (written here by parameter name, read there by the one decoder), views come with their
//! accesses, and blocks that do not fit their declaration are errors, never panics.

use rpsl_runtime::*;

/// An argument block of `node` with each named parameter set to the given 32-bit words (views
/// null, everything else zero).
fn block(node: BuiltinNode, values: &[(&str, &[u32])]) -> (NodeDeclDesc, Vec<u8>) {
    let decl = node.declaration();
    let mut args = ArgsWriter::new(&decl);
    for (name, words) in values {
        let index = decl
            .params
            .iter()
            .position(|param| param.name == *name)
            .unwrap_or_else(|| panic!("{} has no parameter {name}", node.name()));
        let bytes: Vec<u8> = words.iter().flat_map(|word| word.to_le_bytes()).collect();
        args.write_raw(index, 0, &bytes);
    }
    (decl, args.bytes().to_vec())
}

fn decode(node: BuiltinNode, values: &[(&str, &[u32])]) -> String {
    let (decl, bytes) = block(node, values);
    let call = BuiltinCall::decode(&decl, &bytes, &[]).expect("decodes");
    format!("{call:?}")
}

#[test]
fn copies_and_resolves_decode_every_argument_by_name() {
    assert_eq!(
        decode(
            BuiltinNode::CopyTextureRegion,
            &[
                ("dstOffset", &[1, 2, 3]),
                ("srcOffset", &[4, 5, 6]),
                ("extent", &[7, 8, 9])
            ]
        ),
        "CopyTexture(CopyTexture { dst: None, src: None, region: Some(TextureRegion { \
         dst_offset: [1, 2, 3], src_offset: [4, 5, 6], extent: [7, 8, 9] }) })"
    );
    assert_eq!(
        decode(BuiltinNode::CopyTexture, &[]),
        "CopyTexture(CopyTexture { dst: None, src: None, region: None })"
    );
    assert_eq!(
        decode(
            BuiltinNode::CopyBufferRegion,
            &[
                ("dstOffset", &[16, 1]),
                ("srcOffset", &[4, 0]),
                ("size", &[64, 2])
            ]
        ),
        "CopyBuffer(CopyBuffer { dst: None, src: None, region: Some(BufferRegion { \
         dst_offset: 4294967312, src_offset: 4, size: 8589934656 }) })"
    );
    assert_eq!(
        decode(BuiltinNode::CopyBuffer, &[]),
        "CopyBuffer(CopyBuffer { dst: None, src: None, region: None })"
    );
    assert_eq!(
        decode(
            BuiltinNode::CopyTextureToBuffer,
            &[
                ("dstByteOffset", &[256, 0]),
                ("rowPitch", &[64]),
                ("bufferImageSize", &[16, 8, 1]),
                ("dstOffset", &[1, 2, 0]),
                ("srcOffset", &[3, 4, 0]),
                ("extent", &[5, 6, 1])
            ]
        ),
        "CopyTextureToBuffer(BufferTextureCopy { buffer: None, texture: None, byte_offset: 256, \
         row_pitch: 64, buffer_image_size: [16, 8, 1], buffer_offset: [1, 2, 0], \
         texture_offset: [3, 4, 0], extent: [5, 6, 1] })"
    );
    assert_eq!(
        decode(
            BuiltinNode::CopyBufferToTexture,
            &[
                ("dstOffset", &[3, 4, 0]),
                ("srcByteOffset", &[512, 0]),
                ("rowPitch", &[32]),
                ("bufferImageSize", &[8, 4, 1]),
                ("srcOffset", &[1, 2, 0]),
                ("extent", &[5, 6, 1])
            ]
        ),
        "CopyBufferToTexture(BufferTextureCopy { buffer: None, texture: None, byte_offset: 512, \
         row_pitch: 32, buffer_image_size: [8, 4, 1], buffer_offset: [1, 2, 0], \
         texture_offset: [3, 4, 0], extent: [5, 6, 1] })"
    );
    assert_eq!(
        decode(
            BuiltinNode::Resolve,
            &[
                ("dstOffset", &[1, 2]),
                ("srcOffset", &[3, 4]),
                ("extent", &[5, 6]),
                ("resolveMode", &[2])
            ]
        ),
        "Resolve(Resolve { dst: None, dst_offset: [1, 2], src: None, src_offset: [3, 4], \
         extent: [5, 6], mode: 2 })"
    );
}

#[test]
fn clears_decode_their_values_options_and_planes() {
    let (one, half) = (1.0f32.to_bits(), 0.5f32.to_bits());
    assert_eq!(
        decode(
            BuiltinNode::ClearColorFloat,
            &[("clearValue", &[one, half, 0, one])]
        ),
        "ClearColor(ClearColor { target: None, value: Float([1.0, 0.5, 0.0, 1.0]) })"
    );
    assert_eq!(
        decode(
            BuiltinNode::ClearColorUint,
            &[("clearValue", &[1, 2, 3, 4])]
        ),
        "ClearColor(ClearColor { target: None, value: Uint([1, 2, 3, 4]) })"
    );
    assert_eq!(
        decode(
            BuiltinNode::ClearDepthStencil,
            &[("depth", &[half]), ("stencil", &[7])]
        ),
        "ClearDepthStencil(ClearDepthStencil { target: None, depth: Some(0.5), stencil: Some(7) })"
    );
    assert_eq!(
        decode(BuiltinNode::ClearDepth, &[("depth", &[one])]),
        "ClearDepthStencil(ClearDepthStencil { target: None, depth: Some(1.0), stencil: None })"
    );
    assert_eq!(
        decode(BuiltinNode::ClearStencil, &[("stencil", &[255])]),
        "ClearDepthStencil(ClearDepthStencil { target: None, depth: None, stencil: Some(255) })"
    );
    assert_eq!(
        decode(
            BuiltinNode::ClearTexture,
            &[("option", &[16]), ("data", &[1, 2, 3, 4])]
        ),
        "ClearTexture(ClearTexture { target: None, value: WithOption { option: 16, data: \
         [1, 2, 3, 4] }, rects: None })"
    );
    assert_eq!(
        decode(
            BuiltinNode::ClearBuffer,
            &[("option", &[8]), ("data", &[one, 0, 0, 0])]
        ),
        format!(
            "ClearBuffer(ClearBuffer {{ target: None, value: WithOption {{ option: 8, data: \
             [{one}, 0, 0, 0] }} }})"
        )
    );
    assert_eq!(
        decode(
            BuiltinNode::ClearBufferFloat,
            &[("val", &[half, half, half, half])]
        ),
        "ClearBuffer(ClearBuffer { target: None, value: Typed(Float([0.5, 0.5, 0.5, 0.5])) })"
    );
    assert_eq!(
        decode(BuiltinNode::ClearBufferUint, &[("val", &[9, 8, 7, 6])]),
        "ClearBuffer(ClearBuffer { target: None, value: Typed(Uint([9, 8, 7, 6])) })"
    );
}

#[test]
fn region_clears_read_the_rectangles_passed_after_the_block() {
    let (decl, mut bytes) = block(
        BuiltinNode::ClearDepthStencilRegions,
        &[
            ("option", &[6]),
            ("d", &[0.25f32.to_bits()]),
            ("s", &[3]),
            ("numRects", &[2]),
        ],
    );
    let rects_at = decl.param("rects").unwrap().offset as usize;
    bytes.truncate(rects_at);
    for value in [1i32, 2, 3, 4, -5, 6, 7, 8] {
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    let Ok(BuiltinCall::ClearDepthStencilRegions(call)) = BuiltinCall::decode(&decl, &bytes, &[])
    else {
        panic!("a depth/stencil region clear");
    };
    assert_eq!(
        (call.option, call.depth, call.stencil, call.rects.count),
        (6, 0.25, 3, 2)
    );
    let rects: Vec<[i32; 4]> = call.rects.rects().unwrap().collect();
    assert_eq!(rects, [[1, 2, 3, 4], [-5, 6, 7, 8]]);
    // Three announced, two passed: an error when the rectangles are read.
    bytes[decl.param("numRects").unwrap().offset as usize] = 3;
    let Ok(BuiltinCall::ClearDepthStencilRegions(call)) = BuiltinCall::decode(&decl, &bytes, &[])
    else {
        panic!("a depth/stencil region clear");
    };
    assert_eq!(
        call.rects.rects().err().unwrap(),
        "3 rectangle(s) announced but fewer were passed in `rects`"
    );

    // The block is padded to 8 bytes: the array's bytes are the 4 after `numRects`.
    let (decl, bytes) = block(
        BuiltinNode::ClearTextureRegions,
        &[("data", &[1, 2, 3, 4]), ("numRects", &[0])],
    );
    assert_eq!(
        format!("{:?}", BuiltinCall::decode(&decl, &bytes, &[]).unwrap()),
        "ClearTexture(ClearTexture { target: None, value: FormatTyped([1, 2, 3, 4]), rects: \
         Some(ClearRects { count: 0, bytes: [0, 0, 0, 0] }) })"
    );
    let (decl, bytes) = block(
        BuiltinNode::ClearColorRegions,
        &[("data", &[0, 0, 0, 1.0f32.to_bits()]), ("numRects", &[1])],
    );
    let Ok(BuiltinCall::ClearColorRegions(call)) = BuiltinCall::decode(&decl, &bytes, &[]) else {
        panic!("a colour region clear");
    };
    assert_eq!((call.value, call.rects.count), ([0.0, 0.0, 0.0, 1.0], 1));
    assert!(call.rects.rects().is_err());
}

#[test]
fn views_come_with_their_accesses_and_null_views_with_none() {
    let mut builder = GraphBuilder::new();
    let copy = builder.declare_node(BuiltinNode::CopyTextureToBuffer.declaration());
    builder.begin_frame(0);
    let texture = builder
        .create_resource(ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 4), 1)
        .unwrap();
    let buffer = builder
        .create_resource(ResourceDesc::buffer(256), 2)
        .unwrap();
    let texture_view = builder.default_texture_view(texture).unwrap();
    let buffer_view = builder.default_buffer_view(buffer).unwrap();
    let decl = builder.decl(copy).unwrap().clone();
    let extent: Vec<u8> = [4u32, 4, 1].iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut args = ArgsWriter::new(&decl);
    args.write_buffer(0, &buffer_view)
        .write_texture(5, &texture_view)
        .write_raw(7, 0, &extent);
    let both = builder
        .call_node(copy, args.bytes(), CallFlags::default(), 1)
        .unwrap();
    let mut args = ArgsWriter::new(&decl);
    args.write_texture(5, &texture_view)
        .write_raw(7, 0, &extent);
    let no_buffer = builder
        .call_node(copy, args.bytes(), CallFlags::default(), 2)
        .unwrap();
    let graph = builder.finish().unwrap();

    let Some(Ok(BuiltinCall::CopyTextureToBuffer(call))) = BuiltinCall::of_node(graph, both) else {
        panic!("a texture-to-buffer copy");
    };
    let (buffer_arg, texture_arg) = (call.buffer.unwrap(), call.texture.unwrap());
    assert_eq!(
        (
            buffer_arg.index,
            buffer_arg.access.param,
            buffer_arg.access.resource
        ),
        (0, 0, buffer)
    );
    assert_eq!(
        (
            texture_arg.index,
            texture_arg.access.param,
            texture_arg.access.resource
        ),
        (1, 5, texture)
    );
    assert_eq!(call.extent, [4, 4, 1]);

    let Some(Ok(BuiltinCall::CopyTextureToBuffer(call))) = BuiltinCall::of_node(graph, no_buffer)
    else {
        panic!("a texture-to-buffer copy");
    };
    assert_eq!(call.buffer, None);
    let texture_arg = call.texture.unwrap();
    assert_eq!((texture_arg.index, texture_arg.access.param), (0, 5));
}

#[test]
fn blocks_that_do_not_fit_their_declaration_are_errors() {
    let script = NodeDeclDesc::new("clear", QueueClass::Graphics, vec![]);
    assert_eq!(
        BuiltinCall::decode(&script, &[], &[]),
        Err(BuiltinArgsError::NotBuiltin)
    );
    // A declaration claiming to be a built-in with other parameters.
    let wrong = NodeDeclDesc::new(
        "copy_buffer",
        QueueClass::Copy,
        vec![ParamDesc::new("dst", ValueType::Buffer)],
    )
    .with_builtin(BuiltinNode::CopyBufferRegion);
    let error = BuiltinCall::decode(&wrong, &[0; 64], &[]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the declaration's parameters are not those of built-in `copy_buffer`"
    );
    let (decl, bytes) = block(BuiltinNode::Resolve, &[]);
    let error = BuiltinCall::decode(&decl, &bytes[..decl.args_end as usize - 1], &[]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the arguments of built-in `resolve` are 107 bytes, fewer than the 108 its parameters \
         take"
    );
    assert_eq!(decl.args_end, 108);
}
