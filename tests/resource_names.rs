//! Resources are named after the variable their declaration creates them for, in the graph, the
//! JSON dump and (through the same names) Vulkan objects, or the place an assignment stores it
//! to; inline creations and external resources keep their own names (none / the parameter's).

use rpsl::runtime::ResourceId;
use rpsl::{EntryArgs, Mode, Program, Session, SessionOptions};

const SCRIPT: &str = r#"compute node Blur([readonly(cs)] texture src, [writeonly(cs)] texture dst);

texture make_target()
{
    return create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 16, 16);
}

struct GBuffer { texture albedo; texture normal; };

export void main([readonly(present)] texture backbuffer)
{
    texture gbuffer = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64);
    GBuffer g;
    g.albedo = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);
    texture levels[3];
    levels[1] = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);
    for (uint k = 0; k < 2; k++)
        levels[k] = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 2, 2);
    Blur(g.albedo, levels[0]);
    Blur(levels[1], backbuffer);
    for (uint i = 0; i < 2; i++)
    {
        texture blurred = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 32, 32);
        Blur(gbuffer, blurred);
    }
    texture made = make_target();
    Blur(create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8), made);
    Blur(made, backbuffer);
}
"#;

#[test]
fn declared_resources_carry_their_variable_names() {
    let program = Program::from_source("names.rpsl", SCRIPT).unwrap();
    for mode in [Mode::Jit, Mode::Interp] {
        let options = SessionOptions {
            mode,
            ..SessionOptions::default()
        };
        let mut session = Session::new(&program, None, options).unwrap();
        let args = EntryArgs::parse(&program, session.entry(), [""; 0]).unwrap();
        let graph = session.record_frame(&args).unwrap();
        let names: Vec<Option<&str>> = (0..graph.resources.len())
            .map(|index| graph.resource_name(ResourceId::from_index(index)))
            .collect();
        assert_eq!(
            names,
            [
                Some("backbuffer"),
                Some("gbuffer"),
                // Assignments name after the place: a field, a constant or run-time index.
                Some("g.albedo"),
                Some("levels[1]"),
                Some("levels[..]"),
                Some("levels[..]"),
                Some("blurred"),
                Some("blurred"),
                // Created in a helper function and inline: no variable to name them after.
                None,
                None,
            ],
            "{mode:?}"
        );
        let dump = rpsl::runtime::dump_frame_json("main", graph, None);
        assert!(dump.contains(r#""id":1,"name":"gbuffer""#), "{dump}");
        assert!(dump.contains(r#""id":9,"name":null"#), "{dump}");
    }
}
