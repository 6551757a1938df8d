//! Frame-compiler benchmarks on the `chain` and `lanes` shapes of `bench/rps_shapes.rpsl`
//! (built by hand with the builder) at 1k and 10k nodes: recording, compiling per frame (cache
//! off), a cached frame (cache on, unchanged graph: the builder's structure serial matches), the
//! same with the serial dropped (the compiler compares the structure exactly) and a whole
//! unchanged frame (recording, which includes the builder's record-by-record check, plus the
//! cache hit).
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
        for n in [1000u32, 4000, 10000] {
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
            let mut unserialed = graph.clone();
            unserialed.invalidate_structure();
            let mut exact = FrameCompiler::new(CompileOptions::default());
            exact.compile(&unserialed).unwrap();
            group.bench_function(BenchmarkId::new(format!("{shape}/cached_exact"), n), |b| {
                b.iter(|| {
                    let frame = exact.compile(black_box(&unserialed)).unwrap();
                    assert!(frame.cache_hit);
                    black_box(frame.batches)
                })
            });
            let mut whole = FrameCompiler::new(CompileOptions::default());
            record(&mut builder, decls, lanes, n);
            whole.compile(builder.graph()).unwrap();
            group.bench_function(BenchmarkId::new(format!("{shape}/record_cached"), n), |b| {
                b.iter(|| {
                    record(&mut builder, decls, lanes, black_box(n));
                    let frame = whole.compile(builder.graph()).unwrap();
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
