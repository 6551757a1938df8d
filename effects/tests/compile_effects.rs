//! Our own test effects generate HLSL that compiles through rpsl-shaders, with the bindings,
//! thread-group sizes and constant-buffer size the generator promises.

use std::path::Path;

use rpsl_effects::{
    compile_effect, generate_passes, parse_effect_file, resolve_sizes, CompiledPass,
    ConstantLayout, Effect, PassBindings, PassVariant,
};
use rpsl_shaders::{CompilerOptions, DescriptorKind, ShaderCompiler};

fn parse(name: &str) -> Effect {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/effects")
        .join(name);
    parse_effect_file(&path).unwrap_or_else(|errors| panic!("{errors}"))
}

fn compile(effect: &Effect, fp16: bool) -> Vec<CompiledPass> {
    let compiler = ShaderCompiler::new(CompilerOptions::default());
    let variant = PassVariant {
        fp16,
        inline_params: None,
        debug: false,
    };
    compile_effect(effect, &variant, &compiler).unwrap_or_else(|error| panic!("{error}"))
}

/// (binding, name, kind, SPIR-V image format) of each descriptor, sorted by binding.
fn descriptors(pass: &CompiledPass) -> Vec<(u32, String, DescriptorKind, Option<u32>)> {
    let mut found: Vec<_> = pass
        .shader
        .reflection
        .descriptors
        .iter()
        .map(|d| {
            assert_eq!(d.set, 0);
            (
                d.binding,
                d.name.clone(),
                d.kind,
                d.image
                    .filter(|_| d.kind == DescriptorKind::StorageImage)
                    .map(|i| i.format),
            )
        })
        .collect();
    found.sort_by_key(|entry| entry.0);
    found
}

fn local_size(pass: &CompiledPass) -> Option<[u32; 3]> {
    pass.shader
        .reflection
        .entry_point("__main")
        .unwrap()
        .local_size
}

const RGBA8: Option<u32> = Some(4);
const RGBA16F: Option<u32> = Some(2);
const RG8: Option<u32> = Some(13);
const R11G11B10F: Option<u32> = Some(8);

fn d(
    binding: u32,
    name: &str,
    kind: DescriptorKind,
    format: Option<u32>,
) -> (u32, String, DescriptorKind, Option<u32>) {
    (binding, name.to_string(), kind, format)
}

#[test]
fn ps_effect_compiles_with_its_bindings() {
    let effect = parse("Invert.hlsl");
    let passes = compile(&effect, false);
    assert_eq!(passes.len(), 1);
    assert_eq!(local_size(&passes[0]), Some([64, 1, 1]));
    assert_eq!(
        passes[0].source.bindings,
        PassBindings {
            constants: 0,
            inputs: vec![1],
            outputs: vec![2],
            samplers: vec![3]
        }
    );
    use DescriptorKind::*;
    assert_eq!(
        descriptors(&passes[0]),
        vec![
            d(0, "__Constants", UniformBuffer, None),
            d(1, "INPUT", SampledImage, None),
            d(2, "OUTPUT", StorageImage, RGBA8),
            d(3, "sam", Sampler, None),
        ]
    );
}

#[test]
fn cs_effect_with_odd_sizes_compiles() {
    let effect = parse("Tint.hlsl");
    let passes = compile(&effect, false);
    assert_eq!(local_size(&passes[0]), Some([6, 5, 1]));
    assert_eq!(passes[0].source.block_size, [12, 10]);
    let source = &passes[0].source.source;
    assert!(source.contains("#define MP_BLOCK_WIDTH 12\n#define MP_BLOCK_HEIGHT 10\n"));
    assert!(source.contains("#define MP_NUM_THREADS_X 6\n#define MP_NUM_THREADS_Y 5\n"));
    assert!(!source.contains("MP_PS_STYLE"));
    // Global constants initialised from the constant buffer become macros.
    assert!(source.contains(
        "#define kLift ((float)(strength * 0.5))\n\
         #define kTarget ((float)(1.0 - kLift * GetOutputPt().x))\n"
    ));
    // The constant buffer: 5 predefined pairs (40 bytes), then `strength` and `channel`.
    let layout = ConstantLayout::of(&effect);
    let offsets: Vec<_> = layout
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.offset))
        .collect();
    assert_eq!(
        offsets,
        vec![
            ("__inputSize", 0),
            ("__outputSize", 8),
            ("__inputPt", 16),
            ("__outputPt", 24),
            ("__scale", 32),
            ("strength", 40),
            ("channel", 44),
        ]
    );
    assert_eq!(layout.size, 48);
    let block = passes[0]
        .shader
        .reflection
        .descriptors
        .iter()
        .find(|d| d.kind == DescriptorKind::UniformBuffer)
        .unwrap();
    assert_eq!(block.block_size, Some(48));
}

#[test]
fn constant_values_for_one_run() {
    let effect = parse("Tint.hlsl");
    let layout = ConstantLayout::of(&effect);
    let sizes = resolve_sizes(&effect, [4, 2], None).unwrap();
    // strength above its maximum is clamped to 1; channel 1.6 rounds to 2.
    let bytes = layout.fill(&effect, &sizes, &[3.0, 1.6]);
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let float = |at: usize| f32::from_bits(word(at));
    assert_eq!([word(0), word(4), word(8), word(12)], [4, 2, 4, 2]);
    assert_eq!(
        [float(16), float(20), float(24), float(28)],
        [0.25, 0.5, 0.25, 0.5]
    );
    assert_eq!([float(32), float(36)], [1.0, 1.0]);
    assert_eq!(float(40), 1.0);
    assert_eq!(word(44), 2);
    // Missing values take the defaults.
    let bytes = layout.fill(&effect, &sizes, &[]);
    assert_eq!(f32::from_le_bytes(bytes[40..44].try_into().unwrap()), 0.5);
}

#[test]
fn multi_pass_mrt_effect_compiles_in_both_precisions() {
    let effect = parse("Mrt.hlsl");
    use DescriptorKind::*;
    for fp16 in [false, true] {
        let passes = compile(&effect, fp16);
        assert_eq!(passes.len(), 3);
        assert_eq!(
            passes[0].source.source.contains("#define MP_FP16 1\n"),
            fp16
        );
        assert_eq!(
            descriptors(&passes[0]),
            vec![
                d(0, "__Constants", UniformBuffer, None),
                d(1, "INPUT", SampledImage, None),
                d(2, "luma", StorageImage, RGBA16F),
                d(3, "chroma", StorageImage, RG8),
                d(4, "pointClamp", Sampler, None),
            ]
        );
        // Render targets are `out MF4` parameters; pass 1 is bounded by its own output size.
        let entry = &passes[0].source.source;
        assert!(entry.contains(
            "\t\tif (__pixel.x >= __pass1OutputSize.x || __pixel.y >= __pass1OutputSize.y) \
             { continue; }\n\t\tconst float2 __pos = (float2(__pixel) + 0.5f) * __pass1OutputPt;\n\
             \t\tMF4 __target0;\n\t\tMF4 __target1;\n\t\tPass1(__pos, __target0, __target1);\n\
             \t\tluma[__pixel] = __target0;\n\t\tchroma[__pixel] = __target1;\n"
        ));
        // Every sampler has a binding; those a pass does not use are optimised away.
        assert_eq!(passes[0].source.bindings.samplers, [4, 5, 6, 7]);
        assert_eq!(local_size(&passes[1]), Some([64, 1, 1]));
        // Pass 2 lists INPUT but does not read it: the optimiser drops it, not its binding.
        assert_eq!(passes[1].source.bindings.inputs, [1, 2]);
        assert_eq!(
            descriptors(&passes[1]),
            vec![
                d(0, "__Constants", UniformBuffer, None),
                d(2, "luma", SampledImage, None),
                d(3, "detail", StorageImage, R11G11B10F),
                d(5, "linearWrap", Sampler, None),
                d(6, "pointWrap", Sampler, None),
            ]
        );
        assert_eq!(
            descriptors(&passes[2]),
            vec![
                d(0, "__Constants", UniformBuffer, None),
                d(1, "INPUT", SampledImage, None),
                d(2, "chroma", SampledImage, None),
                d(3, "detail", SampledImage, None),
                d(4, "OUTPUT", StorageImage, RGBA8),
                d(5, "pointClamp", Sampler, None),
                d(8, "linearClamp", Sampler, None),
            ]
        );
    }
    // Pass 1 is PS style and does not write OUTPUT: its output size has its own fields.
    let layout = ConstantLayout::of(&effect);
    let names: Vec<_> = layout
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.offset))
        .collect();
    assert_eq!(
        names[5..],
        [
            ("__pass1OutputSize", 40),
            ("__pass1OutputPt", 48),
            ("mixAmount", 56)
        ]
    );
}

#[test]
fn source_texture_effect_compiles() {
    let effect = parse("Lut.hlsl");
    let passes = compile(&effect, false);
    use DescriptorKind::*;
    assert_eq!(
        descriptors(&passes[0]),
        vec![
            d(0, "__Constants", UniformBuffer, None),
            d(1, "INPUT", SampledImage, None),
            d(2, "lut", SampledImage, None),
            d(3, "lutHalf", SampledImage, None),
            d(4, "OUTPUT", StorageImage, RGBA8),
            d(5, "sam", Sampler, None),
        ]
    );
}

#[test]
fn inlined_parameters_become_constants() {
    let effect = parse("Tint.hlsl");
    let variant = PassVariant {
        fp16: false,
        inline_params: Some(vec![0.25]),
        debug: true,
    };
    let source = &generate_passes(&effect, &variant)[0].source;
    assert!(source.contains("#define MP_INLINE_PARAMS 1\n#define MP_DEBUG 1\n"));
    assert!(source.contains("static const float strength = 0.25;\nstatic const int channel = 2;\n"));
    assert!(!source.contains("float strength : packoffset"));
    let compiler = ShaderCompiler::new(CompilerOptions::default());
    compile_effect(&effect, &variant, &compiler).unwrap();
}

#[test]
fn compile_errors_name_the_effect_file_and_line() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("Broken.hlsl");
    std::fs::write(
        &path,
        "//!MAGPIE EFFECT\n//!VERSION 4\n//!PASS 1\n//!DESC Broken\n//!STYLE PS\n//!IN INPUT\n\
         //!OUT OUTPUT\nfloat4 Pass1(float2 pos) {\n\treturn undefinedThing;\n}\n",
    )
    .unwrap();
    let effect = parse_effect_file(&path).unwrap();
    let compiler = ShaderCompiler::new(CompilerOptions::default());
    let error = compile_effect(&effect, &PassVariant::default(), &compiler).unwrap_err();
    let text = error.to_string();
    let expected_start = format!("{}: pass 1 (Broken) does not compile: ", path.display());
    assert!(text.starts_with(&expected_start), "{text}");
    assert!(
        text.contains(&format!(
            "{}:9: 'undefinedThing' : unknown variable",
            path.display()
        )),
        "{text}"
    );
}

#[test]
fn whole_source_of_a_ps_pass() {
    let effect = parse("Invert.hlsl");
    let source = &generate_passes(&effect, &PassVariant::default())[0];
    let effect_path = effect.path.display().to_string();
    assert_eq!(
        source.path.display().to_string(),
        format!("{effect_path}.pass1.comp.hlsl")
    );
    assert_eq!(
        source.source.replace(&effect_path, "EFFECT"),
        include_str!("golden/Invert.pass1.comp.hlsl")
    );
    // `#line` directives keep the effect's line numbers, then the generated file's own.
    let entry_line = source
        .source
        .lines()
        .position(|line| line.starts_with("[numthreads"));
    assert_eq!(entry_line, Some(54));
}
