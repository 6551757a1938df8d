//! `:run` in `rpsl repl` executes the session's entry on Vulkan (lavapipe here) and writes the
//! last frame's external textures and named resources: the same pictures `rpsl run --out`
//! writes for the same script, arguments and frame count, also for a script calling MagpieFX
//! effects.

mod run_vulkan_support;

use std::io::Write;
use std::process::{Command, Stdio};

use run_vulkan_support::{rpsl, scratch_dir, vulkan_available};

#[test]
fn repl_run_writes_the_pictures_rpsl_run_writes() {
    if !vulkan_available() {
        return;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/examples/bloom/bloom.rpsl"
    );
    let dir = scratch_dir();
    let from_repl = dir.join("repl-pictures");
    let from_run = dir.join("run-pictures");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args(["repl", script])
        .env("RPSL_REPL_HISTORY", "")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = format!(
        ":arg backbuffer=96x64\n:arg time=0.5\n:arg intensity=1.25\n:run 3 {}\n",
        from_repl.display()
    );
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
    assert!(stderr.is_empty(), "{stderr}");
    assert!(
        stdout.ends_with(&format!(
            "ran `main` for 3 frames on Vulkan; {}: backbuffer.png, chain.png, scene.png\n",
            from_repl.display()
        )),
        "{stdout}"
    );
    let run = rpsl(&[
        "run",
        script,
        "--backend",
        "vulkan",
        "--arg",
        "backbuffer=96x64",
        "--arg",
        "time=0.5",
        "--arg",
        "intensity=1.25",
        "--frames",
        "3",
        "--out",
        from_run.to_str().unwrap(),
        "--out",
        &format!("scene={}", from_run.join("scene.png").display()),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let repl_png = std::fs::read(from_repl.join("backbuffer.png")).unwrap();
    let run_png = std::fs::read(from_run.join("backbuffer.png")).unwrap();
    assert!(
        repl_png == run_png,
        "the REPL's picture differs from rpsl run's"
    );
}

#[test]
fn repl_run_binds_effect_nodes_as_rpsl_run_does() {
    if !vulkan_available() {
        return;
    }
    // tests/effect_frame/ with the effects Tint and Invert beside its script.
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let folder = scratch_dir().join("repl-effects");
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    for entry in std::fs::read_dir(repo.join("tests/effect_frame")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, folder.join(path.file_name().unwrap())).unwrap();
    }
    for effect in ["Tint.hlsl", "Invert.hlsl"] {
        let from = repo.join("effects/tests/effects").join(effect);
        std::fs::copy(from, folder.join(effect)).unwrap();
    }
    let script = folder.join("frame.rpsl");
    let from_repl = folder.join("repl-pictures");
    let from_run = folder.join("run-pictures");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args(["repl", script.to_str().unwrap()])
        .env("RPSL_REPL_HISTORY", "")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = format!(
        ":arg backbuffer=26x14\n:arg strength=0.75\n:run 2 {}\n",
        from_repl.display()
    );
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
    assert!(stderr.is_empty(), "{stderr}");
    // The frame shows the effects' passes, and `:run` writes their constant buffers too.
    assert!(
        stdout.contains(
            "+ node 2: Tint.Pass1(__constants = Tint.constants, INPUT = scene, OUTPUT = tinted)\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.ends_with(&format!(
            "ran `main` for 2 frames on Vulkan; {}: Invert.constants.bin, Tint.constants.bin, \
             backbuffer.png, inverted.png, quantized.png, scene.png, tinted.png\n",
            from_repl.display()
        )),
        "{stdout}"
    );
    let run = rpsl(&[
        "run",
        script.to_str().unwrap(),
        "--arg",
        "backbuffer=26x14",
        "--arg",
        "strength=0.75",
        "--frames",
        "2",
        "--out",
        from_run.to_str().unwrap(),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let repl_png = std::fs::read(from_repl.join("backbuffer.png")).unwrap();
    let run_png = std::fs::read(from_run.join("backbuffer.png")).unwrap();
    assert!(
        repl_png == run_png,
        "the REPL's picture differs from rpsl run's"
    );
}
