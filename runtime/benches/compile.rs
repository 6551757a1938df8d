//! Frame-compiler benchmarks on the `chain` and `lanes` shapes of `bench/rps_shapes.rpsl`
//! (built by hand with the builder) at 1k and 10k nodes: recording, compiling per frame (cache
//! off) and a cached frame (cache on, unchanged graph).
//! Run: `cargo bench -p rpsl-runtime --bench compile`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rpsl_runtime::shapes::{declare_shapes, record_chain, record_lanes, ShapeDecls};
use rpsl_runtime::*;
use std::hint::black_box;

fn record(builder: &mut GraphBuilder, decls: ShapeDecls, lanes: bool, n: u32) {
    builder.begin_frame(0);
    if lanes {
        record_lanes(builder, decls, n).unwrap();
    } else {
        record_chain(builder, decls, n).unwrap();
    }
    builder.finish().unwrap();
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("frame");
    group.sample_size(20);
    for (shape, lanes) in [("chain", false), ("lanes", true)] {
        for n in [1000u32, 10000] {
            let mut builder = GraphBuilder::new();
            let decls = declare_shapes(&mut builder);
            record(&mut builder, decls, lanes, n);
            group.bench_function(BenchmarkId::new(format!("{shape}/record"), n), |b| {
                b.iter(|| record(&mut builder, decls, lanes, black_box(n)))
            });
            let graph = builder.graph().clone();
            let mut compiler = FrameCompiler::new(CompileOptions {
                cache: false,
                ..CompileOptions::default()
            });
            group.bench_function(BenchmarkId::new(format!("{shape}/compile"), n), |b| {
                b.iter(|| black_box(compiler.compile(black_box(&graph)).unwrap().batches))
            });
            let mut cached = FrameCompiler::new(CompileOptions::default());
            cached.compile(&graph).unwrap();
            group.bench_function(BenchmarkId::new(format!("{shape}/cached"), n), |b| {
                b.iter(|| {
                    let frame = cached.compile(black_box(&graph)).unwrap();
                    assert!(frame.cache_hit);
                    black_box(frame.batches)
                })
            });
        }
    }
    group.finish();
}

criterion_group!(compile_benches, benches);
criterion_main!(compile_benches);
