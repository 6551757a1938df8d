//! Resources a script assigns to an entry's `out` parameters are outputs of the frame: the nodes
//! writing them survive dead-node elimination and the resource is marked external under the
//! parameter's name.

use rpsl::{EntryArgs, Program, Session, SessionOptions};

const SCRIPT: &str = r#"node DrawTriangle(rtv dst : SV_Target0);
node Scratch(rtv dst : SV_Target0);

export void render([readonly(present)] texture backBuffer, [readonly(ps)] out texture offscreen)
{
    offscreen = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64);
    clear(offscreen, float4(0.1, 0.2, 0.4, 1.0));
    DrawTriangle(offscreen);
    texture unused = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64);
    Scratch(unused);
}
"#;

#[test]
fn writes_to_out_parameters_survive_culling() {
    let program = Program::from_source("outputs.rpsl", SCRIPT).unwrap();
    let mut session = Session::new(&program, None, SessionOptions::default()).unwrap();
    let args = EntryArgs::defaults(session.entry());
    for _ in 0..2 {
        let frame = session.run_frame(&args).unwrap();
        let order: Vec<u32> = frame.compiled.order.iter().map(|n| n.0).collect();
        let culled: Vec<u32> = frame.compiled.culled.iter().map(|n| n.0).collect();
        assert_eq!(order, vec![0, 1], "clear and DrawTriangle write the output");
        assert_eq!(culled, vec![2], "Scratch writes a texture nobody reads");
        let output = &frame.graph.resources[1];
        assert!(
            output.external,
            "the out resource is an output of the frame"
        );
        assert_eq!(output.name.as_deref(), Some("offscreen"));
        assert!(!frame.graph.resources[2].external);
    }
}
