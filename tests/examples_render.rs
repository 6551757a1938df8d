//! The example frames of `scripts/examples/` render real pictures on the Vulkan backend with
//! their shaders, validation silent: each is compared with a golden image of a small resolution
//! (`tests/golden/<example>.png`, rewritten with `BLESS=1`) within a tolerance that absorbs
//! float differences between drivers, and must hold many distinct colours (not a flat clear).

#[path = "run_vulkan_support/mod.rs"]
mod run_vulkan_support;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use run_vulkan_support::{rpsl, scratch_dir, vulkan_available};

/// Example, extra arguments (the backbuffer is 96x54; three frames so temporal history builds).
const EXAMPLES: &[(&str, &[&str])] = &[
    ("deferred", &["exposure=1.2"]),
    ("bloom", &["time=1.0", "intensity=0.8"]),
    ("temporal_accumulation", &[]),
    ("msaa_resolve", &["kind=0"]),
    ("msaa_resolve", &["kind=1"]),
    ("msaa_resolve", &["kind=2"]),
    ("upscale", &["time=1.0", "sharpness=0.8"]),
];

/// A channel may differ by this much...
const CHANNEL_TOLERANCE: u8 = 12;
/// ...and at most this share of pixels may differ by more.
const OUTLIER_SHARE: f64 = 0.01;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn render(example: &str, args: &[&str], out: &Path) -> Vec<u8> {
    let script = root().join(format!("scripts/examples/{example}/{example}.rpsl"));
    let mut command: Vec<String> = vec![
        "run".into(),
        script.to_string_lossy().into(),
        "--frames".into(),
        "3".into(),
        "--validate".into(),
        "--arg".into(),
        "backbuffer=96x54".into(),
        "--out".into(),
        out.to_string_lossy().into(),
    ];
    for arg in args {
        command.push("--arg".into());
        command.push(arg.to_string());
    }
    let output = rpsl(&command);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{example} {args:?}:\n{stderr}"
    );
    assert!(!stderr.contains("validation"), "{example}: {stderr}");
    let (width, height, rgba) =
        rpsl_vulkan::read_png(&out.join("backbuffer.png")).expect("the backbuffer was written");
    assert_eq!((width, height), (96, 54), "{example}");
    rgba
}

#[test]
fn examples_match_their_golden_images() {
    if !vulkan_available() {
        return;
    }
    let bless = std::env::var_os("BLESS").is_some();
    let mut failures = Vec::new();
    for (example, args) in EXAMPLES {
        let tag = match args.iter().find(|a| a.starts_with("kind=")) {
            Some(kind) => format!("{example}_{}", kind.trim_start_matches("kind=")),
            None => example.to_string(),
        };
        let out = scratch_dir().join(&tag);
        let rgba = render(example, args, &out);
        let colours: HashSet<[u8; 3]> = rgba.chunks(4).map(|p| [p[0], p[1], p[2]]).collect();
        // Min/max resolves pick one sample per channel: no blended edge colours.
        let needed = if tag == "msaa_resolve_1" || tag == "msaa_resolve_2" {
            16
        } else {
            64
        };
        assert!(
            colours.len() >= needed,
            "{tag}: only {} distinct colours",
            colours.len()
        );
        let golden = root().join(format!("tests/golden/{tag}.png"));
        if bless {
            rpsl_vulkan::write_png(&golden, 96, 54, &rgba).unwrap();
            continue;
        }
        let (_, _, expected) = rpsl_vulkan::read_png(&golden)
            .unwrap_or_else(|e| panic!("{tag}: {e} (BLESS=1 writes it)"));
        let mut outliers = 0usize;
        let mut worst = 0u8;
        for (got, want) in rgba.chunks(4).zip(expected.chunks(4)) {
            let diff = got
                .iter()
                .zip(want)
                .map(|(a, b)| a.abs_diff(*b))
                .max()
                .unwrap();
            worst = worst.max(diff);
            if diff > CHANNEL_TOLERANCE {
                outliers += 1;
            }
        }
        let share = outliers as f64 / (96.0 * 54.0);
        if share > OUTLIER_SHARE {
            failures.push(format!(
                "{tag}: {outliers} pixels ({:.1}%) differ by more than {CHANNEL_TOLERANCE} \
                 (worst {worst}); the frame is in {}",
                share * 100.0,
                out.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Min and max resolves of the same multisampled frame differ along the edges (where samples
/// disagree) and agree in the interior.
#[test]
fn msaa_resolve_modes_differ_only_on_edges() {
    if !vulkan_available() {
        return;
    }
    let min = render(
        "msaa_resolve",
        &["kind=1"],
        &scratch_dir().join("modes_min"),
    );
    let max = render(
        "msaa_resolve",
        &["kind=2"],
        &scratch_dir().join("modes_max"),
    );
    let differing = min
        .chunks(4)
        .zip(max.chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    assert!(differing > 0, "min and max resolves are identical");
    assert!(
        differing < 96 * 54 / 3,
        "{differing} pixels differ: more than the edges"
    );
    // Every channel of the min resolve is at most the max resolve's.
    for (a, b) in min.chunks(4).zip(max.chunks(4)) {
        assert!(
            a.iter().zip(b).all(|(x, y)| x <= y),
            "min {a:?} above max {b:?}"
        );
    }
}
