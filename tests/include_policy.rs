//! The include rules through `rpsl check`: every way out of the script's tree (absolute paths,
//! `..`, macro-built names, symbolic links), special files (devices, FIFOs, /proc, /sys), the
//! size and count limits, each with its exact exit code and whole diagnostic. None of them may
//! quote the refused file, and none may block or exhaust memory.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the refused files hold: it must never appear in any output.
const SECRET: &str = "SECRET_TOKEN_6502";

/// A fresh directory with `tree/` (the script's directory) and `outside/secret.rpsli`.
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let root =
            std::env::temp_dir().join(format!("rpsl-include-policy-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("tree")).unwrap();
        fs::create_dir_all(root.join("outside")).unwrap();
        fs::write(
            root.join("outside/secret.rpsli"),
            format!("uint {SECRET} = 1;\n"),
        )
        .unwrap();
        Scratch { root }
    }

    fn tree(&self) -> PathBuf {
        self.root.join("tree")
    }

    fn outside(&self) -> PathBuf {
        self.root.join("outside")
    }

    /// Writes `tree/NAME` and returns its path.
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.tree().join(name);
        fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// Runs `rpsl check ARGS...`: exit code, stdout, stderr.
fn check(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .arg("check")
        .args(args)
        .output()
        .expect("rpsl runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !stdout.contains(SECRET) && !stderr.contains(SECRET),
        "{stderr}"
    );
    (output.status.code().unwrap_or(-1), stdout, stderr)
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

/// The whole diagnostic for an include on line `line` of `script`, at column 10 (the file name
/// of `#include "..."`), whose excerpt underlines `underlined` characters, with `notes`.
fn diagnostic(
    script: &Path,
    line: usize,
    source_line: &str,
    underlined: usize,
    message: &str,
    notes: &[&str],
) -> String {
    let script = path_str(script);
    let gutter = " ".repeat(line.to_string().len());
    let mut text = format!(
        "{script}:{line}:10: error: {message}\n\
         {gutter} ┌─ {script}:{line}:10\n\
         {gutter} │\n\
         {line} │ {source_line}\n\
         {gutter} │          {}\n",
        "^".repeat(underlined)
    );
    if !notes.is_empty() {
        text.push_str(&format!("{gutter} │\n"));
    }
    for note in notes {
        text.push_str(&format!("{gutter} = {note}\n"));
    }
    text.push('\n');
    text
}

/// The note of an include outside the roots when the only root is `tree`.
fn roots_note(scratch: &Scratch) -> String {
    format!(
        "includes resolve only inside `{}` (after `..` and symbolic links)",
        path_str(&scratch.tree())
    )
}

#[test]
fn an_absolute_path_outside_the_tree_is_refused() {
    let scratch = Scratch::new("absolute");
    let target = scratch.outside().join("secret.rpsli");
    let line = format!("#include \"{}\"", path_str(&target));
    let script = scratch.write("main.rpsl", &format!("{line}\n"));
    let (code, stdout, stderr) = check(&[path_str(&script)]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    let name = path_str(&target);
    assert_eq!(
        stderr,
        diagnostic(
            &script,
            1,
            &line,
            name.len() + 2,
            &format!("cannot include `{name}`: it lies outside the include directories"),
            &[&roots_note(&scratch)],
        )
    );
}

#[test]
fn dot_dot_out_of_the_tree_is_refused() {
    let scratch = Scratch::new("dotdot");
    let line = "#include \"sub/../../outside/secret.rpsli\"";
    let script = scratch.write("main.rpsl", &format!("{line}\n"));
    let (code, _, stderr) = check(&[path_str(&script)]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        diagnostic(
            &script,
            1,
            line,
            32,
            "cannot include `sub/../../outside/secret.rpsli`: it lies outside the include directories",
            &[&roots_note(&scratch)],
        )
    );
}

#[test]
fn a_name_built_by_macros_is_checked_like_a_written_one() {
    let scratch = Scratch::new("macro");
    let script = scratch.write(
        "main.rpsl",
        "#define STR(x) #x\n#define SECRET(dir) STR(../dir/secret.rpsli)\n#include SECRET(outside)\n",
    );
    let (code, _, stderr) = check(&[path_str(&script)]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        diagnostic(
            &script,
            3,
            "#include SECRET(outside)",
            15,
            "cannot include `../outside/secret.rpsli`: it lies outside the include directories",
            &[
                &roots_note(&scratch),
                &format!(
                    "in expansion of macro `SECRET` defined at {}:2:9",
                    path_str(&script)
                ),
            ],
        )
    );
}

#[test]
fn a_symbolic_link_out_of_the_tree_is_refused() {
    let scratch = Scratch::new("symlink");
    std::os::unix::fs::symlink(
        scratch.outside().join("secret.rpsli"),
        scratch.tree().join("link.rpsli"),
    )
    .unwrap();
    // A link to a directory outside, too.
    std::os::unix::fs::symlink(scratch.outside(), scratch.tree().join("dir")).unwrap();
    let script = scratch.write(
        "main.rpsl",
        "#include \"link.rpsli\"\n#include \"dir/secret.rpsli\"\n",
    );
    let (code, _, stderr) = check(&[path_str(&script)]);
    assert_eq!(code, 1);
    let note = roots_note(&scratch);
    assert_eq!(
        stderr,
        diagnostic(
            &script,
            1,
            "#include \"link.rpsli\"",
            12,
            "cannot include `link.rpsli`: it lies outside the include directories",
            &[&note],
        ) + "\n"
            + &diagnostic(
                &script,
                2,
                "#include \"dir/secret.rpsli\"",
                18,
                "cannot include `dir/secret.rpsli`: it lies outside the include directories",
                &[&note],
            )
    );
}

#[test]
fn a_link_inside_the_tree_still_works() {
    let scratch = Scratch::new("inner-link");
    scratch.write("real.rpsli", "graphics node Draw(rtv rt);\n");
    std::os::unix::fs::symlink(
        scratch.tree().join("real.rpsli"),
        scratch.tree().join("alias.rpsli"),
    )
    .unwrap();
    let script = scratch.write(
        "main.rpsl",
        "#include \"alias.rpsli\"\nexport void main(texture bb) { Draw(bb); }\n",
    );
    assert_eq!(
        check(&[path_str(&script)]),
        (0, String::new(), String::new())
    );
}

#[test]
fn a_device_is_refused_even_inside_an_include_directory() {
    let scratch = Scratch::new("device");
    let script = scratch.write("main.rpsl", "#include <zero>\n#include \"/dev/zero\"\n");
    let (code, _, stderr) = check(&["-I", "/dev", path_str(&script)]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        diagnostic(
            &script,
            1,
            "#include <zero>",
            6,
            "cannot include `zero`: it is a character device, not a regular file",
            &[],
        ) + "\n"
            + &diagnostic(
                &script,
                2,
                "#include \"/dev/zero\"",
                11,
                "cannot include `/dev/zero`: it is a character device, not a regular file",
                &[],
            )
    );
    // Without `-I /dev`, `zero` is looked for in the tree only and /dev is outside the roots.
    let (code, _, stderr) = check(&[path_str(&script)]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        diagnostic(
            &script,
            1,
            "#include <zero>",
            6,
            "cannot find included file `zero`",
            &[],
        ) + "\n"
            + &diagnostic(
                &script,
                2,
                "#include \"/dev/zero\"",
                11,
                "cannot include `/dev/zero`: it lies outside the include directories",
                &[&roots_note(&scratch)],
            )
    );
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let scratch = Scratch::new("fifo");
    let fifo = scratch.tree().join("pipe.rpsli");
    let status = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let script = scratch.write("main.rpsl", "#include \"pipe.rpsli\"\n");
    let (code, _, stderr) = check(&[path_str(&script)]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        diagnostic(
            &script,
            1,
            "#include \"pipe.rpsli\"",
            12,
            "cannot include `pipe.rpsli`: it is a FIFO, not a regular file",
            &[],
        )
    );
    // The script itself cannot be a FIFO either.
    let (code, _, stderr) = check(&[path_str(&fifo)]);
    assert_eq!(code, 1);
    let shown = path_str(&fifo);
    assert_eq!(
        stderr,
        format!(
            "{shown}:1:1: error: cannot read `{shown}`: it is a FIFO, not a regular file\n  \
             ┌─ {shown}:1:1\n  │\n1 │ \n  │ ^\n\n"
        )
    );
}

#[test]
fn proc_and_sys_files_are_refused() {
    let scratch = Scratch::new("proc");
    let script = scratch.write(
        "main.rpsl",
        "#include <environ>\n#include <devices/system/cpu/online>\n#include \"/proc/self/environ\"\n",
    );
    let (code, _, stderr) = check(&["-I", "/proc/self", "-I", "/sys", path_str(&script)]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        diagnostic(
            &script,
            1,
            "#include <environ>",
            9,
            "cannot include `environ`: it is a file under /proc, not a regular file",
            &[],
        ) + "\n"
            + &diagnostic(
                &script,
                2,
                "#include <devices/system/cpu/online>",
                27,
                "cannot include `devices/system/cpu/online`: it is a file under /sys, not a regular file",
                &[],
            )
            + "\n"
            + &diagnostic(
                &script,
                3,
                "#include \"/proc/self/environ\"",
                20,
                "cannot include `/proc/self/environ`: it is a file under /proc, not a regular file",
                &[],
            )
    );
}

#[test]
fn an_include_bomb_stops_at_the_inclusion_limit() {
    // Each file includes the next twice, 31 deep: 2^31 inclusions without the limit.
    let scratch = Scratch::new("bomb");
    for level in 0..31 {
        let next = level + 1;
        scratch.write(
            &format!("f{level}.rpsli"),
            &format!("#include \"f{next}.rpsli\"\n#include \"f{next}.rpsli\"\n"),
        );
    }
    scratch.write("f31.rpsli", "\n");
    let script = scratch.write("main.rpsl", "#include \"f0.rpsli\"\n");
    let (code, _, stderr) = check(&[path_str(&script)]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        diagnostic(
            &scratch.tree().join("f29.rpsli"),
            1,
            "#include \"f30.rpsli\"",
            11,
            "too many `#include`s (more than 1024 in one script)",
            &[],
        )
    );
}

#[test]
fn files_over_the_size_limit_are_refused() {
    let scratch = Scratch::new("size");
    let big = " ".repeat(4 * 1024 * 1024 + 1);
    scratch.write("big.rpsli", &big);
    scratch.write("big.rpsl", &big);
    let script = scratch.write("main.rpsl", "#include \"big.rpsli\"\n");
    let (code, _, stderr) = check(&[path_str(&script)]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        diagnostic(
            &script,
            1,
            "#include \"big.rpsli\"",
            11,
            "cannot include `big.rpsli`: it is larger than 4194304 bytes",
            &[],
        )
    );
    let big_script = scratch.tree().join("big.rpsl");
    let (code, _, stderr) = check(&[path_str(&big_script)]);
    assert_eq!(code, 1);
    let shown = path_str(&big_script);
    assert_eq!(
        stderr,
        format!(
            "{shown}:1:1: error: cannot read `{shown}`: it is larger than 4194304 bytes\n  \
             ┌─ {shown}:1:1\n  │\n1 │ \n  │ ^\n\n"
        )
    );
}

#[test]
fn the_preprocessed_text_is_bounded() {
    // Five includes of a 3.5 MB file pass every per-file limit but not the 16 MiB total.
    let scratch = Scratch::new("total");
    scratch.write("part.rpsli", &"\n".repeat(3_500_000));
    let script = scratch.write("main.rpsl", &"#include \"part.rpsli\"\n".repeat(5));
    let (code, _, stderr) = check(&[path_str(&script)]);
    assert_eq!(code, 1);
    let part = scratch.tree().join("part.rpsli");
    let shown = path_str(&part);
    assert_eq!(
        stderr,
        format!(
            "{shown}:1:1: error: preprocessed text is too large (more than 16777216 bytes)\n  \
             ┌─ {shown}:1:1\n  │\n1 │ \n  │ ^\n\n"
        )
    );
}

#[test]
fn include_directories_are_searched_after_the_script_directory() {
    let scratch = Scratch::new("include-dir");
    fs::write(
        scratch.outside().join("nodes.rpsli"),
        "graphics node Draw(rtv rt);\n",
    )
    .unwrap();
    let script = scratch.write(
        "main.rpsl",
        "#include <nodes.rpsli>\nexport void main(texture bb) { Draw(bb); }\n",
    );
    let outside = scratch.outside();
    assert_eq!(
        check(&["-I", path_str(&outside), path_str(&script)]),
        (0, String::new(), String::new())
    );
    let (code, _, stderr) = check(&[path_str(&script)]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with(&format!(
            "{}:1:10: error: cannot find included file `nodes.rpsli`\n",
            path_str(&script)
        )),
        "{stderr}"
    );
}

#[test]
fn the_repl_load_follows_the_same_rules() {
    let scratch = Scratch::new("repl");
    let fifo = scratch.tree().join("pipe.rpsl");
    let status = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let line = "#include \"../outside/secret.rpsli\"";
    let script = scratch.write("main.rpsl", &format!("{line}\n"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .arg("repl")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("rpsl starts");
    let input = format!(":load {}\n:load {}\n", path_str(&fifo), path_str(&script));
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!stderr.contains(SECRET), "{stderr}");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stderr,
        format!(
            "error: {}: it is a FIFO, not a regular file\n",
            path_str(&fifo)
        ) + &diagnostic(
            &script,
            1,
            line,
            25,
            "cannot include `../outside/secret.rpsli`: it lies outside the include directories",
            &[&roots_note(&scratch)],
        )
    );
}
