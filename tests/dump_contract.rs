//! The graph dump's conventions and render-pass state (docs/cli.md, "Graph dump"): every range
//! is `[start, count]` (buffer `bytes` `[offset, size]` like `mips` and `layers`), and each
//! render pass lists its resolve targets, viewports and scissor rectangles, in the JSON dump and
//! in `rpsl graph`'s dot and HTML forms.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Value};

/// An MSAA pass resolving into the back buffer (defaults for its area), a pass with its own
/// viewport and scissor, and a buffer accessed through a byte range.
const SCRIPT: &str = "graphics node Draw(rtv rt : SV_Target0, RpsViewport vp : SV_Viewport, uint4 sc : SV_ScissorRect);
graphics node DrawMsaa(rtv msaa : SV_Target0, [writeonly(resolve)] texture resolved : SV_ResolveTarget0);
compute node Fill([readwrite(cs)] buffer dst);
export void main([readonly(present)] texture bb)
{
    texture ms = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 32, 1, 1, 1, 4);
    DrawMsaa(ms, bb);
    Draw(bb, viewport(8.5, 4, 32, 15.25), uint4(8, 4, 32, 16));
    buffer b = create_buffer(1024);
    Fill(b.bytes(256, 128));
}
";

fn script() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rpsl-dump-contract-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("passes.rpsl");
    std::fs::write(&path, SCRIPT).unwrap();
    path
}

fn graph(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .arg("graph")
        .args(args)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn render_passes_list_resolve_targets_viewports_and_scissors() {
    let path = script();
    let text = graph(&[path.to_str().unwrap(), "--arg", "bb=64x32"]);
    let dump: Value = serde_json::from_str(&text).unwrap();
    let frame = &dump["frames"][0];
    // The MSAA colour is not read after the pass: the compiler keeps only its resolve
    // (`store: dont_care`), which is listed with the resolve target's view.
    assert_eq!(
        frame["schedule"]["render_passes"],
        json!([
            {"node": 0, "extent": [64, 32, 1], "samples": 4,
             "colors": [{"slot": 0, "resource": 1, "load": "dont_care", "store": "dont_care",
                         "resolve": {"resource": 0, "mips": [0, 1], "layers": [0, 1], "planes": 1}}],
             "viewports": [[0, 0, 64, 32, 0, 1]], "scissors": [[0, 0, 64, 32]]},
            {"node": 1, "extent": [64, 32, 1], "samples": 1,
             "colors": [{"slot": 0, "resource": 0, "load": "load", "store": "store"}],
             "viewports": [[8.5, 4, 32, 15.25, 0, 1]], "scissors": [[8, 4, 32, 16]]}
        ])
    );
    // The exact text of the first pass: floats in shortest form, integers bare.
    assert!(
        text.contains("\"viewports\":[[8.5,4,32,15.25,0,1]],\"scissors\":[[8,4,32,16]]}]}}]}\n"),
        "{text}"
    );
    // Buffer ranges are [offset, size].
    assert_eq!(
        frame["nodes"][2]["accesses"][0],
        json!({"param": "dst", "resource": 2, "bytes": [256, 128], "temporal": 0,
               "access": ["cs"], "mode": "readwrite", "discard": []})
    );

    let dot = graph(&[
        path.to_str().unwrap(),
        "--arg",
        "bb=64x32",
        "--format",
        "dot",
    ]);
    assert!(dot.contains(
        "  n0 [label=\"0: DrawMsaa\\ngraphics\\ncolour 0: ms dont_care/dont_care, resolve to bb \
         (mips 0+1, layers 0+1)\\nviewport 0: (0, 0) 64x32, depth 0..1\\nscissor 0: (0, 0) 64x32\\n#0\"];\n"
    ), "{dot}");
    assert!(
        dot.contains(
            "  n1 [label=\"1: Draw\\ngraphics\\ncolour 0: bb load/store\\nviewport 0: (8.5, 4) \
         32x15.25, depth 0..1\\nscissor 0: (8, 4) 32x16\\n#1\"];\n"
        ),
        "{dot}"
    );

    let html = graph(&[
        path.to_str().unwrap(),
        "--arg",
        "bb=64x32",
        "--format",
        "html",
    ]);
    // The explorer page embeds the dump (its render passes with viewports and scissors).
    assert!(
        html.contains("\"viewports\":[[8.5,4,32,15.25,0,1]],\"scissors\":[[8,4,32,16]]"),
        "{html}"
    );
}

#[test]
fn corpus_viewports_and_scissors() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/rps-sdk/tests_gui_test_mrt_viewport_clear.rpsl");
    if !corpus.is_file() {
        eprintln!("skipping: {} is missing", corpus.display());
        return;
    }
    let text = graph(&[
        corpus.to_str().unwrap(),
        "--arg",
        "bBufferRTVSupported=true",
    ]);
    let dump: Value = serde_json::from_str(&text).unwrap();
    let frame = &dump["frames"][0];
    // Node 0, test_unordered_5_mrt_no_ds, on a 1280x720 back buffer: w = 320, h = 120, the
    // sub-viewport (0.1 w, 0.2 h, 0.7 w, 0.5 h), the scissor uint4(0, 0, w, h).
    assert_eq!(frame["nodes"][0]["name"], "test_unordered_5_mrt_no_ds");
    let pass = frame["schedule"]["render_passes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|pass| pass["node"] == 0)
        .expect("node 0 renders");
    assert_eq!(pass["viewports"], json!([[32, 24, 224, 60, 0, 1]]));
    assert_eq!(pass["scissors"], json!([[0, 0, 320, 120]]));
    let slots: Vec<u64> = pass["colors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|color| color["slot"].as_u64().unwrap())
        .collect();
    assert_eq!(slots, [0, 1, 2, 3, 4]);
}
