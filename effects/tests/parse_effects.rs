//! Our own test effects (tests/effects/, written for rpsl from the format description) parse into
//! exactly the expected typed effects.

use std::path::{Path, PathBuf};

use rpsl_effects::{
    parse_effect_file, resolve_sizes, AddressMode, Effect, Filter, ParamType, PassStyle, SizeError,
    TextureFormat, TextureRole,
};

fn test_effect(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/effects")
        .join(name)
}

fn parse(name: &str) -> Effect {
    parse_effect_file(&test_effect(name)).unwrap_or_else(|errors| panic!("{errors}"))
}

fn texture_names(effect: &Effect, indices: &[usize]) -> Vec<String> {
    indices
        .iter()
        .map(|&index| effect.textures[index].name.clone())
        .collect()
}

#[test]
fn single_ps_pass_with_implied_output() {
    let effect = parse("Invert.hlsl");
    assert_eq!(effect.sort_name, None);
    assert!(!effect.uses_mul_add && !effect.supports_fp16);
    assert!(effect.params.is_empty());
    let roles: Vec<_> = effect
        .textures
        .iter()
        .map(|t| (t.name.as_str(), t.role))
        .collect();
    assert_eq!(
        roles,
        vec![
            ("INPUT", TextureRole::Input),
            ("OUTPUT", TextureRole::Output)
        ]
    );
    assert!(effect.textures[0].span.is_some(), "INPUT is declared");
    assert!(effect.textures[1].span.is_none(), "OUTPUT is implied");
    assert_eq!(effect.output_size(), None);
    assert_eq!(effect.samplers.len(), 1);
    assert_eq!(
        (effect.samplers[0].filter, effect.samplers[0].address),
        (Filter::Point, AddressMode::Clamp)
    );
    assert_eq!(effect.passes.len(), 1);
    let pass = &effect.passes[0];
    assert_eq!(pass.style, PassStyle::Ps);
    assert_eq!(texture_names(&effect, &pass.inputs), ["INPUT"]);
    assert_eq!(texture_names(&effect, &pass.outputs), ["OUTPUT"]);
    assert_eq!(pass.entry_name(), "Pass1");
    // The pass's HLSL starts on the line after `//!PASS 1` (line 14); its directive lines are
    // kept as blank lines, so line numbers stay those of the file.
    assert_eq!(pass.hlsl.first_line, 15);
    assert_eq!(
        pass.hlsl.text,
        "\n\n\n\nfloat4 Pass1(float2 pos) {\n\tfloat4 color = INPUT.SampleLevel(sam, pos, 0);\n\
         \treturn float4(1 - color.rgb, color.a);\n}\n"
    );
    // Any output size can be asked for.
    let sizes = resolve_sizes(&effect, [10, 20], Some([30, 40])).unwrap();
    assert_eq!(sizes.output, [30, 40]);
    assert_eq!(
        resolve_sizes(&effect, [10, 20], None),
        Err(SizeError::OutputSizeNeeded)
    );
}

#[test]
fn cs_pass_with_parameters() {
    let effect = parse("Tint.hlsl");
    assert_eq!(effect.sort_name.as_deref(), Some("tint-cs"));
    let params: Vec<_> = effect
        .params
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.ty,
                p.label.as_deref(),
                [p.default, p.min, p.max, p.step],
            )
        })
        .collect();
    assert_eq!(
        params,
        vec![
            (
                "strength",
                ParamType::Float,
                Some("Strength"),
                [0.5, 0.0, 1.0, 0.05]
            ),
            (
                "channel",
                ParamType::Int,
                Some("Channel"),
                [2.0, 0.0, 2.0, 1.0]
            ),
        ]
    );
    let pass = &effect.passes[0];
    assert_eq!(pass.desc.as_deref(), Some("Tint one channel"));
    assert_eq!(
        pass.style,
        PassStyle::Cs {
            block_size: [12, 10],
            num_threads: [6, 5, 1]
        }
    );
    let sizes = resolve_sizes(&effect, [33, 7], Some([1, 1])).unwrap();
    assert_eq!(sizes.output, [33, 7], "a fixed output size wins");
}

#[test]
fn multi_pass_mrt_effect() {
    let effect = parse("Mrt.hlsl");
    assert!(effect.uses_mul_add && effect.supports_fp16);
    let textures: Vec<_> = effect
        .textures
        .iter()
        .map(|t| (t.name.as_str(), t.role, t.effective_format()))
        .collect();
    assert_eq!(
        textures,
        vec![
            (
                "INPUT",
                TextureRole::Input,
                Some(TextureFormat::R8G8B8A8Unorm)
            ),
            (
                "OUTPUT",
                TextureRole::Output,
                Some(TextureFormat::R8G8B8A8Unorm)
            ),
            (
                "luma",
                TextureRole::Intermediate,
                Some(TextureFormat::R16G16B16A16Float)
            ),
            (
                "chroma",
                TextureRole::Intermediate,
                Some(TextureFormat::R8G8Unorm)
            ),
            (
                "detail",
                TextureRole::Intermediate,
                Some(TextureFormat::R11G11B10Float)
            ),
        ]
    );
    let samplers: Vec<_> = effect
        .samplers
        .iter()
        .map(|s| (s.name.as_str(), s.filter, s.address))
        .collect();
    assert_eq!(
        samplers,
        vec![
            ("pointClamp", Filter::Point, AddressMode::Clamp),
            ("linearWrap", Filter::Linear, AddressMode::Wrap),
            ("pointWrap", Filter::Point, AddressMode::Wrap),
            ("linearClamp", Filter::Linear, AddressMode::Clamp),
        ]
    );
    let passes: Vec<_> = effect
        .passes
        .iter()
        .map(|p| {
            (
                p.desc.clone().unwrap(),
                texture_names(&effect, &p.inputs),
                texture_names(&effect, &p.outputs),
            )
        })
        .collect();
    let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        passes,
        vec![
            (
                "Split".to_string(),
                names(&["INPUT"]),
                names(&["luma", "chroma"])
            ),
            (
                "Detail".to_string(),
                names(&["INPUT", "luma"]),
                names(&["detail"])
            ),
            (
                "Merge".to_string(),
                names(&["INPUT", "chroma", "detail"]),
                names(&["OUTPUT"])
            ),
        ]
    );
    // The include is expanded between `#line` directives that name both files.
    let common = &effect.common_hlsl[0].text;
    let effect_path = test_effect("Mrt.hlsl").display().to_string();
    let include_path = test_effect("lib/blend.hlsli").display().to_string();
    assert!(
        common.starts_with(&format!(
            "#line 1 \"{include_path}\"\n// Written for rpsl's tests; included by Mrt.hlsl \
             from its COMMON block.\nMF3 Blend(MF3 a, MF3 b, MF t) {{\n\treturn lerp(a, b, t);\n}}\n\
             #line 63 \"{effect_path}\"\n\nstatic const MF3x3 TO_YUV"
        )),
        "{common}"
    );
    // The files an edit of which changes the effect: itself, then its include.
    assert_eq!(
        effect.files,
        [test_effect("Mrt.hlsl"), test_effect("lib/blend.hlsli")]
    );
    // Sizes: OUTPUT is twice the input; `detail` is sized from the output.
    let sizes = resolve_sizes(&effect, [5, 3], None).unwrap();
    assert_eq!(sizes.output, [10, 6]);
    assert_eq!(
        sizes.textures,
        vec![
            Some([5, 3]),
            Some([10, 6]),
            Some([5, 3]),
            Some([5, 3]),
            Some([6, 4])
        ]
    );
    // 10 / 2 + 1 = 6; (6 + 1) / 2 = 3.5, rounded to 4.
}

#[test]
fn source_texture_is_resolved_in_the_effect_folder() {
    let effect = parse("Lut.hlsl");
    let (index, lut) = effect.texture("lut").unwrap();
    assert_eq!(index, 2);
    assert_eq!(lut.role, TextureRole::Source);
    assert_eq!(lut.format, Some(TextureFormat::R8G8B8A8Unorm));
    assert_eq!(
        lut.source.as_deref(),
        Some(test_effect("lut2x2.png").canonicalize().unwrap().as_path())
    );
    let (index_half, half) = effect.texture("lutHalf").unwrap();
    assert_eq!(index_half, 3);
    assert_eq!(half.role, TextureRole::Source);
    assert_eq!(half.format, Some(TextureFormat::R16G16B16A16Float));
    assert_eq!(
        half.source.as_deref(),
        Some(
            test_effect("lut2x2_f16.dds")
                .canonicalize()
                .unwrap()
                .as_path()
        )
    );
    assert_eq!(
        texture_names(&effect, &effect.passes[0].inputs),
        ["INPUT", "lut", "lutHalf"]
    );
    let sizes = resolve_sizes(&effect, [4, 4], Some([8, 8])).unwrap();
    assert_eq!(sizes.textures[index], None, "sized by its file");
    assert_eq!(sizes.textures[index_half], None, "sized by its file");
}
