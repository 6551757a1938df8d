//! Compiling in a child process: this test binary is its own child (its `main` calls
//! `serve_if_requested` first, as the `rpsl` binary does), plus stand-in programs that hang,
//! crash or answer nothing. Runs without the libtest harness (`harness = false`).

use std::path::PathBuf;
use std::time::Duration;

use rpsl_shaders::*;

fn child_options(config: ChildConfig) -> CompilerOptions {
    CompilerOptions {
        isolation: Isolation::Child(config),
        optimize: false,
        ..CompilerOptions::default()
    }
}

fn self_child() -> ChildConfig {
    ChildConfig::current_exe(Duration::from_secs(60)).unwrap()
}

fn shell(script: &str, timeout: Duration) -> ChildConfig {
    ChildConfig {
        program: PathBuf::from("/bin/sh"),
        args: vec!["-c".into(), script.into()],
        timeout,
    }
}

fn request(source: &str, path: &str) -> ShaderRequest {
    ShaderRequest::new(source, path, ShaderLanguage::Glsl, ShaderStage::Compute)
}

fn compiles_the_same_as_in_process() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("n.glsl"), "#define N 4\n").unwrap();
    let source = "#version 450\n#include \"n.glsl\"\nlayout(local_size_x = N) in;\nlayout(binding = 0, r32f) uniform image2D img;\nvoid main() { imageStore(img, ivec2(0), vec4(1)); }\n";
    let request = request(source, &dir.path().join("c.comp").display().to_string());
    let in_child = ShaderCompiler::new(child_options(self_child()))
        .compile(&request)
        .unwrap();
    let in_process = ShaderCompiler::new(CompilerOptions {
        optimize: false,
        ..CompilerOptions::default()
    })
    .compile(&request)
    .unwrap();
    assert_eq!(in_child, in_process);
    assert_eq!(
        in_child.reflection.entry_points[0].local_size,
        Some([4, 1, 1])
    );
    assert_eq!(in_child.includes, vec![dir.path().join("n.glsl")]);
}

fn compile_errors_come_back_located() {
    let error = ShaderCompiler::new(child_options(self_child()))
        .compile(&request(
            "#version 450\nvoid main() {\n  nope;\n}\n",
            "shaders/x.comp",
        ))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "shaders/x.comp:3: 'nope' : undeclared identifier"
    );
}

fn a_hang_is_killed_after_the_timeout() {
    let started = std::time::Instant::now();
    let error = ShaderCompiler::new(child_options(shell(
        "exec sleep 30",
        Duration::from_millis(300),
    )))
    .compile(&request("#version 450\nvoid main() {}\n", "slow.comp"))
    .unwrap_err();
    assert_eq!(
        error,
        ShaderError::ChildTimedOut {
            path: "slow.comp".into(),
            limit_ms: 300
        }
    );
    assert_eq!(
        error.to_string(),
        "slow.comp: compile took longer than 300 ms and was stopped"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

fn a_crash_is_an_error() {
    let error = ShaderCompiler::new(child_options(shell(
        "kill -SEGV $$",
        Duration::from_secs(10),
    )))
    .compile(&request("#version 450\nvoid main() {}\n", "boom.comp"))
    .unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with("boom.comp: the shader compiler crashed (signal: 11 (SIGSEGV)"),
        "{text}"
    );
    let error = ShaderCompiler::new(child_options(shell("exit 3", Duration::from_secs(10))))
        .compile(&request("#version 450\nvoid main() {}\n", "three.comp"))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "three.comp: the shader compiler crashed (exit status: 3)"
    );
}

fn a_program_that_is_no_child_is_reported() {
    let error = ShaderCompiler::new(child_options(shell(
        "cat >/dev/null",
        Duration::from_secs(10),
    )))
    .compile(&request("#version 450\nvoid main() {}\n", "mute.comp"))
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "mute.comp: the shader compiler crashed (exit status: 0 without a reply; does the program call rpsl_shaders::child::serve_if_requested()?)"
    );
    let error = ShaderCompiler::new(child_options(shell(
        "cat >/dev/null; echo junk",
        Duration::from_secs(10),
    )))
    .compile(&request("#version 450\nvoid main() {}\n", "junk.comp"))
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "bad reply from the shader compile process: 5 unreadable bytes"
    );
    let missing = ChildConfig {
        program: PathBuf::from("/nonexistent/rpsl"),
        args: vec![],
        timeout: Duration::from_secs(1),
    };
    let error = ShaderCompiler::new(child_options(missing))
        .compile(&request("", "x.comp"))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot start the shader compile process /nonexistent/rpsl: No such file or directory (os error 2)"
    );
}

fn main() {
    rpsl_shaders::child::serve_if_requested();
    let tests: [(&str, fn()); 5] = [
        (
            "compiles_the_same_as_in_process",
            compiles_the_same_as_in_process,
        ),
        (
            "compile_errors_come_back_located",
            compile_errors_come_back_located,
        ),
        (
            "a_hang_is_killed_after_the_timeout",
            a_hang_is_killed_after_the_timeout,
        ),
        ("a_crash_is_an_error", a_crash_is_an_error),
        (
            "a_program_that_is_no_child_is_reported",
            a_program_that_is_no_child_is_reported,
        ),
    ];
    let filter = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    let mut passed = 0;
    let mut failed = 0;
    for (name, test) in tests {
        if filter
            .as_deref()
            .is_some_and(|filter| !name.contains(filter))
        {
            continue;
        }
        match std::panic::catch_unwind(test) {
            Ok(()) => {
                println!("test {name} ... ok");
                passed += 1;
            }
            Err(_) => {
                println!("test {name} ... FAILED");
                failed += 1;
            }
        }
    }
    println!("\ntest result: {}. {passed} passed; {failed} failed; 0 ignored; 0 measured; 0 filtered out", if failed == 0 { "ok" } else { "FAILED" });
    if failed > 0 {
        std::process::exit(101);
    }
}
