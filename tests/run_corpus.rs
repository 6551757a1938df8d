//! Every exported entry of every corpus script (and the bench and example scripts) runs for 3
//! frames with sensible arguments under the JIT (its quickly compiled code, and the optimised
//! code a session tiers up to) and under the interpreter, every frame recorded; the graph dumps
//! must be byte-identical, and so must the dumps of a session that repeats unchanged frames
//! (docs/semantics.md, "Frame reuse"). A digest of every dump pins the outputs: a change that
//! alters any recorded graph or compiled frame of the corpus fails here; a change meant to alter
//! outputs updates the pinned value and says why in its commit.

mod corpus_runs;
mod run_support;

use std::hash::{Hash, Hasher};

use rpsl::runtime::DumpWriter;
use rpsl::{EntryArgs, Mode, Program, Session};
use run_support::{corpus_dir, load, options, root};

/// The project's own scripts (paths under the repository), entry, arguments; the corpus runs
/// are `corpus_runs::CORPUS_RUNS`.
const PROJECT_RUNS: &[(&str, &str, &[&str])] = &[
    ("scripts/bench/rps_shapes.rpsl", "chain", &["N=50"]),
    ("scripts/bench/rps_shapes.rpsl", "lanes", &["N=50"]),
    ("scripts/bench/rps_shapes.rpsl", "script_heavy", &["N=10"]),
    ("scripts/bench/stress_shapes.rpsl", "wide", &["N=40"]),
    ("scripts/bench/stress_shapes.rpsl", "mips", &["N=40"]),
    ("scripts/bench/stress_shapes.rpsl", "barriers", &["N=40"]),
    ("scripts/bench/stress_shapes.rpsl", "atomics", &["N=40"]),
    (
        "scripts/examples/bloom/bloom.rpsl",
        "main",
        &["time=0.5", "intensity=1.25"],
    ),
    (
        "scripts/examples/deferred/deferred.rpsl",
        "main",
        &["exposure=1.0"],
    ),
    (
        "scripts/examples/msaa_resolve/msaa_resolve.rpsl",
        "main",
        &["kind=1"],
    ),
    (
        "scripts/examples/temporal_accumulation/temporal_accumulation.rpsl",
        "main",
        &[],
    ),
];

/// Known failures of the frame compiler (not of the script or the VM): the entry, and the start
/// of the error. The test accepts these so that it keeps checking every other entry; a fix in
/// the runtime turns them into passes.
const KNOWN_RUNTIME_GAPS: &[(&str, &str)] = &[];

/// The digest of every run's dump (or error) in table order: see the module doc.
const PINNED_DUMP_DIGEST: &str = "ff6876fe4c4bfb4d";

/// FNV-1a, 64 bits: a digest that is the same on every platform and toolchain.
struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Fnv64 {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv64 {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[test]
fn every_corpus_entry_runs_three_frames() {
    let Some(corpus) = corpus_dir() else { return };
    let mut covered = std::collections::BTreeSet::new();
    let mut digest = Fnv64::default();
    for (script, entry, args) in corpus_runs::CORPUS_RUNS.iter().chain(PROJECT_RUNS) {
        let path = if script.starts_with("scripts/") {
            root().join(script)
        } else {
            corpus.join(script)
        };
        let program = load(&path);
        covered.insert((script.to_string(), entry.to_string()));
        let key = format!("{script}:{entry}");
        let jit = dump_three_frames(&program, entry, args, Engine::Jit);
        let interp = dump_three_frames(&program, entry, args, Engine::Interp);
        assert!(
            jit == interp,
            "{key}: the JIT and the interpreter disagree\n--- jit\n{}\n--- interp\n{}",
            describe(&jit),
            describe(&interp)
        );
        let optimised = dump_three_frames(&program, entry, args, Engine::JitOptimised);
        assert!(
            optimised == interp,
            "{key}: the optimised JIT and the interpreter disagree\n--- jit\n{}\n--- interp\n{}",
            describe(&optimised),
            describe(&interp)
        );
        let reusing = dump_three_frames(&program, entry, args, Engine::JitReusing);
        assert!(
            reusing == interp,
            "{key}: repeated frames differ from recorded ones\n--- repeated\n{}\n--- recorded\n{}",
            describe(&reusing),
            describe(&interp)
        );
        key.hash(&mut digest);
        describe_whole(&interp).hash(&mut digest);
        let mut skipped = false;
        let dump = match jit {
            Ok(dump) => dump,
            Err(text) => {
                let known = KNOWN_RUNTIME_GAPS
                    .iter()
                    .any(|(k, start)| *k == key && text.contains(start));
                assert!(known, "{key}: {text}");
                eprintln!("known runtime gap: {key}: {text}");
                skipped = true;
                String::new()
            }
        };
        if skipped {
            continue;
        }
        let json: serde_json::Value = serde_json::from_str(&dump).expect("JSON");
        let frames = json["frames"].as_array().expect("frames");
        assert_eq!(frames.len(), 3, "{key}");
        for (index, frame) in frames.iter().enumerate() {
            assert_eq!(frame["index"], index as u64, "{key}");
            assert!(
                !frame["nodes"].as_array().unwrap().is_empty(),
                "{key}: no nodes"
            );
        }
    }
    assert_eq!(
        format!("{:016x}", digest.finish()),
        PINNED_DUMP_DIGEST,
        "the corpus dumps changed"
    );
    // Every exported entry of every corpus script is in the table.
    for file in std::fs::read_dir(&corpus).unwrap() {
        let path = file.unwrap().path();
        if path.extension().is_some_and(|e| e == "rpsl") {
            let program: Program = load(&path);
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            for entry in program.entries() {
                assert!(
                    covered.contains(&(name.clone(), entry.name.clone())),
                    "{name}:{} is not in the table",
                    entry.name
                );
            }
        }
    }
}

/// Runs three frames of `entry` in `mode` and returns the JSON dump, or the first frame's error
/// (`frame N: ` and the rendered diagnostic).
/// How a script runs.
#[derive(Copy, Clone, PartialEq)]
enum Engine {
    /// The JIT's quickly compiled code (no tier-up).
    Jit,
    /// The JIT's optimised code from the first frame on.
    JitOptimised,
    /// The JIT's quickly compiled code, repeating unchanged frames.
    JitReusing,
    Interp,
}

fn dump_three_frames(
    program: &Program,
    entry: &str,
    args: &[&str],
    engine: Engine,
) -> Result<String, String> {
    let mut session_options = options(true);
    let mode = if engine == Engine::Interp {
        Mode::Interp
    } else {
        Mode::Jit
    };
    session_options.mode = mode;
    session_options.jit_tier_up = engine == Engine::JitOptimised;
    session_options.reuse_unchanged_frames = engine == Engine::JitReusing;
    let mut session = Session::new(program, Some(entry), session_options).expect("entry");
    assert_eq!(session.mode(), mode);
    if engine == Engine::JitOptimised {
        session.finish_tier_up();
        assert!(session.jit_optimised(), "{entry}: no optimised code");
    }
    let parsed =
        EntryArgs::parse(program, session.entry(), args).unwrap_or_else(|e| panic!("{entry}: {e}"));
    let mut dump = DumpWriter::new(entry);
    let mut last_bytes = 0;
    for frame in 0..3 {
        match session.run_frame(&parsed) {
            Ok(frame) => {
                last_bytes = frame.compiled.memory.transient_bytes;
                dump.add_frame(frame.graph, Some(frame.compiled));
            }
            Err(error) => return Err(format!("frame {frame}: {}", error.render())),
        }
    }
    if engine == Engine::JitReusing && session.finish_memory_refinement() {
        // Memory refinement searches every corpus frame it can gain on (the default session
        // does after 30 frames): the next frame takes a plan that holds fewer bytes.
        let refined = session
            .run_frame(&parsed)
            .unwrap_or_else(|error| panic!("{entry}: refined frame: {}", error.render()));
        assert!(
            refined.compiled.memory.transient_bytes < last_bytes,
            "{entry}"
        );
        assert!(!refined.compiled.cache_hit, "{entry}");
    }
    Ok(dump.finish())
}

/// The whole outcome of a run, as the digest reads it.
fn describe_whole(outcome: &Result<String, String>) -> &str {
    match outcome {
        Ok(dump) => dump,
        Err(error) => error,
    }
}

/// A short description of a run's outcome for a failure message.
fn describe(outcome: &Result<String, String>) -> String {
    match outcome {
        Ok(dump) => format!(
            "{} bytes of dump: {}",
            dump.len(),
            &dump[..dump.len().min(2000)]
        ),
        Err(error) => error.clone(),
    }
}
