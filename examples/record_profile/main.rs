//! Records the `chain` or `lanes` graph of `scripts/bench/rps_shapes.rpsl` many times through the
//! JIT, the interpreter or hand-written builder calls, for instruction-count profiling of graph
//! recording (performance target P5: JIT within 1.2x of the hand-written baseline).
//!
//! ```text
//! cargo build --release --example record_profile
//! valgrind --tool=callgrind --dump-instr=no --toggle-collect='*measure_frames*' \
//!     target/release/examples/record_profile jit chain 1000 20
//! ```
//! Warm-up frames run first (two, and in `jit` mode until the session runs its optimised code,
//! at most ~10 s; `jit-fast` keeps the unoptimised code), then FRAMES measured frames in
//! `measure_frames`, the only function collected above: instructions per frame = Ir / FRAMES.
//! It prints the mean wall time per measured frame on stderr, then the node count of the last
//! frame and whether the JIT code was optimised.

mod hand;

use rpsl::{EntryArgs, Mode, Program, Session, SessionOptions};
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn usage() -> ExitCode {
    eprintln!("usage: record_profile (jit|jit-fast|interp|hand) (chain|lanes) N FRAMES");
    ExitCode::from(2)
}

/// Records `frames` frames with `record`; returns the node count of the last one.
#[inline(never)]
fn measure_frames(
    frames: u64,
    mut record: impl FnMut(u64) -> Result<usize, String>,
) -> Result<usize, String> {
    let start = Instant::now();
    let mut nodes = 0;
    for frame in 0..frames {
        nodes = record(frame)?;
    }
    let micros = start.elapsed().as_secs_f64() * 1e6 / frames.max(1) as f64;
    eprintln!("{micros:.1} us per frame");
    Ok(nodes)
}

fn run_hand(shape: &str, n: u32, frames: u64) -> Result<usize, String> {
    let mut hand = hand::Hand::new();
    let mut record = |frame: u64| {
        Ok(if shape == "chain" {
            hand.chain(frame, n)
        } else {
            hand.lanes(frame, n)
        })
    };
    for frame in 0..2 {
        record(frame)?;
    }
    measure_frames(frames, |frame| record(frame + 2))
}

fn run_script(mode: &str, shape: &str, n: u32, frames: u64) -> Result<(usize, bool), String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/bench/rps_shapes.rpsl");
    let program = Program::from_file(path).map_err(|error| error.rendered)?;
    let options = SessionOptions {
        mode: if mode == "interp" {
            Mode::Interp
        } else {
            Mode::Jit
        },
        jit_tier_up: mode == "jit",
        ..SessionOptions::default()
    };
    let mut session =
        Session::new(&program, Some(shape), options).map_err(|error| error.to_string())?;
    let args = EntryArgs::parse(&program, session.entry(), [format!("N={n}")])
        .map_err(|error| format!("{error:?}"))?;
    let record = |session: &mut Session| -> Result<usize, String> {
        session
            .record_frame(&args)
            .map(|graph| graph.nodes.len())
            .map_err(|error| error.render())
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut warm = 0;
    while warm < 2 || (mode == "jit" && !session.jit_optimised() && Instant::now() < deadline) {
        record(&mut session)?;
        warm += 1;
        if warm >= 2 && mode == "jit" {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    let nodes = measure_frames(frames, |_| record(&mut session))?;
    Ok((nodes, session.jit_optimised()))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, shape, n, frames] = args.as_slice() else {
        return usage();
    };
    let (Ok(n), Ok(frames)) = (n.parse::<u32>(), frames.parse::<u64>()) else {
        return usage();
    };
    if n < 9 || !matches!(shape.as_str(), "chain" | "lanes") {
        return usage();
    }
    let outcome = match mode.as_str() {
        "hand" => run_hand(shape, n, frames).map(|nodes| (nodes, false)),
        "jit" | "jit-fast" | "interp" => run_script(mode, shape, n, frames),
        _ => return usage(),
    };
    match outcome {
        Ok((nodes, optimised)) => {
            println!("nodes {nodes} optimised {optimised}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}
