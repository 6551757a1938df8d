//! Graph recording through the JIT and the interpreter on `scripts/bench/rps_shapes.rpsl` (chain
//! and lanes at N=1000, 4000 and 10000, script_heavy at N=100), next to the same chain and lanes
//! graphs built by hand-written calls to the runtime's `GraphBuilder` (the native baseline a
//! script can approach).
//!
//! `record/jit/...` is a default session: measured once its optimised code is running (the
//! tier-up of `SessionOptions::jit_tier_up`); `record/jit-unoptimised/...` keeps the quickly
//! compiled code a session starts with.

#[path = "../examples/record_profile/hand.rs"]
mod hand;

use criterion::{criterion_group, criterion_main, Criterion};
use rpsl::{EntryArgs, Mode, Program, Session, SessionOptions};
use std::time::{Duration, Instant};

/// The node counts of issue 19's shapes (`rpsl bench`'s rows, `../shared/anchors/rps/compare.sh`).
const SIZES: [u32; 3] = [1000, 4000, 10000];

fn shapes() -> Program {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/bench/rps_shapes.rpsl");
    Program::from_file(path).unwrap_or_else(|error| panic!("{}", error.rendered))
}

/// How a script bench runs: the name in its id, the mode and whether the JIT tiers up.
#[derive(Clone, Copy)]
struct Engine {
    name: &'static str,
    mode: Mode,
    tier_up: bool,
}

const ENGINES: [Engine; 3] = [
    Engine {
        name: "jit",
        mode: Mode::Jit,
        tier_up: true,
    },
    Engine {
        name: "jit-unoptimised",
        mode: Mode::Jit,
        tier_up: false,
    },
    Engine {
        name: "interp",
        mode: Mode::Interp,
        tier_up: false,
    },
];

fn bench_script(c: &mut Criterion, program: &Program, engine: Engine, entry: &str, n: u32) {
    let options = SessionOptions {
        mode: engine.mode,
        jit_tier_up: engine.tier_up,
        ..SessionOptions::default()
    };
    let mut session = Session::new(program, Some(entry), options).unwrap();
    let args = EntryArgs::parse(program, session.entry(), [format!("N={n}")]).unwrap();
    if engine.tier_up {
        // Run frames until the optimised code is in (it compiles on a background thread).
        let deadline = Instant::now() + Duration::from_secs(30);
        while !session.jit_optimised() && Instant::now() < deadline {
            session.record_frame(&args).unwrap();
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(session.jit_optimised(), "the JIT did not tier up");
    }
    c.bench_function(&format!("record/{}/{entry}/{n}", engine.name), |b| {
        b.iter(|| {
            session
                .record_frame(&args)
                .map(|graph| graph.nodes.len())
                .unwrap()
        })
    });
}

fn record(c: &mut Criterion) {
    let program = shapes();
    for engine in ENGINES {
        for n in SIZES {
            bench_script(c, &program, engine, "chain", n);
            bench_script(c, &program, engine, "lanes", n);
        }
        bench_script(c, &program, engine, "script_heavy", 100);
    }
    let mut hand = hand::Hand::new();
    let mut frame = 0;
    for n in SIZES {
        c.bench_function(&format!("record/hand/chain/{n}"), |b| {
            b.iter(|| {
                frame += 1;
                hand.chain(frame, n)
            })
        });
        c.bench_function(&format!("record/hand/lanes/{n}"), |b| {
            b.iter(|| {
                frame += 1;
                hand.lanes(frame, n)
            })
        });
    }
}

criterion_group!(benches, record);
criterion_main!(benches);
