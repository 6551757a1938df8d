//! Runtime faults end the frame with `PATH:LINE:COL: error: ...` at the faulting expression; the
//! session is unharmed and the next frame runs. Persistent and temporal resources keep their
//! identity across frames.

use rpsl::vm::Limits;
use rpsl::{EntryArgs, Program, Session, SessionOptions};

const SCRIPT: &str = r#"graphics node Draw(rtv rt, uint v);

export void main(texture bb, uint which)
{
    uint arr[4] = { 1, 2, 3, 4 };
    uint zero = which - which;
    if (which == 1) { Draw(bb, arr[which + 5]); }
    if (which == 2) { Draw(bb, 10 / zero); }
    if (which == 3) { Draw(bb, 10 % zero); }
    if (which == 4) { while (true) { zero++; } }
    if (which == 5) { abort(-7); }
    if (which == 6) { texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 100000000, 4); Draw(t, 0); }
    Draw(bb, which);
}
"#;

/// `fault.rpsl:LINE:COL` of the first occurrence of `needle`.
fn location_of(needle: &str) -> String {
    let at = SCRIPT.find(needle).expect("needle");
    let line = SCRIPT[..at].matches('\n').count() + 1;
    let col = at - SCRIPT[..at].rfind('\n').map_or(0, |p| p + 1) + 1;
    format!("fault.rpsl:{line}:{col}")
}

#[test]
fn every_fault_is_located_and_the_next_frame_runs() {
    let program = Program::from_source("fault.rpsl", SCRIPT).unwrap();
    let options = SessionOptions {
        limits: Limits {
            step_budget: 10_000,
            ..Limits::default()
        },
        ..SessionOptions::default()
    };
    let mut session = Session::new(&program, None, options).unwrap();
    let cases = [
        (
            1,
            "arr[which + 5]",
            "array index 6 is out of bounds for length 4",
        ),
        (2, "10 / zero", "integer division by zero"),
        (3, "10 % zero", "integer division by zero"),
        (
            4,
            "zero++",
            "step budget of 10000 steps exhausted (endless loop?)",
        ),
        (5, "abort(-7)", "script aborted with code -7"),
        (6, "create_tex2d(", "invalid resource"),
    ];
    for (which, needle, message) in cases {
        let args = EntryArgs::parse(&program, session.entry(), [format!("which={which}")]).unwrap();
        let error = session.run_frame(&args).expect_err("faults");
        let rendered = error.render();
        let first = rendered.lines().next().unwrap();
        let want = format!("{}: error: {message}", location_of(needle));
        assert!(
            first.starts_with(&want),
            "case {which}: got `{first}`, want `{want}`"
        );
        assert!(
            rendered.contains(needle),
            "excerpt of case {which}: {rendered}"
        );
        // The next frame runs fine.
        let ok = EntryArgs::parse(&program, session.entry(), ["which=0"]).unwrap();
        let frame = session.run_frame(&ok).expect("recovers");
        assert_eq!(frame.graph.nodes.len(), 1);
    }
}

#[test]
fn temporal_and_persistent_resources_keep_their_identity() {
    let script = "graphics node Draw(rtv rt, srv history);\n\
                  export void main(texture bb) {\n\
                  \x20   texture hist = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64, 1, 1, 2);\n\
                  \x20   texture keep = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 32, 32, 1, 1, 1, 1, 0, RPS_RESOURCE_FLAG_PERSISTENT);\n\
                  \x20   texture tmp = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16);\n\
                  \x20   Draw(tmp, keep);\n\
                  \x20   Draw(bb, hist.temporal(1));\n\
                  \x20   Draw(hist, tmp);\n\
                  }\n";
    let program = Program::from_source("temporal.rpsl", script).unwrap();
    let mut session = Session::new(&program, None, SessionOptions::default()).unwrap();
    let args = EntryArgs::defaults(session.entry());
    let mut slots = Vec::new();
    for frame in 0..3u64 {
        let frame_out = session.run_frame(&args).unwrap();
        let resources = &frame_out.graph.resources;
        assert_eq!(resources.len(), 4);
        assert!(resources[0].external);
        assert_eq!(resources[1].desc.temporal_layers, 2);
        assert_eq!(resources[1].frames_alive, frame);
        assert_eq!(resources[2].frames_alive, frame);
        assert_eq!(resources[3].storage, None, "transient");
        slots.push((
            resources[0].storage,
            resources[1].storage,
            resources[2].storage,
        ));
    }
    assert!(slots[0].1.is_some() && slots[0].2.is_some());
    assert_eq!(slots[0], slots[1]);
    assert_eq!(slots[1], slots[2]);
}
