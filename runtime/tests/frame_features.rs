//! Render passes, temporal resources, the compiled-frame cache, async queues, the JSON dump and
//! builder errors.

mod common;
use common::*;
use rpsl_runtime::*;

fn float4(name: &str) -> ParamDesc {
    ParamDesc::new(name, ValueType::Vector(ScalarType::F32, 4))
}

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

#[test]
fn mrt_render_pass_with_clear_and_viewport() {
    let mut rec = Recorder::new();
    let decl = rec.declare(
        "mrt",
        QueueClass::Graphics,
        vec![
            rtv("rt0", 0),
            rtv("rt1", 1),
            float4("clearColor0").with_semantic(SemanticKind::ClearColor, 0),
            ParamDesc::new("vp", viewport_type()).with_semantic(SemanticKind::Viewport, 0),
            tex_param(
                "ds",
                AccessDesc::readwrite(AccessFlags::DEPTH | AccessFlags::STENCIL),
            )
            .with_semantic(SemanticKind::DepthStencil, 0),
            ParamDesc::new("d", ValueType::Scalar(ScalarType::F32))
                .with_semantic(SemanticKind::ClearDepth, 0),
        ],
    );
    rec.begin(0);
    let output = rec.output();
    let rt1 = rec.texture(ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080));
    let ds = rec.texture(ResourceDesc::tex2d(Format::D24_UNORM_S8_UINT, 1920, 1080));
    let desc = rec.builder.decl(decl).unwrap().clone();
    let mut args = ArgsWriter::new(&desc);
    args.write_texture(0, &output)
        .write_texture(1, &rt1)
        .write_texture(4, &ds);
    for (channel, value) in [0.25f32, 0.5, 0.75, 1.0].iter().enumerate() {
        args.write_f32(2, channel as u32 * 4, *value);
    }
    for (field, value) in [10.0f32, 20.0, 100.0, 50.0, 0.0, 1.0].iter().enumerate() {
        args.write_f32(3, field as u32 * 4, *value);
    }
    args.write_f32(5, 0, 0.0);
    rec.builder
        .call_node(decl, args.bytes(), CallFlags::default(), 1)
        .unwrap();
    let graph = rec.finish().clone();
    let frame = compile(&graph, SchedulePreference::Default, true);
    assert_eq!(frame.render_passes.len(), 1);
    let pass = &frame.render_passes[0];
    assert_eq!(
        (pass.width, pass.height, pass.layers, pass.samples),
        (1920, 1080, 1, 1)
    );
    assert_eq!(pass.colors.len(), 2);
    assert_eq!(pass.colors[0].load, LoadOp::Clear);
    assert_eq!(pass.colors[0].clear_color, [0.25, 0.5, 0.75, 1.0]);
    assert_eq!(
        pass.colors[0].store,
        StoreOp::Store,
        "external output keeps its contents"
    );
    assert_eq!(
        pass.colors[1].load,
        LoadOp::DontCare,
        "first use of a transient"
    );
    assert_eq!(
        pass.colors[1].store,
        StoreOp::DontCare,
        "nothing reads it later"
    );
    let depth = pass.depth_stencil.unwrap();
    assert_eq!(
        (depth.depth_load, depth.clear_depth, depth.stencil_load),
        (LoadOp::Clear, 0.0, LoadOp::DontCare)
    );
    assert_eq!(
        pass.viewports[0],
        Viewport {
            x: 10.0,
            y: 20.0,
            width: 100.0,
            height: 50.0,
            min_depth: 0.0,
            max_depth: 1.0
        }
    );
    assert_eq!(
        pass.scissors[0],
        ScissorRect {
            x: 0,
            y: 0,
            width: 1920,
            height: 1080
        }
    );
}

#[test]
fn render_pass_validation_errors() {
    let cases: [(&str, u32, f32, f32); 3] = [
        ("extent", 960, 1.0, 1.0),
        ("depth", 1920, 2.0, 1.0),
        ("viewport", 1920, 1.0, 40000.0),
    ];
    for (what, width, clear_depth, viewport_width) in cases {
        let mut rec = Recorder::new();
        let decl = rec.declare(
            "pass",
            QueueClass::Graphics,
            vec![
                rtv("rt0", 0),
                tex_param("ds", AccessDesc::readwrite(AccessFlags::DEPTH))
                    .with_semantic(SemanticKind::DepthStencil, 0),
                ParamDesc::new("d", ValueType::Scalar(ScalarType::F32))
                    .with_semantic(SemanticKind::ClearDepth, 0),
                ParamDesc::new("vp", viewport_type()).with_semantic(SemanticKind::Viewport, 0),
            ],
        );
        rec.begin(0);
        let output = rec.output();
        let ds = rec.texture(ResourceDesc::tex2d(Format::D32_FLOAT, width, 1080));
        let desc = rec.builder.decl(decl).unwrap().clone();
        let mut args = ArgsWriter::new(&desc);
        args.write_texture(0, &output)
            .write_texture(1, &ds)
            .write_f32(2, 0, clear_depth);
        for (field, value) in [0.0f32, 0.0, viewport_width, 100.0, 0.0, 1.0]
            .iter()
            .enumerate()
        {
            args.write_f32(3, field as u32 * 4, *value);
        }
        rec.builder
            .call_node(decl, args.bytes(), CallFlags::default(), 1)
            .unwrap();
        let graph = rec.finish().clone();
        let mut compiler = FrameCompiler::new(CompileOptions::default());
        let err = compiler.compile(&graph).unwrap_err();
        let text = err.to_string();
        let expected = match what {
            "extent" => "node 0: attachment `ds` is 960x1080 but the pass is 1920x1080",
            "depth" => "node 0: clear depth 2 is not a finite value in [0, 1]",
            _ => "node 0: viewport 0 lies outside the viewport bounds [-32768, 32767]",
        };
        assert_eq!(text, expected);
    }
}

#[test]
fn temporal_slices_rotate_and_start_at_the_first_slice() {
    let mut rec = Recorder::new();
    let draw = rec.declare(
        "draw",
        QueueClass::Graphics,
        vec![rtv("rt", 0), ps_srv("prev")],
    );
    let mut slots = Vec::new();
    for frame in 0..5u64 {
        rec.builder.begin_frame(frame);
        let output = rec
            .builder
            .import_external(
                "output",
                ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64),
            )
            .unwrap();
        let mut desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
        desc.temporal_layers = 3;
        let history = rec.builder.create_resource(desc, 42).unwrap();
        let view = rec.builder.default_texture_view(history).unwrap();
        let prev = TextureView {
            temporal_layer: 1,
            ..view
        };
        let decl = rec.builder.decl(draw).unwrap().clone();
        let mut args = ArgsWriter::new(&decl);
        args.write_texture(0, &view).write_texture(1, &prev);
        rec.builder
            .call_node(draw, args.bytes(), CallFlags::default(), 1)
            .unwrap();
        let mut args = ArgsWriter::new(&decl);
        args.write_texture(0, &rec.builder.default_texture_view(output).unwrap())
            .write_texture(1, &view);
        rec.builder
            .call_node(draw, args.bytes(), CallFlags::default(), 2)
            .unwrap();
        let graph = rec.builder.finish().unwrap();
        let record = &graph.resources[history.index()];
        slots.push(record.storage);
        assert_eq!(record.frames_alive, frame);
        let current = graph.accesses[0].temporal_slice;
        let previous = graph.accesses[1].temporal_slice;
        assert_eq!(current, (frame % 3) as u32);
        assert_eq!(
            previous,
            if frame == 0 {
                0
            } else {
                ((frame - 1) % 3) as u32
            }
        );
        let compiled = compile(graph, SchedulePreference::Default, true);
        assert_eq!(
            compiled.order.len(),
            2,
            "writes to temporal resources are effects"
        );
        assert!(
            compiled.placements[history.index()].is_none(),
            "temporal resources are never aliased"
        );
        assert!(compiled
            .access_discard
            .iter()
            .take(2)
            .all(|flags| *flags == DiscardFlags::NONE));
    }
    assert!(slots
        .windows(2)
        .all(|pair| pair[0] == pair[1] && pair[0].is_some()));
    // A changed description starts new storage with no history.
    rec.builder.begin_frame(5);
    let mut desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 32, 32);
    desc.temporal_layers = 3;
    let id = rec.builder.create_resource(desc, 42).unwrap();
    let graph = rec.builder.finish().unwrap();
    assert_eq!(graph.resources[id.index()].frames_alive, 0);
    assert_ne!(graph.resources[id.index()].storage, slots[0]);
}

#[test]
fn cache_hits_when_only_argument_values_change() {
    let mut rec = Recorder::new();
    let draw = rec.declare(
        "draw",
        QueueClass::Graphics,
        vec![uint_param("id"), rtv("rt", 0)],
    );
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let mut hits = Vec::new();
    for (frame, id, nodes) in [(0u64, 1u32, 1), (1, 2, 1), (2, 3, 2), (3, 4, 2)] {
        rec.begin(frame);
        let output = rec.output();
        for _ in 0..nodes {
            rec.call(draw, &[Arg::U32(id), Arg::Tex(output)]);
        }
        let graph = rec.finish().clone();
        let compiled = compiler.compile(&graph).unwrap();
        assert_eq!(compiled.order.len(), nodes);
        hits.push(compiled.cache_hit);
    }
    assert_eq!(hits, vec![false, true, false, true]);
}

#[test]
fn async_compute_gets_its_own_queue_and_waits() {
    let mut rec = Recorder::new();
    let comp = rec.declare(
        "comp",
        QueueClass::Compute,
        vec![uint_param("id"), uav("u")],
    );
    let blt = rec.declare(
        "blt",
        QueueClass::Graphics,
        vec![uint_param("id"), rtv("dst", 0), ps_srv("src")],
    );
    rec.begin(0);
    let output = rec.output();
    let tmp = rec.texture(ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64));
    rec.call_with(
        comp,
        &[Arg::U32(0), Arg::Tex(tmp)],
        CallFlags { prefer_async: true },
    );
    rec.call(blt, &[Arg::U32(1), Arg::Tex(output), Arg::Tex(tmp)]);
    let graph = rec.finish().clone();
    let frame = compile(&graph, SchedulePreference::Default, true);
    assert_eq!(
        frame.queues,
        vec![QueueClass::Graphics, QueueClass::Compute]
    );
    assert_eq!(frame.node_queue, vec![1, 0]);
    assert_eq!(
        frame.queue_waits,
        vec![QueueWait {
            wait_queue: 0,
            signal_queue: 1,
            signal_after: 0,
            wait_before: 1
        }]
    );
}

#[test]
fn dump_is_deterministic_and_decodes_arguments() {
    let mut rec = Recorder::new();
    let draw = rec.declare(
        "draw",
        QueueClass::Graphics,
        vec![uint_param("id"), rtv("rt", 0)],
    );
    let blt_all = rec.declare(
        "blt_all",
        QueueClass::Graphics,
        vec![
            uint_param("id"),
            rtv("dst", 0),
            ParamDesc::new("srcs", ValueType::Array(Box::new(ValueType::Texture), 2))
                .with_access(AccessDesc::readonly(AccessFlags::PS)),
            float4("tint"),
        ],
    );
    rec.begin(0);
    let output = rec.output();
    let t0 = rec.texture(ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64));
    let t1 = rec.texture(ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64));
    rec.call(draw, &[Arg::U32(0), Arg::Tex(t0)]);
    rec.call(draw, &[Arg::U32(1), Arg::Tex(t1)]);
    rec.call(
        blt_all,
        &[
            Arg::U32(2),
            Arg::Tex(output),
            Arg::Texs(vec![t0, TextureView::NULL]),
            Arg::F32(0.1),
        ],
    );
    let graph = rec.finish().clone();
    let frame = compile(&graph, SchedulePreference::ProgramOrder, true);
    let text = dump_frame_json("main", &graph, Some(&frame));
    assert_eq!(text, dump_frame_json("main", &graph, Some(&frame)));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["version"], 1);
    let f = &json["frames"][0];
    assert_eq!(f["resources"][0]["name"], "output");
    assert_eq!(f["resources"][0]["external"], true);
    assert_eq!(f["resources"][1]["format"], "R8G8B8A8_UNORM");
    let node = &f["nodes"][2];
    assert_eq!(node["name"], "blt_all");
    assert_eq!(node["args"][0]["value"], 2);
    assert_eq!(node["args"][2]["value"][0]["view"]["resource"], 1);
    assert!(node["args"][2]["value"][1]["view"].is_null());
    assert_eq!(node["args"][3]["value"][0].as_f64().unwrap() as f32, 0.1f32);
    assert_eq!(node["args"][3]["value"].to_string(), "[0.1,0,0,0]");
    let accesses = node["accesses"].as_array().unwrap();
    assert_eq!(accesses.len(), 2);
    assert_eq!(accesses[1]["param"], "srcs[0]");
    assert_eq!(accesses[1]["access"], serde_json::json!(["ps"]));
    assert_eq!(accesses[1]["mode"], "readonly");
    assert_eq!(accesses[0]["semantic"], "SV_Target0");
    assert_eq!(f["schedule"]["order"], serde_json::json!([0, 2]));
    assert_eq!(f["schedule"]["culled"], serde_json::json!([1]));
    let passes = f["schedule"]["render_passes"].as_array().unwrap();
    assert_eq!(passes.len(), 2);
    assert_eq!(passes[0]["colors"][0]["load"], "dont_care");
    assert!(f["schedule"]["barrier_batches"].as_array().unwrap().len() >= 2);
}

#[test]
fn builder_errors_are_typed() {
    let mut builder = GraphBuilder::new();
    let draw = builder.declare_node(NodeDeclDesc::new(
        "draw",
        QueueClass::Graphics,
        vec![rtv("rt", 0)],
    ));
    assert_eq!(
        builder.create_resource(ResourceDesc::buffer(4), 0),
        Err(BuildError::NotRecording)
    );
    builder.begin_frame(0);
    let bad = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 0, 4);
    assert_eq!(
        builder.create_resource(bad, 0),
        Err(BuildError::InvalidResource(ResourceError::ZeroSize))
    );
    let tex = builder
        .create_resource(ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 4), 1)
        .unwrap();
    let decl = builder.decl(draw).unwrap().clone();
    let view = TextureView {
        mip_level_count: 2,
        ..builder.default_texture_view(tex).unwrap()
    };
    let mut args = ArgsWriter::new(&decl);
    args.write_texture(0, &view);
    let err = builder
        .call_node(draw, args.bytes(), CallFlags::default(), 0)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "argument `rt`: mips 0..2 exceed the resource's 1 mip level"
    );
    let missing = TextureView {
        resource: 9,
        ..view
    };
    let mut args = ArgsWriter::new(&decl);
    args.write_texture(0, &missing);
    assert_eq!(
        builder.call_node(draw, args.bytes(), CallFlags::default(), 0),
        Err(BuildError::UnknownResource {
            param: "rt".into(),
            resource: 9
        })
    );
    assert!(matches!(
        builder.call_node(draw, &[0u8; 4], CallFlags::default(), 0),
        Err(BuildError::ArgumentsTooShort { .. })
    ));
    assert_eq!(builder.end_subgraph(), Err(BuildError::UnbalancedSubgraph));
    builder.begin_subgraph(true, false).unwrap();
    assert_eq!(
        builder.finish().map(|_| ()),
        Err(BuildError::UnbalancedSubgraph)
    );
}

#[test]
fn resolve_targets_attach_to_their_color_slot() {
    for samples in [4u32, 1] {
        let mut rec = Recorder::new();
        let decl = rec.declare(
            "msaa",
            QueueClass::Graphics,
            vec![
                rtv("color", 0),
                tex_param("resolved", AccessDesc::writeonly(AccessFlags::RESOLVE))
                    .with_semantic(SemanticKind::ResolveTarget, 0),
                tex_param("depth", AccessDesc::readonly(AccessFlags::DEPTH))
                    .with_semantic(SemanticKind::DepthStencil, 0),
            ],
        );
        rec.begin(0);
        let output = rec.output();
        let mut msaa = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080);
        msaa.sample_count = samples;
        let color = rec.texture(msaa);
        let mut depth_desc = ResourceDesc::tex2d(Format::D32_FLOAT, 1920, 1080);
        depth_desc.sample_count = samples;
        let depth = rec.texture(depth_desc);
        let desc = rec.builder.decl(decl).unwrap().clone();
        let mut args = ArgsWriter::new(&desc);
        args.write_texture(0, &color)
            .write_texture(1, &output)
            .write_texture(2, &depth);
        rec.builder
            .call_node(decl, args.bytes(), CallFlags::default(), 1)
            .unwrap();
        let graph = rec.finish().clone();
        let mut compiler = FrameCompiler::new(CompileOptions::default());
        match compiler.compile(&graph) {
            Ok(frame) => {
                assert_eq!(samples, 4);
                let pass = &frame.render_passes[0];
                assert_eq!(pass.samples, 4);
                assert_eq!(pass.colors[0].resolve, Some(1));
                let depth = pass.depth_stencil.unwrap();
                assert!(depth.depth_read_only);
                assert_eq!(
                    depth.depth_load,
                    LoadOp::Load,
                    "read-only depth always loads"
                );
            }
            Err(err) => {
                assert_eq!(samples, 1);
                assert_eq!(
                    err.to_string(),
                    "node 0: SV_ResolveTarget0 needs a multisampled SV_Target0"
                );
            }
        }
    }
}

/// A recorder in frame 0 with a `Fill` (one render target) and a `Read` (sampled source, render
/// target) declaration, the output and a 64x64 texture of two mips.
fn two_mip_texture_frame() -> (Recorder, DeclId, DeclId, TextureView, TextureView) {
    let mut rec = Recorder::new();
    let fill = rec.declare("Fill", QueueClass::Graphics, vec![rtv("rt", 0)]);
    let read = rec.declare(
        "Read",
        QueueClass::Graphics,
        vec![ps_srv("src"), rtv("out", 0)],
    );
    rec.begin(0);
    let output = rec.output();
    let texture = rec.texture(ResourceDesc {
        mip_levels: 2,
        ..ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64)
    });
    (rec, fill, read, output, texture)
}

/// A whole-texture read after mip 0 alone was rendered: the subresources are in two different
/// layouts, so the transition is two barriers, each with the old layout of its own mips (one
/// barrier over the whole texture would claim a wrong old layout for half of it).
#[test]
fn transitions_of_partly_used_textures_are_split_by_old_layout() {
    use rpsl_runtime::vk::ImageLayout;
    let (mut rec, fill, read, output, texture) = two_mip_texture_frame();
    rec.call(fill, &[Arg::Tex(sub(texture, 0, 1, 0, 1))]);
    rec.call(read, &[Arg::Tex(texture), Arg::Tex(output)]);
    let graph = rec.finish();
    let frame = compile(graph, SchedulePreference::ProgramOrder, true);
    let mut into_read: Vec<([u64; 3], [u64; 3], ImageLayout)> = frame
        .barriers
        .iter()
        .filter(|b| {
            b.resource == ResourceId(texture.resource)
                && b.new_layout == ImageLayout::ShaderReadOnly
        })
        .map(|b| {
            let region = frame.barrier_region(b);
            (region.lo, region.hi, b.old_layout)
        })
        .collect();
    into_read.sort_by_key(|(lo, _, _)| *lo);
    assert_eq!(
        into_read,
        vec![
            ([0, 0, 0], [1, 1, 1], ImageLayout::ColorAttachment),
            ([1, 0, 0], [2, 1, 1], ImageLayout::Undefined),
        ]
    );
}

/// Two mips rendered apart, then read as a whole: the transitions of the two parts are alike and
/// adjacent each time, so they merge into one barrier, which refers to the whole texture (the
/// first part's region entry is dropped when the second merges into it).
#[test]
fn merged_transitions_of_a_whole_texture_refer_to_it_whole() {
    use rpsl_runtime::vk::ImageLayout;
    let (mut rec, fill, read, output, texture) = two_mip_texture_frame();
    rec.call(fill, &[Arg::Tex(sub(texture, 0, 1, 0, 1))]);
    rec.call(fill, &[Arg::Tex(sub(texture, 1, 1, 0, 1))]);
    rec.call(read, &[Arg::Tex(texture), Arg::Tex(output)]);
    let graph = rec.finish();
    let frame = compile(graph, SchedulePreference::ProgramOrder, true);
    let of_texture: Vec<(ImageLayout, RegionRef, SubresourceBox)> = frame
        .barriers
        .iter()
        .filter(|b| b.resource == ResourceId(texture.resource))
        .map(|b| (b.new_layout, b.region, frame.barrier_region(b)))
        .collect();
    let whole = SubresourceBox {
        lo: [0, 0, 0],
        hi: [2, 1, 1],
    };
    assert_eq!(
        of_texture,
        vec![
            (ImageLayout::ColorAttachment, RegionRef::WHOLE, whole),
            (ImageLayout::ShaderReadOnly, RegionRef::WHOLE, whole),
        ]
    );
    assert!(frame.barrier_regions.is_empty());
}

/// A recorder with `Fill` (a compute UAV write) and `Read` (sampled into a colour target).
fn compute_fill_then_read() -> (Recorder, DeclId, DeclId) {
    let mut rec = Recorder::new();
    let fill = rec.declare("Fill", QueueClass::Compute, vec![uav("u")]);
    let read = rec.declare(
        "Read",
        QueueClass::Graphics,
        vec![ps_srv("src"), rtv("out", 0)],
    );
    (rec, fill, read)
}

/// A barrier of a whole resource resolves to the resource's current box: the frame's copy of
/// the whole boxes follows a resource that changed size (a new resource serial), and stays
/// right for a frame whose nodes changed but whose resources did not.
#[test]
fn whole_barrier_regions_follow_the_resources() {
    let (mut rec, fill, read) = compute_fill_then_read();
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let mut serials = Vec::new();
    for (frame_index, (mips, reads)) in [(1, 1), (3, 1), (3, 2), (1, 2)].into_iter().enumerate() {
        rec.begin(frame_index as u64);
        let output = rec.output();
        let texture = rec.texture(ResourceDesc {
            mip_levels: mips,
            ..ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64)
        });
        rec.call(fill, &[Arg::Tex(texture)]);
        for _ in 0..reads {
            rec.call(read, &[Arg::Tex(texture), Arg::Tex(output)]);
        }
        let graph = rec.finish();
        serials.push(graph.resource_serial());
        let frame = compiler.compile(graph).unwrap();
        assert!(!frame.cache_hit);
        let regions: Vec<(RegionRef, SubresourceBox)> = frame
            .barriers
            .iter()
            .filter(|b| b.resource == ResourceId(texture.resource))
            .map(|b| (b.region, frame.barrier_region(b)))
            .collect();
        let whole = SubresourceBox {
            lo: [0, 0, 0],
            hi: [mips as u64, 1, 1],
        };
        assert!(!regions.is_empty());
        assert!(
            regions.iter().all(|&r| r == (RegionRef::WHOLE, whole)),
            "frame {frame_index}: {regions:?}"
        );
    }
    // The resources changed in frames 1 and 3, not in frame 2.
    assert!(serials[0] != serials[1] && serials[1] == serials[2] && serials[2] != serials[3]);
}

/// Four mips written apart in scrambled order (mip 2, 0, 3, 1; independent nodes, one batch),
/// then the texture read whole: each batch has one barrier of the texture, over all of it,
/// whatever order its parts were visited in (only neighbouring parts merge pairwise, so
/// merging the last barrier alone would leave two or three).
#[test]
fn scattered_parts_with_one_transition_merge_into_one_barrier() {
    use rpsl_runtime::vk::ImageLayout;
    let (mut rec, fill, read) = compute_fill_then_read();
    rec.begin(0);
    let output = rec.output();
    let texture = rec.texture(ResourceDesc {
        mip_levels: 4,
        depth_or_array_size: 2,
        ..ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64)
    });
    for mip in [2, 0, 3, 1] {
        rec.call(fill, &[Arg::Tex(sub(texture, mip, 1, 0, 2))]);
    }
    rec.call(read, &[Arg::Tex(texture), Arg::Tex(output)]);
    let graph = rec.finish();
    let frame = compile(graph, SchedulePreference::Default, true);
    let whole = SubresourceBox {
        lo: [0, 0, 0],
        hi: [4, 2, 1],
    };
    let of_texture: Vec<(u32, ImageLayout, ImageLayout, RegionRef, SubresourceBox)> = frame
        .batch_list
        .iter()
        .flat_map(|batch| {
            frame.barriers[batch.barriers.start as usize..batch.barriers.end as usize]
                .iter()
                .map(move |b| (batch.position, b))
        })
        .filter(|(_, b)| b.resource == ResourceId(texture.resource))
        .map(|(position, b)| {
            (
                position,
                b.old_layout,
                b.new_layout,
                b.region,
                frame.barrier_region(b),
            )
        })
        .collect();
    assert_eq!(
        of_texture,
        vec![
            (
                0,
                ImageLayout::Undefined,
                ImageLayout::General,
                RegionRef::WHOLE,
                whole
            ),
            (
                4,
                ImageLayout::General,
                ImageLayout::ShaderReadOnly,
                RegionRef::WHOLE,
                whole
            ),
        ]
    );
    assert!(frame.barrier_regions.is_empty());
}
