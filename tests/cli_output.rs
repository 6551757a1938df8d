//! Every result the `rpsl` binary writes is checked (docs/cli.md, "Output"): a full device,
//! a file that cannot be created or a failing file are `error: cannot write WHAT to WHERE:
//! IO ERROR` on stderr and exit 3; a pipe whose reader went away ends the command quietly
//! (exit 0, nothing on stderr). The Vulkan `--timings` case skips without a device unless
//! `RPSL_REQUIRE_VULKAN=1`.

mod run_vulkan_support;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use run_vulkan_support::vulkan_available;

const SCRIPT: &str = "graphics node Draw(rtv rt, uint v);\n\
export void main([readonly(present)] texture bb)\n\
{\n\
    Draw(bb, 7);\n\
}\n";

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rpsl-cli-output-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The commands that write a result on stdout, with what their errors call it.
fn stdout_commands(script: &str) -> Vec<(Vec<&str>, &'static str)> {
    vec![
        (vec!["graph", script], "the graph"),
        (vec!["graph", script, "--format", "dot"], "the graph"),
        (vec!["graph", script, "--format", "html"], "the graph"),
        (
            vec![
                "run",
                script,
                "--backend",
                "null",
                "--frames",
                "3",
                "--dump",
                "-",
            ],
            "the graph dump",
        ),
        (
            vec![
                "bench",
                script,
                "--frames",
                "1",
                "--compiles",
                "1",
                "--json",
            ],
            "the benchmark figures",
        ),
        (
            vec!["bench", script, "--frames", "1", "--compiles", "1"],
            "the benchmark figures",
        ),
        (vec!["check", "--emit", "bytecode", script], "the bytecode"),
        (vec!["check", "--emit", "hir", script], "the HIR"),
        (vec!["--help"], "the help"),
    ]
}

fn rpsl(args: &[&str], stdout: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args(args)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("runs")
}

#[test]
fn a_full_device_on_stdout_is_an_error_with_exit_3() {
    let script = scratch("full.rpsl", SCRIPT);
    let script = script.to_str().unwrap();
    for (args, what) in stdout_commands(script) {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full (Linux)");
        let out = rpsl(&args, Stdio::from(full));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "error: cannot write {what} to stdout: No space left on device (os error 28)\n"
            ),
            "{args:?}"
        );
        assert_eq!(out.status.code(), Some(3), "{args:?}");
    }
}

#[test]
fn a_closed_pipe_on_stdout_ends_quietly() {
    let script = scratch("pipe.rpsl", SCRIPT);
    let script = script.to_str().unwrap();
    for (args, _) in stdout_commands(script) {
        // The reading end is closed before the command starts: its first write meets EPIPE.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = rpsl(&args, Stdio::from(writer));
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
    }
}

#[test]
fn a_closed_pipe_keeps_the_exit_code_of_a_failed_run() {
    // Frame 0 faults (index 1 of a one-element array) and the dump (of no frame) meets the
    // closed pipe: the fault is reported and the exit code is still 3.
    let script = scratch(
        "fault.rpsl",
        "graphics node Draw(rtv rt, uint v);\n\
         export void main([readonly(present)] texture bb, uint frameIndex)\n\
         {\n    uint a[1] = { 5 };\n    Draw(bb, a[frameIndex + 1]);\n}\n",
    );
    let path = script.to_str().unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = rpsl(
        &["run", path, "--backend", "null", "--dump", "-"],
        Stdio::from(writer),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(
        stderr.lines().next().unwrap_or_default(),
        format!("{path}:5:14: error: array index 1 is out of bounds for length 1")
    );
}

#[test]
fn files_that_cannot_be_written_are_errors_with_exit_3() {
    let script = scratch("files.rpsl", SCRIPT);
    let script = script.to_str().unwrap();
    let missing = std::env::temp_dir()
        .join(format!("rpsl-no-such-dir-{}", std::process::id()))
        .join("x.json");
    let missing = missing.to_str().unwrap();
    let cases = [
        (
            vec!["graph", script, "-o", missing],
            format!(
                "error: cannot write the graph to `{missing}`: No such file or directory (os error 2)\n"
            ),
        ),
        (
            vec!["run", script, "--backend", "null", "--dump", missing],
            format!(
                "error: cannot write the graph dump to `{missing}`: No such file or directory (os error 2)\n"
            ),
        ),
        // Created, then every write fails: caught at the latest when the file is flushed.
        (
            vec!["graph", script, "--format", "dot", "-o", "/dev/full"],
            "error: cannot write the graph to `/dev/full`: No space left on device (os error 28)\n"
                .to_string(),
        ),
        (
            vec!["run", script, "--backend", "null", "--dump", "/dev/full"],
            "error: cannot write the graph dump to `/dev/full`: No space left on device (os error 28)\n"
                .to_string(),
        ),
    ];
    for (args, message) in cases {
        let out = rpsl(&args, Stdio::piped());
        assert_eq!(String::from_utf8_lossy(&out.stderr), message, "{args:?}");
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn the_streamed_dump_is_one_document_per_run() {
    let script = scratch("frames.rpsl", SCRIPT);
    let script = script.to_str().unwrap();
    let out = rpsl(
        &[
            "run",
            script,
            "--backend",
            "null",
            "--frames",
            "4",
            "--dump",
            "-",
        ],
        Stdio::piped(),
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.ends_with("]}\n"), "{text}");
    let dump: serde_json::Value = serde_json::from_str(&text).unwrap();
    let indices: Vec<u64> = dump["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|frame| frame["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indices, [0, 1, 2, 3]);
}

#[test]
fn the_repl_checks_its_replies() {
    let repl = |stdout: Stdio| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rpsl"))
            .arg("repl")
            .stdin(Stdio::piped())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        use std::io::Write as _;
        // The session may already have stopped reading: a failed write here is fine.
        let _ = child.stdin.take().unwrap().write_all(b":help\n:quit\n");
        child.wait_with_output().unwrap()
    };
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full (Linux)");
    let out = repl(Stdio::from(full));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: cannot write the session's output to stdout: No space left on device (os error 28)\n"
    );
    assert_eq!(out.status.code(), Some(3));
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = repl(Stdio::from(writer));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
}

/// `--timings` prints its table on stdout after the frames (Vulkan; skips without a device
/// unless `RPSL_REQUIRE_VULKAN=1`).
#[test]
fn gpu_timings_are_checked_writes() {
    if !vulkan_available() {
        return;
    }
    let script = scratch(
        "timings.rpsl",
        "export void main(texture bb) { clear(bb, float4(0, 0, 0, 1)); }\n",
    );
    let script = script.to_str().unwrap();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full (Linux)");
    let out = rpsl(&["run", script, "--timings"], Stdio::from(full));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: cannot write the GPU timings to stdout: No space left on device (os error 28)\n"
    );
    assert_eq!(out.status.code(), Some(3));
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = rpsl(&["run", script, "--timings"], Stdio::from(writer));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_dash_names_stdout_for_graph_output_too() {
    let script = scratch("dash.rpsl", SCRIPT);
    let script = script.to_str().unwrap();
    let to_dash = rpsl(&["graph", script, "-o", "-"], Stdio::piped());
    let plain = rpsl(&["graph", script], Stdio::piped());
    assert_eq!(to_dash.status.code(), Some(0));
    assert!(to_dash
        .stdout
        .starts_with(b"{\"version\":1,\"entry\":\"main\""));
    assert_eq!(to_dash.stdout, plain.stdout);
}
