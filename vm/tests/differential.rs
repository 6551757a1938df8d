//! Differential testing of the JIT against the interpreter on random well-typed RPSL programs:
//! each program goes through `rpsl_frontend::check_source`, `lower::lower_module` and the
//! verifier, then runs under both engines with a [`RecordingHost`]; results, errors (with their
//! locations), host-call logs (node argument bytes included) and I/O blocks must be identical.
//!
//! The programs mix bounded loops, branches, structs, arrays indexed in and out of range,
//! vectors and swizzles, matrices (`mul`, `transpose`, `determinant`, matrix members read and
//! written), intrinsics (`refract`, `lit`, `msad4`, `f32tof16`, `modf` with its `out` argument
//! ...), integer division (sometimes by zero, sometimes `INT_MIN / -1`),
//! conversions, texture view derivations (`.mips()`, `.array()`) and node calls taking all of these.
//!
//! The default suite runs a few hundred programs. The long run (10,000 programs) is ignored by
//! default: `cargo test -p rpsl-vm --test differential -- --ignored --nocapture`.

mod differential_gen;

use differential_gen::{ProgramGen, SplitMix};
use rpsl_vm::host::NULL_VIEW;
use rpsl_vm::jit::{JitModule, JitOptions};
use rpsl_vm::lower::lower_module;
use rpsl_vm::{Interpreter, Limits, RecordingHost, Value};

/// What one program did under both engines.
#[derive(Default, Debug)]
struct Tally {
    programs: u32,
    rejected: u32,
    ok: u32,
    faulted: u32,
    node_calls: usize,
    /// Runs ended by each kind of fault.
    faults: std::collections::BTreeMap<String, u32>,
}

/// Runs one random program under the interpreter and the JIT (`optimize`: Cranelift's
/// optimiser on, the code sessions switch to after tier-up) and asserts identical results.
fn check_program(seed: u64, optimize: bool, tally: &mut Tally) {
    let mut rng = SplitMix::new(seed);
    let source = ProgramGen::new(&mut rng).program();
    tally.programs += 1;
    let compilation = rpsl_frontend::check_source("diff.rpsl", &source);
    let Some(module) = compilation
        .module
        .as_ref()
        .filter(|_| !compilation.has_errors())
    else {
        tally.rejected += 1;
        if std::env::var_os("RPSL_DIFF_DEBUG").is_some() {
            eprintln!("{source}\n{}", compilation.render_diagnostics());
        }
        return;
    };
    let lowered = match lower_module(module) {
        Ok(lowered) => lowered,
        Err(errors) => panic!("seed {seed}: lowering failed: {errors:?}\n{source}"),
    };
    let entry = lowered
        .entries
        .iter()
        .find(|e| e.name == "main")
        .expect("main")
        .clone();
    let verified = match lowered.module.verify() {
        Ok(verified) => verified,
        Err(errors) => panic!("seed {seed}: verification failed: {errors}\n{source}"),
    };
    let mut io = vec![0u8; entry.io_size as usize];
    io[..40].copy_from_slice(&NULL_VIEW);
    let mut values = SplitMix::new(seed ^ 0x5eed);
    for param in entry.params.iter().skip(1) {
        let at = param.offset as usize;
        let word = match values.below(6) {
            0 => 0,
            1 => 0x8000_0000,
            2 => 0xFFFF_FFFF,
            3 => (values.next() as f32 * 1e-19).to_bits(),
            _ => values.next() as u32,
        };
        if at + 4 <= io.len() {
            io[at..at + 4].copy_from_slice(&word.to_le_bytes());
        }
    }
    let limits = Limits {
        step_budget: 5_000,
        max_call_depth: 16,
        max_memory: 1 << 20,
    };
    let mut interp = Interpreter::new(limits);
    let mut interp_host = RecordingHost::new();
    let mut interp_io = io.clone();
    let expected = interp.run(
        &verified,
        entry.func,
        &[Value::Addr(0)],
        &mut interp_io,
        &mut interp_host,
    );

    let options = JitOptions {
        optimize,
        ..JitOptions::default()
    };
    let mut jit = match JitModule::compile_with(&verified, &options) {
        Ok(jit) => jit,
        Err(error) => panic!("seed {seed}: JIT compilation failed: {error}\n{source}"),
    };
    jit.set_limits(limits);
    let mut jit_host = RecordingHost::new();
    let mut jit_io = io.clone();
    let actual = jit.run(entry.func, &[Value::Addr(0)], &mut jit_io, &mut jit_host);

    let exact = |r: &Result<Vec<Value>, rpsl_vm::RuntimeError>| {
        r.as_ref()
            .map(|values| {
                values
                    .iter()
                    .map(|v| (v.ty(), v.to_bits()))
                    .collect::<Vec<_>>()
            })
            .map_err(Clone::clone)
    };
    assert_eq!(
        exact(&actual),
        exact(&expected),
        "seed {seed}: results differ\n{source}"
    );
    assert_eq!(
        jit_host.events, interp_host.events,
        "seed {seed}: host calls differ\n{source}"
    );
    assert_eq!(
        jit_io, interp_io,
        "seed {seed}: I/O blocks differ\n{source}"
    );
    if expected.is_ok() {
        tally.ok += 1;
    } else {
        tally.faulted += 1;
    }
    if let Err(error) = &expected {
        let kind = format!("{:?}", error.kind);
        let name = kind.split([' ', '(', '{']).next().unwrap_or("").to_string();
        *tally.faults.entry(name).or_insert(0) += 1;
    }
    tally.node_calls += interp_host.events.len();
}

fn run_range(first: u64, count: u64, optimize: bool) -> Tally {
    let mut tally = Tally::default();
    for seed in first..first + count {
        check_program(seed, optimize, &mut tally);
    }
    eprintln!("{tally:?}");
    // The generator must produce programs the frontend accepts, and exercise both outcomes.
    assert!(
        tally.rejected * 20 <= tally.programs,
        "too many rejected programs: {tally:?}"
    );
    assert!(tally.ok > 0 && tally.faulted > 0, "{tally:?}");
    tally
}

#[test]
fn jit_matches_interpreter_on_random_programs() {
    run_range(0, 300, false);
}

#[test]
fn optimised_jit_matches_interpreter_on_random_programs() {
    run_range(0, 300, true);
}

/// The long run: `cargo test -p rpsl-vm --test differential -- --ignored --nocapture`.
#[test]
#[ignore = "long: 10,000 programs"]
fn jit_matches_interpreter_on_10000_random_programs() {
    run_range(1_000_000, 10_000, false);
    run_range(1_000_000, 10_000, true);
}
