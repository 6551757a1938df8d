//! JIT against interpreter at VM level: run time of `script_heavy` (from
//! `scripts/bench/rps_shapes.rpsl`) under both engines with a `RecordingHost`, and the time to
//! check, lower and JIT-compile a ~1,000-line script (all functions on the default threads, all
//! functions on one thread, and only the functions reachable from the script's entries).
//!
//! Run: `cargo bench -p rpsl-vm --bench jit_script_heavy`. For profilers:
//! `cargo bench -p rpsl-vm --bench jit_script_heavy -- --compile-only [ROUNDS] [THREADS]` only
//! JIT-compiles every function of the ~1,000-line module (`THREADS` 0 = default).

use rpsl_vm::host::NULL_VIEW;
use rpsl_vm::jit::{JitModule, JitOptions};
use rpsl_vm::lower::{lower_module, Lowered};
use rpsl_vm::{Interpreter, Limits, RecordingHost, Value};
use std::time::{Duration, Instant};

const SHAPES: &str = include_str!("../../scripts/bench/rps_shapes.rpsl");

fn lower(source: &str) -> Lowered {
    let compilation = rpsl_frontend::check_source("bench.rpsl", source);
    assert!(
        !compilation.has_errors(),
        "{}",
        compilation.render_diagnostics()
    );
    lower_module(compilation.module.as_ref().expect("module")).expect("lowers")
}

/// A ~1,000-line script: the shapes file plus many arithmetic helper functions.
fn big_script() -> String {
    let mut text = SHAPES.to_string();
    for i in 0..52 {
        text.push_str(&format!(
            r#"
float helper{i}(float x, uint n)
{{
    float acc = x;
    for (uint k = 0; k < n; k++)
    {{
        acc = acc * 0.5f + sqrt((float)k + {i}.0f);
        if (acc > 100.0f)
            acc = acc - 50.0f;
        else
            acc = acc + frac(acc);
    }}
    uint h = n * 2654435761u + {i}u;
    h = h ^ (h >> 13);
    float4 v = float4(acc, (float)h, x, 1.0f);
    v = normalize(v) + float4(1, 2, 3, 4);
    return dot(v, v) + min(acc, x) + max(acc, 0.0f);
}}
"#
        ));
    }
    text
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// `--compile-only [ROUNDS] [THREADS]`: only JIT-compiles every function of the ~1,000-line
/// module ROUNDS times (default 20) and prints its size and the median compile time.
fn compile_only(rounds: usize, threads: usize) {
    let big = big_script();
    let verified = lower(&big).module.verify().expect("verifies");
    let module = verified.module();
    let insts: usize = module.functions.iter().map(|f| f.insts.len()).sum();
    let regs: usize = module.functions.iter().map(|f| f.reg_types.len()).sum();
    let blocks: usize = module.functions.iter().map(|f| f.blocks.len()).sum();
    let options = JitOptions {
        threads,
        ..JitOptions::default()
    };
    let mut times = Vec::new();
    for _ in 0..rounds.max(1) {
        let start = Instant::now();
        let jit = JitModule::compile_with(&verified, &options).expect("compiles");
        times.push(start.elapsed());
        drop(jit);
    }
    println!(
        "{} lines, {} functions, {insts} insts, {regs} regs, {blocks} blocks: JIT compile median {:?} (threads {threads})",
        big.lines().count(),
        module.functions.len(),
        median(times)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--compile-only") {
        let number = |i: usize, default| {
            args.get(at + i)
                .and_then(|n| n.parse().ok())
                .unwrap_or(default)
        };
        compile_only(number(1, 20), number(2, 0));
        return;
    }
    let lowered = lower(SHAPES);
    let entry = lowered
        .entries
        .iter()
        .find(|e| e.name == "script_heavy")
        .expect("script_heavy")
        .clone();
    let verified = lowered.module.verify().expect("verifies");
    let n = 1000u32;
    let mut io = vec![0u8; entry.io_size as usize];
    io[..40].copy_from_slice(&NULL_VIEW);
    let at = entry.params[1].offset as usize;
    io[at..at + 4].copy_from_slice(&n.to_le_bytes());
    let at = entry.params[2].offset as usize;
    io[at..at + 4].copy_from_slice(&7u32.to_le_bytes());

    let limits = Limits::default();
    let mut interp = Interpreter::new(limits);
    let compile_start = Instant::now();
    let jit = JitModule::compile(&verified).expect("compiles");
    let compile_time = compile_start.elapsed();

    let mut interp_times = Vec::new();
    let mut jit_times = Vec::new();
    for _ in 0..7 {
        let mut host = RecordingHost::new();
        let mut run_io = io.clone();
        let start = Instant::now();
        let result = interp.run(
            &verified,
            entry.func,
            &[Value::Addr(0)],
            &mut run_io,
            &mut host,
        );
        interp_times.push(start.elapsed());
        let expected = (result, host.events);

        let mut host = RecordingHost::new();
        let mut run_io = io.clone();
        let start = Instant::now();
        let result = jit.run(entry.func, &[Value::Addr(0)], &mut run_io, &mut host);
        jit_times.push(start.elapsed());
        assert_eq!(&result, &expected.0, "engines disagree");
        assert_eq!(&host.events, &expected.1, "host calls disagree");
    }
    let (interp_time, jit_time) = (median(interp_times), median(jit_times));
    println!(
        "script_heavy N={n}: interpreter {interp_time:?}, JIT {jit_time:?} ({:.1}x); JIT compile of rps_shapes {compile_time:?}",
        interp_time.as_secs_f64() / jit_time.as_secs_f64()
    );

    let big = big_script();
    let lines = big.lines().count();
    let mut totals = Vec::new();
    let mut jit_only = Vec::new();
    let mut one_thread = Vec::new();
    let mut reachable = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let lowered = lower(&big);
        let verified = lowered.module.verify().expect("verifies");
        let jit_start = Instant::now();
        let jit = JitModule::compile(&verified).expect("compiles");
        jit_only.push(jit_start.elapsed());
        totals.push(start.elapsed());
        drop(jit);

        let options = JitOptions {
            threads: 1,
            ..JitOptions::default()
        };
        let start = Instant::now();
        drop(JitModule::compile_with(&verified, &options).expect("compiles"));
        one_thread.push(start.elapsed());

        let options = JitOptions {
            entries: Some(lowered.entries.iter().map(|e| e.func).collect()),
            ..JitOptions::default()
        };
        let start = Instant::now();
        drop(JitModule::compile_with(&verified, &options).expect("compiles"));
        reachable.push(start.elapsed());
    }
    println!(
        "{lines}-line script: check + lower + verify + JIT compile {:?} (JIT compile alone {:?}; on one thread {:?}; only functions reachable from entries {:?})",
        median(totals),
        median(jit_only),
        median(one_thread),
        median(reachable)
    );
}
