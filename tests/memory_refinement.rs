//! Memory refinement of steady frames (`SessionOptions::memory_refinement`): once a structure
//! has repeated, its plan is searched (`SchedulePreference::Searched`) and a later frame of the
//! same structure takes it when it holds fewer transient bytes. Each refined frame must dump
//! exactly as the same graph compiled under the searched schedule does; every other frame as
//! under the session's own schedule.

use rpsl::runtime::{CompileOptions, DumpWriter, FrameCompiler, RecordedGraph, SchedulePreference};
use rpsl::{EntryArgs, MemoryRefinement, Program, Session, SessionOptions};

const SHAPES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/bench/rps_shapes.rpsl");

fn shapes() -> Program {
    Program::from_file(SHAPES).unwrap()
}

fn session<'p>(program: &'p Program, entry: &str, refinement: MemoryRefinement) -> Session<'p> {
    let options = SessionOptions {
        jit_tier_up: false,
        memory_refinement: refinement,
        ..SessionOptions::default()
    };
    Session::new(program, Some(entry), options).unwrap()
}

/// The dump of `graph` compiled on its own under `schedule` (no cache), with the searched
/// schedule's level search at `attempt`.
fn compiled_alone(
    graph: &RecordedGraph,
    schedule: SchedulePreference,
    attempt: u32,
    entry: &str,
) -> (String, u64) {
    let mut compiler = FrameCompiler::new(CompileOptions {
        schedule,
        cache: false,
        ..CompileOptions::default()
    });
    compiler.set_search_attempt(attempt);
    let compiled = compiler.compile(graph).unwrap();
    let mut writer = DumpWriter::new(entry);
    writer.add_frame(graph, Some(compiled));
    (writer.finish(), compiled.memory.transient_bytes)
}

/// What one frame of a session gave.
struct Ran {
    /// The frame's dump (with `cache_hit` false, as a compile alone has it).
    dump: String,
    graph: RecordedGraph,
    entry: String,
    transient_bytes: u64,
    cache_hit: bool,
}

impl Ran {
    /// The frame's graph compiled alone under the default schedule.
    fn default(&self) -> String {
        compiled_alone(&self.graph, SchedulePreference::Default, 0, &self.entry).0
    }

    /// The plan refinement holds after search attempts `0..attempts`: each attempt's plan is
    /// taken when it has fewer bytes than every plan before it, the default one included.
    fn searched(&self, attempts: u32) -> String {
        let (mut best, mut best_bytes) =
            compiled_alone(&self.graph, SchedulePreference::Default, 0, &self.entry);
        for attempt in 0..attempts {
            let (dump, bytes) = compiled_alone(
                &self.graph,
                SchedulePreference::Searched,
                attempt,
                &self.entry,
            );
            if bytes < best_bytes {
                (best, best_bytes) = (dump, bytes);
            }
        }
        best
    }
}

fn run(session: &mut Session, args: &EntryArgs, entry: &str) -> Ran {
    let frame = session.run_frame(args).unwrap();
    let mut writer = DumpWriter::new(entry);
    writer.add_frame(frame.graph, Some(frame.compiled));
    let mut dump = writer.finish();
    if frame.compiled.cache_hit {
        dump = dump.replacen("\"cache_hit\":true", "\"cache_hit\":false", 1);
    }
    Ran {
        dump,
        graph: frame.graph.clone(),
        entry: entry.to_string(),
        transient_bytes: frame.compiled.memory.transient_bytes,
        cache_hit: frame.compiled.cache_hit,
    }
}

fn args(program: &Program, session: &Session, texts: &[&str]) -> EntryArgs {
    EntryArgs::parse(program, session.entry(), texts).unwrap()
}

#[test]
fn blocking_refinement_takes_each_attempt_at_a_fixed_frame() {
    let program = shapes();
    let mut session = session(
        &program,
        "lanes",
        MemoryRefinement::Blocking { after_frames: 3 },
    );
    let lanes = args(&program, &session, &["N=200"]);
    // The first frame and three more of its structure: the default plan, the last three from
    // the cache (the first search runs at the end of the fourth).
    for frame in 0..4 {
        let ran = run(&mut session, &lanes, "lanes");
        assert!(ran.dump == ran.default(), "frame {frame}");
        assert_eq!(ran.cache_hit, frame > 0);
        assert_eq!(ran.transient_bytes, 139_067_392);
    }
    // The fifth takes the first attempt's plan, announced as not a cache hit; the sixth and
    // seventh keep it from the cache (the second attempt runs at the end of the seventh).
    let refined = run(&mut session, &lanes, "lanes");
    assert!(
        refined.dump == refined.searched(1),
        "not the first attempt's plan"
    );
    assert!(!refined.cache_hit);
    assert_eq!(refined.transient_bytes, 109_314_048);
    for _ in 0..2 {
        let ran = run(&mut session, &lanes, "lanes");
        assert!(ran.dump == ran.searched(1));
        assert!(ran.cache_hit);
    }
    // The eighth holds the better of the two attempts' plans.
    let ran = run(&mut session, &lanes, "lanes");
    assert!(ran.dump == ran.searched(2), "not the best of two attempts");
    assert_eq!(
        ran.cache_hit,
        ran.transient_bytes == refined.transient_bytes
    );
}

#[test]
fn a_new_structure_drops_the_refined_plan_and_counts_again() {
    let program = shapes();
    let mut session = session(
        &program,
        "lanes",
        MemoryRefinement::Blocking { after_frames: 2 },
    );
    let small = args(&program, &session, &["N=200"]);
    let large = args(&program, &session, &["N=300"]);
    for _ in 0..3 {
        run(&mut session, &small, "lanes");
    }
    let refined = run(&mut session, &small, "lanes");
    assert!(refined.dump == refined.searched(1), "not the searched plan");
    assert!(refined.dump != refined.default());
    // Another structure: its own default plan, refined in turn after two more frames.
    for frame in 0..3 {
        let ran = run(&mut session, &large, "lanes");
        assert!(ran.dump == ran.default(), "frame {frame} of N=300");
    }
    let ran = run(&mut session, &large, "lanes");
    assert!(ran.dump == ran.searched(1), "not the searched plan");
    assert_eq!(ran.transient_bytes, 110_886_912);
    // Back to the first structure: counted again from its first frame.
    let ran = run(&mut session, &small, "lanes");
    assert!(ran.dump == ran.default(), "not the default plan");
}

#[test]
fn finishing_a_background_refinement_gives_the_next_frame_its_plan() {
    let program = shapes();
    let mut session = session(
        &program,
        "lanes",
        MemoryRefinement::Background {
            after_frames: 1_000,
        },
    );
    let lanes = args(&program, &session, &["N=200"]);
    for _ in 0..2 {
        let ran = run(&mut session, &lanes, "lanes");
        assert!(ran.dump == ran.default(), "not the default plan");
    }
    assert!(session.finish_memory_refinement());
    let ran = run(&mut session, &lanes, "lanes");
    assert!(ran.dump == ran.searched(1), "not the searched plan");
    assert!(!ran.cache_hit);
    // The first attempt is made: the next one waits for its frame count.
    assert!(!session.finish_memory_refinement());
    let later = run(&mut session, &lanes, "lanes");
    assert!(later.dump == later.searched(1) && later.cache_hit);
}

#[test]
fn background_searches_reach_later_frames_by_themselves() {
    let program = shapes();
    let mut session = session(
        &program,
        "lanes",
        MemoryRefinement::Background { after_frames: 1 },
    );
    let lanes = args(&program, &session, &["N=200"]);
    let first = run(&mut session, &lanes, "lanes");
    assert!(first.dump == first.default(), "not the default plan");
    // The first search starts after the second frame, each later one once the last is done;
    // the frames go on meanwhile. Until the first is done they have the default plan; then
    // the first attempt's plan, and after that only plans with fewer bytes.
    let default_bytes = first.transient_bytes;
    let mut refined = None;
    for frame in 1..20_000 {
        let ran = run(&mut session, &lanes, "lanes");
        if ran.transient_bytes == default_bytes {
            assert_eq!(refined, None, "frame {frame} went back to the default plan");
            assert!(ran.dump == ran.default(), "frame {frame}");
            // Give the search thread room on a busy machine (not a timing assertion: the loop
            // ends once the plans have arrived).
            std::thread::sleep(std::time::Duration::from_millis(5));
            continue;
        }
        match refined {
            None => assert!(
                ran.dump == ran.searched(1),
                "frame {frame}: not the first plan"
            ),
            Some(bytes) => assert!(ran.transient_bytes <= bytes, "frame {frame} holds more"),
        }
        refined = Some(ran.transient_bytes);
        if ran.dump == ran.searched(8) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(
        refined.map(|_| ()),
        Some(()),
        "the searched plans never arrived"
    );
}

#[test]
fn nothing_changes_when_refinement_is_off_or_cannot_gain() {
    let program = shapes();
    let mut off = session(&program, "lanes", MemoryRefinement::Off);
    let lanes = args(&program, &off, &["N=200"]);
    for _ in 0..4 {
        let ran = run(&mut off, &lanes, "lanes");
        assert!(ran.dump == ran.default(), "not the default plan");
    }
    assert!(!off.finish_memory_refinement());
    assert_eq!(run(&mut off, &lanes, "lanes").transient_bytes, 139_067_392);
    // A short chain (one node per level, under 20 levels) is placed at its bound by first fit:
    // the searched plan is the default one, so nothing is offered and every frame stays a
    // cache hit.
    let mut chain = session(
        &program,
        "chain",
        MemoryRefinement::Blocking { after_frames: 1 },
    );
    let chain_args = args(&program, &chain, &["N=12"]);
    for frame in 0..5 {
        let ran = run(&mut chain, &chain_args, "chain");
        assert!(ran.dump == ran.default(), "not the default plan");
        assert_eq!(ran.cache_hit, frame > 0);
    }
}
