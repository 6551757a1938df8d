//! Runtime faults end the frame with `PATH:LINE:COL: error: ...` at the faulting expression; the
//! session is unharmed and the next frame runs. Persistent and temporal resources keep their
//! identity across frames.

use rpsl::runtime::GraphLimits;
use rpsl::vm::Limits;
use rpsl::{EntryArgs, Mode, Program, Session, SessionOptions};

const SCRIPT: &str = r#"graphics node Draw(rtv rt, uint v);
compute node FillBuf([readwrite(cs)] buffer b);

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
    if (which == 7) { for (uint i = 0; i < 100; i++) { Draw(bb, i); } }
    if (which == 8) { for (uint i = 0; i < 100; i++) { texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4); Draw(t, i); } }
    if (which == 9) { texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64, 4, 3); Draw(t.mips(2, 5), 9); }
    if (which == 10) { texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64, 1, 3); Draw(t.array(3), 10); }
    if (which == 11) { buffer b = create_buffer(100); FillBuf(b.bytes(96, 8)); }
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
    for mode in [Mode::Jit, Mode::Interp] {
        faults_are_located(mode);
    }
}

fn faults_are_located(mode: Mode) {
    let program = Program::from_source("fault.rpsl", SCRIPT).unwrap();
    let options = SessionOptions {
        mode,
        limits: Limits {
            step_budget: 10_000,
            ..Limits::default()
        },
        // A frame may record 50 nodes and 20 resources: the loops of cases 7 and 8 pass that.
        graph_limits: GraphLimits {
            max_nodes: 50,
            max_resources: 20,
            ..GraphLimits::default()
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
        (
            7,
            "Draw(bb, i)",
            "the frame records more than 50 nodes (GraphLimits::max_nodes; a runaway loop?)",
        ),
        (
            8,
            "create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4)",
            "the frame records more than 20 resources (GraphLimits::max_resources; a runaway loop?)",
        ),
        // View ranges outside their resource name the range and the resource's size.
        (
            9,
            "Draw(t.mips(2, 5), 9)",
            "argument `rt`: mips 2..7 exceed the resource's 4 mip levels",
        ),
        (
            10,
            "Draw(t.array(3), 10)",
            "argument `rt`: array layers 3..4 exceed the resource's 3 layers",
        ),
        (
            11,
            "FillBuf(b.bytes(96, 8))",
            "argument `b`: bytes from offset 96 (size 8) exceed the buffer's 100 bytes",
        ),
    ];
    for (which, needle, message) in cases {
        let args = EntryArgs::parse(&program, session.entry(), [format!("which={which}")]).unwrap();
        let error = session.run_frame(&args).expect_err("faults");
        let rendered = error.render();
        let first = rendered.lines().next().unwrap();
        let want = format!("{}: error: {message}", location_of(needle));
        assert!(
            first.starts_with(&want),
            "case {which} ({mode:?}): got `{first}`, want `{want}`"
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
