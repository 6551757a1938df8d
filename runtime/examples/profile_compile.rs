//! Compiles the `chain` or `lanes` shape repeatedly, for profiling: `profile_compile chain|lanes N
//! FRAMES [cached|loop|unknown|variants K] [memory]` (use `perf stat` task-clock or callgrind on
//! a busy machine); `memory` compiles with the memory-saving schedule. `cached` compiles one recorded graph with the cache on; `loop` records and compiles
//! every frame (cache on), as an application's frame loop does; `unknown` drops the builder's
//! serials (the per-resource facts are compared every compile); `variants K` records each frame
//! one of K variants of the shape (same resources, other dependencies or queue pattern:
//! `shapes::record_chain_variant`) and times only the compiles, so the CPU's branch predictor
//! cannot replay the outcomes of an identical previous compile. One untimed compile comes
//! first (warm-up).

use rpsl_runtime::shapes::{
    declare_shapes, record_chain, record_chain_variant, record_lanes, record_lanes_variant,
};
use rpsl_runtime::*;

fn main() {
    let lanes = std::env::args().nth(1).is_some_and(|arg| arg == "lanes");
    let n: u32 = std::env::args()
        .nth(2)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(1000);
    let frames: u32 = std::env::args()
        .nth(3)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(500);
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    builder.begin_frame(0);
    if lanes {
        record_lanes(&mut builder, decls, n).unwrap();
    } else {
        record_chain(&mut builder, decls, n).unwrap();
    }
    let mut graph = builder.finish().unwrap().clone();
    // `unknown`: a graph without the builder's serials, so every compile compares the resource
    // descriptions again (as for a frame whose resources changed).
    if std::env::args().any(|arg| arg == "unknown") {
        graph.invalidate_structure();
    }
    let cache = std::env::args().any(|arg| arg == "cached" || arg == "loop");
    let frame_loop = std::env::args().any(|arg| arg == "loop");
    let schedule = if std::env::args().any(|arg| arg == "memory") {
        SchedulePreference::Memory
    } else if std::env::args().any(|arg| arg == "balanced") {
        SchedulePreference::Balanced
    } else if std::env::args().any(|arg| arg == "searched") {
        SchedulePreference::Searched
    } else {
        SchedulePreference::Default
    };
    let mut compiler = FrameCompiler::new(CompileOptions {
        cache,
        schedule,
        ..CompileOptions::default()
    });
    // One untimed compile first: the compiler's scratch and the frame's vectors reach their
    // size (first-touch page faults) as they would in the first frame of an application.
    compiler.compile(&graph).unwrap();
    let variants: Option<u32> = std::env::args()
        .skip_while(|arg| arg != "variants")
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .filter(|&count| count > 0);
    if let Some(count) = variants {
        // Recording is not timed: only the compiles of the rotating variants.
        let mut compiling = std::time::Duration::ZERO;
        let mut batches = 0;
        for frame in 0..frames {
            builder.begin_frame(frame as u64 + 1);
            let variant = frame % count;
            if lanes {
                record_lanes_variant(&mut builder, decls, n, variant).unwrap();
            } else {
                record_chain_variant(&mut builder, decls, n, variant).unwrap();
            }
            let graph = builder.finish().unwrap();
            let start = std::time::Instant::now();
            batches += compiler.compile(graph).unwrap().batches;
            compiling += start.elapsed();
        }
        println!("{batches} {:?} per frame", compiling / frames);
        return;
    }
    let start = std::time::Instant::now();
    let mut batches = 0;
    for frame in 0..frames {
        if frame_loop {
            builder.begin_frame(frame as u64 + 1);
            if lanes {
                record_lanes(&mut builder, decls, n).unwrap();
            } else {
                record_chain(&mut builder, decls, n).unwrap();
            }
            batches += compiler.compile(builder.finish().unwrap()).unwrap().batches;
        } else {
            batches += compiler.compile(&graph).unwrap().batches;
        }
    }
    println!("{batches} {:?} per frame", start.elapsed() / frames);
}
