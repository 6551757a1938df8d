//! Behaviour of the Vulkan backend around the frames: node callbacks and unbound nodes,
//! validation and synchronization-validation messages as errors, async-compute frames on one
//! queue, transient reuse across frames and PNG output.

mod common;
use common::*;
use rpsl_runtime::*;
use rpsl_vulkan::{VulkanBackend, VulkanOptions};

#[test]
fn bound_and_unbound_user_nodes() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let draw = frame.builder.declare_node(NodeDeclDesc::new(
        "draw",
        QueueClass::Graphics,
        vec![
            ParamDesc::new("rt", ValueType::Texture)
                .with_access(AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                .with_semantic(SemanticKind::Target, 0),
            ParamDesc::new("colour", ValueType::Vector(ScalarType::F32, 4))
                .with_semantic(SemanticKind::ClearColor, 0),
        ],
    ));
    frame.builder.begin_frame(0);
    let out = frame.external_texture("out", rgba8(4));
    frame.call(draw, |a| {
        a.write_texture(0, &out);
        write_f32x4(a, 1, [1.0, 1.0, 0.0, 1.0]);
    });
    let graph = frame.builder.finish().unwrap().clone();
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let compiled = compiler.compile(&graph).unwrap().clone();
    match backend.execute_frame(&graph, &compiled) {
        Err(BackendError::UnboundNode { name, .. }) => assert_eq!(name, "draw"),
        other => panic!("expected an unbound-node error, got {other:?}"),
    }
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let seen_in_node = seen.clone();
    backend.bind_node("draw", move |context| {
        let pass = context.render_pass.ok_or("no render pass")?;
        assert_eq!((pass.width, pass.height), (4, 4));
        assert_eq!(context.views.len(), 1);
        seen_in_node.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    });
    backend
        .execute_frame(&graph, &compiled)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), 1);
    assert_eq!(
        backend.read_rgba8("out").unwrap(),
        (4, 4, solid(4, [255, 255, 0, 255]))
    );
}

#[test]
fn validation_messages_fail_the_frame() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let draw = frame.builder.declare_node(NodeDeclDesc::new(
        "bad",
        QueueClass::Graphics,
        vec![ParamDesc::new("rt", ValueType::Texture)
            .with_access(AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
            .with_semantic(SemanticKind::Target, 0)],
    ));
    frame.builder.begin_frame(0);
    let out = frame.external_texture("out", rgba8(4));
    frame.call(draw, |a| {
        a.write_texture(0, &out);
    });
    let graph = frame.builder.finish().unwrap().clone();
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let compiled = compiler.compile(&graph).unwrap().clone();
    // A transfer clear inside a render pass, in the wrong layout: invalid usage.
    backend.bind_node("bad", |context| {
        let texture = *context.views[0].texture().ok_or("`out` is a texture")?;
        let value = ash::vk::ClearColorValue { float32: [0.0; 4] };
        // SAFETY: deliberately invalid usage for the validation layer to report; the command
        // buffer is recording and the image is live.
        unsafe {
            context.device.cmd_clear_color_image(
                context.command_buffer,
                texture.image,
                ash::vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &value,
                &[texture.range],
            )
        };
        Ok(())
    });
    match backend.execute_frame(&graph, &compiled) {
        Err(BackendError::Validation(messages)) => assert!(!messages.is_empty()),
        other => panic!("expected validation messages, got {other:?}"),
    }
}

#[test]
fn synchronization_validation_reports_hazards() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let writer = frame.builder.declare_node(NodeDeclDesc::new(
        "writer",
        QueueClass::Copy,
        vec![ParamDesc::new("b", ValueType::Buffer)
            .with_access(AccessDesc::readwrite(AccessFlags::COPY))],
    ));
    frame.builder.begin_frame(0);
    let buffer = frame.external_buffer("data", 256);
    frame.call(writer, |a| {
        a.write_buffer(0, &buffer);
    });
    let graph = frame.builder.finish().unwrap().clone();
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let compiled = compiler.compile(&graph).unwrap().clone();
    // Two writes of the same bytes with no barrier between them.
    backend.bind_node("writer", |context| {
        let buffer = context.views[0].buffer().ok_or("`b` is a buffer")?.buffer;
        // SAFETY: valid commands on a live buffer; the missing barrier is the point.
        unsafe {
            context
                .device
                .cmd_fill_buffer(context.command_buffer, buffer, 0, 256, 1);
            context
                .device
                .cmd_fill_buffer(context.command_buffer, buffer, 0, 256, 2);
        }
        Ok(())
    });
    match backend.execute_frame(&graph, &compiled) {
        Err(BackendError::Validation(messages)) => assert!(
            messages
                .iter()
                .any(|m| m.contains("SYNC-HAZARD-WRITE-AFTER-WRITE")),
            "{messages:?}"
        ),
        other => panic!("expected a hazard, got {other:?}"),
    }
}

#[test]
fn unbound_nodes_run_as_empty_passes_when_allowed() {
    let options = VulkanOptions {
        validate: true,
        allow_unbound: true,
        ..VulkanOptions::default()
    };
    let mut backend = match VulkanBackend::new(options) {
        Ok(backend) => backend,
        Err(BackendError::NoDevice(message)) => {
            eprintln!("skipping: no Vulkan driver on this machine ({message})");
            return;
        }
        Err(error) => panic!("{error}"),
    };
    let mut frame = Frame::new();
    let draw = frame.builder.declare_node(NodeDeclDesc::new(
        "draw",
        QueueClass::Graphics,
        vec![
            ParamDesc::new("rt", ValueType::Texture)
                .with_access(AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                .with_semantic(SemanticKind::Target, 0),
            ParamDesc::new("colour", ValueType::Vector(ScalarType::F32, 4))
                .with_semantic(SemanticKind::ClearColor, 0),
        ],
    ));
    frame.builder.begin_frame(0);
    let out = frame.external_texture("out", rgba8(4));
    frame.call(draw, |a| {
        a.write_texture(0, &out);
        write_f32x4(a, 1, [0.0, 1.0, 1.0, 1.0]);
    });
    let graph = frame.builder.finish().unwrap().clone();
    run(&mut backend, &graph, CompileOptions::default());
    assert_eq!(
        backend.read_rgba8("out").unwrap(),
        (4, 4, solid(4, [0, 255, 255, 255]))
    );
}

#[test]
fn png_round_trip() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let clear = frame
        .builder
        .declare_node(builtin("clear", 2, AccessFlags::RENDER_TARGET));
    frame.builder.begin_frame(0);
    let out = frame.external_texture("out", rgba8(4));
    frame.call(clear, |a| {
        a.write_texture(0, &out);
        write_f32x4(a, 1, [0.0, 0.2, 0.4, 1.0]);
    });
    let graph = frame.builder.finish().unwrap().clone();
    run(&mut backend, &graph, CompileOptions::default());
    let (width, height, pixels) = backend.read_rgba8("out").unwrap();
    let path = std::env::temp_dir().join(format!("rpsl-vulkan-{}.png", std::process::id()));
    rpsl_vulkan::write_png(&path, width, height, &pixels).unwrap();
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut decoded = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut decoded).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!((info.width, info.height), (4, 4));
    assert_eq!(decoded, solid(4, [0, 51, 102, 255]));
}

#[test]
fn async_compute_nodes_run_in_order_on_one_queue() {
    let Some(mut backend) = backend() else { return };
    assert!(backend.features().timeline_semaphore);
    let mut frame = Frame::new();
    let clear_texture = frame
        .builder
        .declare_node(builtin("clear_texture", 3, AccessFlags::CLEAR));
    let copy = frame
        .builder
        .declare_node(builtin("copy_texture", 2, AccessFlags::COPY));
    frame.builder.begin_frame(0);
    let out = frame.external_texture("out", rgba8(4));
    let temp = frame.texture(rgba8(4));
    let mut args = ArgsWriter::new(frame.builder.decl(clear_texture).unwrap());
    args.write_texture(0, &temp);
    // RPS_CLEAR_UAV_FLOAT: the data are the bit patterns of float clear values (without it
    // they are a uint clear, the low bits of each component).
    write_u32s(&mut args, 1, &[1 << 3]);
    let bits = [0.0f32, 1.0, 0.2, 1.0].map(f32::to_bits);
    write_u32s(&mut args, 2, &bits);
    let async_call = CallFlags { prefer_async: true };
    frame
        .builder
        .call_node(clear_texture, args.bytes(), async_call, 1)
        .unwrap();
    frame.call(copy, |a| {
        a.write_texture(0, &out).write_texture(1, &temp);
    });
    let graph = frame.builder.finish().unwrap().clone();
    let compiled = run(&mut backend, &graph, CompileOptions::default());
    assert_eq!(
        compiled.queues.len(),
        2,
        "the clear went to the async queue"
    );
    assert_eq!(
        backend.read_external("out").unwrap(),
        solid(4, [0, 255, 51, 255])
    );
}

#[test]
fn transients_are_reused_by_the_next_frame_with_the_same_plan() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let clear = frame
        .builder
        .declare_node(builtin("clear", 2, AccessFlags::RENDER_TARGET));
    let copy = frame
        .builder
        .declare_node(builtin("copy_texture", 2, AccessFlags::COPY));
    let mut compiler = FrameCompiler::new(CompileOptions {
        schedule: SchedulePreference::ProgramOrder,
        ..CompileOptions::default()
    });
    let runs = [
        ([1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]),
        ([0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]),
    ];
    for (run_index, (first_colour, second_colour)) in runs.into_iter().enumerate() {
        frame.key = 100;
        frame.builder.begin_frame(run_index as u64);
        let first_out = frame.external_texture("first", rgba8(8));
        let second_out = frame.external_texture("second", rgba8(8));
        let first = frame.texture(rgba8(8));
        let second = frame.texture(rgba8(8));
        for (temp, out, colour) in [
            (first, first_out, first_colour),
            (second, second_out, second_colour),
        ] {
            frame.call(clear, |a| {
                a.write_texture(0, &temp);
                write_f32x4(a, 1, colour);
            });
            frame.call(copy, |a| {
                a.write_texture(0, &out).write_texture(1, &temp);
            });
        }
        let graph = frame.builder.finish().unwrap().clone();
        let compiled = compiler.compile(&graph).unwrap().clone();
        backend
            .execute_frame(&graph, &compiled)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(backend.stats().reused_transients, run_index == 1);
        let to_bytes = |c: [f32; 4]| c.map(|v| (v * 255.0) as u8);
        assert_eq!(
            backend.read_rgba8("first").unwrap().2,
            solid(8, to_bytes(first_colour))
        );
        assert_eq!(
            backend.read_rgba8("second").unwrap().2,
            solid(8, to_bytes(second_colour))
        );
    }
}

#[test]
fn runs_without_validation_too() {
    let mut backend = match VulkanBackend::new(VulkanOptions::default()) {
        Ok(backend) => backend,
        Err(BackendError::NoDevice(message)) => {
            eprintln!("skipping: no Vulkan driver on this machine ({message})");
            return;
        }
        Err(error) => panic!("{error}"),
    };
    assert!(!backend.device_name().is_empty());
    let mut frame = Frame::new();
    let clear = frame
        .builder
        .declare_node(builtin("clear", 2, AccessFlags::RENDER_TARGET));
    frame.builder.begin_frame(0);
    let out = frame.external_texture("out", rgba8(2));
    frame.call(clear, |a| {
        a.write_texture(0, &out);
        write_f32x4(a, 1, [1.0, 1.0, 1.0, 0.0]);
    });
    let graph = frame.builder.finish().unwrap().clone();
    run(&mut backend, &graph, CompileOptions::default());
    backend.wait_idle().unwrap();
    assert_eq!(
        backend.read_rgba8("out").unwrap(),
        (2, 2, solid(2, [255, 255, 255, 0]))
    );
}
