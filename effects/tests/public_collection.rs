//! The public Magpie effect collection, when `RPSL_MAGPIE_EFFECTS` names a folder holding it
//! (never committed: Magpie is GPL-3.0). Every effect must parse and compile; the counts are
//! printed; more than nine in ten variants must run validation-clean on Vulkan. Compiles run in child processes (this binary is its own child: `harness = false`),
//! so a shader that crashes glslang fails its effect, not the run.

use std::path::{Path, PathBuf};

/// Every `.hlsl` file under `folder`, sorted; only those whose path contains
/// `RPSL_MAGPIE_FILTER` when it is set.
fn effect_files(folder: &Path) -> Vec<PathBuf> {
    let filter = std::env::var("RPSL_MAGPIE_FILTER").unwrap_or_default();
    let mut found = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "hlsl")
                && path.file_name().is_some_and(|name| name != "StubDefs.hlsl")
            {
                found.push(path);
            }
        }
    }
    found.retain(|path| path.display().to_string().contains(&filter));
    found.sort();
    found
}

fn every_public_effect_parses() {
    let Some(folder) = std::env::var_os("RPSL_MAGPIE_EFFECTS") else {
        eprintln!("RPSL_MAGPIE_EFFECTS is not set: skipped");
        return;
    };
    let files = effect_files(Path::new(&folder));
    assert!(!files.is_empty(), "no .hlsl files under {folder:?}");
    let mut failures = Vec::new();
    for path in &files {
        if let Err(errors) = rpsl_effects::parse_effect_file(path) {
            failures.push(errors.render());
        }
    }
    eprintln!(
        "parsed {} of {} public effects",
        files.len() - failures.len(),
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every pass of every public effect, and the FP16 variant of those that offer one, compiles.
/// `RPSL_MAGPIE_CACHE` may name a SPIR-V cache folder to make reruns fast.
fn every_public_effect_compiles() {
    let Some(folder) = std::env::var_os("RPSL_MAGPIE_EFFECTS") else {
        eprintln!("RPSL_MAGPIE_EFFECTS is not set: skipped");
        return;
    };
    let compiler = collection_compiler();
    let mut variants = 0;
    let mut failures = Vec::new();
    for path in effect_files(Path::new(&folder)) {
        let effect = rpsl_effects::parse_effect_file(&path).unwrap_or_else(|e| panic!("{e}"));
        for fp16 in [false, true] {
            if fp16 && !effect.supports_fp16 {
                continue;
            }
            variants += 1;
            let started = std::time::Instant::now();
            let variant = rpsl_effects::PassVariant {
                fp16,
                inline_params: None,
                debug: false,
            };
            let result = rpsl_effects::compile_effect(&effect, &variant, &compiler);
            eprintln!(
                "{} fp16={fp16}: {} ({:.1?})",
                path.display(),
                if result.is_ok() { "ok" } else { "FAILED" },
                started.elapsed()
            );
            if let Err(error) = result {
                failures.push(format!("[fp16={fp16}] {error}"));
            }
        }
    }
    eprintln!(
        "compiled {} of {variants} public effect variants",
        variants - failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The compiler of the collection's tests: child processes, `RPSL_MAGPIE_CACHE` as the cache.
fn collection_compiler() -> rpsl_shaders::ShaderCompiler {
    rpsl_shaders::ShaderCompiler::new(rpsl_shaders::CompilerOptions {
        optimize: false,
        debug_info: false,
        cache_dir: std::env::var_os("RPSL_MAGPIE_CACHE").map(PathBuf::from),
        isolation: rpsl_shaders::Isolation::Child(
            rpsl_shaders::ChildConfig::current_exe(std::time::Duration::from_secs(600)).unwrap(),
        ),
        ..Default::default()
    })
}

/// A 64x48 test picture: smooth gradients, a hard diagonal edge and a few thin lines.
fn test_picture() -> rpsl_effects::RgbaImage {
    let (width, height) = (64u32, 48u32);
    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height {
        for x in 0..width {
            let edge = if x > y { 200 } else { 40 };
            let line = if x % 16 == 3 || y % 12 == 5 { 255 } else { 0 };
            pixels.extend([(x * 4) as u8, edge, line.max((y * 5) as u8), 255]);
        }
    }
    rpsl_effects::RgbaImage {
        width,
        height,
        pixels,
    }
}

/// Every variant (FP16 ones included) runs on the Vulkan driver under validation (any
/// message fails it) on a small picture; more than nine in ten must.
fn nine_in_ten_public_effects_run_validation_clean() {
    let Some(folder) = std::env::var_os("RPSL_MAGPIE_EFFECTS") else {
        eprintln!("RPSL_MAGPIE_EFFECTS is not set: skipped");
        return;
    };
    let compiler = collection_compiler();
    let picture = test_picture();
    let mut variants = 0;
    let mut failures = Vec::new();
    for path in effect_files(Path::new(&folder)) {
        let effect = rpsl_effects::parse_effect_file(&path).unwrap_or_else(|e| panic!("{e}"));
        for fp16 in [false, true] {
            if fp16 && !effect.supports_fp16 {
                continue;
            }
            variants += 1;
            let started = std::time::Instant::now();
            let result = (|| {
                let link = rpsl_effects::prepare_effect(&path, &[], fp16, &compiler)?;
                let options = rpsl_vulkan::VulkanOptions {
                    validate: true,
                    ..Default::default()
                };
                let backend = rpsl_vulkan::VulkanBackend::new(options)
                    .map_err(|e| rpsl_effects::EffectRunError(e.to_string()))?;
                let mut runner = rpsl_effects::EffectRunner::new(backend, vec![link])?;
                runner.run(&picture, None)
            })();
            eprintln!(
                "{} fp16={fp16}: {} ({:.1?})",
                path.display(),
                match &result {
                    Ok(image) => format!("ok {}x{}", image.width, image.height),
                    Err(_) => "FAILED".to_string(),
                },
                started.elapsed()
            );
            if let Err(error) = result {
                failures.push(format!("[fp16={fp16}] {}: {error}", path.display()));
            }
        }
    }
    eprintln!(
        "ran {} of {variants} public effect variants validation-clean",
        variants - failures.len()
    );
    for failure in &failures {
        eprintln!("{failure}");
    }
    assert!(
        (variants - failures.len()) * 10 > variants * 9,
        "{} of {variants} variants failed",
        failures.len()
    );
}

fn main() {
    rpsl_shaders::child::serve_if_requested();
    let filter = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    let tests: [(&str, fn()); 3] = [
        ("every_public_effect_parses", every_public_effect_parses),
        ("every_public_effect_compiles", every_public_effect_compiles),
        (
            "nine_in_ten_public_effects_run_validation_clean",
            nine_in_ten_public_effects_run_validation_clean,
        ),
    ];
    for (name, test) in tests {
        if filter
            .as_deref()
            .is_some_and(|filter| !name.contains(filter))
        {
            continue;
        }
        eprintln!("test {name} ...");
        test();
        eprintln!("test {name} ... ok");
    }
}
