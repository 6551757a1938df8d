//! Frames with async compute work (a second queue, timeline semaphores between the queues),
//! GPU timings from timestamp queries, min/max resolves through the compute pass and copies with
//! `0xFFFFFFFF` ("to the edge") extents; all under validation with synchronization validation
//! and read back pixel-exactly.

mod common;
use common::*;
use rpsl_runtime::*;
use rpsl_vulkan::{VulkanBackend, VulkanOptions};

fn timed_backend(frames_in_flight: u32) -> Option<VulkanBackend> {
    let options = VulkanOptions {
        validate: true,
        timestamps: true,
        frames_in_flight,
        ..VulkanOptions::default()
    };
    match VulkanBackend::new(options) {
        Ok(backend) => Some(backend),
        Err(BackendError::NoDevice(message)) => {
            eprintln!("skipping: no Vulkan driver on this machine ({message})");
            None
        }
        Err(error) => panic!("cannot create the Vulkan backend: {error}"),
    }
}

/// `async clear_texture(a)`, a graphics clear of `out`, then a copy of part of `a` into `out`:
/// the copy waits for the compute queue's clear.
fn async_graph(green: f32) -> RecordedGraph {
    let mut frame = Frame::new();
    let clear_texture = frame
        .builder
        .declare_node(builtin("clear_texture", 3, AccessFlags::CLEAR));
    let clear = frame
        .builder
        .declare_node(builtin("clear", 2, AccessFlags::RENDER_TARGET));
    let copy = frame
        .builder
        .declare_node(builtin("copy_texture", 5, AccessFlags::COPY));
    frame.builder.begin_frame(0);
    let out = frame.external_texture("out", rgba8(4));
    let a = frame.texture(rgba8(4));
    let mut args = ArgsWriter::new(frame.builder.decl(clear_texture).unwrap());
    args.write_texture(0, &a);
    write_u32s(&mut args, 1, &[8]);
    write_u32s(
        &mut args,
        2,
        &[1.0f32.to_bits(), green.to_bits(), 0, 1.0f32.to_bits()],
    );
    let flags = CallFlags { prefer_async: true };
    frame
        .builder
        .call_node(clear_texture, args.bytes(), flags, 7)
        .unwrap();
    frame.call(clear, |a| {
        a.write_texture(0, &out);
        write_f32x4(a, 1, [0.0, 0.0, 1.0, 1.0]);
    });
    frame.call(copy, |args| {
        args.write_texture(0, &out);
        write_u32s(args, 1, &[1, 0, 0]);
        args.write_texture(2, &a);
        write_u32s(args, 3, &[0, 0, 0]);
        write_u32s(args, 4, &[2, u32::MAX, u32::MAX]);
    });
    frame.builder.finish().unwrap().clone()
}

#[test]
fn async_compute_clear_is_waited_for_and_timed() {
    let Some(mut backend) = timed_backend(2) else {
        return;
    };
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    for (index, green) in [0.0f32, 0.5, 1.0].into_iter().enumerate() {
        let graph = async_graph(green);
        let frame = compiler.compile(&graph).unwrap().clone();
        assert_eq!(frame.queues.len(), 2, "the clear runs on a compute queue");
        assert!(!frame.queue_waits.is_empty());
        backend
            .execute_frame(&graph, &frame)
            .unwrap_or_else(|error| panic!("frame {index}: {error}"));
    }
    backend.wait_idle().unwrap();
    let green = [0u8, 128, 255][2];
    let (_, _, pixels) = backend.read_rgba8("out").unwrap();
    for y in 0..4 {
        for x in 0..4 {
            let expected = if (1..3).contains(&x) {
                [255, green, 0, 255]
            } else {
                [0, 0, 255, 255]
            };
            let at = (y * 4 + x) * 4;
            assert_eq!(pixels[at..at + 4], expected, "({x}, {y})");
        }
    }
    let timings = backend.take_timings();
    assert_eq!(timings.len(), 3);
    for (index, frame) in timings.iter().enumerate() {
        assert_eq!(frame.frame_index, index as u64);
        let names: Vec<&str> = frame.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names.len(), 3);
        assert!(names.contains(&"clear_texture") && names.contains(&"copy_texture"));
        let compute = frame
            .nodes
            .iter()
            .find(|n| n.name == "clear_texture")
            .unwrap();
        assert_eq!(compute.queue_class, QueueClass::Compute);
        assert!(frame.nodes.iter().all(|n| n.ns.is_finite() && n.ns >= 0.0));
        assert!(frame.frame_ns.is_finite() && frame.frame_ns >= 0.0);
    }
    assert!(backend.take_timings().is_empty());
}

#[test]
fn min_and_max_resolves_write_the_requested_region() {
    let Some(mut backend) = backend() else { return };
    let mut frame = Frame::new();
    let clear = frame
        .builder
        .declare_node(builtin("clear", 2, AccessFlags::RENDER_TARGET));
    let resolve = frame
        .builder
        .declare_node(builtin("resolve", 6, AccessFlags::RESOLVE));
    frame.builder.begin_frame(0);
    let min_out = frame.external_texture("min", rgba8(8));
    let max_out = frame.external_texture("max", rgba8(8));
    let mut msaa_desc = rgba8(8);
    msaa_desc.sample_count = 4;
    let msaa = frame.texture(msaa_desc);
    for (target, colour) in [
        (&msaa, [0.0, 1.0, 0.0, 1.0]),
        (&min_out, [0.0, 0.0, 1.0, 1.0]),
        (&max_out, [1.0, 0.0, 0.0, 1.0]),
    ] {
        frame.call(clear, |a| {
            a.write_texture(0, target);
            write_f32x4(a, 1, colour);
        });
    }
    // MIN into a 4x2 region at (2, 3); MAX everywhere ("to the edge" extent).
    frame.call(resolve, |a| {
        a.write_texture(0, &min_out);
        write_u32s(a, 1, &[2, 3]);
        a.write_texture(2, &msaa);
        write_u32s(a, 3, &[1, 1]);
        write_u32s(a, 4, &[4, 2]);
        write_u32s(a, 5, &[1]);
    });
    frame.call(resolve, |a| {
        a.write_texture(0, &max_out);
        write_u32s(a, 1, &[0, 0]);
        a.write_texture(2, &msaa);
        write_u32s(a, 3, &[0, 0]);
        write_u32s(a, 4, &[u32::MAX, u32::MAX]);
        write_u32s(a, 5, &[2]);
    });
    let graph = frame.builder.finish().unwrap().clone();
    run(&mut backend, &graph, CompileOptions::default());
    let (_, _, pixels) = backend.read_rgba8("min").unwrap();
    for y in 0..8 {
        for x in 0..8 {
            let inside = (2..6).contains(&x) && (3..5).contains(&y);
            let expected = if inside {
                [0, 255, 0, 255]
            } else {
                [0, 0, 255, 255]
            };
            let at = (y * 8 + x) * 4;
            assert_eq!(pixels[at..at + 4], expected, "min ({x}, {y})");
        }
    }
    assert_eq!(
        backend.read_rgba8("max").unwrap(),
        (8, 8, solid(8, [0, 255, 0, 255]))
    );
}
