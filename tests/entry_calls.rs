//! An exported entry point called from script code runs as an ordinary function there (its
//! arguments passed as in any call), and still runs as an entry point on its own; JIT and
//! interpreter agree.

use rpsl::{EntryArgs, Mode, Program, Session, SessionOptions};

const SCRIPT: &str = r#"graphics node Draw(rtv rt : SV_Target0, uint i);

export void main([readonly(present)] texture backbuffer, uint n)
{
    for (uint i = 0; i < n; i++)
        Draw(backbuffer, 10 + i);
}

export void twice([readonly(present)] texture backbuffer, uint frameIndex)
{
    main(backbuffer, 2);
    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64);
    Draw(t, 7);
    main(backbuffer, 1);
}
"#;

/// `(resource, i)` of every `Draw` the entry records.
fn draws(program: &Program, entry: &str, args: &[&str], mode: Mode) -> Vec<(u32, u32)> {
    let options = SessionOptions {
        mode,
        ..SessionOptions::default()
    };
    let mut session = Session::new(program, Some(entry), options).unwrap();
    let args = EntryArgs::parse(program, session.entry(), args.iter().copied()).unwrap();
    let graph = session.record_frame(&args).unwrap();
    (0..graph.nodes.len())
        .map(|index| {
            let node = rpsl::runtime::NodeId(index as u32);
            let access = graph.node_accesses(node)[0];
            let bytes = graph.node_args(node);
            let param = graph.decl_of(node).params[1].offset as usize;
            let i = u32::from_le_bytes(bytes[param..param + 4].try_into().unwrap());
            (access.resource.0, i)
        })
        .collect()
}

#[test]
fn an_entry_called_from_another_runs_as_a_function() {
    let program = Program::from_source("calls.rpsl", SCRIPT).unwrap();
    for mode in [Mode::Jit, Mode::Interp] {
        assert_eq!(
            draws(&program, "twice", &[], mode),
            [(0, 10), (0, 11), (1, 7), (0, 10)],
            "{mode:?}"
        );
        assert_eq!(
            draws(&program, "main", &["n=3"], mode),
            [(0, 10), (0, 11), (0, 12)],
            "{mode:?}"
        );
    }
}
