//! Tests of semantic analysis: the corpus checks clean, exact first errors of bad inputs, HIR shapes.

use std::path::Path;

use crate::driver::check_file;
use crate::hir;
use crate::source::FileId;

/// Checks a script; returns the module (even with errors) and the script's own diagnostics
/// (prelude problems are covered by `driver::tests::prelude_checks_clean`).
fn check(
    text: &str,
) -> (
    crate::source::SourceFiles,
    crate::hir::Module,
    Vec<crate::diagnostic::Diagnostic>,
) {
    let (files, module, diagnostics) = crate::driver::run(
        "t.rpsl",
        text.to_string(),
        &crate::preprocess::MemoryLoader::new(),
        &crate::preprocess::IncludePolicy::default(),
    );
    let script = diagnostics
        .into_iter()
        .filter(|d| d.span.file != FileId(0))
        .collect();
    (files, module, script)
}

/// `LINE:COL: MESSAGE` of the first error of the script.
fn first_error(text: &str) -> String {
    let (files, _, diagnostics) = check(text);
    match diagnostics.iter().find(|d| d.is_error()) {
        Some(diag) => {
            let (line, col) = files.get(diag.span.file).line_col(diag.span.start);
            let help = diag
                .help
                .as_ref()
                .map(|h| format!(" (help: {h})"))
                .unwrap_or_default();
            format!("{line}:{col}: {}{help}", diag.message)
        }
        None => "no error".to_string(),
    }
}

/// The HIR dump of a script that must check without errors.
fn hir_of(text: &str) -> (crate::hir::Module, String) {
    let (files, module, diagnostics) = check(text);
    let errors: Vec<_> = diagnostics.into_iter().filter(|d| d.is_error()).collect();
    assert!(
        errors.is_empty(),
        "{}",
        crate::diagnostic::render_all(&errors, &files)
    );
    let dump = module.to_string();
    (module, dump)
}

#[test]
fn corpus_checks_without_errors() {
    let mut paths: Vec<std::path::PathBuf> = Vec::new();
    let corpus = crate::test_support::shared("corpus/rps-sdk");
    if let Ok(entries) = std::fs::read_dir(&corpus) {
        paths.extend(
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "rpsl")),
        );
    }
    let shapes = crate::test_support::shared("bench/rps_shapes.rpsl");
    if shapes.exists() {
        paths.push(shapes);
    }
    if paths.is_empty() {
        eprintln!("corpus folder missing: skipped");
        return;
    }
    paths.sort();
    // FIXME: files that fail today because of other modules, with their first script error:
    // - rps_shapes.rpsl names a parameter `uav`, which the prelude's `uav` shorthand macro expands
    //   (preprocessor/prelude).
    // Remove an entry when its file checks clean.
    // Scripts that are expected to fail, with their first error (none today).
    const KNOWN_FAILURES: &[(&str, &str)] = &[];
    let mut failures = String::new();
    for path in &paths {
        let compilation = check_file(path);
        // Prelude problems are reported once, by `driver::tests::prelude_checks_clean`.
        let errors: Vec<_> = compilation
            .diagnostics
            .iter()
            .filter(|d| d.is_error() && d.span.file != FileId(0))
            .cloned()
            .collect();
        let file_name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let known = KNOWN_FAILURES.iter().find(|(name, _)| *name == file_name);
        match (known, errors.first()) {
            (Some((_, expected)), Some(first)) => {
                let (line, col) = compilation
                    .files
                    .get(first.span.file)
                    .line_col(first.span.start);
                let actual = format!("{line}:{col}: {}", first.message);
                if actual != *expected {
                    failures.push_str(&format!(
                        "{file_name}: expected known failure `{expected}`, got `{actual}`\n"
                    ));
                }
            }
            (Some(_), None) => failures.push_str(&format!(
                "{file_name} checks clean now: remove it from KNOWN_FAILURES\n"
            )),
            (None, _) => {
                failures.push_str(&crate::diagnostic::render_all(&errors, &compilation.files))
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

#[test]
#[ignore = "prints the HIR of $RPSL_DUMP for inspection: RPSL_DUMP=file cargo test dump_hir -- --ignored --nocapture"]
fn dump_hir() {
    let Ok(path) = std::env::var("RPSL_DUMP") else {
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let (files, module, diagnostics) = crate::driver::run(
        &path,
        text,
        &crate::preprocess::FsLoader,
        &crate::preprocess::IncludePolicy::default(),
    );
    let script: Vec<_> = diagnostics
        .into_iter()
        .filter(|d| d.span.file != FileId(0))
        .collect();
    eprintln!("{}", crate::diagnostic::render_all(&script, &files));
    eprintln!("{module}");
}

#[test]
fn first_errors_of_bad_scripts() {
    let cases: &[(&str, &str)] = &[
        (
            "export void main() {\n    uint width = 1;\n    uint x = widht;\n}\n",
            "3:14: unknown name `widht` (help: did you mean `width`?)",
        ),
        (
            "export void main() { flaot4 v; }\n",
            "1:22: unknown type `flaot4` (help: did you mean `float4`?)",
        ),
        (
            "export void main(texture t) { float f = t; }\n",
            "1:41: cannot convert from `texture` to `float`",
        ),
        (
            "uint Add(uint a, uint b) { return a + b; }\nexport void main() { uint x = Add(1, 2, 3); }\n",
            "2:41: `Add` takes 2 arguments, 3 given (help: remove the extra argument)",
        ),
        (
            "export void main() { texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM); }\n",
            "1:34: `create_tex2d` takes 3 to 9 arguments, 1 given",
        ),
        (
            "export void main(texture t) { clear(t, t); }\n",
            "1:31: no overload of `clear` matches arguments (`texture`, `texture`)",
        ),
        (
            "void f(int a, float b) {}\nvoid f(float a, int b) {}\nexport void main() { int i = 1; f(i, i); }\n",
            "3:33: ambiguous call to `f` with arguments (`int`, `int`)",
        ),
        (
            "node n([readonly(pss)] texture t);\n",
            "1:18: unknown access attribute argument `pss` (help: did you mean `ps`?)",
        ),
        (
            "node n(rtv t : SV_Targt0);\n",
            "1:16: unknown system semantic `SV_Targt0` (help: did you mean `SV_Target`?)",
        ),
        (
            "export void main() { const uint x = 1; x = 2; }\n",
            "1:40: cannot assign to `x`: it is declared `const`",
        ),
        (
            "uint f(uint x) { return g(x); }\nuint g(uint x) { return f(x); }\nexport void main() { f(1); }\n",
            "2:25: recursion is not supported: `f` -> `g` -> `f`",
        ),
        (
            "uint f(uint x) { if (x > 1) return 1; }\nexport void main() {}\n",
            "1:6: function `f` does not return a value on every path",
        ),
        (
            "export void main() { float2 v = float2(1, 2); float3 w = v.xyz; }\n",
            "1:60: invalid swizzle `xyz` on `float2`",
        ),
        (
            "export void main() { break; }\n",
            "1:22: `break` outside of a loop or switch",
        ),
        (
            "export void main() { continue; }\n",
            "1:22: `continue` outside of a loop",
        ),
        (
            "export void main(uint n) { uint a[n]; }\n",
            "1:35: array size must be a constant expression",
        ),
        (
            "export uint main() { return 1; }\n",
            "1:8: entry point `main` must return `void`, found `uint`",
        ),
        (
            "export void main(float f) { float g = f & 1; }\n",
            "1:39: operator `&` requires integer operands, found `float`",
        ),
        (
            "export void main(float2 v) { if (v) {} }\n",
            "1:34: condition must be a scalar, found `float2`",
        ),
        (
            "export void main() { return 1; }\n",
            "1:29: `return` with a value in function `main` returning `void`",
        ),
        (
            "uint f() { return; }\nexport void main() {}\n",
            "1:12: `return` without a value in function `f` returning `uint`",
        ),
        (
            "uint f() { return 1; }\nuint f() { return 2; }\nexport void main() {}\n",
            "2:6: `f` is already defined",
        ),
        (
            "export void main(texture t) { texture m = t.mip(1); }\n",
            "1:45: no method `mip` on `texture` (help: did you mean `mips`?)",
        ),
        (
            "export void main(texture t) { uint w = t.desc().Widht; }\n",
            "1:49: no field `Widht` on `ResourceDesc` (help: did you mean `Width`?)",
        ),
        (
            "void f(out uint x) { x = 1; }\nexport void main() { f(1); }\n",
            "2:24: argument for `out` parameter `x` must be assignable",
        ),
        (
            "uint f() { return 1; }\nexport void main() { async f(); }\n",
            "2:22: `async` can only be used on node calls",
        ),
        (
            "node n([readonly(ps)] buffer b);\nexport void main(texture t) { n(t); }\n",
            "2:33: cannot convert from `texture` to `buffer`",
        ),
        (
            "node n([readonly(ps)] float f);\n",
            "1:9: access attributes are only allowed on `texture` and `buffer` parameters, found `float`",
        ),
        (
            "export void main() { float4 v = 0; v.xx = float2(1, 2); }\n",
            "1:38: swizzle `xx` repeats a component and cannot be assigned",
        ),
        (
            "export void main() { foo(); }\n",
            "1:22: unknown function `foo`",
        ),
        (
            "export void main() { uint a[4]; a[4] = 1; }\n",
            "1:35: index 4 is out of bounds for `uint[4]`",
        ),
        (
            "export void main() { uint a = 1; uint a = 2; }\n",
            "1:39: `a` is already defined",
        ),
        (
            "export void main(uint a) { switch (a) { case a: break; } }\n",
            "1:46: case label must be a constant expression",
        ),
        (
            "export void main(uint a) { a + 1 = 2; }\n",
            "1:28: cannot assign to this expression: the result of an operator is a temporary value (help: assign to a variable, or to a field, element or swizzle of one)",
        ),
        (
            "static const uint N = 4;\nexport void main() { N = 5; }\n",
            "2:22: cannot assign to `N`: it is a global, and globals are constants (`static const`)",
        ),
        (
            "export void main(texture t) { t = 1; }\n",
            "1:35: cannot convert from `int` to `texture`",
        ),
        (
            "export void main(uint a) { uint b = a ? t : 1; }\n",
            "1:41: unknown name `t`",
        ),
        (
            "struct S { float a; };\nexport void main() { S s; s.b = 1; }\n",
            "2:29: no field `b` on `S`",
        ),
        (
            "export void main() { uint x = sizeof(foo); }\n",
            "1:38: unknown type `foo`",
        ),
    ];
    let mut report = String::new();
    for (text, expected) in cases {
        let actual = first_error(text);
        if actual != *expected {
            report.push_str(&format!(
                "{text:?}\n  expected: {expected}\n  actual:   {actual}\n"
            ));
        }
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn conversions_are_explicit() {
    let (_, dump) = hir_of("export void main(uint x, float2 v) { float f = x; float4 w = float4(v, 0, 1); int i = 1 + 2; }\n");
    let body: Vec<&str> = dump.lines().skip(1).map(str::trim).collect();
    assert_eq!(
        body,
        [
            "let f#2: float = float(x#0);",
            "let w#3: float4 = float4{v#1, 0.0, 1.0};",
            "let i#4: int = 3;",
            "}",
        ]
    );
}

#[test]
fn overloads_pick_the_best_candidate() {
    let (module, dump) = hir_of(
        "export void main(texture t, texture d) {\n    clear(t, float4(0, 0, 0, 1));\n    clear(t, uint4(0, 0, 0, 1));\n    clear(d, 1.0f, 0);\n}\n",
    );
    let calls: Vec<&str> = dump
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| l.starts_with("node clear"))
        .collect();
    assert_eq!(calls.len(), 3, "{dump}");
    let param_types = |line: &str| {
        let id: usize = line["node clear#".len()..]
            .split('(')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        module.nodes[id]
            .params
            .iter()
            .map(|p| p.ty.display(&module.types).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(param_types(calls[0]), ["texture", "float4"]);
    assert_eq!(param_types(calls[1]), ["texture", "uint4"]);
    assert_eq!(param_types(calls[2]), ["texture", "float", "uint"]);
    assert!(module
        .nodes
        .iter()
        .filter(|n| n.name == "clear")
        .all(|n| n.is_builtin));
}

#[test]
fn default_arguments_are_filled_in() {
    let (_, dump) = hir_of(
        "export void main() { texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 8); }\n",
    );
    assert!(
        dump.contains("let t#0: texture = builtin CreateTex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4u, 8u, 1u, 1u, 1u, 1u, 0u, RPS_RESOURCE_FLAG_NONE);"),
        "{dump}"
    );
}

#[test]
fn node_parameters_flatten_into_slots() {
    let (module, _) = hir_of(
        "struct GBuffer { texture albedo; float scale; texture normal; };\n\
         node blt_all(uint id, rtv dst : SV_Target0, ps_srv srcs[12]);\n\
         node shade([readonly(ps)] GBuffer gbuf, [readwrite(cs)] buffer out_buf);\n",
    );
    let blt = module
        .nodes_by_name("blt_all")
        .next()
        .map(|id| module.node(id))
        .unwrap();
    assert_eq!(blt.slots.len(), 13);
    assert_eq!(
        (
            blt.slots[4].name.as_str(),
            blt.slots[4].param,
            blt.slots[4].offset_in_param
        ),
        ("srcs[3]", 2, 120)
    );
    assert_eq!(
        blt.params.iter().map(|p| p.offset).collect::<Vec<_>>(),
        [0, 4, 44]
    );
    assert_eq!(blt.params[1].render_target, Some(0));
    assert_eq!(
        blt.params[1].semantic.map(|s| s.to_string()),
        Some("SV_Target0".to_string())
    );
    let shade = module
        .nodes_by_name("shade")
        .next()
        .map(|id| module.node(id))
        .unwrap();
    let slots: Vec<(&str, u32, hir::ViewKind)> = shade
        .slots
        .iter()
        .map(|s| (s.name.as_str(), s.offset_in_param, s.view))
        .collect();
    assert_eq!(
        slots,
        [
            ("gbuf.albedo", 0, hir::ViewKind::Texture),
            ("gbuf.normal", 44, hir::ViewKind::Texture),
            ("out_buf", 0, hir::ViewKind::Buffer)
        ]
    );
    assert_eq!(shade.queue, hir::QueueClass::Graphics);
}

#[test]
fn updates_and_places() {
    let (_, dump) = hir_of(
        "export void main() {\n    float4 v = 0;\n    v.xy = float2(1, 2);\n    uint i = 0;\n    i += 2.5;\n    i++;\n    uint a[4];\n    a[i] = 1;\n}\n",
    );
    let body: Vec<&str> = dump.lines().skip(1).map(str::trim).collect();
    assert_eq!(
        body,
        [
            "let v#0: float4 = float4{0.0, 0.0, 0.0, 0.0};",
            "(v#0.xy = float2{1.0, 2.0});",
            "let i#1: uint = 0u;",
            "(update i#1 := uint((float(old) + 2.5)));",
            "(post-update i#1 := (old + 1u));",
            "let a#2: uint[4];",
            "(a#2[i#1] = 1u);",
            "}",
        ]
    );
}

#[test]
fn initializer_lists_nested_and_flat() {
    let (_, dump) = hir_of(
        "export void main(float x) {\n    float2 a[2] = { 1, 2, 3, 4 };\n    uint4 c = { 12, 9, 6, 3 };\n    uint n[] = { 1, 2, 3 };\n    float2 b[2] = { {x, 2}, {3, 4} };\n}\n",
    );
    let body: Vec<&str> = dump.lines().skip(1).map(str::trim).collect();
    assert_eq!(
        body,
        [
            "let a#1: float2[2] = float2[2]{{1.0, 2.0}, {3.0, 4.0}};",
            "let c#2: uint4 = uint4{12u, 9u, 6u, 3u};",
            "let n#3: uint[3] = uint[3]{1u, 2u, 3u};",
            "let b#4: float2[2] = float2[2]{float2{x#0, 2.0}, float2{3.0, 4.0}};",
            "}",
        ]
    );
}

#[test]
fn control_flow_shapes() {
    let (module, dump) = hir_of(
        "[subgraph(atomic)] void f(uint n) { for (uint i = 0; i < n; i++) { if (i == 2) continue; } }\n\
         export void main(uint n) {\n    [subgraph(sequential)] { f(n); }\n    switch (n) { case 1: case 2: break; default: return; }\n    uint x = n > 1 ? 2 : 3;\n}\n",
    );
    let f = module.function(module.function_by_name("f").unwrap());
    assert_eq!(
        f.subgraph,
        Some(hir::SubgraphFlags {
            atomic: true,
            sequential: false
        })
    );
    assert!(
        dump.contains("while (i#1 < n#0) step (post-update i#1 := (old + 1u)) {"),
        "{dump}"
    );
    assert!(
        dump.contains("subgraph(atomic=false, sequential=true) {"),
        "{dump}"
    );
    assert!(
        dump.contains(
            "case 1:\n        case 2:\n            break;\n        default:\n            return;"
        ),
        "{dump}"
    );
    assert!(
        dump.contains("let x#1: uint = uint(((n#0 > 1u) ? 2 : 3));"),
        "{dump}"
    );
}

#[test]
fn warnings_do_not_fail() {
    let (_, _, diagnostics) = check("export void main(float4 v) { float3 w = v; }\n");
    let messages: Vec<&str> = diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages, ["implicit truncation of vector type"]);
    assert!(!diagnostics[0].is_error());
}

#[test]
fn never_panics_on_odd_input() {
    let inputs = [
        "export void main() { uint a[0]; }",
        "export void main() { uint a[-1]; }",
        "export void main() { float4 v = {1, 2}; }",
        "export void main() { float2 v = {1, 2, 3}; }",
        "struct S { S s; };",
        "typedef texture T[2]; node n([readonly(ps)] T t); export void main(texture t) { T a = {t, t}; n(a); }",
        "export void main() { uint x = 1 / 0; uint y = 1 % 0; int z = -2147483648 / -1; }",
        "enum E { A = B, B }; export void main() { E e = A; e++; }",
        "export void main() { main(); }",
        "void f(inout uint x) {} export void main() { uint y; f(y); f(y + 1); }",
        "export void main(texture t) { t.mips(); t.mips(1, 2, 3); t.Resource = 1; uint r = t.Resource; }",
        "export void main() { float3x3 m = 0; float3 r = m[1]; float x = m[1][2]; m._m00 = 1; }",
    ];
    for input in inputs {
        let _ = check(input);
    }
}

/// Times parse + check of the 1,000-line benchmark script (release builds: the target is under
/// 5 ms, prelude included): `RPSL_BENCH=1 cargo test --release -p rpsl-frontend benchmark_check -- --nocapture`.
#[test]
fn benchmark_check_1000_lines() {
    if std::env::var("RPSL_BENCH").is_err() {
        return;
    }
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/bench/frontend_1000_lines.rpsl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let _ = crate::driver::check_source("warmup.rpsl", &text);
    let runs = 20;
    let start = std::time::Instant::now();
    for _ in 0..runs {
        let compilation = crate::driver::check_source("bench.rpsl", &text);
        assert!(
            !compilation.has_errors(),
            "{}",
            compilation.render_diagnostics()
        );
    }
    let per_run = start.elapsed() / runs;
    eprintln!(
        "parse + check of {} lines: {per_run:?} per run",
        text.lines().count()
    );
    // Phase by phase.
    use crate::preprocess::{MemoryLoader, Preprocessor};
    let mut files = crate::source::SourceFiles::new();
    let mut pp = Preprocessor::new();
    let t = std::time::Instant::now();
    let prelude = files.add("<prelude>", crate::builtins::PRELUDE.to_string());
    let (prelude_expanded, _) = pp.run(&mut files, prelude, &MemoryLoader::new());
    let t_pp_prelude = t.elapsed();
    let t = std::time::Instant::now();
    let mut diags = Vec::new();
    let prelude_ast = crate::parse::parse_module(&prelude_expanded, &mut diags);
    let t_parse_prelude = t.elapsed();
    let t = std::time::Instant::now();
    let script = files.add("bench.rpsl", text.clone());
    let (expanded, _) = pp.run(&mut files, script, &MemoryLoader::new());
    let t_pp = t.elapsed();
    let t = std::time::Instant::now();
    let script_ast = crate::parse::parse_module(&expanded, &mut diags);
    let t_parse = t.elapsed();
    let t = std::time::Instant::now();
    let units = [
        super::SourceUnit {
            module: &prelude_ast,
            is_prelude: true,
        },
        super::SourceUnit {
            module: &script_ast,
            is_prelude: false,
        },
    ];
    let _ = super::check(&units, &mut diags);
    let t_check = t.elapsed();
    eprintln!("pp prelude {t_pp_prelude:?}, parse prelude {t_parse_prelude:?}, pp script {t_pp:?}, parse script {t_parse:?}, check {t_check:?}");
}

#[test]
fn node_definitions_selects_and_constants() {
    let (module, dump) = hir_of(
        "enum Mode { MODE_A = 2, MODE_B = MODE_A << 2 };\n\
         static const uint COUNT = MODE_B + 1;\n\
         node Upload([writeonly(copy)] buffer dst, [readonly(copy)] buffer src) { return copy_buffer(dst, src); }\n\
         export void main(buffer a, buffer b, float4 v) {\n    async Upload(a, b);\n    float4 w = v > 0 ? v : -v;\n    uint n[COUNT];\n    float s = 0.2f;\n}\n",
    );
    assert_eq!(
        module
            .globals
            .iter()
            .find(|g| g.name == "COUNT")
            .and_then(|g| g.value.clone()),
        Some(hir::ConstValue::Uint(9))
    );
    let upload = module.function(module.function_by_name("Upload").unwrap());
    assert_eq!(upload.kind, hir::FunctionKind::NodeDefinition);
    assert_eq!(upload.ret, crate::types::Type::Node);
    assert!(dump.contains("async fn Upload(a#0, b#1);"), "{dump}");
    assert!(
        dump.contains("let w#3: float4 = select((v#2 > float4{0.0, 0.0, 0.0, 0.0}), v#2, (-v#2));"),
        "{dump}"
    );
    assert!(dump.contains("let n#4: uint[9];"), "{dump}");
    assert!(dump.contains("let s#5: float = 0.2;"), "{dump}");
}

#[test]
fn diagnostics_carry_candidates_and_previous_definitions() {
    let (_, _, diagnostics) = check("export void main(texture t) { clear(t, t); }\n");
    let notes = &diagnostics[0].notes;
    assert_eq!(notes.len(), 5, "{notes:?}");
    assert_eq!(
        notes[0],
        "candidate: node clear(texture dst, float4 clearValue)"
    );
    let (files, _, diagnostics) = check("struct A { float x; };\nstruct A { uint y; };\n");
    assert_eq!(diagnostics[0].message, "`A` is already defined");
    let previous = &diagnostics[0].secondary[0];
    assert_eq!(
        (
            previous.message.as_str(),
            files.get(previous.span.file).line_col(previous.span.start)
        ),
        ("previous definition here", (1, 8))
    );
}

#[test]
fn errors_do_not_cascade() {
    let cases: &[(&str, &[&str])] = &[
        (
            "export void main() { uint x = foo(1) + 2; float4 v = x.xyz; if (bar()) {} }\n",
            &["unknown function `foo`", "invalid swizzle `xyz` on `uint`", "unknown function `bar`"],
        ),
        ("export void main(texture t) { texture u = t.mipz(1).array(0); clear(u, float4(0, 0, 0, 1)); }\n", &["no method `mipz` on `texture`"]),
        ("node n(rtv t : SV_Target0);\nexport void main() { n(missing); n(missing.mips(0)); }\n", &["unknown name `missing`", "unknown name `missing`"]),
        ("export void main() { Undeclared s; s.x = 1; uint y = s.y + 1; }\n", &["unknown type `Undeclared`"]),
        ("uint f() { return garbage; }\nexport void main() { uint x = f() * 2; }\n", &["unknown name `garbage`"]),
    ];
    for (text, expected) in cases {
        let (_, _, diagnostics) = check(text);
        let errors: Vec<&str> = diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(errors, *expected, "{text}");
    }
}

#[test]
fn view_fields() {
    let (_, dump) = hir_of(
        "export void main(texture t, buffer b) {\n    uint r = t.Resource;\n    uint m = t.SubresourceRange.MipLevelCount;\n    uint64_t s = b.SizeInBytes;\n}\n",
    );
    let body: Vec<&str> = dump.lines().skip(1).map(str::trim).collect();
    assert_eq!(
        body,
        [
            "let r#2: uint = t#0.@0;",
            "let m#3: uint = t#0.@16.MipLevelCount;",
            "let s#4: uint64_t = b#1.@24;",
            "}",
        ]
    );
}

#[test]
fn hlsl_math_errors() {
    const HELP: &str = " (help: matrix members are `_m00`..`_m33` (zero-based) or `_11`..`_44` (one-based), up to 4 joined like `_m00_m11`)";
    let cases: &[(&str, String)] = &[
        (
            "export void main() { float2x2 m = 0; float f = m._m22; }\n",
            format!("1:50: matrix member `_m22` is out of range for `float2x2`{HELP}"),
        ),
        (
            "export void main() { float3x2 m = 0; float f = m._33; }\n",
            format!("1:50: matrix member `_33` is out of range for `float3x2`{HELP}"),
        ),
        (
            "export void main() { float4x4 m = 0; float2 v = m._m00_11; }\n",
            format!(
                "1:51: matrix member `_m00_11` mixes zero-based `_mRC` and one-based `_RC` forms{HELP}"
            ),
        ),
        (
            "export void main() { float4x4 m = 0; float f = m._00; }\n",
            format!("1:50: invalid matrix member `_00` on `float4x4`{HELP}"),
        ),
        (
            "export void main() { float4x4 m = 0; float f = m.x; }\n",
            format!("1:50: invalid matrix member `x` on `float4x4`{HELP}"),
        ),
        (
            "export void main() { float4x4 m = 0; float4 v = m._m00_m01_m02_m03_m10.xyzw; }\n",
            format!("1:51: matrix member `_m00_m01_m02_m03_m10` selects more than 4 components{HELP}"),
        ),
        (
            "export void main() { float4x4 m = 0; m._m00_m00 = float2(1, 2); }\n",
            "1:40: matrix member `_m00_m00` repeats a component and cannot be assigned".to_string(),
        ),
        (
            "export void main() { float4x4 m = 0; m._11_m00 = float2(1, 2); }\n",
            format!(
                "1:40: matrix member `_11_m00` mixes zero-based `_mRC` and one-based `_RC` forms{HELP}"
            ),
        ),
        (
            "export void main() { float3 v = mul(float3(1, 2, 3), float4x4(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)); }\n",
            "1:33: `mul` cannot multiply `float3` by `float4x4`: the inner dimensions 3 and 4 differ".to_string(),
        ),
        (
            "export void main() { float d = determinant(float2x3(1, 2, 3, 4, 5, 6)); }\n",
            "1:32: `determinant` expects a square matrix argument, found `float2x3`".to_string(),
        ),
        (
            "export void main() { float ip; float f = modf(1.5, 2.0); }\n",
            "1:52: argument for `out` parameter `ip` must be assignable".to_string(),
        ),
        (
            "export void main() { int ip; float f = modf(1.5f, ip); }\n",
            "1:51: argument for `out` parameter `ip` must have type `float`, found `int`".to_string(),
        ),
        (
            "export void main() { float2 s, c; sincos(float3(1, 2, 3), s, c); }\n",
            "1:59: argument for `out` parameter `s` must have type `float3`, found `float2`".to_string(),
        ),
    ];
    let mut report = String::new();
    for (text, expected) in cases {
        let actual = first_error(text);
        if actual != *expected {
            report.push_str(&format!(
                "{text:?}\n  expected: {expected}\n  actual:   {actual}\n"
            ));
        }
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn matrix_members_are_lane_swizzles() {
    let (_, dump) = hir_of(
        "export void main() {\n    float3x3 m = 0;\n    m._m01_m10 = float2(1, 2);\n    float f = m._33;\n}\n",
    );
    let body: Vec<&str> = dump.lines().skip(1).map(str::trim).collect();
    assert_eq!(body[1], "(m#0._m01_m10 = float2{1.0, 2.0});");
    assert_eq!(body[2], "let f#1: float = m#0._m22;");
}
