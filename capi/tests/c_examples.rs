//! The C examples (`capi/examples/*.c`) compiled with the system's C compiler against the
//! generated header and `librpsl_capi.so`, run, and their whole output checked. The Vulkan
//! examples skip without a Vulkan device with the validation layer, unless
//! `RPSL_REQUIRE_VULKAN=1` (then they fail); `engine.c` needs the Vulkan headers and
//! `libvulkan.so` (Debian's libvulkan-dev, installed by scripts/setup.sh).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder with `librpsl_capi.so`: the test binary's own (`target/<profile>/deps`), where
/// cargo builds the library's crate types.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap().to_path_buf();
    assert!(
        deps.join("librpsl_capi.so").exists(),
        "no librpsl_capi.so next to {}",
        exe.display()
    );
    deps
}

/// Compiles `capi/examples/NAME.c` (strict C11, warnings as errors) and returns the program.
fn compile(name: &str, extra_libs: &[&str]) -> PathBuf {
    let capi = Path::new(env!("CARGO_MANIFEST_DIR"));
    let libs = library_dir();
    let out_dir = std::env::temp_dir().join(format!("rpsl-capi-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let program = out_dir.join(name);
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let output = Command::new(&compiler)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
        .arg(capi.join("include"))
        .arg(capi.join("examples").join(format!("{name}.c")))
        .arg("-L")
        .arg(&libs)
        .arg("-lrpsl_capi")
        .args(extra_libs)
        .arg(format!("-Wl,-rpath,{}", libs.display()))
        .arg("-o")
        .arg(&program)
        .output()
        .unwrap_or_else(|error| panic!("cannot run the C compiler `{compiler}`: {error}"));
    assert!(
        output.status.success(),
        "{name}.c does not compile:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    program
}

/// Runs a compiled example: (exit code, stdout, stderr).
fn run(program: &Path, args: &[&Path]) -> (Option<i32>, String, String) {
    let output = Command::new(program).args(args).output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Checks an example's whole standard output against `tests/c_examples/NAME.expected`
/// (`BLESS=1` rewrites the file for review).
fn assert_output(name: &str, stdout: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/c_examples")
        .join(format!("{name}.expected"));
    if std::env::var("BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, stdout).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(stdout, expected, "the output of {name}.c");
}

#[test]
fn the_error_example_gets_a_status_and_a_message_for_every_misuse() {
    let program = compile("errors", &[]);
    let (code, stdout, stderr) = run(&program, &[]);
    assert_eq!(stderr, "");
    assert_output("errors", &stdout);
    assert_eq!(code, Some(0));
}

/// Whether a validated Vulkan backend can be made here (else a note, or a failure with
/// `RPSL_REQUIRE_VULKAN=1`).
fn vulkan_available() -> bool {
    use rpsl_capi::*;
    let mut options = std::mem::MaybeUninit::<RpslVulkanOptions>::uninit();
    // SAFETY: `options` is valid for a write.
    let status = unsafe { rpsl_vulkan_options_default(options.as_mut_ptr()) };
    assert_eq!(status, RpslStatus::Ok);
    // SAFETY: filled just above.
    let mut options = unsafe { options.assume_init() };
    options.validate = true;
    let mut vulkan = std::ptr::null_mut();
    // SAFETY: valid options and out pointer.
    let status = unsafe { rpsl_vulkan_create(&options, &mut vulkan) };
    if status == RpslStatus::Ok {
        // SAFETY: a live handle.
        assert_eq!(unsafe { rpsl_vulkan_destroy(vulkan) }, RpslStatus::Ok);
        return true;
    }
    // SAFETY: the last error is a NUL-terminated string of this thread.
    let message = unsafe { std::ffi::CStr::from_ptr(rpsl_last_error()) }
        .to_string_lossy()
        .into_owned();
    let missing = message.contains("no usable device")
        || message.contains("VK_LAYER_KHRONOS_validation is not installed");
    if missing && std::env::var("RPSL_REQUIRE_VULKAN").as_deref() != Ok("1") {
        eprintln!("skipping: no Vulkan device with validation here ({message})");
        return false;
    }
    panic!("the Vulkan backend cannot start: {message}");
}

#[test]
fn the_vulkan_example_renders_through_a_c_callback_and_reads_the_pixel_back() {
    if !vulkan_available() {
        return;
    }
    let program = compile("frame", &["-l:libvulkan.so.1"]);
    let png = program.with_extension("png");
    let shaders = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shaders");
    let (code, stdout, stderr) = run(&program, &[&png, &shaders]);
    assert_eq!(stderr, "");
    assert_output("frame", &stdout);
    assert_eq!(code, Some(0));
    let (width, height, pixels) = rpsl::vulkan::read_png(&png).unwrap();
    assert_eq!((width, height), (4, 4));
    assert_eq!(pixels, [191, 38, 0, 255].repeat(16));
}

#[test]
fn the_engine_example_runs_rpsl_on_its_own_device_image_semaphore_and_fence() {
    if !vulkan_available() {
        return;
    }
    let program = compile("engine", &["-lvulkan"]);
    let (code, stdout, stderr) = run(&program, &[]);
    assert_eq!(stderr, "");
    assert_output("engine", &stdout);
    assert_eq!(code, Some(0));
}
