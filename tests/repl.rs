//! `rpsl repl` driven through its standard input (plain lines when stdin is not a terminal):
//! declarations and statements accumulate, each input shows the nodes it added, refused inputs
//! are reported and dropped, multi-line inputs continue while brackets are open, and a loaded
//! script's entry points can be called.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `rpsl repl [file]` with `input` on stdin: (exit code, stdout, stderr).
fn repl(file: Option<&str>, input: &str) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rpsl"));
    command.arg("repl").env("RPSL_REPL_HISTORY", "");
    if let Some(file) = file {
        command.arg(file);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rpsl starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn inputs_build_the_frame_step_by_step() {
    let input = "\
graphics node Draw(rtv rt : SV_Target0, uint i);
compute node Blur([readonly(cs)] texture src, [writeonly(cs)] texture dst);
texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64, 2)
Draw(t.mips(0), 1)
for (uint i = 0; i < 2; i++) {
    Blur(t.mips(0), backbuffer);
}
Draw(nope, 2)
:list
:quit
Draw(backbuffer, 3)
";
    let (code, stdout, stderr) = repl(None, input);
    assert_eq!(code, 0, "{stderr}");
    let expected = "\
rpsl repl: type :help for commands, :quit to leave
frame: 0 nodes (0 culled), 1 resources, 0 barrier batches, 0 transitions, 0 transient bytes
frame: 0 nodes (0 culled), 1 resources, 0 barrier batches, 0 transitions, 0 transient bytes
frame: 0 nodes (0 culled), 2 resources, 0 barrier batches, 0 transitions, 0 transient bytes
+ node 0: Draw(rt = t.mips(0, 1), i = 1)  [culled: nothing uses its results]
frame: 1 nodes (1 culled), 2 resources, 0 barrier batches, 0 transitions, 0 transient bytes
+ node 1: Blur(src = t.mips(0, 1), dst = backbuffer)
+ node 2: Blur(src = t.mips(0, 1), dst = backbuffer)
frame: 3 nodes (0 culled), 2 resources, 4 barrier batches, 5 transitions, 65536 transient bytes
graphics node Draw(rtv rt : SV_Target0, uint i);
compute node Blur([readonly(cs)] texture src, [writeonly(cs)] texture dst);
texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64, 2);
Draw(t.mips(0), 1);
for (uint i = 0; i < 2; i++) {
    Blur(t.mips(0), backbuffer);
}
";
    assert_eq!(stdout, expected);
    // The refused input: a located diagnostic; nothing after `:quit` ran.
    assert!(
        stderr.starts_with("<repl>:10:6: error: unknown name `nope`"),
        "{stderr}"
    );
}

#[test]
fn a_loaded_script_can_be_called_and_scheduled() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/examples/bloom/bloom.rpsl"
    );
    let input = ":arg backbuffer=64x64\nmain(backbuffer, 1.0f, 0.5f)\n:schedule\n";
    let (code, stdout, stderr) = repl(Some(script), input);
    assert_eq!(code, 0, "{stderr}");
    let expected = format!(
        "\
loaded {script} (entry points: main)
running `main` (default arguments, and :arg values)
+ node 0: DrawScene(color = scene, clearColor = float4(0.02, 0.02, 0.03, 1), time = 0)
+ node 1: Downsample(dst = chain.mips(0, 1), src = scene, invSrcSize = float2(0.00078125, 0.0013888889))
+ node 2: Downsample(dst = chain.mips(1, 1), src = chain.mips(0, 1), invSrcSize = float2(0.0015625, 0.0027777778))
+ node 3: Downsample(dst = chain.mips(2, 1), src = chain.mips(1, 1), invSrcSize = float2(0.003125, 0.0055555557))
+ node 4: Downsample(dst = chain.mips(3, 1), src = chain.mips(2, 1), invSrcSize = float2(0.00625, 0.011111111))
+ node 5: Downsample(dst = chain.mips(4, 1), src = chain.mips(3, 1), invSrcSize = float2(0.0125, 0.022222223))
+ node 6: UpsampleAdd(dst = chain.mips(3, 1), src = chain.mips(4, 1), radius = 2.5)
+ node 7: UpsampleAdd(dst = chain.mips(2, 1), src = chain.mips(3, 1), radius = 2)
+ node 8: UpsampleAdd(dst = chain.mips(1, 1), src = chain.mips(2, 1), radius = 1.5)
+ node 9: UpsampleAdd(dst = chain.mips(0, 1), src = chain.mips(1, 1), radius = 1)
+ node 10: Composite(output = backbuffer, scene = scene, bloom = chain.mips(0, 1), intensity = 0)
frame: 11 nodes (0 culled), 3 resources, 12 barrier batches, 22 transitions, 9895936 transient bytes
rpsl repl: type :help for commands, :quit to leave
running `main` (default arguments, and :arg values)
+ node 0: DrawScene(color = scene, clearColor = float4(0.02, 0.02, 0.03, 1), time = 0)
+ node 1: Downsample(dst = chain.mips(0, 1), src = scene, invSrcSize = float2(0.015625, 0.015625))
+ node 2: Downsample(dst = chain.mips(1, 1), src = chain.mips(0, 1), invSrcSize = float2(0.03125, 0.03125))
+ node 3: UpsampleAdd(dst = chain.mips(0, 1), src = chain.mips(1, 1), radius = 1)
+ node 4: Composite(output = backbuffer, scene = scene, bloom = chain.mips(0, 1), intensity = 0)
frame: 5 nodes (0 culled), 3 resources, 6 barrier batches, 11 transitions, 131072 transient bytes
+ node 0: DrawScene(color = scene, clearColor = float4(0.02, 0.02, 0.03, 1), time = 1)
+ node 1: Downsample(dst = chain.mips(0, 1), src = scene, invSrcSize = float2(0.015625, 0.015625))
+ node 2: Downsample(dst = chain.mips(1, 1), src = chain.mips(0, 1), invSrcSize = float2(0.03125, 0.03125))
+ node 3: UpsampleAdd(dst = chain.mips(0, 1), src = chain.mips(1, 1), radius = 1)
+ node 4: Composite(output = backbuffer, scene = scene, bloom = chain.mips(0, 1), intensity = 0.5)
frame: 5 nodes (0 culled), 3 resources, 6 barrier batches, 11 transitions, 131072 transient bytes
      barrier scene (mips 0..1, layers 0..1): Undefined -> ColorAttachment, stages NONE -> \
COLOR_ATTACHMENT_OUTPUT, access NONE -> COLOR_ATTACHMENT_READ|COLOR_ATTACHMENT_WRITE
"
    );
    assert!(stdout.starts_with(&expected), "{stdout}");
    // The schedule: positions with the barrier batches before them; the backbuffer goes back
    // to present after the last node.
    assert!(
        stdout.contains(
            "    4  Composite (node 4, queue 0)\n      barrier backbuffer (mips 0..1, layers 0..1): \
             ColorAttachment -> PresentSrc, stages COLOR_ATTACHMENT_OUTPUT -> BOTTOM_OF_PIPE, \
             access COLOR_ATTACHMENT_WRITE -> NONE\nmemory: 131072 transient bytes (131072 \
             without aliasing)\n"
        ),
        "{stdout}"
    );
    assert!(stderr.is_empty(), "{stderr}");
    // A script that does not load: exit 1 with its diagnostics.
    let (code, _, stderr) = repl(Some("/nonexistent/none.rpsl"), "");
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("error: /nonexistent/none.rpsl: "),
        "{stderr}"
    );
}

#[test]
fn typed_inputs_are_located_in_the_repl_not_in_the_loaded_script() {
    let dir = std::env::temp_dir().join(format!("rpsl-repl-located-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("two_lines.rpsl");
    std::fs::write(
        &script,
        "graphics node Draw(rtv rt : SV_Target0);\nexport void main(texture t) { Draw(t); }\n",
    )
    .unwrap();
    let script = script.to_str().unwrap();
    let (code, _, stderr) = repl(Some(script), "uint x = undefined_thing;\n");
    assert_eq!(code, 0, "{stderr}");
    // Line 1 of the session's text includes the script; the typed statement is line 4 of
    // `<repl>` (beside the script, where its includes resolve), never line 4 of the 2-line file.
    let repl_file = format!("{}/<repl>", dir.display());
    assert_eq!(
        stderr,
        format!(
            "\
{repl_file}:4:10: error: unknown name `undefined_thing`
  ┌─ {repl_file}:4:10
  │
4 │ uint x = undefined_thing;
  │          ^^^^^^^^^^^^^^^

"
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn save_writes_a_script_that_runs_and_json_is_pretty() {
    let dir = std::env::temp_dir().join(format!("rpsl-repl-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let saved = dir.join("session.rpsl");
    let input = format!(
        "graphics node Draw(rtv rt : SV_Target0, float4 tint);\nDraw(backbuffer, float4(1, 0.5, 0, 1))\n:save {}\n:json\n",
        saved.display()
    );
    let (code, stdout, stderr) = repl(None, &input);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(&format!("saved the session to {}\n", saved.display())),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        format!(
            "// Saved by `rpsl repl`; run it with `rpsl run {} --entry __repl`.
graphics node Draw(rtv rt : SV_Target0, float4 tint);
export void __repl([readonly(present)] texture backbuffer, uint frameIndex)
{{
Draw(backbuffer, float4(1, 0.5, 0, 1));
}}
",
            saved.display()
        )
    );
    // The dump, indented, keys in the dump's order, short number lists on one line.
    assert!(
        stdout.contains(
            "      \"nodes\": [
        {
          \"id\": 0,
          \"name\": \"Draw\",
          \"queue\": \"graphics\",
          \"async\": false,
          \"args\": ["
        ),
        "{stdout}"
    );
    assert!(stdout.contains("\"value\": [1, 0.5, 0, 1]"), "{stdout}");
    // The saved script runs as it ran in the session.
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args([
            "run",
            saved.to_str().unwrap(),
            "--entry",
            "__repl",
            "--backend",
            "null",
        ])
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_typed_node_bound_to_an_effect_is_checked_against_it() {
    let dir = std::env::temp_dir().join(format!("rpsl-repl-effect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("empty.rpsl"),
        "export void main([readonly(present)] texture backbuffer) {}\n",
    )
    .unwrap();
    let effect = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/effects/tests/effects/Invert.hlsl"
    );
    std::fs::copy(effect, dir.join("Invert.hlsl")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args(["repl", "empty.rpsl"])
        .env("RPSL_REPL_HISTORY", "")
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A declaration that does not fit the effect beside the script is refused; one that fits
    // records the effect's passes.
    let input = "compute node Invert([readonly(cs)] texture src, float2 offset, [writeonly(cs)] texture dst);\n\
        compute node Invert([readonly(cs)] texture src, [writeonly(cs)] texture dst);\n\
        texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8)\n\
        Invert(t, backbuffer)\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr,
        "<repl>:2:49: error: `offset` is neither a texture nor a scalar: an effect node takes \
         one readonly texture (the effect's INPUT), one writable texture (its OUTPUT) and \
         scalars named like its parameters\n  ┌─ <repl>:2:49\n  │\n2 │ compute node \
         Invert([readonly(cs)] texture src, float2 offset, [writeonly(cs)] texture dst);\n  │ \
         \u{20}                                               ^^^^^^^^^^^^^\n  │\n  = node \
         `Invert` is bound to the MagpieFX effect ./Invert.hlsl\n\n"
    );
    assert!(
        stdout.contains(
            "+ node 0: Invert.constants(dst = Invert.constants, words = {8, 8, 1280, 720, "
        ) && stdout.contains("+ node 1: Invert.Pass1(__constants = Invert.constants, INPUT = t, OUTPUT = backbuffer)\n"),
        "{stdout}"
    );
}
