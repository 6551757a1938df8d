//! The `rpsl` binary: `run`, `graph` and `check --emit bytecode`, their exit codes (0 success,
//! 1 script error, 2 usage error, 3 runtime error) and the dump file.

use std::path::PathBuf;
use std::process::{Command, Output};

const SCRIPT: &str = "graphics node Draw(rtv rt, uint v);\n\
export void main([readonly(present)] texture bb, uint n, uint frameIndex)\n\
{\n\
    uint arr[2] = { 1, 2 };\n\
    Draw(bb, arr[n] + frameIndex);\n\
}\n";

const MIP_CHAIN: &str =
    "compute node Down([readonly(cs)] texture src, [writeonly(cs)] texture dst);\n\
export void main([readonly(present)] texture bb)\n\
{\n\
    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64, 4);\n\
    Down(bb, t.mips(0, 1));\n\
    for (uint m = 1; m < 4; m++)\n\
        Down(t.mips(m - 1, 1), t.mips(m, 1));\n\
    Down(t, bb);\n\
}\n";

/// A colour target viewing two mips (line 6, column 1: the continuation lines drop their
/// indentation): rejected by the frame compiler, not the script.
const BAD_PASS: &str = "graphics node Draw([writeonly(rendertarget)] texture rt : SV_Target0);\n\
compute node Use([readonly(cs)] texture src, [writeonly(cs)] texture dst);\n\
export void main([readonly(present)] texture bb)\n\
{\n\
    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64, 4);\n\
    Draw(t.mips(1, 2)); Use(t, bb);\n\
}\n";

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rpsl-run-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn rpsl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args(args)
        .output()
        .expect("runs")
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exit code")
}

#[test]
fn run_writes_the_dump_of_every_frame() {
    let script = scratch("ok.rpsl", SCRIPT);
    let dump = script.with_extension("json");
    let out = rpsl(&[
        "run",
        script.to_str().unwrap(),
        "--backend",
        "null",
        "--mode",
        "interp",
        "--frames",
        "3",
        "--arg",
        "n=1",
        "--dump",
        dump.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["entry"], "main");
    let frames = json["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 3);
    for (i, frame) in frames.iter().enumerate() {
        assert_eq!(frame["index"], i as u64);
        assert_eq!(frame["nodes"][0]["name"], "Draw");
        assert_eq!(frame["nodes"][0]["args"][1]["value"], 2 + i as u64);
        assert_eq!(frame["schedule"]["order"], serde_json::json!([0]));
        assert_eq!(frame["resources"][0]["name"], "bb");
    }
}

#[test]
fn exit_codes() {
    let script = scratch("codes.rpsl", SCRIPT);
    let path = script.to_str().unwrap();
    let base = ["run", path, "--backend", "null"];
    let with = |extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        rpsl(&args)
    };
    assert_eq!(code(&with(&[])), 0);
    // Usage errors.
    for extra in [
        &["--arg", "missing=1"][..],
        &["--arg", "n=abc"],
        &["--entry", "other"],
        &["--mode", "fast"],
        &["--frames", "x"],
    ] {
        let out = with(extra);
        assert_eq!(
            code(&out),
            2,
            "{extra:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("error"));
    }
    // Runtime error: located, exit 3, the same under both engines.
    for mode in ["jit", "interp"] {
        let out = with(&["--arg", "n=5", "--mode", mode]);
        assert_eq!(code(&out), 3, "{mode}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr.lines().next().unwrap();
        assert_eq!(
            first,
            format!("{path}:5:10: error: array index 5 is out of bounds for length 2"),
            "{mode}"
        );
    }
    // A render pass the frame compiler rejects: located at the node's call, exit 3, the same
    // under both engines and through `run`, `graph` and `bench`.
    let pass = scratch("bad_pass.rpsl", BAD_PASS);
    let pass = pass.to_str().unwrap();
    for args in [
        &["run", pass, "--backend", "null", "--mode", "jit"][..],
        &["run", pass, "--backend", "null", "--mode", "interp"],
        &["graph", pass],
        &["bench", pass, "--frames", "1", "--compiles", "1"],
    ] {
        let out = rpsl(args);
        assert_eq!(code(&out), 3, "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.lines().next().unwrap(),
            format!(
                "{pass}:6:1: error: render pass of node `Draw`: attachment `rt` must view \
                 exactly one mip level"
            ),
            "{args:?}"
        );
    }
    // Script error: exit 1.
    let bad = scratch("bad.rpsl", "export void main() { undefined_thing(); }\n");
    let out = rpsl(&["run", bad.to_str().unwrap(), "--backend", "null"]);
    assert_eq!(code(&out), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.rpsl:1:"));
}

#[test]
fn graph_and_bytecode() {
    let script = scratch("graph.rpsl", SCRIPT);
    let path = script.to_str().unwrap();
    let dot = rpsl(&["graph", path, "--format", "dot"]);
    assert_eq!(code(&dot), 0);
    let text = String::from_utf8_lossy(&dot.stdout);
    assert!(text.starts_with("digraph \"main\" {"), "{text}");
    assert!(text.contains("n0 [label=\"0: Draw"));
    // A mip chain: each node's incoming edges once each, by predecessor index (whatever order
    // the per-subresource dependency tracking finds them in).
    let mips = scratch("graph_mips.rpsl", MIP_CHAIN);
    let dot = rpsl(&["graph", mips.to_str().unwrap(), "--format", "dot"]);
    assert_eq!(code(&dot), 0);
    let text = String::from_utf8_lossy(&dot.stdout);
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for line in text.lines().filter(|line| line.contains(" -> ")) {
        let (from, to) = line.trim().split_once(" -> ").unwrap();
        let to = to.split([' ', ';']).next().unwrap();
        edges.push((to[1..].parse().unwrap(), from[1..].parse().unwrap()));
    }
    assert!(edges.windows(2).all(|pair| pair[0] < pair[1]), "{edges:?}");
    // (node, predecessor): each mip's writer feeds the next; the last node reads every mip
    // and writes the backbuffer the first node read.
    assert_eq!(
        edges,
        vec![(1, 0), (2, 1), (3, 2), (4, 0), (4, 1), (4, 2), (4, 3)],
        "{text}"
    );
    let out = script.with_extension("graph.json");
    let json = rpsl(&[
        "graph",
        path,
        "--format",
        "json",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&json), 0);
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(value["frames"].as_array().unwrap().len(), 1);
    let bytecode = rpsl(&["check", "--emit", "bytecode", path]);
    assert_eq!(code(&bytecode), 0);
    assert!(String::from_utf8_lossy(&bytecode.stdout).contains("call_node"));
}

#[test]
fn bench_reports_every_figure_as_json() {
    let script = scratch(
        "bench.rpsl",
        "graphics node Fill(rtv rt);\n\
         graphics node Blend(srv a, rtv rt);\n\
         export void main([readonly(present)] texture bb) {\n\
             texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64);\n\
             Fill(t);\n\
             Blend(t, bb);\n\
         }\n",
    );
    let out = rpsl(&[
        "bench",
        script.to_str().unwrap(),
        "--frames",
        "3",
        "--compiles",
        "1",
        "--json",
    ]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let figures: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    for timing in [
        "jit_compile_us",
        "build_us_per_frame_jit",
        "build_us_per_frame_interp",
        "compile_us_per_frame",
        "cached_frame_us",
        "cached_compile_us",
        "run_frame_us",
    ] {
        let value = figures[timing]
            .as_f64()
            .unwrap_or_else(|| panic!("{timing}"));
        assert!(value > 0.0, "{timing} = {value}");
    }
    assert_eq!(figures["nodes"], 2);
    assert_eq!(figures["scheduled_nodes"], 2);
    assert_eq!(figures["frames"], 3);
    // The graph never changes, so every measured frame is a cache hit.
    assert_eq!(figures["cache_hits"], 3);
    // Nor do the arguments: every measured `run_frame` frame repeats the warm-up frame.
    assert_eq!(figures["repeated_frames"], 3);
    // t: undefined -> render target; t -> shader read with bb present -> render target;
    // bb back to present.
    assert_eq!(figures["batches"], 3);
    assert_eq!(figures["transitions"], 4);
    // One 64x64 RGBA8 transient in a 64 KiB-aligned heap.
    assert_eq!(figures["transient_bytes"], 65536);
    assert_eq!(figures["unaliased_bytes"], 65536);
    assert_eq!(figures["lower_bound_bytes"], 65536);
    // Two nodes: nothing for the searched schedule to change.
    assert_eq!(figures["searched_batches"], 3);
    assert_eq!(figures["searched_transient_bytes"], 65536);
    // Without frame reuse every frame is recorded.
    let recorded = rpsl(&[
        "bench",
        script.to_str().unwrap(),
        "--frames",
        "3",
        "--compiles",
        "1",
        "--json",
        "--no-frame-reuse",
    ]);
    assert_eq!(code(&recorded), 0);
    let figures: serde_json::Value = serde_json::from_slice(&recorded.stdout).unwrap();
    assert_eq!(figures["repeated_frames"], 0);
    // A script error is reported, exit 1; a bad entry is a usage error, exit 2.
    let bad = scratch("bench_bad.rpsl", "export void main() { nope(); }\n");
    assert_eq!(code(&rpsl(&["bench", bad.to_str().unwrap()])), 1);
    let entry = rpsl(&["bench", script.to_str().unwrap(), "--entry", "other"]);
    assert_eq!(code(&entry), 2);
}

#[test]
fn graph_html_embeds_the_dump_and_the_explorer_facts() {
    let script = scratch(
        "html.rpsl",
        "graphics node Fill(rtv rt);\n\
         graphics node Blend(srv a, rtv rt);\n\
         export void main([readonly(present)] texture bb) {\n\
             texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64);\n\
             Fill(t);\n\
             Blend(t, bb);\n\
         }\n",
    );
    let out = rpsl(&["graph", script.to_str().unwrap(), "--format", "html"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.trim_end().ends_with("</html>"));
    // Self-contained: nothing is fetched.
    for outside in ["http://", "https://", "<link", " src="] {
        assert!(!page.contains(outside), "{outside}");
    }
    // The page carries the JSON dump of the same frame, byte for byte.
    let json = rpsl(&["graph", script.to_str().unwrap(), "--format", "json"]);
    let json = String::from_utf8(json.stdout).unwrap();
    assert!(page.contains(&format!(
        "<script type=\"application/json\" id=\"dump\">{json}</script>"
    )));
    // And the explorer's facts: the edge with its reason, the barriers decoded.
    let start = page.find("id=\"facts\">").unwrap() + "id=\"facts\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    let facts: serde_json::Value = serde_json::from_str(&page[start..end]).unwrap();
    let frame = &facts[0];
    // Edge reasons and barriers hold their strings as indices into `names`.
    let names: Vec<&str> = frame["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap())
        .collect();
    let name = |value: &serde_json::Value| names[value.as_u64().unwrap() as usize];
    let edges = frame["edges"].as_array().unwrap();
    assert_eq!(edges.len(), 1);
    assert_eq!(
        (&edges[0][0], &edges[0][1], &edges[0][2]),
        (
            &serde_json::json!(0),
            &serde_json::json!(1),
            &serde_json::json!("data")
        )
    );
    assert_eq!(edges[0][3][0][0], 1);
    assert_eq!(name(&edges[0][3][0][1]), "mips 0..1, layers 0..1");
    assert_eq!(frame["culled"], serde_json::json!([]));
    assert_eq!(frame["lifetimes"], serde_json::json!([[1, 1], [0, 1]]));
    assert_eq!(frame["reuses"], serde_json::json!([null, null]));
    assert_eq!(frame["batches"].as_array().unwrap().len(), 3);
    assert_eq!(frame["batches"][1]["position"], 1);
    let barriers: Vec<Vec<String>> = frame["batches"][1]["barriers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|barrier| {
            let fields = barrier.as_array().unwrap();
            let mut text = vec![fields[0].to_string()];
            text.extend(fields[1..].iter().map(|field| name(field).to_string()));
            text
        })
        .collect();
    assert_eq!(
        barriers,
        [
            [
                "1",
                "mips 0..1, layers 0..1",
                "COLOR_ATTACHMENT_OPTIMAL",
                "SHADER_READ_ONLY_OPTIMAL",
                "COLOR_ATTACHMENT_OUTPUT",
                "COLOR_ATTACHMENT_WRITE",
                "FRAGMENT_SHADER|COMPUTE_SHADER",
                "SHADER_SAMPLED_READ",
            ],
            [
                "0",
                "mips 0..1, layers 0..1",
                "PRESENT_SRC_KHR",
                "COLOR_ATTACHMENT_OPTIMAL",
                "ALL_COMMANDS",
                "MEMORY_WRITE",
                "COLOR_ATTACHMENT_OUTPUT",
                "COLOR_ATTACHMENT_READ|COLOR_ATTACHMENT_WRITE",
            ],
        ]
    );
}

/// `check` lowers the script too: a function whose locals pass the VM's 16 MiB frame is an
/// error at the local that passes it, before any frame runs (exit 1, like any script error).
#[test]
fn check_reports_a_frame_of_locals_past_the_limit() {
    let text = "void f()\n{\n    uint x[3000000];\n    uint y[3000000];\n    x[0] = 1; y[0] = 2;\n}\n\
                export void main([readonly(present)] texture bb)\n{\n    f();\n    clear(bb, float4(0, 0, 0, 1));\n}\n";
    let script = scratch("big_frame.rpsl", text);
    let path = script.to_str().unwrap();
    let out = rpsl(&["check", path]);
    assert_eq!(code(&out), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!(
            "{path}:4:10: error: the locals and temporaries of `f` need more than 16777216 bytes \
             (16 MiB); this value takes 12000000"
        )
    );
    let run = rpsl(&["run", path, "--backend", "null"]);
    assert_eq!(code(&run), 1);
    assert!(String::from_utf8_lossy(&run.stderr).starts_with(first));
}

/// A negative `int` index is reported as negative: by the bounds check at run time (the same
/// in both engines) and by `check` when the index is a constant.
#[test]
fn negative_int_indices_are_reported_as_negative() {
    let text = "graphics node Draw(rtv rt, uint v);\n\
                export void main([readonly(present)] texture bb, int i)\n\
                {\n\
                \x20   uint arr[4] = { 1, 2, 3, 4 };\n\
                \x20   int j = i - 3;\n\
                \x20   Draw(bb, arr[j]);\n\
                }\n";
    let script = scratch("negative_index.rpsl", text);
    let path = script.to_str().unwrap();
    for (arg, message) in [
        ("i=2", "array index -1 is out of bounds for length 4"),
        (
            "i=-2147483645",
            "array index -2147483648 is out of bounds for length 4",
        ),
        ("i=7", "array index 4 is out of bounds for length 4"),
    ] {
        for mode in ["jit", "interp"] {
            let out = rpsl(&[
                "run",
                path,
                "--backend",
                "null",
                "--mode",
                mode,
                "--arg",
                arg,
            ]);
            assert_eq!(code(&out), 3, "{arg} {mode}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                stderr.lines().next().unwrap(),
                format!("{path}:6:14: error: {message}"),
                "{arg} {mode}"
            );
        }
    }
    let constant = scratch(
        "negative_constant_index.rpsl",
        "export void main()\n{\n    uint arr[4] = { 1, 2, 3, 4 };\n    arr[-2] = 5;\n}\n",
    );
    let path = constant.to_str().unwrap();
    let out = rpsl(&["check", path]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).lines().next().unwrap(),
        format!("{path}:4:9: error: index -2 is out of bounds for `uint[4]`")
    );
}

/// A function whose values need more registers than the bytecode allows (1,048,576 per
/// function) is an error at the statement or local that passes the limit, from `check` and
/// from `run` (exit 1, like any script error), never an internal verifier error.
#[test]
fn check_reports_a_function_past_the_register_limit() {
    // Each `m = m * 2.0 + 1.0;` on a float4x4 takes 80 registers: the limit falls in
    // statement 13,107 (line 13,110).
    let mut statements = String::from("export void main()\n{\n    float4x4 m = 1.0;\n");
    for _ in 0..14_000 {
        statements.push_str("    m = m * 2.0 + 1.0;\n");
    }
    statements.push_str("}\n");
    // 70,000 float4x4 locals need 16 registers each: the limit falls at local 65,536.
    let mut locals = String::from("export void main()\n{\n");
    for index in 0..70_000 {
        locals.push_str(&format!("    float4x4 m{index};\n"));
    }
    locals.push_str("}\n");
    for (name, text, at) in [
        ("long_statements.rpsl", statements, "13110:5"),
        ("many_locals.rpsl", locals, "65538:14"),
    ] {
        let script = scratch(name, &text);
        let path = script.to_str().unwrap();
        let want = format!(
            "{path}:{at}: error: `main` is too long to compile: its values need more than \
             1048576 registers, the bytecode's limit for one function; split it into smaller \
             functions"
        );
        let out = rpsl(&["check", path]);
        assert_eq!(code(&out), 1, "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().next().unwrap_or_default(), want, "{name}");
        assert!(!stderr.contains("internal error"), "{stderr}");
        let run = rpsl(&["run", path, "--backend", "null"]);
        assert_eq!(code(&run), 1, "{name}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(stderr.lines().next().unwrap_or_default(), want, "{name}");
    }
}

/// `--step-budget N` bounds the steps of each frame in `run`, `graph` and `bench`, in both
/// engines: a runaway loop stops with a located error (exit 3); 0 is a usage error (exit 2).
#[test]
fn step_budget_flag_stops_a_runaway_script() {
    let text = "graphics node Draw(rtv rt, uint v);\n\
                export void main([readonly(present)] texture bb, uint n)\n\
                {\n\
                \x20   uint x = 1;\n\
                \x20   for (uint i = 0; i < n; i++) { x = x * 3 + 1; x = x ^ (x >> 5); }\n\
                \x20   Draw(bb, x);\n\
                }\n";
    let script = scratch("budget.rpsl", text);
    let path = script.to_str().unwrap();
    let runaway =
        format!("{path}:5:29: error: step budget of 5000 steps exhausted (endless loop?)");
    for args in [
        &["run", path, "--backend", "null", "--mode", "jit"][..],
        &["run", path, "--backend", "null", "--mode", "interp"],
        &["graph", path],
        &["bench", path, "--frames", "1", "--compiles", "1"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--arg", "n=1000000", "--step-budget", "5000"]);
        let out = rpsl(&args);
        assert_eq!(code(&out), 3, "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().next().unwrap(), runaway, "{args:?}");
    }
    // The same loop within the budget runs; the default budget is far above it.
    for budget in [&["--step-budget", "5000"][..], &[]] {
        let mut args = vec!["run", path, "--backend", "null", "--arg", "n=100"];
        args.extend_from_slice(budget);
        assert_eq!(code(&rpsl(&args)), 0, "{args:?}");
    }
    let out = rpsl(&["run", path, "--backend", "null", "--step-budget", "0"]);
    assert_eq!(code(&out), 2);
}
