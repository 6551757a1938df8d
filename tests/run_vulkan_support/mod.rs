//! Helpers of the `run_vulkan_*` tests: running the `rpsl` binary, scratch scripts, and the
//! check that a Vulkan device with the validation layer exists (a skip with a note otherwise,
//! a failure when `RPSL_REQUIRE_VULKAN=1`).
#![allow(dead_code, reason = "each test binary uses a subset")]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the `rpsl` binary.
pub fn rpsl<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args(args)
        .output()
        .expect("the rpsl binary runs")
}

/// Writes a script into a per-process scratch folder and returns its path.
pub fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = scratch_dir();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A per-process scratch folder.
pub fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rpsl-run-vulkan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Whether `rpsl run --backend vulkan --validate` can run at all. Without a device or the
/// validation layer: prints a note and returns false, or panics when `RPSL_REQUIRE_VULKAN=1`.
pub fn vulkan_available() -> bool {
    // One probe file per call: tests of one binary run in parallel, and a probe rewritten while
    // another test's `rpsl` reads it would be read half-written.
    use std::sync::atomic::{AtomicU32, Ordering};
    static PROBES: AtomicU32 = AtomicU32::new(0);
    let script = scratch(
        &format!("probe{}.rpsl", PROBES.fetch_add(1, Ordering::Relaxed)),
        "export void main(texture bb) { clear(bb, float4(0, 0, 0, 1)); }\n",
    );
    let output = rpsl(&["run", script.to_str().unwrap(), "--validate"]);
    if output.status.code() == Some(0) {
        return true;
    }
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    let missing = stderr.contains("no usable device")
        || stderr.contains("VK_LAYER_KHRONOS_validation is not installed");
    let required = std::env::var("RPSL_REQUIRE_VULKAN").is_ok_and(|v| v == "1");
    if missing && !required {
        eprintln!(
            "skipping: no Vulkan device with validation here ({})",
            stderr.trim()
        );
        return false;
    }
    panic!("the Vulkan backend cannot run: {stderr}");
}

/// Runs `text` (saved as `NAME.rpsl`) with `--validate --out`: it must exit 0 with not one
/// message. Returns the RGBA bytes of its outputs `r0.png` .. `r{count - 1}.png`, each a 4x4 image.
pub fn validated_4x4_outputs(name: &str, text: &str, count: usize) -> Vec<Vec<u8>> {
    let script = scratch(&format!("{name}.rpsl"), text);
    let dir = scratch_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let output = rpsl(&[
        "run",
        script.to_str().unwrap(),
        "--validate",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
    (0..count)
        .map(|i| {
            let (width, height, bytes) =
                rpsl_vulkan::read_png(&dir.join(format!("r{i}.png"))).unwrap();
            assert_eq!((width, height), (4, 4));
            bytes
        })
        .collect()
}
