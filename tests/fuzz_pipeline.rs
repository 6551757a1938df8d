//! The whole pipeline under mutation fuzzing for a bounded time (source -> check -> lower -> JIT
//! and interpreter -> frame compile -> null backend; see `pipeline_fuzz`): no panic, no hang,
//! every frame failure located, both engines identical.
//!
//! `RPSL_FUZZ_SECONDS` sets the time (default 40 s, what CI runs), `RPSL_FUZZ_SEED` the seed
//! (default: fixed, so CI is repeatable). Longer runs: `RPSL_FUZZ_SECONDS=1800 cargo test --test
//! fuzz_pipeline -- --nocapture`.

mod pipeline_fuzz;

use std::time::{Duration, Instant};

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn mutated_scripts_run_through_the_whole_pipeline_without_findings() {
    let seconds = env_number("RPSL_FUZZ_SECONDS", 40);
    let seed = env_number("RPSL_FUZZ_SEED", 0x5eed_f022);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (stats, findings) = pipeline_fuzz::fuzz(seed, deadline, u64::MAX, Duration::from_secs(60));
    eprintln!("pipeline fuzz: seed {seed:#x}, {seconds} s: {stats:?}");
    if let Some(first) = findings.first() {
        panic!(
            "{} finding(s); the first: {}\n--- script\n{}",
            findings.len(),
            first.problem,
            first.text
        );
    }
    // The mutations keep most inputs well-formed: a run that stops before the runtime is useless.
    assert!(stats.inputs > 0);
    assert!(
        stats.accepted * 5 >= stats.inputs,
        "too few inputs reached the runtime: {stats:?}"
    );
}
