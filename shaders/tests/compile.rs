//! Compiling GLSL and HLSL for every stage: success, includes (next to the file and in the search
//! dirs), and compile errors located as `file:line: message`.

use std::path::{Path, PathBuf};

use rpsl_shaders::*;

const SPIRV_MAGIC: u32 = 0x0723_0203;

fn compile_with(
    options: CompilerOptions,
    source: &str,
    path: impl Into<PathBuf>,
) -> Result<CompiledShader, ShaderError> {
    let path = path.into();
    let (stage, language) = stage_and_language_of(&path).expect("test paths name their kind");
    ShaderCompiler::new(options).compile(&ShaderRequest::new(source, path, language, stage))
}

fn compile(source: &str, path: &str) -> Result<CompiledShader, ShaderError> {
    compile_with(CompilerOptions::default(), source, path)
}

fn error_text(result: Result<CompiledShader, ShaderError>) -> String {
    result.expect_err("expected a compile error").to_string()
}

#[test]
fn glsl_stages_compile() {
    let vertex = compile(
        "#version 450\nvoid main() { gl_Position = vec4(float(gl_VertexIndex), 0.0, 0.0, 1.0); }\n",
        "tri.vert",
    )
    .unwrap();
    assert_eq!(vertex.spirv[0], SPIRV_MAGIC);
    assert_eq!(
        vertex.reflection.entry_points,
        vec![EntryPoint {
            name: "main".into(),
            model: ExecutionModel::Vertex,
            local_size: None
        }]
    );
    let fragment = compile(
        "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1.0); }\n",
        "red.frag",
    )
    .unwrap();
    assert_eq!(
        fragment.reflection.entry_points[0].model,
        ExecutionModel::Fragment
    );
    let compute = compile(
        "#version 450\nlayout(local_size_x = 16, local_size_y = 16) in;\nvoid main() {}\n",
        "noop.comp",
    )
    .unwrap();
    assert_eq!(
        compute.reflection.entry_points[0].local_size,
        Some([16, 16, 1])
    );
    assert!(!compute.from_cache);
}

#[test]
fn hlsl_stages_compile_with_any_entry_name() {
    let options = CompilerOptions::default();
    let compiler = ShaderCompiler::new(options);
    let vertex = ShaderRequest::new(
        "float4 vs_main(uint id : SV_VertexID) : SV_Position { return float4(id, 0, 0, 1); }",
        "tri.vert.hlsl",
        ShaderLanguage::Hlsl,
        ShaderStage::Vertex,
    )
    .with_entry_point("vs_main");
    let compiled = compiler.compile(&vertex).unwrap();
    assert_eq!(
        compiled.reflection.entry_points,
        vec![EntryPoint {
            name: "vs_main".into(),
            model: ExecutionModel::Vertex,
            local_size: None
        }]
    );
    let fragment = ShaderRequest::new(
        "float4 main() : SV_Target1 { return 0.5; }",
        "half.frag.hlsl",
        ShaderLanguage::Hlsl,
        ShaderStage::Fragment,
    );
    let compiled = compiler.compile(&fragment).unwrap();
    assert_eq!(
        compiled.reflection.fragment_outputs,
        vec![FragmentOutput {
            location: 1,
            name: "@entryPointOutput".into(),
            components: 4,
            scalar: ScalarType::Float(32)
        }]
    );
    let compute = ShaderRequest::new(
        "[numthreads(64, 1, 1)] void main() {}",
        "noop.comp.hlsl",
        ShaderLanguage::Hlsl,
        ShaderStage::Compute,
    );
    assert_eq!(
        compiler.compile(&compute).unwrap().reflection.entry_points[0].local_size,
        Some([64, 1, 1])
    );
}

#[test]
fn defines_reach_the_preprocessor() {
    let source = "#version 450\nlayout(local_size_x = GROUP) in;\nvoid main() {}\n";
    let request = ShaderRequest::new(source, "d.comp", ShaderLanguage::Glsl, ShaderStage::Compute)
        .with_define("GROUP", "32");
    let compiled = ShaderCompiler::new(CompilerOptions::default())
        .compile(&request)
        .unwrap();
    assert_eq!(
        compiled.reflection.entry_points[0].local_size,
        Some([32, 1, 1])
    );
}

#[test]
fn glsl_compile_error_names_file_and_line() {
    assert_eq!(
        error_text(compile(
            "#version 450\nvoid main() {\n  float x = undefined_thing;\n}\n",
            "shaders/bad.comp"
        )),
        "shaders/bad.comp:3: 'undefined_thing' : undeclared identifier"
    );
    assert_eq!(
        error_text(compile(
            "#version 450\nvoid main() { int x = 1 }\n",
            "syntax.frag"
        )),
        "syntax.frag:2: '' :  syntax error, unexpected RIGHT_BRACE, expecting COMMA or SEMICOLON"
    );
}

#[test]
fn several_errors_are_all_reported() {
    let error = compile(
        "#version 450\nvoid main() {\n  a = 1;\n  b = 2;\n}\n",
        "two.comp",
    )
    .unwrap_err();
    let ShaderError::Compile { path, diagnostics } = error else {
        panic!("not a compile error")
    };
    assert_eq!(path, "two.comp");
    let lines: Vec<Option<u32>> = diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, vec![Some(3), Some(4)]);
}

#[test]
fn hlsl_compile_error_names_file_and_line() {
    assert_eq!(
        error_text(compile(
            "[numthreads(1,1,1)]\nvoid main() {\n  undefined_fn();\n}",
            "bad.comp.hlsl"
        )),
        "bad.comp.hlsl:3: 'undefined_fn' : no matching overloaded function found"
    );
}

#[test]
fn missing_entry_point_is_an_error_without_a_line() {
    assert_eq!(
        error_text(compile("#version 450\nvoid not_main() {}\n", "nomain.comp")),
        "nomain.comp: Linking compute stage: Missing entry point: Each stage requires one entry point"
    );
}

#[test]
fn hlsl_square_matrix_star_is_rejected() {
    let source = "float4x4 a;\nfloat4x4 b;\nRWStructuredBuffer<float4x4> o;\n[numthreads(1,1,1)] void main() {\n  o[0] = a * b;\n}\n";
    assert_eq!(
        error_text(compile(source, "m.comp.hlsl")),
        "m.comp.hlsl:5: 'a * b' multiplies two square matrices: HLSL '*' is element-wise but glslang compiles it to a matrix product; write mul(a, b) for a product, or multiply the rows explicitly"
    );
}

#[test]
fn nul_bytes_are_an_error_not_a_panic() {
    assert_eq!(
        error_text(compile("#version 450\n\0", "nul.comp")),
        "nul.comp: source contains a NUL byte"
    );
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn includes_resolve_next_to_the_including_file_then_in_search_dirs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        &root.join("shaders/common/color.glsl"),
        "#include \"../lib/size.glsl\"\nvec4 tint() { return vec4(0.5); }\n",
    );
    write(
        &root.join("shaders/lib/size.glsl"),
        "#define GROUP_SIZE 8\n",
    );
    write(
        &root.join("system/extra.glsl"),
        "float extra() { return 2.0; }\n",
    );
    let main = root.join("shaders/blur.comp");
    let source = "#version 450\n#include \"common/color.glsl\"\n#include <extra.glsl>\nlayout(local_size_x = GROUP_SIZE) in;\nvoid main() {}\n";
    write(&main, source);
    let options = CompilerOptions {
        include_dirs: vec![root.join("system")],
        ..CompilerOptions::default()
    };
    let compiled = compile_with(options, source, &main).unwrap();
    assert_eq!(
        compiled.reflection.entry_points[0].local_size,
        Some([8, 1, 1])
    );
    let names: Vec<PathBuf> = compiled
        .includes
        .iter()
        .map(|p| p.strip_prefix(root).unwrap().to_path_buf())
        .collect();
    assert_eq!(
        names,
        vec![
            PathBuf::from("shaders/common/color.glsl"),
            PathBuf::from("shaders/common/../lib/size.glsl"),
            PathBuf::from("system/extra.glsl")
        ]
    );
    // `<x>` does not look next to the including file.
    let angled = "#version 450\n#include <common/color.glsl>\nvoid main() {}\n";
    let error = error_text(compile_with(CompilerOptions::default(), angled, &main));
    assert_eq!(
        error,
        format!("{}:2: '#include' : cannot find include file 'common/color.glsl' for header name: common/color.glsl", main.display())
    );
}

#[test]
fn errors_inside_includes_name_the_include_file() {
    let dir = tempfile::tempdir().unwrap();
    let include = dir.path().join("inc/helpers.glsl");
    write(&include, "float helper() {\n  return missing_value;\n}\n");
    let main = dir.path().join("main.comp");
    let error = error_text(compile_with(
        CompilerOptions::default(),
        "#version 450\n#include \"inc/helpers.glsl\"\nvoid main() {}\n",
        &main,
    ));
    assert_eq!(
        error,
        format!(
            "{}:2: 'missing_value' : undeclared identifier",
            include.display()
        )
    );
    let missing = error_text(compile_with(
        CompilerOptions::default(),
        "#version 450\n\n#include \"nope.glsl\"\nvoid main() {}\n",
        &main,
    ));
    assert_eq!(
        missing,
        format!(
            "{}:3: '#include' : cannot find include file 'nope.glsl' for header name: nope.glsl",
            main.display()
        )
    );
}

#[test]
fn from_file_reads_and_infers_the_kind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Tonemap.frag.hlsl");
    write(&path, "float4 main() : SV_Target { return 1; }");
    let request = ShaderRequest::from_file(&path).unwrap();
    assert_eq!(
        (request.stage, request.language),
        (ShaderStage::Fragment, ShaderLanguage::Hlsl)
    );
    assert_eq!(
        ShaderRequest::from_file(dir.path().join("x.txt")).unwrap_err().to_string(),
        format!("{}: unknown shader kind (expected .comp, .vert or .frag, optionally followed by .hlsl)", dir.path().join("x.txt").display())
    );
    let missing = dir.path().join("Gone.comp");
    assert_eq!(
        ShaderRequest::from_file(&missing).unwrap_err().to_string(),
        format!(
            "{}: No such file or directory (os error 2)",
            missing.display()
        )
    );
}

#[test]
fn compile_glsl_compute_is_the_simple_path() {
    let spirv = compile_glsl_compute(
        "#version 450\nlayout(local_size_x = 4) in;\nvoid main() {}\n",
        "simple.comp",
    )
    .unwrap();
    assert_eq!(
        reflect(&spirv).unwrap().entry_points[0].local_size,
        Some([4, 1, 1])
    );
    assert_eq!(
        compile_glsl_compute("#version 450\nvoid main() { x; }\n", "simple.comp")
            .unwrap_err()
            .to_string(),
        "simple.comp:2: 'x' : undeclared identifier"
    );
}
