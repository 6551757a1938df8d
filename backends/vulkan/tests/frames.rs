//! Frames built by hand with the runtime's `GraphBuilder`, compiled, executed on Vulkan under
//! the validation layer with synchronization validation (zero messages allowed), read back and
//! compared pixel-exactly: clears, copies, round trips, resolves, aliasing and temporal data.
//! Skips (with a message) only when no Vulkan driver exists at all.

mod common;
use common::*;
use rpsl_runtime::*;
use rpsl_vulkan::{VulkanBackend, VulkanOptions};

#[test]
fn clear_colours_read_back_exactly() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let clear = frame
        .builder
        .declare_node(builtin("clear", 2, AccessFlags::RENDER_TARGET));
    let copy = frame
        .builder
        .declare_node(builtin("copy_texture", 2, AccessFlags::COPY));
    frame.builder.begin_frame(0);
    let out = frame.external_texture("out", rgba8(8));
    let temp = frame.texture(rgba8(8));
    let second =
        frame.external_texture("second", ResourceDesc::tex2d(Format::B8G8R8A8_UNORM, 4, 4));
    frame.call(clear, |a| {
        a.write_texture(0, &temp);
        write_f32x4(a, 1, [0.2, 0.6, 1.0, 0.0]);
    });
    frame.call(copy, |a| {
        a.write_texture(0, &out).write_texture(1, &temp);
    });
    frame.call(clear, |a| {
        a.write_texture(0, &second);
        write_f32x4(a, 1, [1.0, 0.0, 0.2, 1.0]);
    });
    let graph = frame.builder.finish().unwrap().clone();
    run(&mut backend, &graph, CompileOptions::default());
    assert_eq!(
        backend.read_rgba8("out").unwrap(),
        (8, 8, solid(8, [51, 153, 255, 0]))
    );
    assert_eq!(
        backend.read_rgba8("second").unwrap(),
        (4, 4, solid(4, [255, 0, 51, 255]))
    );
}

#[test]
fn whole_and_region_texture_copies() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let clear = frame
        .builder
        .declare_node(builtin("clear", 2, AccessFlags::RENDER_TARGET));
    let copy_whole = frame
        .builder
        .declare_node(builtin("copy_texture", 2, AccessFlags::COPY));
    let copy_region = frame
        .builder
        .declare_node(builtin("copy_texture", 5, AccessFlags::COPY));
    frame.builder.begin_frame(0);
    let out = frame.external_texture("out", rgba8(8));
    let red = frame.texture(rgba8(8));
    let blue = frame.texture(rgba8(8));
    frame.call(clear, |a| {
        a.write_texture(0, &red);
        write_f32x4(a, 1, [1.0, 0.0, 0.0, 1.0]);
    });
    frame.call(clear, |a| {
        a.write_texture(0, &blue);
        write_f32x4(a, 1, [0.0, 0.0, 1.0, 1.0]);
    });
    frame.call(copy_whole, |a| {
        a.write_texture(0, &out).write_texture(1, &blue);
    });
    frame.call(copy_region, |a| {
        a.write_texture(0, &out);
        write_u32s(a, 1, &[2, 3, 0]);
        a.write_texture(2, &red);
        write_u32s(a, 3, &[0, 0, 0]);
        write_u32s(a, 4, &[4, 2, 1]);
    });
    let graph = frame.builder.finish().unwrap().clone();
    run(&mut backend, &graph, CompileOptions::default());
    let (_, _, pixels) = backend.read_rgba8("out").unwrap();
    for y in 0..8 {
        for x in 0..8 {
            let inside = (2..6).contains(&x) && (3..5).contains(&y);
            let expected = if inside {
                [255, 0, 0, 255]
            } else {
                [0, 0, 255, 255]
            };
            let at = (y * 8 + x) * 4;
            assert_eq!(pixels[at..at + 4], expected, "pixel ({x}, {y})");
        }
    }
}

#[test]
fn buffer_texture_buffer_round_trip() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let to_texture =
        frame
            .builder
            .declare_node(builtin("copy_buffer_to_texture", 8, AccessFlags::COPY));
    let to_buffer =
        frame
            .builder
            .declare_node(builtin("copy_texture_to_buffer", 8, AccessFlags::COPY));
    let copy_buffer = frame
        .builder
        .declare_node(builtin("copy_buffer", 2, AccessFlags::COPY));
    frame.builder.begin_frame(0);
    let input = frame.external_buffer("input", 8 * 8 * 4);
    let output = frame.external_buffer("output", 8 * 8 * 4);
    let copied = frame.external_buffer("copied", 8 * 8 * 4);
    let texture = frame.texture(rgba8(8));
    frame.call(to_texture, |a| {
        a.write_texture(0, &texture);
        write_u32s(a, 1, &[0, 0, 0]);
        a.write_buffer(2, &input);
        a.write_raw(3, 0, &0u64.to_le_bytes());
        write_u32s(a, 4, &[32]);
        write_u32s(a, 5, &[8, 8, 1]);
        write_u32s(a, 6, &[0, 0, 0]);
        write_u32s(a, 7, &[8, 8, 1]);
    });
    frame.call(to_buffer, |a| {
        a.write_buffer(0, &output);
        a.write_raw(1, 0, &0u64.to_le_bytes());
        write_u32s(a, 2, &[32]);
        write_u32s(a, 3, &[8, 8, 1]);
        write_u32s(a, 4, &[0, 0, 0]);
        a.write_texture(5, &texture);
        write_u32s(a, 6, &[0, 0, 0]);
        write_u32s(a, 7, &[8, 8, 1]);
    });
    frame.call(copy_buffer, |a| {
        a.write_buffer(0, &copied).write_buffer(1, &input);
    });
    let graph = frame.builder.finish().unwrap().clone();
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let compiled = compiler.compile(&graph).unwrap().clone();
    // Create the externals first so the input can be uploaded before the frame runs.
    for name in ["input", "output", "copied"] {
        backend
            .create_external(name, &ResourceDesc::buffer(256))
            .unwrap();
    }
    let pattern: Vec<u8> = (0..256u32).map(|i| (i * 7 + 3) as u8).collect();
    backend.write_external("input", &pattern).unwrap();
    backend
        .execute_frame(&graph, &compiled)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(backend.read_external("output").unwrap(), pattern);
    assert_eq!(backend.read_external("copied").unwrap(), pattern);
}

#[test]
fn msaa_resolve_averages_samples() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let clear = frame
        .builder
        .declare_node(builtin("clear", 2, AccessFlags::RENDER_TARGET));
    let resolve = frame
        .builder
        .declare_node(builtin("resolve", 6, AccessFlags::RESOLVE));
    frame.builder.begin_frame(0);
    let out = frame.external_texture("out", rgba8(8));
    let mut msaa_desc = rgba8(8);
    msaa_desc.sample_count = 4;
    let msaa = frame.texture(msaa_desc);
    frame.call(clear, |a| {
        a.write_texture(0, &msaa);
        write_f32x4(a, 1, [0.0, 1.0, 0.0, 1.0]);
    });
    frame.call(resolve, |a| {
        a.write_texture(0, &out);
        write_u32s(a, 1, &[0, 0]);
        a.write_texture(2, &msaa);
        write_u32s(a, 3, &[0, 0]);
        write_u32s(a, 4, &[8, 8]);
        write_u32s(a, 5, &[0]);
    });
    let graph = frame.builder.finish().unwrap().clone();
    run(&mut backend, &graph, CompileOptions::default());
    assert_eq!(
        backend.read_rgba8("out").unwrap(),
        (8, 8, solid(8, [0, 255, 0, 255]))
    );
}

#[test]
fn aliased_transients_do_not_corrupt_each_other() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let clear = frame
        .builder
        .declare_node(builtin("clear", 2, AccessFlags::RENDER_TARGET));
    let copy = frame
        .builder
        .declare_node(builtin("copy_texture", 2, AccessFlags::COPY));
    frame.builder.begin_frame(0);
    let first_out = frame.external_texture("first", rgba8(16));
    let second_out = frame.external_texture("second", rgba8(16));
    let first = frame.texture(rgba8(16));
    let second = frame.texture(rgba8(16));
    for (temp, out, colour) in [
        (first, first_out, [1.0, 0.0, 0.0, 1.0]),
        (second, second_out, [0.0, 0.0, 1.0, 1.0]),
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
    let options = CompileOptions {
        schedule: SchedulePreference::ProgramOrder,
        ..CompileOptions::default()
    };
    let compiled = run(&mut backend, &graph, options);
    let (a, b) = (first.resource as usize, second.resource as usize);
    let placements = (
        compiled.placements[a].unwrap(),
        compiled.placements[b].unwrap(),
    );
    assert_eq!(
        placements.0.offset, placements.1.offset,
        "the two transients share memory"
    );
    assert_eq!(backend.stats().unplaced_transients, 0);
    assert_eq!(
        backend.read_rgba8("first").unwrap(),
        (16, 16, solid(16, [255, 0, 0, 255]))
    );
    assert_eq!(
        backend.read_rgba8("second").unwrap(),
        (16, 16, solid(16, [0, 0, 255, 255]))
    );
}

#[test]
fn depth_clear_reads_back() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let clear = frame
        .builder
        .declare_node(builtin("clear_depth", 2, AccessFlags::DEPTH));
    frame.builder.begin_frame(0);
    let depth = frame.external_texture("depth", ResourceDesc::tex2d(Format::D32_FLOAT, 4, 4));
    frame.call(clear, |a| {
        a.write_texture(0, &depth).write_f32(1, 0, 0.25);
    });
    let graph = frame.builder.finish().unwrap().clone();
    run(&mut backend, &graph, CompileOptions::default());
    let bytes = backend.read_external("depth").unwrap();
    let expected: Vec<u8> = (0..16).flat_map(|_| 0.25f32.to_le_bytes()).collect();
    assert_eq!(bytes, expected);
}

#[test]
fn temporal_texture_keeps_the_previous_frame() {
    let Some(backend) = backend() else { return };
    temporal_frames(backend);
}

#[test]
fn temporal_texture_with_two_frames_in_flight() {
    let options = VulkanOptions {
        validate: true,
        frames_in_flight: 2,
        ..VulkanOptions::default()
    };
    match VulkanBackend::new(options) {
        Ok(backend) => temporal_frames(backend),
        Err(BackendError::NoDevice(message)) => eprintln!("skipping: no Vulkan driver ({message})"),
        Err(error) => panic!("{error}"),
    }
}

fn temporal_frames(mut backend: VulkanBackend) {
    let mut frame = Frame::new();
    let clear = frame
        .builder
        .declare_node(builtin("clear", 2, AccessFlags::RENDER_TARGET));
    let copy = frame
        .builder
        .declare_node(builtin("copy_texture", 2, AccessFlags::COPY));
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let colours = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0],
    ];
    let bytes = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [255, 255, 255, 255],
    ];
    for frame_index in 0..4u64 {
        frame.key = 100;
        frame.builder.begin_frame(frame_index);
        let current_out = frame.external_texture("current", rgba8(4));
        let previous_out = frame.external_texture("previous", rgba8(4));
        let mut desc = rgba8(4);
        desc.temporal_layers = 2;
        let history = frame.texture(desc);
        let previous = TextureView {
            temporal_layer: 1,
            ..history
        };
        frame.call(clear, |a| {
            a.write_texture(0, &history);
            write_f32x4(a, 1, colours[frame_index as usize]);
        });
        frame.call(copy, |a| {
            a.write_texture(0, &current_out).write_texture(1, &history);
        });
        if frame_index > 0 {
            frame.call(copy, |a| {
                a.write_texture(0, &previous_out)
                    .write_texture(1, &previous);
            });
        }
        let graph = frame.builder.finish().unwrap().clone();
        let compiled = compiler.compile(&graph).unwrap().clone();
        backend
            .execute_frame(&graph, &compiled)
            .unwrap_or_else(|e| panic!("frame {frame_index}: {e}"));
        let current = backend.read_rgba8("current").unwrap().2;
        assert_eq!(current, solid(4, bytes[frame_index as usize]));
        if frame_index > 0 {
            let previous = backend.read_rgba8("previous").unwrap().2;
            assert_eq!(
                previous,
                solid(4, bytes[frame_index as usize - 1]),
                "frame {frame_index}"
            );
        }
    }
}

#[test]
fn render_pass_resolve_target() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let draw = frame.builder.declare_node(NodeDeclDesc::new(
        "msaa",
        QueueClass::Graphics,
        vec![
            ParamDesc::new("rt", ValueType::Texture)
                .with_access(AccessDesc::writeonly(AccessFlags::RENDER_TARGET))
                .with_semantic(SemanticKind::Target, 0),
            ParamDesc::new("colour", ValueType::Vector(ScalarType::F32, 4))
                .with_semantic(SemanticKind::ClearColor, 0),
            ParamDesc::new("resolved", ValueType::Texture)
                .with_access(AccessDesc::writeonly(AccessFlags::RESOLVE))
                .with_semantic(SemanticKind::ResolveTarget, 0),
        ],
    ));
    frame.builder.begin_frame(0);
    let out = frame.external_texture("out", rgba8(8));
    let mut msaa_desc = rgba8(8);
    msaa_desc.sample_count = 4;
    let msaa = frame.texture(msaa_desc);
    frame.call(draw, |a| {
        a.write_texture(0, &msaa);
        write_f32x4(a, 1, [1.0, 0.0, 1.0, 1.0]);
        a.write_texture(2, &out);
    });
    backend.bind_node("msaa", |_| Ok(()));
    let graph = frame.builder.finish().unwrap().clone();
    run(&mut backend, &graph, CompileOptions::default());
    assert_eq!(
        backend.read_rgba8("out").unwrap(),
        (8, 8, solid(8, [255, 0, 255, 255]))
    );
}

#[test]
fn storage_and_buffer_clears() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let clear_texture = frame
        .builder
        .declare_node(builtin("clear_texture", 3, AccessFlags::CLEAR));
    let clear_buffer = frame
        .builder
        .declare_node(builtin("clear_buffer", 3, AccessFlags::CLEAR));
    frame.builder.begin_frame(0);
    let texture = frame.external_texture("texture", ResourceDesc::tex2d(Format(30), 4, 4));
    let buffer = frame.external_buffer("buffer", 64);
    frame.call(clear_texture, |a| {
        a.write_texture(0, &texture);
        write_u32s(a, 2, &[1, 2, 3, 250]);
    });
    frame.call(clear_buffer, |a| {
        a.write_buffer(0, &buffer);
        write_u32s(a, 2, &[0xA5A5_5A5A; 4]);
    });
    let graph = frame.builder.finish().unwrap().clone();
    run(&mut backend, &graph, CompileOptions::default());
    assert_eq!(
        backend.read_external("texture").unwrap(),
        solid(4, [1, 2, 3, 250])
    );
    let words: Vec<u8> = (0..16).flat_map(|_| 0xA5A5_5A5Au32.to_le_bytes()).collect();
    assert_eq!(backend.read_external("buffer").unwrap(), words);
}
