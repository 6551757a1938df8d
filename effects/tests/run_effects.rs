//! Our test effects run on Vulkan under the validation layer (synchronization validation on,
//! any message fails the frame): exact pixels read back from the GPU for small generated
//! inputs. Skipped without a Vulkan driver unless `RPSL_REQUIRE_VULKAN=1`.
//! `RPSL_UPDATE_GOLDEN=1` rewrites the golden PNGs of effects whose result is not computed here.

use std::path::{Path, PathBuf};

use rpsl_effects::{prepare_effect, EffectRunner, RgbaImage};
use rpsl_runtime::BackendError;
use rpsl_shaders::{CompilerOptions, ShaderCompiler};
use rpsl_vulkan::{read_png, write_png, VulkanBackend, VulkanOptions};

fn test_effects() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/effects")
}

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// A validating backend, or `None` (with a note) without a Vulkan driver.
fn backend() -> Option<VulkanBackend> {
    let options = VulkanOptions {
        validate: true,
        ..VulkanOptions::default()
    };
    match VulkanBackend::new(options) {
        Ok(backend) => Some(backend),
        Err(BackendError::NoDevice(message))
            if std::env::var("RPSL_REQUIRE_VULKAN").as_deref() != Ok("1") =>
        {
            eprintln!("skipping: no Vulkan driver on this machine ({message})");
            None
        }
        Err(error) => panic!("cannot create the Vulkan backend: {error}"),
    }
}

/// Runs the chain of `effects` (with `params` for every one) on `image`.
fn run_chain(
    effects: &[&str],
    params: &[(&str, f64)],
    fp16: bool,
    image: &RgbaImage,
    output: Option<[u32; 2]>,
) -> Option<RgbaImage> {
    let backend = backend()?;
    let compiler = ShaderCompiler::new(CompilerOptions::default());
    let params: Vec<(String, f64)> = params.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let links = effects
        .iter()
        .map(|name| {
            prepare_effect(&test_effects().join(name), &params, fp16, &compiler)
                .unwrap_or_else(|error| panic!("{error}"))
        })
        .collect();
    let mut runner = EffectRunner::new(backend, links).unwrap_or_else(|error| panic!("{error}"));
    Some(
        runner
            .run(image, output)
            .unwrap_or_else(|error| panic!("{error}")),
    )
}

/// A `width` x `height` image of distinct, even colours (multiples of 4), alpha 255 - 8x.
fn gradient(width: u32, height: u32) -> RgbaImage {
    let mut pixels = Vec::new();
    for y in 0..height {
        for x in 0..width {
            pixels.extend([
                (x * 40 + 4) as u8,
                (y * 48 + 8) as u8,
                ((x + y) * 20 + 12) as u8,
                (255 - 8 * x) as u8,
            ]);
        }
    }
    RgbaImage {
        width,
        height,
        pixels,
    }
}

#[test]
fn invert_flips_every_colour_channel() {
    let input = gradient(5, 3);
    let Some(output) = run_chain(&["Invert.hlsl"], &[], false, &input, None) else {
        return;
    };
    assert_eq!((output.width, output.height), (5, 3));
    let expected: Vec<u8> = input
        .pixels
        .chunks(4)
        .flat_map(|p| [255 - p[0], 255 - p[1], 255 - p[2], p[3]])
        .collect();
    assert_eq!(output.pixels, expected);
}

/// Tint lerps one channel towards `1 - strength / 2 / width` by `strength` (CS style, 12x10
/// blocks of 6x5 threads).
fn tinted(input: &RgbaImage, strength: f64, channel: usize) -> Vec<u8> {
    let target = 1.0 - strength * 0.5 / input.width as f64;
    input
        .pixels
        .chunks(4)
        .flat_map(|p| {
            let mut out = [p[0], p[1], p[2], p[3]];
            let value = p[channel] as f64 / 255.0;
            let mixed = value + (target - value) * strength;
            out[channel] = (mixed * 255.0).round() as u8;
            out
        })
        .collect()
}

#[test]
fn tint_runs_cs_blocks_that_are_not_powers_of_two() {
    // 13x11: the last blocks are partial in both directions.
    let input = gradient(13, 11);
    let Some(output) = run_chain(&["Tint.hlsl"], &[], false, &input, None) else {
        return;
    };
    assert_eq!(output.pixels, tinted(&input, 0.5, 2));
    let Some(output) = run_chain(
        &["Tint.hlsl"],
        &[("strength", 1.0), ("channel", 0.0)],
        false,
        &input,
        None,
    ) else {
        return;
    };
    assert_eq!(output.pixels, tinted(&input, 1.0, 0));
}

/// An IEEE half float as f64 (normal numbers and zero, as the test LUT holds).
fn half(bits: u16) -> f64 {
    if bits & 0x7fff == 0 {
        return 0.0;
    }
    let exponent = ((bits >> 10) & 0x1f) as i32 - 15;
    (1.0 + (bits & 0x3ff) as f64 / 1024.0) * 2f64.powi(exponent)
}

#[test]
fn lut_multiplies_by_png_and_dds_source_textures() {
    let input = gradient(6, 4);
    let Some(output) = run_chain(&["Lut.hlsl"], &[], false, &input, Some([6, 4])) else {
        return;
    };
    let lut = rpsl_effects::load_source_image(&test_effects().join("lut2x2.png")).unwrap();
    let dds = rpsl_effects::load_source_image(&test_effects().join("lut2x2_f16.dds")).unwrap();
    let mut expected = Vec::new();
    for y in 0..4usize {
        for x in 0..6usize {
            // Point sampling with wrapping: pixel (x, y) reads texel (x % 2, y % 2).
            let texel = (y % 2) * 2 + x % 2;
            for c in 0..4 {
                let value = input.pixels[(y * 6 + x) * 4 + c] as f64;
                let from_png = lut.data[texel * 4 + c] as f64 / 255.0;
                let at = (texel * 4 + c) * 2;
                let from_dds = half(u16::from_le_bytes([dds.data[at], dds.data[at + 1]]));
                expected.push((value * from_png * from_dds).round() as u8);
            }
        }
    }
    assert_eq!(output.pixels, expected);
}

/// Compares `image` with the golden PNG `name` (written instead with `RPSL_UPDATE_GOLDEN=1`).
fn assert_golden(image: &RgbaImage, name: &str) {
    let path = golden(name);
    if std::env::var("RPSL_UPDATE_GOLDEN").as_deref() == Ok("1") {
        write_png(&path, image.width, image.height, &image.pixels).unwrap();
    }
    let (width, height, pixels) = read_png(&path).unwrap();
    assert_eq!((image.width, image.height), (width, height));
    assert!(
        pixels == image.pixels,
        "{name} differs from the golden image"
    );
}

#[test]
fn multi_pass_mrt_effect_matches_its_golden_image_in_both_variants() {
    let input = gradient(5, 3);
    let Some(full) = run_chain(&["Mrt.hlsl"], &[("mixAmount", 1.0)], false, &input, None) else {
        return;
    };
    assert_eq!((full.width, full.height), (10, 6));
    assert_golden(&full, "Mrt.mix1.png");
    // Mix 0 is the bilinear upscale of the input (pass 3's linear-clamp sample) exactly where
    // the sample falls on texel centres of the doubled grid's corners.
    let Some(plain) = run_chain(&["Mrt.hlsl"], &[], true, &input, None) else {
        return;
    };
    assert_golden(&plain, "Mrt.mix0.png");
    let corner = |image: &RgbaImage, x: usize, y: usize| {
        image.pixels[(y * image.width as usize + x) * 4..][..3].to_vec()
    };
    assert_eq!(corner(&plain, 0, 0), corner(&input, 0, 0));
    assert_eq!(corner(&plain, 9, 5), corner(&input, 4, 2));
    assert!(plain.pixels.chunks(4).all(|p| p[3] == 255));
}

#[test]
fn a_chain_runs_effects_one_after_the_other() {
    // Invert twice is the identity on colour.
    let input = gradient(7, 5);
    let Some(output) = run_chain(&["Invert.hlsl", "Invert.hlsl"], &[], false, &input, None) else {
        return;
    };
    assert_eq!(output.pixels, input.pixels);
}

#[test]
fn block_compressed_dds_sources_upload_and_sample() {
    let folder = tempfile::tempdir().unwrap();
    // One BC1 block per 4x4 texels: both endpoints pure red (RGB565 0xf800), every index 0.
    let mut dds = ddsfile::Dds::new_dxgi(ddsfile::NewDxgiParams {
        height: 8,
        width: 8,
        depth: None,
        format: ddsfile::DxgiFormat::BC1_UNorm,
        mipmap_levels: None,
        array_layers: None,
        caps2: None,
        is_cubemap: false,
        resource_dimension: ddsfile::D3D10ResourceDimension::Texture2D,
        alpha_mode: ddsfile::AlphaMode::Straight,
    })
    .unwrap();
    for block in dds.get_mut_data(0).unwrap().chunks_mut(8) {
        block.copy_from_slice(&[0x00, 0xf8, 0x00, 0xf8, 0, 0, 0, 0]);
    }
    let mut file = std::fs::File::create(folder.path().join("red_bc1.dds")).unwrap();
    dds.write(&mut file).unwrap();
    let path = folder.path().join("Red.hlsl");
    std::fs::write(
        &path,
        "//!MAGPIE EFFECT\n//!VERSION 4\n//!TEXTURE\n//!SOURCE red_bc1.dds\nTexture2D red;\n\
         //!SAMPLER\n//!FILTER POINT\nSamplerState sam;\n//!PASS 1\n//!STYLE PS\n//!IN red\n\
         //!OUT OUTPUT\nfloat4 Pass1(float2 pos) { return red.SampleLevel(sam, pos, 0); }\n",
    )
    .unwrap();
    let Some(backend) = backend() else { return };
    let compiler = ShaderCompiler::new(CompilerOptions::default());
    let link = prepare_effect(&path, &[], false, &compiler).unwrap_or_else(|e| panic!("{e}"));
    let mut runner = EffectRunner::new(backend, vec![link]).unwrap_or_else(|e| panic!("{e}"));
    let output = runner
        .run(&gradient(3, 2), None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.pixels, [255, 0, 0, 255].repeat(6));
}
