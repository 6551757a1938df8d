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
                // The largest networks take long on a CPU driver under validation.
                let options = rpsl_vulkan::VulkanOptions {
                    validate: true,
                    fence_timeout: std::time::Duration::from_secs(180),
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

/// A 128x96 picture of anti-aliased shapes (4x4 supersampled): disks, thick lines, a soft
/// gradient behind them; `offset` shifts the scene (in pixels, both axes) under the pixel grid.
fn shapes_picture(offset: f64) -> rpsl_effects::RgbaImage {
    let (width, height) = (128u32, 96u32);
    let colour_at = |x: f64, y: f64| -> [f64; 3] {
        let mut colour = [0.2 + 0.5 * x / 128.0, 0.3, 0.6 - 0.4 * y / 96.0];
        let disks = [
            (30.0, 30.0, 18.0, [0.95, 0.85, 0.2]),
            (90.0, 60.0, 24.0, [0.1, 0.6, 0.9]),
            (70.0, 20.0, 9.0, [0.9, 0.2, 0.3]),
        ];
        for (cx, cy, r, c) in disks {
            if (x - cx).powi(2) + (y - cy).powi(2) < r * r {
                colour = c;
            }
        }
        // Thick lines: distance to y = 0.6 x + 50 and to x = 110 - 0.3 y.
        if ((0.6 * x - y + 50.0) / 1.166f64.sqrt()).abs() < 2.5 {
            colour = [0.05, 0.05, 0.05];
        }
        if (x - (110.0 - 0.3 * y)).abs() < 1.5 {
            colour = [1.0, 1.0, 1.0];
        }
        colour
    };
    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height {
        for x in 0..width {
            let mut sum = [0.0; 3];
            for sy in 0..4 {
                for sx in 0..4 {
                    let c = colour_at(
                        x as f64 + (sx as f64 + 0.5) / 4.0 + offset,
                        y as f64 + (sy as f64 + 0.5) / 4.0 + offset,
                    );
                    for i in 0..3 {
                        sum[i] += c[i] / 16.0;
                    }
                }
            }
            pixels.extend(sum.map(|v| (v * 255.0).round() as u8));
            pixels.push(255);
        }
    }
    rpsl_effects::RgbaImage {
        width,
        height,
        pixels,
    }
}

/// `image` halved by averaging 2x2 squares.
fn halve(image: &rpsl_effects::RgbaImage) -> rpsl_effects::RgbaImage {
    let (width, height) = (image.width / 2, image.height / 2);
    let at = |x: u32, y: u32, c: usize| image.pixels[((y * image.width + x) * 4) as usize + c];
    let mut pixels = Vec::new();
    for y in 0..height {
        for x in 0..width {
            for c in 0..4 {
                let sum: u32 = [(0, 0), (1, 0), (0, 1), (1, 1)]
                    .iter()
                    .map(|&(dx, dy)| at(2 * x + dx, 2 * y + dy, c) as u32)
                    .sum();
                pixels.push(((sum + 2) / 4) as u8);
            }
        }
    }
    rpsl_effects::RgbaImage {
        width,
        height,
        pixels,
    }
}

/// `image` doubled by bilinear interpolation between pixel centres (edges clamped).
fn bilinear_double(image: &rpsl_effects::RgbaImage) -> rpsl_effects::RgbaImage {
    let (width, height) = (image.width * 2, image.height * 2);
    let at = |x: i64, y: i64, c: usize| {
        let x = x.clamp(0, image.width as i64 - 1) as u32;
        let y = y.clamp(0, image.height as i64 - 1) as u32;
        image.pixels[((y * image.width + x) * 4) as usize + c] as f64
    };
    let mut pixels = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let sx = (x as f64 + 0.5) / 2.0 - 0.5;
            let sy = (y as f64 + 0.5) / 2.0 - 0.5;
            let (x0, y0) = (sx.floor(), sy.floor());
            let (fx, fy) = (sx - x0, sy - y0);
            let (x0, y0) = (x0 as i64, y0 as i64);
            for c in 0..4 {
                let top = at(x0, y0, c) * (1.0 - fx) + at(x0 + 1, y0, c) * fx;
                let bottom = at(x0, y0 + 1, c) * (1.0 - fx) + at(x0 + 1, y0 + 1, c) * fx;
                pixels.push((top * (1.0 - fy) + bottom * fy).round() as u8);
            }
        }
    }
    rpsl_effects::RgbaImage {
        width,
        height,
        pixels,
    }
}

/// Peak signal-to-noise ratio (dB) of the colour channels of `a` against `b`.
fn psnr(a: &rpsl_effects::RgbaImage, b: &rpsl_effects::RgbaImage) -> f64 {
    let mut error = 0.0;
    let mut count = 0.0;
    for (pa, pb) in a.pixels.chunks(4).zip(b.pixels.chunks(4)) {
        for c in 0..3 {
            error += (pa[c] as f64 - pb[c] as f64).powi(2);
            count += 1.0;
        }
    }
    10.0 * (255.0f64.powi(2) / (error / count).max(1e-9)).log10()
}

/// Whether an effect is one of mpv's luma doublers as ported (NNEDI3, RAVU without Lite or
/// Zoom): they write source pixel k to output pixel 2k, so their result sits half an output
/// pixel off (mpv shifts it back when it scales further); they are compared with the original
/// rendered with that registration.
fn half_pixel_registered(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let name = name.unwrap_or_default();
    name.starts_with("NNEDI3_")
        || (name.starts_with("RAVU_R") && name.as_bytes().get(6).is_some_and(u8::is_ascii_digit))
}

/// Whether an effect is a pixel-art scaler (hard edges by design, not a reconstruction).
fn pixel_art(path: &Path) -> bool {
    path.display().to_string().contains("Pixel Art")
}

/// Every 2x upscaler of the collection (an effect whose output is twice its input), fed the
/// half-size picture, comes back closer to the original than a bilinear upscale (PSNR; mpv's
/// doublers against the original with their half-pixel registration; pixel-art scalers are
/// reported, not judged).
fn two_x_upscalers_beat_bilinear() {
    let Some(folder) = std::env::var_os("RPSL_MAGPIE_EFFECTS") else {
        eprintln!("RPSL_MAGPIE_EFFECTS is not set: skipped");
        return;
    };
    let compiler = collection_compiler();
    let original = shapes_picture(0.0);
    let registered = shapes_picture(0.5);
    let half = halve(&original);
    let baseline = psnr(&bilinear_double(&half), &original);
    eprintln!("bilinear: {baseline:.2} dB");
    let mut upscalers = 0;
    let mut worse = Vec::new();
    for path in effect_files(Path::new(&folder)) {
        let effect = rpsl_effects::parse_effect_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let doubles = rpsl_effects::resolve_sizes(&effect, [half.width, half.height], None)
            .is_ok_and(|sizes| sizes.output == [original.width, original.height]);
        if !doubles {
            continue;
        }
        upscalers += 1;
        let result = (|| {
            let link = rpsl_effects::prepare_effect(&path, &[], false, &compiler)?;
            let options = rpsl_vulkan::VulkanOptions {
                fence_timeout: std::time::Duration::from_secs(180),
                ..Default::default()
            };
            let backend = rpsl_vulkan::VulkanBackend::new(options)
                .map_err(|e| rpsl_effects::EffectRunError(e.to_string()))?;
            let mut runner = rpsl_effects::EffectRunner::new(backend, vec![link])?;
            runner.run(&half, None)
        })();
        match result {
            Ok(upscaled) if pixel_art(&path) => {
                let score = psnr(&upscaled, &original);
                eprintln!("{}: {score:.2} dB (pixel art: not judged)", path.display());
                upscalers -= 1;
            }
            Ok(upscaled) => {
                let reference = if half_pixel_registered(&path) {
                    &registered
                } else {
                    &original
                };
                let score = psnr(&upscaled, reference);
                eprintln!("{}: {score:.2} dB", path.display());
                if score <= baseline {
                    worse.push(format!("{}: {score:.2} dB", path.display()));
                }
            }
            Err(error) => worse.push(format!("{}: {error}", path.display())),
        }
    }
    eprintln!(
        "{} of {upscalers} 2x upscalers beat bilinear ({baseline:.2} dB)",
        upscalers - worse.len()
    );
    assert!(worse.is_empty(), "{}", worse.join("\n"));
}

fn main() {
    rpsl_shaders::child::serve_if_requested();
    let filter = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    let tests: [(&str, fn()); 4] = [
        ("every_public_effect_parses", every_public_effect_parses),
        ("every_public_effect_compiles", every_public_effect_compiles),
        (
            "nine_in_ten_public_effects_run_validation_clean",
            nine_in_ten_public_effects_run_validation_clean,
        ),
        (
            "two_x_upscalers_beat_bilinear",
            two_x_upscalers_beat_bilinear,
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
