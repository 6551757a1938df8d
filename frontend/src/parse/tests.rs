//! Parser tests: precedence and associativity (through the fully parenthesized printer), every
//! construct of the language, and the shape of the AST for the tricky ones.

use super::parse_module;
use crate::ast::{
    CaseLabel, ExprKind, FloatSuffix, ForInit, IntRadix, Item, LongSuffix, Module, ParamDirection,
    QueueClass, StmtKind, TypeRefKind,
};
use crate::diagnostic::Diagnostic;
use crate::preprocess::{MemoryLoader, Preprocessor};
use crate::source::SourceFiles;

/// Preprocesses (with no macros defined) and parses `text` as file 0; returns the parse
/// diagnostics only.
pub(crate) fn parse(text: &str) -> (Module, Vec<Diagnostic>) {
    let mut files = SourceFiles::new();
    let root = files.add("t.rpsl", text.to_string());
    let (expanded, _preprocessor_diagnostics) =
        Preprocessor::new().run(&mut files, root, &MemoryLoader::new());
    let mut diagnostics = Vec::new();
    let module = parse_module(&expanded, &mut diagnostics);
    (module, diagnostics)
}

/// Parses `text` and prints the module; fails on any diagnostic.
fn check(text: &str) -> String {
    let (module, diagnostics) = parse(text);
    assert!(diagnostics.is_empty(), "{text}\n{diagnostics:#?}");
    let printed = module.to_string();
    // The printed form parses back to itself.
    let (reparsed, diagnostics) = parse(&printed);
    assert!(diagnostics.is_empty(), "{printed}\n{diagnostics:#?}");
    assert_eq!(reparsed.to_string(), printed);
    printed.trim_end().to_string()
}

/// Prints the expression statement `text;` inside a function, fully parenthesized.
fn expr(text: &str) -> String {
    let printed = check(&format!("void f() {{ {text}; }}"));
    printed
        .strip_prefix("void f() { ")
        .and_then(|s| s.strip_suffix("; }"))
        .expect("one statement")
        .to_string()
}

/// Prints the statements of `text` placed in a function body.
fn stmts(text: &str) -> String {
    let printed = check(&format!("void f() {{ {text} }}"));
    printed
        .strip_prefix("void f() { ")
        .and_then(|s| s.strip_suffix(" }"))
        .expect("a body")
        .to_string()
}

#[test]
fn binary_precedence_follows_hlsl() {
    assert_eq!(expr("a + b * c"), "(a + (b * c))");
    assert_eq!(expr("a * b + c"), "((a * b) + c)");
    assert_eq!(expr("a - b - c"), "((a - b) - c)");
    assert_eq!(expr("a / b % c * d"), "(((a / b) % c) * d)");
    assert_eq!(expr("a << b + c"), "(a << (b + c))");
    assert_eq!(expr("a < b << c"), "(a < (b << c))");
    assert_eq!(expr("a == b < c"), "(a == (b < c))");
    assert_eq!(expr("a & b == c"), "(a & (b == c))");
    assert_eq!(expr("a ^ b & c"), "(a ^ (b & c))");
    assert_eq!(expr("a | b ^ c"), "(a | (b ^ c))");
    assert_eq!(expr("a && b | c"), "(a && (b | c))");
    assert_eq!(expr("a || b && c"), "(a || (b && c))");
    assert_eq!(expr("a || b || c"), "((a || b) || c)");
    assert_eq!(expr("a >= b != c <= d"), "((a >= b) != (c <= d))");
    assert_eq!(expr("a >> 1 > b"), "((a >> 1) > b)");
    assert_eq!(expr("(a + b) * c"), "((a + b) * c)");
}

#[test]
fn ternary_assignment_and_comma() {
    assert_eq!(expr("a ? b : c ? d : e"), "(a ? b : (c ? d : e))");
    assert_eq!(expr("a || b ? c + 1 : d"), "((a || b) ? (c + 1) : d)");
    assert_eq!(expr("x = a ? b : c"), "(x = (a ? b : c))");
    assert_eq!(expr("a ? b, c : d"), "(a ? (b, c) : d)");
    assert_eq!(expr("a = b = c"), "(a = (b = c))");
    assert_eq!(expr("a += b -= c"), "(a += (b -= c))");
    assert_eq!(expr("a = 1, b = 2"), "((a = 1), (b = 2))");
    assert_eq!(expr("a, b, c"), "((a, b), c)");
    for op in [
        "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=",
    ] {
        assert_eq!(expr(&format!("x {op} y | z")), format!("(x {op} (y | z))"));
    }
}

#[test]
fn unary_and_postfix() {
    assert_eq!(expr("-a * b"), "((-a) * b)");
    assert_eq!(expr("!a && ~b"), "((!a) && (~b))");
    assert_eq!(expr("- -a"), "(-(-a))");
    assert_eq!(expr("--a"), "(--a)");
    assert_eq!(expr("++a + b++"), "((++a) + (b++))");
    assert_eq!(expr("a--"), "(a--)");
    assert_eq!(expr("-a.b[1]"), "(-a.b[1])");
    assert_eq!(expr("+a"), "(+a)");
    assert_eq!(expr("i+++j"), "((i++) + j)");
}

#[test]
fn calls_members_and_indexing() {
    assert_eq!(expr("f(a, b + 1)"), "f(a, (b + 1))");
    assert_eq!(expr("f()"), "f()");
    assert_eq!(expr("f((a, b))"), "f((a, b))");
    assert_eq!(expr("float4(v.xy, 0, 1)"), "float4(v.xy, 0, 1)");
    assert_eq!(expr("t.mips(1).array(0, 2)"), "t.mips(1).array(0, 2)");
    assert_eq!(expr("b.desc().Width"), "b.desc().Width");
    assert_eq!(expr("0.0f.xxxx"), "0.0f.xxxx");
    assert_eq!(expr("a[i][j + 1]"), "a[i][(j + 1)]");
    assert_eq!(expr("async Foo(a, b)"), "async Foo(a, b)");
    assert_eq!(expr("vector<float, 2>(a, b)"), "vector<float, 2>(a, b)");
    assert_eq!(
        expr("sizeof(InstanceData) * n"),
        "(sizeof(InstanceData) * n)"
    );
    assert_eq!(expr("sizeof(a.b)"), "sizeof(a.b)");
    assert_eq!(expr("sizeof(unsigned int)"), "sizeof(unsigned int)");
    assert_eq!(expr("x = null"), "(x = null)");
    assert_eq!(expr("b = true || false"), "(b = (true || false))");
}

#[test]
fn casts_and_parentheses() {
    assert_eq!(expr("(float)x"), "((float)x)");
    assert_eq!(
        expr("(uint32_t)desc.Width / 2"),
        "(((uint32_t)desc.Width) / 2)"
    );
    assert_eq!(expr("(float4)0"), "((float4)0)");
    assert_eq!(expr("-(int)u3.y - 4096"), "((-((int)u3.y)) - 4096)");
    assert_eq!(expr("(float)-x"), "((float)(-x))");
    assert_eq!(expr("(unsigned int)x"), "((unsigned int)x)");
    assert_eq!(expr("(const uint)x"), "((const uint)x)");
    assert_eq!(expr("(float4x3)m"), "((float4x3)m)");
    assert_eq!(expr("(vector<float, 2>)v"), "((vector<float, 2>)v)");
    // A user type name in parentheses is a cast only before a name, literal or `(`.
    assert_eq!(expr("(MyType)x"), "((MyType)x)");
    assert_eq!(expr("(MyType)(a + b)"), "((MyType)(a + b))");
    assert_eq!(expr("(MyType)1"), "((MyType)1)");
    assert_eq!(expr("(x) - y"), "(x - y)");
    assert_eq!(expr("(x) * y"), "(x * y)");
    assert_eq!(expr("(x)[i]"), "x[i]");
    assert_eq!(expr("(x).y"), "x.y");
    assert_eq!(expr("(texDesc.Width) ? a : b"), "(texDesc.Width ? a : b)");
    let (module, _) = parse("void f() { (float)x; }");
    let Item::Function(function) = &module.items[0] else {
        panic!("a function")
    };
    let StmtKind::Expr(cast) = &function.body.as_ref().expect("body").stmts[0].kind else {
        panic!("expr")
    };
    let ExprKind::Cast { ty, .. } = &cast.kind else {
        panic!("a cast")
    };
    assert!(matches!(&ty.kind, TypeRefKind::Named(name) if name.name == "float"));
}

#[test]
fn literals() {
    assert_eq!(
        expr("x = 0xff + 017 + 42u + 7ull + 3l + 5UL"),
        "(x = (((((0xff + 017) + 42u) + 7ull) + 3l) + 5ul))"
    );
    assert_eq!(
        expr("x = 1.5f + .5 + 1e3 + 2.0h + 1.0L + 3.e2 + 1f"),
        "(x = ((((((1.5f + 0.5) + 1000.0) + 2.0h) + 1.0L) + 300.0) + 1.0f))"
    );
    assert_eq!(expr("x = 0xffffffffffffffff"), "(x = 0xffffffffffffffff)");
    let (module, _) = parse("void f() { 0xFFu; 2.5h; 9ll; }");
    let Item::Function(function) = &module.items[0] else {
        panic!("a function")
    };
    let kinds: Vec<&ExprKind> = function
        .body
        .as_ref()
        .expect("body")
        .stmts
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Expr(e) => &e.kind,
            _ => panic!("expr"),
        })
        .collect();
    let ExprKind::Int(hex) = kinds[0] else {
        panic!("int")
    };
    assert_eq!(
        (
            hex.value,
            hex.radix,
            hex.is_unsigned,
            hex.long,
            hex.is_hex()
        ),
        (255, IntRadix::Hex, true, LongSuffix::None, true)
    );
    let ExprKind::Float(half) = kinds[1] else {
        panic!("float")
    };
    assert_eq!((half.value, half.suffix), (2.5, FloatSuffix::H));
    let ExprKind::Int(long) = kinds[2] else {
        panic!("int")
    };
    assert_eq!(
        (long.value, long.is_unsigned, long.long),
        (9, false, LongSuffix::LongLong)
    );
}

#[test]
fn initializer_lists() {
    assert_eq!(
        stmts("uint4 a = { 12, 9, 6, 3 };"),
        "uint4 a = {12, 9, 6, 3};"
    );
    assert_eq!(
        stmts("uint a[2][2] = {1, 2, {3, 4},};"),
        "uint a[2][2] = {1, 2, {3, 4}};"
    );
    assert_eq!(stmts("int4 r[] = {};"), "int4 r[] = {};");
    assert_eq!(stmts("x = {1, 2};"), "(x = {1, 2});");
}

#[test]
fn declarations() {
    assert_eq!(
        stmts("const uint w = a.z, h = a.w;"),
        "const uint w = a.z, h = a.w;"
    );
    assert_eq!(stmts("uint const x = 1;"), "const uint x = 1;");
    assert_eq!(stmts("texture t;"), "texture t;");
    assert_eq!(stmts("node n = N(3);"), "node n = N(3);");
    assert_eq!(stmts("unsigned int u = 1;"), "unsigned int u = 1;");
    assert_eq!(
        stmts("vector<float, 4> v; matrix<float, 4, 4> m;"),
        "vector<float, 4> v; matrix<float, 4, 4> m;"
    );
    assert_eq!(stmts("a * b;"), "(a * b);");
    assert_eq!(
        stmts("static uint counter = 0;"),
        "static uint counter = 0;"
    );
}

#[test]
fn control_flow() {
    assert_eq!(
        stmts("if (a) b(); else if (c) d(); else { e(); }"),
        "if (a) b(); else if (c) d(); else { e(); }"
    );
    assert_eq!(
        stmts("for (uint i = 0, j = 1; i < n; i++) f(i);"),
        "for (uint i = 0, j = 1; (i < n); (i++)) f(i);"
    );
    assert_eq!(
        stmts("for (i = 0, j = 0; ; ) {}"),
        "for (((i = 0), (j = 0));;) { }"
    );
    assert_eq!(stmts("for (;;) break;"), "for (;;) break;");
    assert_eq!(stmts("while (x) { continue; }"), "while (x) { continue; }");
    assert_eq!(
        stmts("do x--; while (x > 0);"),
        "do (x--); while ((x > 0));"
    );
    assert_eq!(stmts("return;"), "return;");
    assert_eq!(stmts("return a + b;"), "return (a + b);");
    assert_eq!(stmts(";"), ";");
    assert_eq!(stmts("{ { } }"), "{ { } }");
    assert_eq!(
        stmts("[subgraph(atomic)] { N(0, w); }"),
        "[subgraph(atomic)] { N(0, w); }"
    );
    assert_eq!(stmts("[unroll] for (;;) {}"), "[unroll] for (;;) { }");
    let (module, _) = parse("void f() { for (uint i = 0; ; ) {} for (i = 0; ; ) {} }");
    let Item::Function(function) = &module.items[0] else {
        panic!("a function")
    };
    let body = &function.body.as_ref().expect("body").stmts;
    assert!(matches!(
        &body[0].kind,
        StmtKind::For {
            init: Some(init),
            cond: None,
            step: None,
            ..
        } if matches!(**init, ForInit::Decl(_))
    ));
    assert!(matches!(
        &body[1].kind,
        StmtKind::For {
            init: Some(init),
            ..
        } if matches!(**init, ForInit::Expr(_))
    ));
}

#[test]
fn switch_keeps_fall_through() {
    let text = "switch (x) { case 1: case 2: a(); break; case A + 1: { b(); } default: c(); }";
    assert_eq!(
        stmts(text),
        "switch (x) { case 1: case 2: a(); break; case (A + 1): { b(); } default: c(); }"
    );
    let (module, _) = parse(&format!("void f() {{ {text} }}"));
    let Item::Function(function) = &module.items[0] else {
        panic!("a function")
    };
    let StmtKind::Switch { cases, .. } = &function.body.as_ref().expect("body").stmts[0].kind
    else {
        panic!("switch")
    };
    let shape: Vec<(bool, usize)> = cases
        .iter()
        .map(|c| (matches!(c.label, CaseLabel::Default), c.body.len()))
        .collect();
    assert_eq!(shape, vec![(false, 0), (false, 2), (false, 1), (true, 1)]);
}

#[test]
fn items() {
    assert_eq!(
        check("struct S { float4x3 t; float4 c, d[2]; };"),
        "struct S { float4x3 t; float4 c; float4 d[2]; };"
    );
    assert_eq!(
        check("enum E { A = 0, B = 1 << 2, C, };"),
        "enum E { A = 0, B = (1 << 2), C, };"
    );
    assert_eq!(check("enum E { A };"), "enum E { A, };");
    assert_eq!(check("typedef uint Arr[4];"), "typedef uint Arr[4];");
    assert_eq!(
        check("typedef struct Tag { uint a; } Name;"),
        "struct Tag { uint a; };\ntypedef Tag Name;"
    );
    assert_eq!(check("typedef enum { X, Y } F;"), "enum F { X, Y, };");
    assert_eq!(
        check("static const uint X = 4, Y[2] = {1, 2};"),
        "static const uint X = 4, Y[2] = {1, 2};"
    );
    assert_eq!(
        check("uint MakeId(uint a, uint b) { return (a << 16) | b; }"),
        "uint MakeId(uint a, uint b) { return ((a << 16) | b); }"
    );
    assert_eq!(check("void f(void);"), "void f();");
    assert_eq!(
        check("node nodeFoo(); node inputs(uint in_x);"),
        "node nodeFoo();\nnode inputs(uint in_x);"
    );
    assert_eq!(check(";;"), "");
}

#[test]
fn functions_and_nodes() {
    let text = "[subgraph(atomic, sequential)] void g() {}\n\
                graphics node Tri([readwrite(rendertarget)] texture rt : SV_Target0, float x);\n\
                compute node C([readwrite(depth)][writeonly(stencil)] texture d, [relaxed] uint a[4], int4 r[]);\n\
                node Upload([writeonly(copy)] buffer d, [readonly(copy)] buffer s) { return copy_buffer(d, s); }\n\
                export void main([readonly(present)] texture bb, out [readonly(cs)] texture o, \
                [readonly(ps)] out texture p, inout uint k, const uint c = 1, uint d : SV_Target3 = 2);";
    assert_eq!(
        check(text),
        "[subgraph(atomic, sequential)] void g() { }\n\
         graphics node Tri([readwrite(rendertarget)] texture rt : SV_Target0, float x);\n\
         compute node C([readwrite(depth)] [writeonly(stencil)] texture d, [relaxed] uint a[4], int4 r[]);\n\
         node Upload([writeonly(copy)] buffer d, [readonly(copy)] buffer s) { return copy_buffer(d, s); }\n\
         export void main([readonly(present)] texture bb, [readonly(cs)] out texture o, \
         [readonly(ps)] out texture p, inout uint k, const uint c = 1, uint d : SV_Target3 = 2);"
    );
    let (module, _) = parse(text);
    let functions: Vec<_> = module
        .items
        .iter()
        .map(|item| match item {
            Item::Function(f) => f,
            _ => panic!("function"),
        })
        .collect();
    assert!(!functions[0].is_node() && functions[1].is_node() && functions[3].is_node());
    assert_eq!(functions[1].queue, Some(QueueClass::Graphics));
    assert_eq!(functions[2].queue, Some(QueueClass::Compute));
    assert_eq!(functions[3].queue, None);
    assert!(functions[4].is_export && !functions[3].is_export);
    assert!(functions[1].body.is_none() && functions[3].body.is_some());
    let params = &functions[4].params;
    assert_eq!(params[1].direction, Some(ParamDirection::Out));
    assert_eq!(params[2].direction, Some(ParamDirection::Out));
    assert_eq!(params[3].direction, Some(ParamDirection::InOut));
    assert!(params[4].ty.is_const);
    assert_eq!(
        params[5].semantic.as_ref().map(|s| s.name.as_str()),
        Some("SV_Target3")
    );
    let attrs = &functions[2].params[0].attributes;
    assert_eq!(
        attrs
            .iter()
            .map(|a| a.name.name.as_str())
            .collect::<Vec<_>>(),
        ["readwrite", "writeonly"]
    );
    let ExprKind::Name(arg) = &functions[3].params[0].attributes[0].args[0].kind else {
        panic!("a word")
    };
    assert_eq!(arg.name, "copy");
}

#[test]
fn spans_point_at_the_source() {
    let text = "void f() {\n  x = a + bb;\n}\n";
    let (module, _) = parse(text);
    let Item::Function(function) = &module.items[0] else {
        panic!("a function")
    };
    assert_eq!(
        (function.span.start, function.span.end),
        (0, text.trim_end().len() as u32)
    );
    assert_eq!((function.name.span.start, function.name.span.end), (5, 6));
    let StmtKind::Expr(assign) = &function.body.as_ref().expect("body").stmts[0].kind else {
        panic!("expr")
    };
    let ExprKind::Assign { value, .. } = &assign.kind else {
        panic!("assign")
    };
    assert_eq!(
        &text[value.span.start as usize..value.span.end as usize],
        "a + bb"
    );
    let (module, _) = parse("void f() { y = (a + b) * c; }");
    let Item::Function(function) = &module.items[0] else {
        panic!("a function")
    };
    let StmtKind::Expr(assign) = &function.body.as_ref().expect("body").stmts[0].kind else {
        panic!("expr")
    };
    let ExprKind::Assign { value, .. } = &assign.kind else {
        panic!("assign")
    };
    let ExprKind::Binary { lhs, .. } = &value.kind else {
        panic!("binary")
    };
    assert_eq!((lhs.span.start, lhs.span.end), (15, 22));
}
