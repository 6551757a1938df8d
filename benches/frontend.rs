//! Criterion benchmark of the frontend: preprocess + parse + type-check (prelude included) of the
//! scripts in `scripts/bench/` and the corpus, read from disk once and checked from memory.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

// The allocator the `rpsl` binary runs with.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn bench_check(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let inputs = [
        root.join("scripts/bench/frontend_1000_lines.rpsl"),
        root.join("scripts/bench/rps_shapes.rpsl"),
        root.join("../shared/corpus/rps-sdk/tests_console_test_scheduler.rpsl"),
    ];
    let mut group = c.benchmark_group("parse_and_check");
    for path in inputs.iter().filter(|p| p.exists()) {
        let text = std::fs::read_to_string(path).expect("readable bench input");
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let display_path = path.display().to_string();
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(&name, |b| {
            b.iter(|| {
                let compilation = rpsl::check_source(&display_path, &text);
                assert!(
                    !compilation.has_errors(),
                    "{}",
                    compilation.render_diagnostics()
                );
                compilation
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_check);
criterion_main!(benches);
