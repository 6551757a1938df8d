//! Built-in transfer nodes reject views they cannot copy between when the call is recorded
//! (never a command a GPU would run), and accept the copies they can do.

use rpsl_runtime::*;

/// A builder with rpsl.h's built-in nodes declared; their ids by (name, parameter count).
fn builder_with_builtins() -> (GraphBuilder, Vec<(String, usize, DeclId)>) {
    let mut builder = GraphBuilder::new();
    let decls = builtin_declarations()
        .into_iter()
        .map(|decl| {
            let key = (decl.name.clone(), decl.params.len());
            (key.0, key.1, builder.declare_node(decl))
        })
        .collect();
    (builder, decls)
}

fn decl(decls: &[(String, usize, DeclId)], name: &str, params: usize) -> DeclId {
    decls
        .iter()
        .find(|(n, p, _)| n == name && *p == params)
        .map(|entry| entry.2)
        .unwrap_or_else(|| panic!("{name}/{params}"))
}

fn texture(builder: &mut GraphBuilder, key: u64, desc: ResourceDesc) -> TextureView {
    let id = builder.create_resource(desc, key).unwrap();
    builder.default_texture_view(id).unwrap()
}

fn tex(format: Format, size: u32, mips: u32, layers: u32) -> ResourceDesc {
    ResourceDesc {
        mip_levels: mips,
        depth_or_array_size: layers,
        ..ResourceDesc::tex2d(format, size, size)
    }
}

/// `copy_texture(dst, src)` of the two views: the builder's verdict.
fn copy_whole(dst: ResourceDesc, src: ResourceDesc) -> Result<NodeId, BuildError> {
    let (mut builder, decls) = builder_with_builtins();
    let copy = decl(&decls, "copy_texture", 2);
    builder.begin_frame(0);
    let dst = texture(&mut builder, 1, dst);
    let src = texture(&mut builder, 2, src);
    let mut args = ArgsWriter::new(builder.decl(copy).unwrap());
    args.write_texture(0, &dst).write_texture(1, &src);
    builder.call_node(copy, args.bytes(), CallFlags::default(), 7)
}

fn message(result: Result<NodeId, BuildError>) -> String {
    match result {
        Err(BuildError::InvalidTransfer { node, message }) => format!("{node}: {message}"),
        other => panic!("expected a transfer error, got {other:?}"),
    }
}

#[test]
fn whole_texture_copies_need_matching_texels_layers_samples_and_sizes() {
    use Format as F;
    assert!(copy_whole(
        tex(F::R8G8B8A8_UNORM, 64, 3, 2),
        tex(F::R8G8B8A8_UNORM, 64, 3, 2)
    )
    .is_ok());
    // Same texel size, other format: a raw copy is fine.
    assert!(copy_whole(
        tex(F::R32_FLOAT, 64, 1, 1),
        tex(F::R8G8B8A8_UNORM, 64, 1, 1)
    )
    .is_ok());
    assert_eq!(
        message(copy_whole(
            tex(F::R16G16B16A16_FLOAT, 64, 1, 1),
            tex(F::R8G8B8A8_UNORM, 64, 1, 1)
        )),
        "copy_texture: formats R8G8B8A8_UNORM and R16G16B16A16_FLOAT are not copy-compatible \
         (4 and 8 bytes per texel)"
    );
    assert_eq!(
        message(copy_whole(
            tex(F::R8G8B8A8_UNORM, 64, 1, 3),
            tex(F::R8G8B8A8_UNORM, 64, 1, 1)
        )),
        "copy_texture: the views have 1 and 3 array layers"
    );
    assert!(message(copy_whole(
        tex(F::R8G8B8A8_UNORM, 100, 1, 1),
        tex(F::R8G8B8A8_UNORM, 64, 1, 1)
    ))
    .starts_with("copy_texture: mip 0 of the views is 64x64x1 in the source and 100x100x1"));
    assert_eq!(
        message(copy_whole(
            tex(F::D32_FLOAT, 64, 1, 1),
            tex(F::R32_FLOAT, 64, 1, 1)
        )),
        "copy_texture: depth/stencil copies need one format (R32_FLOAT to D32_FLOAT)"
    );
    let mut multisampled = tex(F::R8G8B8A8_UNORM, 64, 1, 1);
    multisampled.sample_count = 4;
    assert_eq!(
        message(copy_whole(tex(F::R8G8B8A8_UNORM, 64, 1, 1), multisampled)),
        "copy_texture: sample counts differ (4 to 1)"
    );
}

/// A rejected call leaves the frame as it was: no node, no accesses.
#[test]
fn a_rejected_copy_records_nothing() {
    let (mut builder, decls) = builder_with_builtins();
    let copy = decl(&decls, "copy_texture", 2);
    builder.begin_frame(0);
    let dst = texture(&mut builder, 1, tex(Format::R16G16B16A16_FLOAT, 64, 1, 1));
    let src = texture(&mut builder, 2, tex(Format::R8G8B8A8_UNORM, 64, 1, 1));
    let mut args = ArgsWriter::new(builder.decl(copy).unwrap());
    args.write_texture(0, &dst).write_texture(1, &src);
    assert!(builder
        .call_node(copy, args.bytes(), CallFlags::default(), 7)
        .is_err());
    let graph = builder.finish().unwrap();
    assert!(graph.nodes.is_empty());
    assert!(graph.accesses.is_empty());
}

#[test]
fn buffer_region_copies_stay_inside_their_views() {
    let (mut builder, decls) = builder_with_builtins();
    let copy = decl(&decls, "copy_buffer", 5);
    builder.begin_frame(0);
    let make = |builder: &mut GraphBuilder, key: u64, size: u64| {
        let id = builder
            .create_resource(ResourceDesc::buffer(size), key)
            .unwrap();
        builder.default_buffer_view(id).unwrap()
    };
    let dst = make(&mut builder, 1, 256);
    let src = make(&mut builder, 2, 64);
    let call = |builder: &mut GraphBuilder, dst_at: u64, src_at: u64, size: u64| {
        let mut args = ArgsWriter::new(builder.decl(copy).unwrap());
        args.write_buffer(0, &dst)
            .write_raw(1, 0, &dst_at.to_le_bytes())
            .write_buffer(2, &src)
            .write_raw(3, 0, &src_at.to_le_bytes())
            .write_raw(4, 0, &size.to_le_bytes());
        builder.call_node(copy, args.bytes(), CallFlags::default(), dst_at + src_at)
    };
    assert!(call(&mut builder, 192, 0, 64).is_ok());
    assert_eq!(
        message(call(&mut builder, 0, 32, 64)),
        "copy_buffer: the source range 32..32+64 goes past the end of its view (64 bytes)"
    );
    assert_eq!(
        message(call(&mut builder, 200, 0, 64)),
        "copy_buffer: the destination range 200..200+64 goes past the end of its view (256 bytes)"
    );
    assert!(call(&mut builder, u64::MAX, 0, 2).is_err());
}

/// Within one texture: between two layers is a copy; onto itself is not.
#[test]
fn copies_within_one_resource_need_distinct_subresources() {
    let (mut builder, decls) = builder_with_builtins();
    let copy = decl(&decls, "copy_texture", 2);
    builder.begin_frame(0);
    let whole = texture(&mut builder, 1, tex(Format::R8G8B8A8_UNORM, 64, 1, 2));
    let layer = |base: u32| TextureView {
        base_array_layer: base,
        array_layer_count: 1,
        ..whole
    };
    let mut call = |dst: TextureView, src: TextureView, key: u64| {
        let mut args = ArgsWriter::new(builder.decl(copy).unwrap());
        args.write_texture(0, &dst).write_texture(1, &src);
        builder.call_node(copy, args.bytes(), CallFlags::default(), key)
    };
    assert!(call(layer(1), layer(0), 1).is_ok());
    assert_eq!(
        message(call(whole, whole, 2)),
        "copy_texture: the source and destination views overlap (one resource: copy between \
         distinct mips, layers or byte ranges)"
    );
    assert!(call(layer(0), whole, 3).is_err());
}

/// `copy_buffer_to_texture` of a 16x16 RGBA8 texture from a 2 KiB buffer: rows, slices,
/// alignment and the texture region are checked.
#[test]
fn buffer_to_texture_copies_fit_rows_alignment_and_the_mip() {
    let (mut builder, decls) = builder_with_builtins();
    let copy = decl(&decls, "copy_buffer_to_texture", 8);
    builder.begin_frame(0);
    let dst = texture(&mut builder, 1, tex(Format::R8G8B8A8_UNORM, 16, 1, 1));
    let id = builder
        .create_resource(ResourceDesc::buffer(2048), 2)
        .unwrap();
    let src = builder.default_buffer_view(id).unwrap();
    let uint3 = |v: [u32; 3]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let mut key = 10;
    let mut call = |byte_offset: u64, pitch: u32, rows: u32, extent: [u32; 3]| {
        let mut args = ArgsWriter::new(builder.decl(copy).unwrap());
        args.write_texture(0, &dst)
            .write_raw(1, 0, &uint3([0, 0, 0]))
            .write_buffer(2, &src)
            .write_raw(3, 0, &byte_offset.to_le_bytes())
            .write_u32(4, pitch)
            .write_raw(5, 0, &uint3([0, rows, 1]))
            .write_raw(6, 0, &uint3([0, 0, 0]))
            .write_raw(7, 0, &uint3(extent));
        key += 1;
        builder.call_node(copy, args.bytes(), CallFlags::default(), key)
    };
    // 8x8 texels, packed rows (32 bytes) and slices: 256 bytes from 0.
    assert!(call(0, 0, 0, [8, 8, 1]).is_ok());
    // A 64-byte pitch, 16 rows: the last row ends at 15 * 64 + 64 = 1024 bytes after 1024.
    assert!(call(1024, 64, 16, [16, 16, 1]).is_ok());
    assert_eq!(
        message(call(1028, 64, 16, [16, 16, 1])),
        "copy_buffer_to_texture: the buffer range 1028..1028+1024 goes past the end of its view \
         (2048 bytes)"
    );
    assert_eq!(
        message(call(2, 0, 0, [8, 8, 1])),
        "copy_buffer_to_texture: the texels start at buffer byte 2, not a multiple of 4"
    );
    assert_eq!(
        message(call(0, 64, 4, [8, 8, 1])),
        "copy_buffer_to_texture: an image of 4 rows in the buffer does not hold 8 rows"
    );
    assert_eq!(
        message(call(0, 16, 0, [8, 8, 1])),
        "copy_buffer_to_texture: row pitch 16 does not hold a row of 8 texels of 4 bytes"
    );
    assert!(message(call(0, 0, 0, [17, 8, 1])).contains("goes past the viewed mip"));
    assert_eq!(
        message(call(0, 0, 0, [0, 8, 1])),
        "copy_buffer_to_texture: the copy extent [0, 8, 1] is empty"
    );
}

/// Region copies and resolves: offsets lie in the viewed mip (the extent is clamped to the edge
/// by the backends, an offset past it would reach outside the image).
#[test]
fn region_copy_and_resolve_offsets_lie_in_the_mip() {
    let (mut builder, decls) = builder_with_builtins();
    let copy = decl(&decls, "copy_texture", 5);
    let resolve = decl(&decls, "resolve", 6);
    builder.begin_frame(0);
    let dst = texture(&mut builder, 1, tex(Format::R8G8B8A8_UNORM, 64, 2, 1));
    let src = texture(&mut builder, 2, tex(Format::R8G8B8A8_UNORM, 32, 1, 1));
    let mut multisampled = tex(Format::R8G8B8A8_UNORM, 32, 1, 1);
    multisampled.sample_count = 4;
    let ms = texture(&mut builder, 3, multisampled);
    let mut layered = tex(Format::R8G8B8A8_UNORM, 32, 1, 3);
    layered.sample_count = 4;
    let ms_layers = texture(&mut builder, 4, layered);
    let uint = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let mut key = 10;
    let mut call = |builder: &mut GraphBuilder,
                    decl: DeclId,
                    src: &TextureView,
                    dst_at: &[u32],
                    src_at: &[u32]| {
        let mut args = ArgsWriter::new(builder.decl(decl).unwrap());
        let extent = vec![u32::MAX; dst_at.len()];
        args.write_texture(0, &dst)
            .write_raw(1, 0, &uint(dst_at))
            .write_texture(2, src)
            .write_raw(3, 0, &uint(src_at))
            .write_raw(4, 0, &uint(&extent));
        key += 1;
        builder.call_node(decl, args.bytes(), CallFlags::default(), key)
    };
    assert!(call(&mut builder, copy, &src, &[32, 32, 0], &[0, 0, 0]).is_ok());
    // On the far edge: an empty region, not an error.
    assert!(call(&mut builder, copy, &src, &[64, 0, 0], &[32, 0, 0]).is_ok());
    assert_eq!(
        message(call(
            &mut builder,
            copy,
            &src,
            &[0, 0, 0],
            &[0, u32::MAX, 0]
        )),
        "copy_texture: the source offset [0, 4294967295, 0] lies outside the viewed mip (32x32x1)"
    );
    assert_eq!(
        message(call(&mut builder, copy, &src, &[65, 0, 0], &[0, 0, 0])),
        "copy_texture: the destination offset [65, 0, 0] lies outside the viewed mip (64x64x1)"
    );
    assert!(call(&mut builder, resolve, &ms, &[16, 16], &[0, 0]).is_ok());
    assert_eq!(
        message(call(&mut builder, resolve, &ms, &[0, 0], &[0, 33])),
        "resolve: the source offset [0, 33] lies outside the viewed mip (32x32x1)"
    );
    assert_eq!(
        message(call(&mut builder, resolve, &ms_layers, &[0, 0], &[0, 0])),
        "resolve: the views have 3 and 1 array layers"
    );
    assert_eq!(
        message(call(&mut builder, resolve, &ms, &[70, 0], &[0, 0])),
        "resolve: the destination offset [70, 0] lies outside the viewed mip (64x64x1)"
    );
}
