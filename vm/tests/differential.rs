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

/// The budget-weighting scripts below, lowered and verified, with their `main`.
struct BudgetScript {
    source: String,
    verified: rpsl_vm::VerifiedModule,
    entry: rpsl_vm::lower::EntryInfo,
    locs: Vec<rpsl_frontend::source::Span>,
}

impl BudgetScript {
    fn new(source: String) -> BudgetScript {
        let compilation = rpsl_frontend::check_source("budget.rpsl", &source);
        let module = compilation
            .module
            .as_ref()
            .filter(|_| !compilation.has_errors())
            .unwrap_or_else(|| panic!("{}\n{source}", compilation.render_diagnostics()));
        let lowered = lower_module(module).expect("lowers");
        let entry = lowered
            .entries
            .iter()
            .find(|e| e.name == "main")
            .expect("main")
            .clone();
        BudgetScript {
            source,
            verified: lowered.module.verify().expect("verifies"),
            entry,
            locs: lowered.locs,
        }
    }

    /// Runs `main(n)` under both engines with `budget`; asserts that they agree on the result
    /// (the error and its location included) and on every host call, and returns the result.
    fn run_both(&self, n: u32, budget: u64) -> Result<(), rpsl_vm::RuntimeError> {
        let limits = Limits {
            step_budget: budget,
            ..Limits::default()
        };
        let mut io = vec![0u8; self.entry.io_size as usize];
        io[..4].copy_from_slice(&n.to_le_bytes());
        let mut interp_host = RecordingHost::new();
        let expected = Interpreter::new(limits).run(
            &self.verified,
            self.entry.func,
            &[Value::Addr(0)],
            &mut io.clone(),
            &mut interp_host,
        );
        for optimize in [false, true] {
            let options = JitOptions {
                optimize,
                ..JitOptions::default()
            };
            let mut jit = JitModule::compile_with(&self.verified, &options).expect("compiles");
            jit.set_limits(limits);
            let mut jit_host = RecordingHost::new();
            let actual = jit.run(
                self.entry.func,
                &[Value::Addr(0)],
                &mut io.clone(),
                &mut jit_host,
            );
            assert_eq!(
                actual, expected,
                "budget {budget}, n = {n}\n{}",
                self.source
            );
            assert_eq!(jit_host.events, interp_host.events, "budget {budget}");
        }
        expected.map(|_| ())
    }

    /// The script text at an error's location.
    fn text_at(&self, error: &rpsl_vm::RuntimeError) -> &str {
        let span = self.locs[error.loc.expect("located").index()];
        &self.source[span.start as usize..span.end as usize]
    }
}

/// `body` statements of `x = x * 3 + 1; x = x ^ (x >> 5);`.
fn long_body(statements: usize) -> String {
    (0..statements)
        .map(|i| format!("x = x * {} + {i}; x = x ^ (x >> 5);\n", 2 * i + 3))
        .collect()
}

/// Three runaway shapes: a loop with a long body, a call tree that doubles at each of 14
/// levels, and long straight-line code repeated through calls. `main(0)` runs each for ever
/// (the call tree for 2^14 calls per pass); `main(n)` with small `n` ends.
fn runaway_scripts() -> Vec<BudgetScript> {
    let mut fan = String::from("uint fan0(uint x) { return x * 3 + 1; }\n");
    for level in 1..=14 {
        let below = level - 1;
        fan.push_str(&format!(
            "uint fan{level}(uint x) {{ return fan{below}(x + 1) ^ fan{below}(x + 2); }}\n"
        ));
    }
    vec![
        format!(
            "compute node Mark(uint v);\n\
             export void main(uint n)\n{{\n    uint x = n;\n    uint i = 0;\n\
             while (n == 0 || i < n) {{\n{}    i++;\n    }}\n    Mark(x);\n}}\n",
            long_body(40)
        ),
        format!(
            "compute node Mark(uint v);\n{fan}\
             export void main(uint n)\n{{\n    uint x = n;\n\
             for (uint i = 0; n == 0 || i < n; i++) {{ x = fan14(x); Mark(x); }}\n}}\n"
        ),
        format!(
            "compute node Mark(uint v);\n\
             uint straight(uint x)\n{{\n{}    return x;\n}}\n\
             export void main(uint n)\n{{\n    uint x = n;\n\
             for (uint i = 0; n == 0 || i < n; i++) {{ x = straight(x); Mark(x); }}\n}}\n",
            long_body(200)
        ),
    ]
    .into_iter()
    .map(BudgetScript::new)
    .collect()
}

#[test]
fn runaway_scripts_stop_at_the_same_step_with_the_same_error_in_both_engines() {
    let scripts = runaway_scripts();
    for script in &scripts {
        let mut budget = 1u64;
        while budget < 1_000_000 {
            let error = script.run_both(0, budget).unwrap_err();
            assert_eq!(
                error.kind,
                rpsl_vm::RuntimeErrorKind::StepBudgetExhausted { budget }
            );
            assert_eq!(
                error.to_string(),
                format!("step budget of {budget} steps exhausted (endless loop?)")
            );
            budget = budget * 3 + 1;
        }
    }
    // Where each stops once it is in its loop: the loop's back-edge (the last statement of its
    // body) or the call.
    let error = scripts[0].run_both(0, 100_000).unwrap_err();
    assert_eq!(scripts[0].text_at(&error), "i++");
    let error = scripts[1].run_both(0, 100_000).unwrap_err();
    assert_eq!(scripts[1].text_at(&error), "fan0(x + 2)");
    let error = scripts[2].run_both(0, 100_000).unwrap_err();
    assert_eq!(scripts[2].text_at(&error), "straight(x)");
}

#[test]
fn the_budget_a_script_needs_is_the_same_in_both_engines_and_grows_with_its_work() {
    for script in runaway_scripts() {
        // The smallest budget that lets main(3) end, found with the interpreter; the JIT must
        // end with it too and stop one step short of it, exactly as the interpreter does.
        let needed = |n: u32| {
            let (mut low, mut high) = (1u64, 1u64 << 40);
            while low < high {
                let mid = low + (high - low) / 2;
                let ended = Interpreter::new(Limits {
                    step_budget: mid,
                    ..Limits::default()
                })
                .run(
                    &script.verified,
                    script.entry.func,
                    &[Value::Addr(0)],
                    &mut {
                        let mut io = vec![0u8; script.entry.io_size as usize];
                        io[..4].copy_from_slice(&n.to_le_bytes());
                        io
                    },
                    &mut RecordingHost::new(),
                )
                .is_ok();
                if ended {
                    high = mid;
                } else {
                    low = mid + 1;
                }
            }
            low
        };
        let (three, six) = (needed(3), needed(6));
        assert_eq!(script.run_both(3, three), Ok(()));
        let error = script.run_both(3, three - 1).unwrap_err();
        assert_eq!(
            error.kind,
            rpsl_vm::RuntimeErrorKind::StepBudgetExhausted { budget: three - 1 }
        );
        // Twice the iterations cost about twice the steps: the budget counts work done.
        assert!(
            six > 2 * three - three / 4 && six < 2 * three + 8,
            "{three} {six}"
        );
    }
}
