//! One test per rule of the effect format: the whole first line of each diagnostic
//! (`PATH:LINE:COL: error: MESSAGE`), with the effect written into a temporary folder.

use std::path::Path;

/// Writes `files` (name, text) into a fresh folder, parses `E.hlsl` from it and returns the
/// headlines with the folder's path removed.
fn headlines_with(files: &[(&str, &str)], effect: &str) -> Vec<String> {
    let folder = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = folder.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let path = folder.path().join("fx").join("E.hlsl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, effect).unwrap();
    let errors = rpsl_effects::parse_effect_file(&path).expect_err("the effect must be rejected");
    let prefix = format!("{}/", folder.path().display());
    errors
        .headlines()
        .into_iter()
        .map(|line| line.replace(&prefix, ""))
        .collect()
}

fn headlines(effect: &str) -> Vec<String> {
    headlines_with(&[], effect)
}

const HEADER: &str = "//!MAGPIE EFFECT\n//!VERSION 4\n";
const ONE_PASS: &str = "//!PASS 1\n//!STYLE PS\n//!IN INPUT\n//!OUT OUTPUT\n\
                        float4 Pass1(float2 pos) { return 1; }\n";

fn effect(middle: &str) -> String {
    format!("{HEADER}{middle}{ONE_PASS}")
}

macro_rules! rejects {
    ($($name:ident: $source:expr => $expected:expr;)*) => {
        $(
            #[test]
            fn $name() {
                assert_eq!(headlines(&$source), vec![$expected.to_string()]);
            }
        )*
    };
}

rejects! {
    no_magpie_line: "// just a comment\n" =>
        "fx/E.hlsl:1:1: error: not a MagpieFX effect: it has no `//!MAGPIE EFFECT` line";
    code_before_magpie_line: "float x;\n//!MAGPIE EFFECT\n" =>
        "fx/E.hlsl:1:1: error: not a MagpieFX effect: `//!MAGPIE EFFECT` must come before any HLSL";
    other_first_directive: "//!VERSION 4\n" =>
        "fx/E.hlsl:1:1: error: not a MagpieFX effect: the first directive must be `//!MAGPIE EFFECT`";
    missing_version: "//!MAGPIE EFFECT\n//!PASS 1\n" =>
        "fx/E.hlsl:1:1: error: `//!MAGPIE EFFECT` must be followed by `//!VERSION 4`";
    unsupported_version: "//!MAGPIE EFFECT\n//!VERSION 3\n" =>
        "fx/E.hlsl:2:12: error: unsupported effect format version 3 (this reader reads version 4)";
    version_not_a_number: "//!MAGPIE EFFECT\n//!VERSION four\n" =>
        "fx/E.hlsl:2:12: error: `//!VERSION` takes a number, not `four`";
    duplicate_version: effect("//!VERSION 4\n") =>
        "fx/E.hlsl:3:1: error: duplicate `//!VERSION`";
    unknown_use: effect("//!USE MulAdd, Dynamic\n") =>
        "fx/E.hlsl:3:16: error: unknown `//!USE` value `Dynamic` (expected MulAdd)";
    unknown_capability: effect("//!CAPABILITY FP64\n") =>
        "fx/E.hlsl:3:15: error: unknown `//!CAPABILITY` value `FP64` (expected FP16)";
    empty_sort_name: effect("//!SORT_NAME\n") =>
        "fx/E.hlsl:3:1: error: `//!SORT_NAME` needs a name";
    duplicate_sort_name: effect("//!SORT_NAME a\n//!SORT_NAME b\n") =>
        "fx/E.hlsl:4:1: error: duplicate `//!SORT_NAME`";
    header_directive_in_a_block: effect("//!COMMON\n//!USE MulAdd\n") =>
        "fx/E.hlsl:4:1: error: `//!USE` belongs in the header, before the first block";
    unknown_directive: effect("//!COMMON\n//!SHARPEN 2\n") =>
        "fx/E.hlsl:4:1: error: unknown directive `//!SHARPEN`";
    sub_directive_outside_blocks: effect("//!FILTER POINT\n") =>
        "fx/E.hlsl:3:1: error: `//!FILTER` belongs in a `//!SAMPLER` block";
    sub_directive_in_the_wrong_block: effect("//!TEXTURE\n//!FILTER POINT\nTexture2D t;\n") =>
        "fx/E.hlsl:4:1: error: `//!FILTER` belongs in a `//!SAMPLER` block, not in a `//!TEXTURE` block";
    duplicate_sub_directive: effect("//!SAMPLER\n//!FILTER POINT\n//!FILTER LINEAR\nSamplerState s;\n") =>
        "fx/E.hlsl:5:1: error: duplicate `//!FILTER`";
    block_with_arguments: effect("//!COMMON 1\n") =>
        "fx/E.hlsl:3:11: error: `//!COMMON` takes no arguments";
    code_outside_blocks: effect("float x;\n") =>
        "fx/E.hlsl:3:1: error: HLSL outside a block: code belongs after `//!COMMON` or `//!PASS`";
    no_pass: format!("{HEADER}//!COMMON\n") =>
        "fx/E.hlsl:3:10: error: the effect has no `//!PASS`";

    parameter_without_declaration: effect("//!PARAMETER\n//!DEFAULT 1\n//!MIN 0\n//!MAX 1\n//!STEP 1\n") =>
        "fx/E.hlsl:3:1: error: expected the declaration `float NAME;` or `int NAME;` after `//!PARAMETER`";
    parameter_of_another_type: effect("//!PARAMETER\n//!DEFAULT 1\n//!MIN 0\n//!MAX 1\n//!STEP 1\nbool on;\n") =>
        "fx/E.hlsl:8:1: error: expected the declaration `float NAME;` or `int NAME;` after `//!PARAMETER`";
    parameter_without_semicolon: effect("//!PARAMETER\n//!DEFAULT 1\n//!MIN 0\n//!MAX 1\n//!STEP 1\nfloat a\n") =>
        "fx/E.hlsl:3:1: error: expected the declaration `float NAME;` or `int NAME;` after `//!PARAMETER`";
    two_declarations_in_a_block: effect("//!PARAMETER\n//!DEFAULT 1\n//!MIN 0\n//!MAX 1\n//!STEP 1\nfloat a; float b;\n") =>
        "fx/E.hlsl:8:10: error: a `//!PARAMETER` block holds one declaration; move other HLSL to `//!COMMON`";
    parameter_missing_step: effect("//!PARAMETER\n//!DEFAULT 1\n//!MIN 0\n//!MAX 1\nfloat a;\n") =>
        "fx/E.hlsl:7:7: error: parameter `a` needs `//!STEP`";
    parameter_value_not_a_number: effect("//!PARAMETER\n//!DEFAULT one\n//!MIN 0\n//!MAX 1\n//!STEP 1\nfloat a;\n") =>
        "fx/E.hlsl:4:12: error: `//!DEFAULT` takes a number, not `one`";
    int_parameter_with_a_fraction: effect("//!PARAMETER\n//!DEFAULT 1\n//!MIN 0\n//!MAX 2\n//!STEP 0.5\nint n;\n") =>
        "fx/E.hlsl:7:9: error: `//!STEP` of the int parameter `n` must be a whole number";
    parameter_min_above_max: effect("//!PARAMETER\n//!DEFAULT 1\n//!MIN 3\n//!MAX 2\n//!STEP 1\nfloat a;\n") =>
        "fx/E.hlsl:5:8: error: parameter `a`: `//!MIN` 3 is above `//!MAX` 2";
    parameter_default_outside_bounds: effect("//!PARAMETER\n//!DEFAULT 5\n//!MIN 0\n//!MAX 2\n//!STEP 1\nfloat a;\n") =>
        "fx/E.hlsl:4:12: error: parameter `a`: `//!DEFAULT` 5 is outside 0..=2";
    parameter_step_not_positive: effect("//!PARAMETER\n//!DEFAULT 1\n//!MIN 0\n//!MAX 2\n//!STEP 0\nfloat a;\n") =>
        "fx/E.hlsl:7:9: error: parameter `a`: `//!STEP` must be above 0";
    reserved_name: effect("//!SAMPLER\n//!FILTER POINT\nSamplerState __s;\n") =>
        "fx/E.hlsl:5:14: error: `__s`: names starting with `__` are reserved";

    texture_declared_twice: effect("//!TEXTURE\nTexture2D INPUT;\n//!TEXTURE\nTexture2D INPUT;\n") =>
        "fx/E.hlsl:6:11: error: `INPUT` is already declared";
    name_shared_by_sampler_and_texture: effect("//!SAMPLER\n//!FILTER POINT\nSamplerState s;\n//!TEXTURE\n//!SOURCE E.hlsl\nTexture2D s;\n") =>
        "fx/E.hlsl:8:11: error: `s` is already declared";
    texture_of_another_type: effect("//!TEXTURE\nTexture3D t;\n") =>
        "fx/E.hlsl:4:1: error: expected the declaration `Texture2D NAME;` after `//!TEXTURE`";
    input_with_a_size: effect("//!TEXTURE\n//!WIDTH 4\nTexture2D INPUT;\n") =>
        "fx/E.hlsl:4:1: error: INPUT takes no `//!WIDTH`: it is the image the effect is applied to (R8G8B8A8_UNORM, its size)";
    output_with_a_source: effect("//!TEXTURE\n//!SOURCE a.png\nTexture2D OUTPUT;\n") =>
        "fx/E.hlsl:4:1: error: OUTPUT takes no `//!SOURCE`: it is what the effect writes";
    output_with_an_unknown_format: effect("//!TEXTURE\n//!FORMAT R16_TYPELESS\nTexture2D OUTPUT;\n") =>
        "fx/E.hlsl:4:11: error: unknown texture format `R16_TYPELESS`";
    output_with_width_only: effect("//!TEXTURE\n//!WIDTH INPUT_WIDTH\nTexture2D OUTPUT;\n") =>
        "fx/E.hlsl:4:1: error: OUTPUT has `//!WIDTH` but no `//!HEIGHT`";
    output_sized_by_itself: effect("//!TEXTURE\n//!WIDTH OUTPUT_WIDTH\n//!HEIGHT INPUT_HEIGHT\nTexture2D OUTPUT;\n") =>
        "fx/E.hlsl:4:10: error: OUTPUT's size cannot use OUTPUT_WIDTH or OUTPUT_HEIGHT";
    texture_without_size: effect("//!TEXTURE\n//!FORMAT R8_UNORM\nTexture2D t;\n") =>
        "fx/E.hlsl:5:11: error: texture `t` needs `//!WIDTH` and `//!HEIGHT` (or `//!SOURCE`)";
    texture_without_format: effect("//!TEXTURE\n//!WIDTH 4\n//!HEIGHT 4\nTexture2D t;\n") =>
        "fx/E.hlsl:6:11: error: texture `t` needs `//!FORMAT`";
    unknown_format: effect("//!TEXTURE\n//!WIDTH 4\n//!HEIGHT 4\n//!FORMAT B8G8R8A8_UNORM\nTexture2D t;\n") =>
        "fx/E.hlsl:6:11: error: unknown texture format `B8G8R8A8_UNORM`";
    size_expression_with_unknown_name: effect("//!TEXTURE\n//!WIDTH INPUT_WIDTH * SCALE\n//!HEIGHT 4\n//!FORMAT R8_UNORM\nTexture2D t;\n") =>
        "fx/E.hlsl:4:24: error: unknown name `SCALE` in size expression (expected INPUT_WIDTH, INPUT_HEIGHT, OUTPUT_WIDTH or OUTPUT_HEIGHT)";
    empty_size_expression: effect("//!TEXTURE\n//!WIDTH\n//!HEIGHT 4\n//!FORMAT R8_UNORM\nTexture2D t;\n") =>
        "fx/E.hlsl:4:1: error: expected a size expression";
    source_texture_with_a_size: effect("//!TEXTURE\n//!SOURCE lut.png\n//!WIDTH 4\nTexture2D t;\n") =>
        "fx/E.hlsl:5:1: error: texture `t` is loaded from a file (`//!SOURCE`): its size is the file's, so it takes no `//!WIDTH`";
    source_of_unknown_kind: effect("//!TEXTURE\n//!SOURCE lut.exr\nTexture2D t;\n") =>
        "fx/E.hlsl:4:11: error: `//!SOURCE` reads PNG, BMP, JPG or DDS files, not `lut.exr`";
    missing_source_file: effect("//!TEXTURE\n//!SOURCE lut.png\nTexture2D t;\n") =>
        "fx/E.hlsl:4:11: error: cannot find texture file `lut.png`";

    sampler_without_filter: effect("//!SAMPLER\n//!ADDRESS WRAP\nSamplerState s;\n") =>
        "fx/E.hlsl:5:14: error: sampler `s` needs `//!FILTER` (LINEAR or POINT)";
    unknown_filter: effect("//!SAMPLER\n//!FILTER ANISOTROPIC\nSamplerState s;\n") =>
        "fx/E.hlsl:4:11: error: unknown filter `ANISOTROPIC` (expected LINEAR or POINT)";
    unknown_address_mode: effect("//!SAMPLER\n//!FILTER POINT\n//!ADDRESS MIRROR\nSamplerState s;\n") =>
        "fx/E.hlsl:5:12: error: unknown address mode `MIRROR` (expected CLAMP or WRAP)";

    pass_numbered_out_of_order: format!("{HEADER}//!PASS 2\n//!STYLE PS\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:3:9: error: passes are numbered from 1 in order: expected `//!PASS 1`";
    pass_without_output: format!("{HEADER}//!PASS 1\n//!STYLE PS\n//!IN INPUT\n") =>
        "fx/E.hlsl:3:1: error: pass 1 needs `//!OUT`";
    cs_pass_without_block_size: format!("{HEADER}//!PASS 1\n//!NUM_THREADS 64\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:3:1: error: pass 1 needs `//!BLOCK_SIZE` (or `//!STYLE PS`)";
    cs_pass_without_thread_count: format!("{HEADER}//!PASS 1\n//!BLOCK_SIZE 8\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:3:1: error: pass 1 needs `//!NUM_THREADS` (or `//!STYLE PS`)";
    ps_pass_with_block_size: format!("{HEADER}//!PASS 1\n//!STYLE PS\n//!BLOCK_SIZE 8\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:5:1: error: `//!BLOCK_SIZE` does not apply to `//!STYLE PS` passes (they run 16x16 blocks of 64 threads)";
    unknown_style: format!("{HEADER}//!PASS 1\n//!STYLE VS\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:4:10: error: unknown pass style `VS` (expected PS or CS)";
    block_size_with_three_values: format!("{HEADER}//!PASS 1\n//!BLOCK_SIZE 8, 8, 8\n//!NUM_THREADS 64\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:4:15: error: `//!BLOCK_SIZE` takes one or two sizes: `WIDTH[, HEIGHT]`";
    zero_thread_count: format!("{HEADER}//!PASS 1\n//!BLOCK_SIZE 8\n//!NUM_THREADS 64, 0\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:5:20: error: `//!NUM_THREADS` sizes are whole numbers of at least 1, not `0`";
    too_many_threads: format!("{HEADER}//!PASS 1\n//!BLOCK_SIZE 8\n//!NUM_THREADS 64, 32\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:5:16: error: pass 1 asks for 2048 threads per group (z 1); at most 1024 in all and 64 in z";
    unknown_texture_in_pass: format!("{HEADER}//!PASS 1\n//!STYLE PS\n//!IN INPUT, tex9\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:5:14: error: unknown texture `tex9` in `//!IN`";
    texture_listed_twice: format!("{HEADER}//!PASS 1\n//!STYLE PS\n//!IN INPUT, INPUT\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:5:14: error: `INPUT` is listed twice in `//!IN`";
    empty_input_list: format!("{HEADER}//!PASS 1\n//!STYLE PS\n//!IN\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:5:1: error: `//!IN` needs texture names";
    input_as_output: format!("{HEADER}//!PASS 1\n//!STYLE PS\n//!OUT INPUT\n//!PASS 2\n//!STYLE PS\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:5:8: error: INPUT cannot be a pass output";
    output_as_input: format!("{HEADER}//!PASS 1\n//!STYLE PS\n//!IN OUTPUT\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:5:7: error: OUTPUT cannot be a pass input";
    output_written_early: format!("{HEADER}//!PASS 1\n//!STYLE PS\n//!OUT OUTPUT\n//!PASS 2\n//!STYLE PS\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:5:8: error: only the last pass may write OUTPUT, not pass 1";
    last_pass_writing_another_texture: effect_with_texture("//!PASS 1\n//!STYLE PS\n//!OUT OUTPUT, t\n") =>
        "fx/E.hlsl:10:16: error: the last pass writes OUTPUT only, not `t`";
    last_pass_not_writing_output: effect_with_texture("//!PASS 1\n//!STYLE PS\n//!OUT t\n") =>
        "fx/E.hlsl:10:8: error: the last pass must write OUTPUT";
    pass_reading_what_it_writes: effect_with_texture("//!PASS 1\n//!STYLE PS\n//!IN t\n//!OUT t\n//!PASS 2\n//!STYLE PS\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:10:7: error: pass 1 both reads and writes `t`";
    pass_reading_an_unwritten_texture: effect_with_texture("//!PASS 1\n//!STYLE PS\n//!IN t\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:10:7: error: pass 1 reads `t`, which no earlier pass writes";
    source_texture_as_output: format!("{HEADER}//!TEXTURE\n//!SOURCE E.hlsl.png\nTexture2D lut;\n//!PASS 1\n//!STYLE PS\n//!OUT lut\n//!PASS 2\n//!STYLE PS\n//!OUT OUTPUT\n") =>
        "fx/E.hlsl:4:11: error: cannot find texture file `E.hlsl.png`";
    too_many_outputs: many_outputs() =>
        "fx/E.hlsl:50:8: error: pass 1 writes 9 textures; at most 8";
}

fn effect_with_texture(passes: &str) -> String {
    format!(
        "{HEADER}//!TEXTURE\n//!WIDTH 4\n//!HEIGHT 4\n//!FORMAT R8_UNORM\nTexture2D t;\n{passes}"
    )
}

fn many_outputs() -> String {
    let mut text = HEADER.to_string();
    let names: Vec<String> = (0..9).map(|i| format!("t{i}")).collect();
    for name in &names {
        text.push_str(&format!(
            "//!TEXTURE\n//!WIDTH 4\n//!HEIGHT 4\n//!FORMAT R8_UNORM\nTexture2D {name};\n"
        ));
    }
    text.push_str(&format!(
        "//!PASS 1\n//!STYLE PS\n//!OUT {}\n//!PASS 2\n//!STYLE PS\n//!OUT OUTPUT\n",
        names.join(", ")
    ));
    text
}

#[test]
fn source_texture_cannot_be_an_output() {
    let source = format!(
        "{HEADER}//!TEXTURE\n//!SOURCE lut.png\nTexture2D lut;\n//!PASS 1\n//!STYLE PS\n\
         //!OUT lut\n//!PASS 2\n//!STYLE PS\n//!OUT OUTPUT\n"
    );
    assert_eq!(
        headlines_with(&[("fx/lut.png", "not really a png")], &source),
        vec!["fx/E.hlsl:8:8: error: `lut` is loaded from a file (`//!SOURCE`) and cannot be a pass output"]
    );
}

#[test]
fn source_texture_outside_the_folder() {
    let source = effect("//!TEXTURE\n//!SOURCE ../lut.png\nTexture2D lut;\n");
    assert_eq!(
        headlines_with(&[("lut.png", "x")], &source),
        vec!["fx/E.hlsl:4:11: error: texture file `../lut.png` lies outside the effect's folder"]
    );
}

#[test]
fn missing_include() {
    let source = effect("//!COMMON\n#include \"nothere.hlsli\"\n");
    assert_eq!(
        headlines(&source),
        vec!["fx/E.hlsl:4:11: error: cannot find include file `nothere.hlsli`"]
    );
}

#[test]
fn include_outside_the_folder() {
    let source = effect("//!COMMON\n#include \"../secret.hlsli\"\n");
    assert_eq!(
        headlines_with(&[("secret.hlsli", "float f;\n")], &source),
        vec!["fx/E.hlsl:4:11: error: include file `../secret.hlsli` lies outside the effect's folder"]
    );
}

#[test]
fn include_cycle_points_into_the_included_file() {
    let source = effect("//!COMMON\n#include \"a.hlsli\"\n");
    assert_eq!(
        headlines_with(
            &[
                ("fx/a.hlsli", "// a\n#include \"b.hlsli\"\n"),
                ("fx/b.hlsli", "#include \"a.hlsli\"\n")
            ],
            &source
        ),
        vec!["fx/b.hlsli:1:11: error: include file `a.hlsli` includes itself"]
    );
}

#[test]
fn include_that_is_not_text() {
    let folder = tempfile::tempdir().unwrap();
    let fx = folder.path().join("fx");
    std::fs::create_dir_all(&fx).unwrap();
    std::fs::write(fx.join("bin.hlsli"), [0xff, 0xfe, 0x00]).unwrap();
    let path = fx.join("E.hlsl");
    std::fs::write(&path, effect("//!COMMON\n#include \"bin.hlsli\"\n")).unwrap();
    let errors = rpsl_effects::parse_effect_file(&path).unwrap_err();
    let prefix = format!("{}/", folder.path().display());
    assert_eq!(
        errors.headlines()[0].replace(&prefix, ""),
        "fx/E.hlsl:4:11: error: include file `bin.hlsli`: `fx/bin.hlsli` is not UTF-8 text"
    );
}

#[test]
fn unreadable_effect_file() {
    let errors = rpsl_effects::parse_effect_file(Path::new("/nonexistent/E.hlsl")).unwrap_err();
    assert_eq!(
        errors.headlines(),
        vec!["/nonexistent/E.hlsl:1:1: error: cannot read `/nonexistent/E.hlsl`: No such file or directory (os error 2)"]
    );
}

#[test]
fn several_errors_are_reported_together_with_excerpts() {
    let source = effect(
        "//!SAMPLER\n//!FILTER CUBIC\nSamplerState s;\n//!SAMPLER\n//!ADDRESS WRAP\nSamplerState w;\n",
    );
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("E.hlsl");
    std::fs::write(&path, source).unwrap();
    let errors = rpsl_effects::parse_effect_file(&path).unwrap_err();
    let prefix = format!("{}/", folder.path().display());
    let rendered = errors.render().replace(&prefix, "");
    assert_eq!(
        rendered,
        "E.hlsl:4:11: error: unknown filter `CUBIC` (expected LINEAR or POINT)\n  \
         ┌─ E.hlsl:4:11\n  │\n4 │ //!FILTER CUBIC\n  │           ^^^^^\n\n\n\
         E.hlsl:8:14: error: sampler `w` needs `//!FILTER` (LINEAR or POINT)\n  \
         ┌─ E.hlsl:8:14\n  │\n8 │ SamplerState w;\n  │              ^\n\n"
    );
}
