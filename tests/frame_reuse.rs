//! Frame reuse (`SessionOptions::reuse_unchanged_frames`, docs/semantics.md "Frame reuse"): a
//! frame whose script would see what the last frame's saw repeats the last graph and compiled
//! frame without running the script; a frame whose script can see something new is recorded.
//! Every repeated frame must dump exactly as the same frame recorded and compiled does.

use rpsl::runtime::DumpWriter;
use rpsl::{EntryArgs, Program, Session, SessionOptions};

const SHAPES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/bench/rps_shapes.rpsl");

fn options(reuse: bool) -> SessionOptions {
    SessionOptions {
        reuse_unchanged_frames: reuse,
        jit_tier_up: false,
        ..SessionOptions::default()
    }
}

/// The dump of a frame: its graph and compiled frame.
fn dump(session: &mut Session, args: &EntryArgs, entry: &str) -> String {
    let frame = session.run_frame(args).unwrap();
    let mut writer = DumpWriter::new(entry);
    writer.add_frame(frame.graph, Some(frame.compiled));
    writer.finish()
}

/// Runs `frames` frames of `entry` with the argument lists of `args_per_frame` (cycled) in a
/// reusing and a recording session, asserts that every frame dumps identically, and returns
/// how many frames the reusing session recorded.
fn recordings_matching_recorded(
    program: &Program,
    entry: &str,
    args_per_frame: &[&[&str]],
    frames: usize,
) -> u64 {
    let mut reusing = Session::new(program, Some(entry), options(true)).unwrap();
    let mut recording = Session::new(program, Some(entry), options(false)).unwrap();
    for frame in 0..frames {
        let texts = args_per_frame[frame % args_per_frame.len()];
        let args = EntryArgs::parse(program, reusing.entry(), texts).unwrap();
        let reused = dump(&mut reusing, &args, entry);
        let recorded = dump(&mut recording, &args, entry);
        assert_same_dump(&reused, &recorded, &format!("{entry} frame {frame}"));
    }
    assert_eq!(recording.recordings(), frames as u64);
    reusing.recordings()
}

/// Fails at the first difference of two dumps, showing it in context.
fn assert_same_dump(reused: &str, recorded: &str, what: &str) {
    let Some(at) = reused
        .bytes()
        .zip(recorded.bytes())
        .position(|(a, b)| a != b)
        .or((reused.len() != recorded.len()).then_some(reused.len().min(recorded.len())))
    else {
        return;
    };
    let excerpt = |text: &str| text[at.saturating_sub(300)..(at + 100).min(text.len())].to_string();
    panic!(
        "{what}: the repeated frame differs from the recorded one at byte {at}:\n\
         repeated: ...{}\nrecorded: ...{}",
        excerpt(reused),
        excerpt(recorded)
    );
}

#[test]
fn unchanged_arguments_repeat_the_first_frame() {
    let program = Program::from_file(SHAPES).unwrap();
    assert_eq!(
        recordings_matching_recorded(&program, "chain", &[&["N=200"]], 6),
        1
    );
    assert_eq!(
        recordings_matching_recorded(&program, "lanes", &[&["N=65"]], 6),
        1
    );
}

#[test]
fn a_changed_argument_is_recorded() {
    let program = Program::from_file(SHAPES).unwrap();
    // N alternates: every frame sees another value than the last.
    assert_eq!(
        recordings_matching_recorded(&program, "chain", &[&["N=30"], &["N=31"]], 6),
        6
    );
    // Two frames of each value: the second of each repeats the first.
    assert_eq!(
        recordings_matching_recorded(
            &program,
            "chain",
            &[&["N=30"], &["N=30"], &["N=31"], &["N=31"]],
            8
        ),
        4
    );
}

#[test]
fn a_changed_external_description_is_recorded() {
    let program = Program::from_file(SHAPES).unwrap();
    let small: &[&str] = &["N=20", "backbuffer=640x480"];
    let large: &[&str] = &["N=20", "backbuffer=1280x720"];
    assert_eq!(
        recordings_matching_recorded(&program, "chain", &[small, small, large, large], 8),
        4
    );
}

#[test]
fn a_script_reading_the_frame_counter_is_recorded_every_frame() {
    let program = Program::from_source(
        "counter.rpsl",
        "graphics node Draw(rtv rt, uint i);\n\
         export void main(texture bb, uint frameIndex) { Draw(bb, frameIndex % 2); }\n",
    )
    .unwrap();
    assert_eq!(recordings_matching_recorded(&program, "main", &[&[]], 5), 5);
    // Given as an argument, the same value every frame: repeated.
    assert_eq!(
        recordings_matching_recorded(&program, "main", &[&["frameIndex=7"]], 5),
        1
    );
}

#[test]
fn temporal_resources_are_recorded_every_frame() {
    // The views of a temporal resource resolve to another slice every frame.
    let program = Program::from_source(
        "temporal.rpsl",
        "compute node Blend([readonly(cs)] texture prev, [writeonly(cs)] texture cur);\n\
         export void main()\n\
         {\n\
         \x20   texture history = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 1, 3);\n\
         \x20   Blend(history.temporal(1), history);\n\
         }\n",
    )
    .unwrap();
    assert_eq!(recordings_matching_recorded(&program, "main", &[&[]], 5), 5);
}

#[test]
fn a_persistent_resource_is_repeated_once_its_data_is_valid() {
    // Frame 0 is the resource's first (its data is undefined), frame 1 its second: both
    // recorded; from frame 2 on nothing changes.
    let program = Program::from_source(
        "persistent.rpsl",
        "compute node Accumulate([readwrite(cs)] texture sum, [readonly(cs)] texture src);\n\
         export void main(texture bb)\n\
         {\n\
         \x20   texture sum = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 1, 1, 1, 0,\n\
         \x20                              RPS_RESOURCE_FLAG_PERSISTENT);\n\
         \x20   Accumulate(sum, bb);\n\
         }\n",
    )
    .unwrap();
    assert_eq!(recordings_matching_recorded(&program, "main", &[&[]], 6), 2);
}

#[test]
fn without_reuse_every_frame_is_recorded() {
    let program = Program::from_file(SHAPES).unwrap();
    let mut session = Session::new(&program, Some("chain"), options(false)).unwrap();
    let args = EntryArgs::parse(&program, session.entry(), ["N=10"]).unwrap();
    for _ in 0..4 {
        session.run_frame(&args).unwrap();
    }
    assert_eq!(session.recordings(), 4);
}

#[test]
fn record_frame_always_records_and_breaks_the_repeat() {
    let program = Program::from_file(SHAPES).unwrap();
    let mut session = Session::new(&program, Some("chain"), options(true)).unwrap();
    let args = EntryArgs::parse(&program, session.entry(), ["N=10"]).unwrap();
    session.run_frame(&args).unwrap();
    session.record_frame(&args).unwrap();
    session.record_frame(&args).unwrap();
    assert_eq!(session.recordings(), 3);
    // The compiled frame is the first frame's: the next frame is compiled again.
    let frame = session.run_frame(&args).unwrap();
    assert_eq!(frame.graph.frame_index, 3);
    assert!(frame.compiled.cache_hit);
    assert_eq!(session.recordings(), 4);
    assert_eq!(session.run_frame(&args).unwrap().graph.frame_index, 4);
    assert_eq!(session.recordings(), 4);
}

#[test]
fn keeping_a_resource_records_the_next_frame() {
    let program = Program::from_source(
        "keep.rpsl",
        "export void main()\n\
         {\n\
         \x20   texture hdr = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);\n\
         \x20   clear(hdr, float4(1, 0, 0, 1));\n\
         }\n",
    )
    .unwrap();
    let mut session = Session::new(&program, None, options(true)).unwrap();
    let args = EntryArgs::defaults(session.entry());
    assert_eq!(session.run_frame(&args).unwrap().compiled.culled.len(), 1);
    assert_eq!(session.run_frame(&args).unwrap().compiled.culled.len(), 1);
    assert_eq!(session.recordings(), 1);
    session.keep_resources(["hdr".to_string()]);
    let frame = session.run_frame(&args).unwrap();
    assert!(frame.graph.resources[0].external);
    assert_eq!(frame.compiled.culled.len(), 0);
    assert_eq!(session.recordings(), 2);
    session.run_frame(&args).unwrap();
    assert_eq!(session.recordings(), 2);
}

#[test]
fn a_failed_frame_is_not_repeated() {
    let program = Program::from_source(
        "fail.rpsl",
        "graphics node Draw(rtv rt, uint i);\n\
         export void main(texture bb, uint n) { if (n == 1) abort(5); Draw(bb, n); }\n",
    )
    .unwrap();
    let mut session = Session::new(&program, None, options(true)).unwrap();
    let good = EntryArgs::parse(&program, session.entry(), ["n=0"]).unwrap();
    let bad = EntryArgs::parse(&program, session.entry(), ["n=1"]).unwrap();
    session.run_frame(&good).unwrap();
    assert!(session.run_frame(&bad).is_err());
    assert!(session.run_frame(&bad).is_err());
    assert_eq!(session.recordings(), 3);
    // After a failure the good frame is recorded again, then repeated.
    assert_eq!(session.run_frame(&good).unwrap().graph.frame_index, 3);
    assert_eq!(session.run_frame(&good).unwrap().graph.frame_index, 4);
    assert_eq!(session.recordings(), 4);
}
