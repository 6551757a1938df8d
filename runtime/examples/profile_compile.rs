//! Compiles the `chain` or `lanes` shape repeatedly, for profiling: `profile_compile chain|lanes N
//! FRAMES [cached]` (use `perf stat` task-clock on a busy machine).

use rpsl_runtime::shapes::{declare_shapes, record_chain, record_lanes};
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
    let graph = builder.finish().unwrap().clone();
    let cache = std::env::args().any(|arg| arg == "cached");
    let mut compiler = FrameCompiler::new(CompileOptions {
        cache,
        ..CompileOptions::default()
    });
    let start = std::time::Instant::now();
    let mut batches = 0;
    for _ in 0..frames {
        batches += compiler.compile(&graph).unwrap().batches;
    }
    println!("{batches} {:?} per frame", start.elapsed() / frames);
}
