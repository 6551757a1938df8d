//! `rpsl repl` driven through its standard input (plain lines when stdin is not a terminal):
//! declarations and statements accumulate, each input shows the nodes it added, refused inputs
//! are reported and dropped, multi-line inputs continue while brackets are open, and a loaded
//! script's entry points can be called.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `rpsl repl [file]` with `input` on stdin: (exit code, stdout, stderr).
fn repl(file: Option<&str>, input: &str) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rpsl"));
    command.arg("repl");
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
+ node 0: Draw(rt = t.mips(0, 1))  [culled: nothing uses its results]
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
frame: 0 nodes (0 culled), 1 resources, 0 barrier batches, 0 transitions, 0 transient bytes
rpsl repl: type :help for commands, :quit to leave
frame: 0 nodes (0 culled), 1 resources, 0 barrier batches, 0 transitions, 0 transient bytes
+ node 0: DrawScene(color = scene)
+ node 1: Downsample(dst = chain.mips(0, 1), src = scene)
+ node 2: Downsample(dst = chain.mips(1, 1), src = chain.mips(0, 1))
+ node 3: UpsampleAdd(dst = chain.mips(0, 1), src = chain.mips(1, 1))
+ node 4: Composite(output = backbuffer, scene = scene, bloom = chain.mips(0, 1))
frame: 5 nodes (0 culled), 3 resources, 6 barrier batches, 11 transitions, 131072 transient bytes
"
    );
    assert!(stdout.starts_with(&expected), "{stdout}");
    // The schedule: positions with the barrier batches before them; the backbuffer goes back
    // to present after the last node.
    assert!(
        stdout.contains(
            "    4  Composite (node 4, queue 0)\n      barrier backbuffer: ColorAttachment -> \
             PresentSrc\nmemory: 131072 transient bytes (131072 without aliasing)\n"
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
