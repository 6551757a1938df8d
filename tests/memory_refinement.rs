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

/// The dump of `graph` compiled on its own under `schedule` (no cache).
fn compiled_alone(graph: &RecordedGraph, schedule: SchedulePreference, entry: &str) -> String {
    let mut compiler = FrameCompiler::new(CompileOptions {
        schedule,
        cache: false,
        ..CompileOptions::default()
    });
    let compiled = compiler.compile(graph).unwrap();
    let mut writer = DumpWriter::new(entry);
    writer.add_frame(graph, Some(compiled));
    writer.finish()
}

/// What one frame of a session gave.
struct Ran {
    /// The frame's dump.
    dump: String,
    /// Its dump as a compile of its graph alone under the default and the searched schedule.
    default: String,
    searched: String,
    transient_bytes: u64,
    cache_hit: bool,
}

fn run(session: &mut Session, args: &EntryArgs, entry: &str) -> Ran {
    let frame = session.run_frame(args).unwrap();
    let mut writer = DumpWriter::new(entry);
    writer.add_frame(frame.graph, Some(frame.compiled));
    let mut dump = writer.finish();
    // The cache flag is the session's; a compile alone never hits.
    if frame.compiled.cache_hit {
        dump = dump.replacen("\"cache_hit\":true", "\"cache_hit\":false", 1);
    }
    Ran {
        dump,
        default: compiled_alone(frame.graph, SchedulePreference::Default, entry),
        searched: compiled_alone(frame.graph, SchedulePreference::Searched, entry),
        transient_bytes: frame.compiled.memory.transient_bytes,
        cache_hit: frame.compiled.cache_hit,
    }
}

fn args(program: &Program, session: &Session, texts: &[&str]) -> EntryArgs {
    EntryArgs::parse(program, session.entry(), texts).unwrap()
}

#[test]
fn blocking_refinement_takes_the_searched_plan_at_a_fixed_frame() {
    let program = shapes();
    let mut session = session(
        &program,
        "lanes",
        MemoryRefinement::Blocking { after_frames: 3 },
    );
    let lanes = args(&program, &session, &["N=200"]);
    // The first frame and three more of its structure: the default plan, the last three from
    // the cache (the search runs at the end of the fourth).
    for frame in 0..4 {
        let ran = run(&mut session, &lanes, "lanes");
        assert!(ran.dump == ran.default, "frame {frame}");
        assert_eq!(ran.cache_hit, frame > 0);
        assert_eq!(ran.transient_bytes, 139_067_392);
    }
    // The fifth takes the searched plan, announced as not a cache hit.
    let refined = run(&mut session, &lanes, "lanes");
    assert!(refined.dump == refined.searched, "not the searched plan");
    assert!(!refined.cache_hit);
    assert!(refined.transient_bytes < 139_067_392);
    // Later frames of the structure keep it, from the cache.
    for _ in 0..3 {
        let ran = run(&mut session, &lanes, "lanes");
        assert!(ran.dump == ran.searched);
        assert!(ran.cache_hit);
    }
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
    assert!(refined.dump == refined.searched, "not the searched plan");
    assert!(refined.dump != refined.default);
    // Another structure: its own default plan, refined in turn after two more frames.
    for frame in 0..3 {
        let ran = run(&mut session, &large, "lanes");
        assert!(ran.dump == ran.default, "frame {frame} of N=300");
    }
    let ran = run(&mut session, &large, "lanes");
    assert!(ran.dump == ran.searched, "not the searched plan");
    assert_eq!(ran.transient_bytes, 110_886_912);
    // Back to the first structure: counted again from its first frame.
    let ran = run(&mut session, &small, "lanes");
    assert!(ran.dump == ran.default, "not the default plan");
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
        assert!(ran.dump == ran.default, "not the default plan");
    }
    assert!(session.finish_memory_refinement());
    let ran = run(&mut session, &lanes, "lanes");
    assert!(ran.dump == ran.searched, "not the searched plan");
    assert!(!ran.cache_hit);
    // Searched once per structure.
    assert!(!session.finish_memory_refinement());
    let later = run(&mut session, &lanes, "lanes");
    assert!(later.dump == later.searched && later.cache_hit);
}

#[test]
fn a_background_search_reaches_a_later_frame_by_itself() {
    let program = shapes();
    let mut session = session(
        &program,
        "lanes",
        MemoryRefinement::Background { after_frames: 1 },
    );
    let lanes = args(&program, &session, &["N=200"]);
    let first = run(&mut session, &lanes, "lanes");
    assert!(first.dump == first.default, "not the default plan");
    // The search starts after the second frame; the frames go on meanwhile, each with the
    // default plan or, once the search is done, the searched one (and then for good).
    let mut refined_from = None;
    for frame in 1..20_000 {
        let ran = run(&mut session, &lanes, "lanes");
        if ran.dump == ran.searched {
            refined_from.get_or_insert(frame);
        } else {
            assert!(ran.dump == ran.default, "frame {frame}");
            assert_eq!(
                refined_from, None,
                "frame {frame} went back to the default plan"
            );
        }
        if refined_from.is_some() && frame > refined_from.unwrap() + 2 {
            break;
        }
        if refined_from.is_none() {
            // Give the search thread room on a busy machine (not a timing assertion: the loop
            // only ends early once the plan has arrived).
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    assert!(refined_from.is_some(), "the searched plan never arrived");
}

#[test]
fn nothing_changes_when_refinement_is_off_or_cannot_gain() {
    let program = shapes();
    let mut off = session(&program, "lanes", MemoryRefinement::Off);
    let lanes = args(&program, &off, &["N=200"]);
    for _ in 0..4 {
        let ran = run(&mut off, &lanes, "lanes");
        assert!(ran.dump == ran.default, "not the default plan");
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
        assert!(ran.dump == ran.default, "not the default plan");
        assert_eq!(ran.cache_hit, frame > 0);
    }
}
