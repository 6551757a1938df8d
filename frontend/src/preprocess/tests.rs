//! Tests of expansion output and source mapping.

use super::{Expanded, MemoryLoader, Preprocessor};
use crate::diagnostic::Diagnostic;
use crate::source::{FileId, SourceFiles};

/// One preprocessed translation unit: the root is the first file, the others are loadable.
pub(super) struct Fixture {
    pub files: SourceFiles,
    pub expanded: Expanded,
    pub diags: Vec<Diagnostic>,
}

impl Fixture {
    pub(super) fn new(sources: &[(&str, &str)]) -> Fixture {
        Fixture::with(Preprocessor::new(), sources)
    }

    pub(super) fn with(mut pp: Preprocessor, sources: &[(&str, &str)]) -> Fixture {
        let mut files = SourceFiles::new();
        let root = files.add(sources[0].0, sources[0].1.to_string());
        let mut loader = MemoryLoader::new();
        for (path, text) in &sources[1..] {
            loader.insert(path, *text);
        }
        let (expanded, diags) = pp.run(&mut files, root, &loader);
        Fixture {
            files,
            expanded,
            diags,
        }
    }

    /// The headlines of all diagnostics.
    pub(super) fn headlines(&self) -> Vec<String> {
        self.diags.iter().map(|d| d.headline(&self.files)).collect()
    }

    /// `PATH:LINE:COL` of the `nth` occurrence of `needle` in the output.
    pub(super) fn loc(&self, needle: &str, nth: usize) -> String {
        let (start, end) = self.find(needle, nth);
        self.files.location(self.expanded.map.span(start, end))
    }

    /// The original text that the `nth` occurrence of `needle` maps to.
    pub(super) fn origin(&self, needle: &str, nth: usize) -> String {
        let (start, end) = self.find(needle, nth);
        let span = self.expanded.map.span(start, end);
        self.files.get(span.file).text[span.start as usize..span.end as usize].to_string()
    }

    pub(super) fn find(&self, needle: &str, nth: usize) -> (u32, u32) {
        let (start, _) = self
            .expanded
            .text
            .match_indices(needle)
            .nth(nth)
            .expect("needle in output");
        (start as u32, (start + needle.len()) as u32)
    }
}

/// Preprocesses one file and checks the output and that there are no diagnostics.
fn check(input: &str, expected: &str) {
    let fixture = Fixture::new(&[("a.rpsl", input)]);
    assert_eq!(
        fixture.headlines(),
        Vec::<String>::new(),
        "input: {input:?}"
    );
    assert_eq!(fixture.expanded.text, expected, "input: {input:?}");
}

/// Whether `#if EXPR` is taken (with `X` defined as 1).
fn condition(expr: &str) -> bool {
    let input = format!("#define X 1\n#if {expr}\nyes\n#endif\n");
    let fixture = Fixture::new(&[("a.rpsl", &input)]);
    assert_eq!(
        fixture.headlines(),
        Vec::<String>::new(),
        "expression: {expr}"
    );
    fixture.expanded.text.contains("yes")
}

#[test]
fn comments_become_spaces() {
    check("a/**/b // c\nd", "a b \nd");
    check("a /* x\ny */ b\n", "a  \n b\n");
    check("\"// not a comment\" '/*'\n", "\"// not a comment\" '/*'\n");
}

#[test]
fn line_continuations_are_joined() {
    check("#define X 1 + \\\n 2\nX\n", "\n1 + 2\n");
    check("int a\\\nb;\n", "int ab;\n");
}

#[test]
fn object_like_macros() {
    check("#define A 1\nA A\n", "\n1 1\n");
    check("#define A B\n#define B 42\nA\n", "\n\n42\n");
    check("#define E\n[E]\n", "\n[]\n");
    check("#define A 1\n\"A\" 'A' A_ _A A\n", "\n\"A\" 'A' A_ _A 1\n");
    check("#define f 2\n1.0f 0x1fu 1e-3 f\n", "\n1.0f 0x1fu 1e-3 2\n");
}

#[test]
fn self_reference_is_not_expanded_again() {
    check("#define x x+1\nx\n", "\nx+1\n");
    check("#define a b\n#define b a\na b\n", "\n\na b\n");
    check("#define f(x) x f\nf(1)(2)\n", "\n1 f(2)\n");
}

#[test]
fn function_like_macros() {
    check(
        "#define ADD(a, b) ((a) + (b))\nADD(1, 2*3)\n",
        "\n((1) + (2*3))\n",
    );
    check(
        "#define F(x) [x]\nF((a, b)) F(g(1, 2))\n",
        "\n[(a, b)] [g(1, 2)]\n",
    );
    check("#define F(x) [x]\nF() F( )\n", "\n[] []\n");
    check("#define F(x) x\nint F;\n", "\nint F;\n");
    check("#define F() 7\nF()\n", "\n7\n");
    check("#define F(x, y) x y\nF(1,\n  2) z\nw\n", "\n1 2 z\nw\n");
    check("#define F(x) (x+1)\nF(F(1))\n", "\n((1+1)+1)\n");
    check(
        "#define id(x) x\n#define twice(x) id(x) id(x)\ntwice(id(1))\n",
        "\n\n1 1\n",
    );
    check("#define G(x) <x>\n#define F G\nF(1)\n", "\n\n<1>\n");
    check("#define F(x) x\nF\n(1)\n", "\n1\n");
}

#[test]
fn variadic_stringify_and_paste() {
    check(
        "#define P(f, ...) call(f, __VA_ARGS__)\nP(a, b, c) P(a)\n",
        "\ncall(a, b, c) call(a,)\n",
    );
    check("#define S(x) #x\nS(p + \"q\")\n", "\n\"p + \\\"q\\\"\"\n");
    check(
        "#define C(a, b) a ## b\nC(x, 1) C(, y) C(x, ) C(+, =)\n",
        "\nx1 y x +=\n",
    );
    check(
        "#define C(a, b) a ## b\n#define x1 done\nC(x, 1)\n",
        "\n\ndone\n",
    );
}

/// The example of C99 6.10.3.5 (3) and (4): rescanning, painting, `#` and `##`.
#[test]
fn c_standard_example() {
    let input = "#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n#define g f\n#define z z[0]\n\
                 #define h g(~\n#define m(a) a(w)\n#define w 0,1\n#define t(a) a\n#define p() int\n\
                 #define q(x) x\n#define r(x,y) x ## y\n#define str(x) # x\n\
                 f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);\n\
                 g(x+(3,4)-w) | h 5) & m\n(f)^m(m);\n\
                 p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };\n\
                 char c[2][6] = { str(hello), str() };\n";
    let expected = "f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);\n\
                    f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);\n\
                    int i[] = { 1, 23, 4, 5,  };\n\
                    char c[2][6] = { \"hello\", \"\" };\n";
    check(input, &format!("{}{expected}", "\n".repeat(14)));
    check("#define S(...) #__VA_ARGS__\nS(a, b)\n", "\n\"a, b\"\n");
}

#[test]
fn tokens_that_would_merge_are_separated() {
    check("#define M -1\n-M\n", "\n- -1\n");
    check("#define P +\nP+ a P\n", "\n+ + a +\n");
    check("#define N 1\nN.5\n", "\n1 .5\n");
}

#[test]
fn undef_and_redefinition_with_same_body() {
    check("#define A 1\n#undef A\nA\n", "\n\nA\n");
    check(
        "#define A (1 + 2)\n#define A (1  +  2)\nA\n",
        "\n\n(1 + 2)\n",
    );
}

#[test]
fn conditionals() {
    let input = "#define X 2\n#if X > 1 && defined(X)\nyes\n#elif 1\nno1\n#else\nno2\n#endif\n";
    check(input, "\n\nyes\n\n\n\n\n\n");
    check(
        "#ifdef X\na\n#elif defined Y\nb\n#else\nc\n#endif\n",
        "\n\n\n\n\nc\n\n",
    );
    check("#ifndef X\na\n#endif\n", "\na\n\n");
    // Skipped groups only track nesting: no evaluation, unknown directives allowed.
    check(
        "#if 0\n#foo\n#if 1/0\n#endif\n#else\nok\n#endif\n",
        "\n\n\n\n\nok\n\n",
    );
    check(
        "#if 0\n#else\n#if 1\nin\n#else\nout\n#endif\n#endif\n",
        "\n\n\nin\n\n\n\n\n",
    );
    check("#if 0\n/* #endif */\nx\n#endif\ny\n", "\n\n\n\ny\n");
    check("#if 1\n#elif 1/0\n#endif\n", "\n\n\n");
}

#[test]
fn integer_expressions() {
    let taken = [
        "1 + 2 * 3 == 7",
        "(1 ? 2 : 3) == 2",
        "0 ? 1 / 0 : 2",
        "-1 < 0",
        "~0 == -1",
        "1 << 4 == 16",
        "256 >> 4 == 16",
        "0x10 == 16 && 010 == 8 && 0b11 == 3",
        "'a' == 97 && '\\n' == 10",
        "defined X && defined(X) && !defined(Y)",
        "0 && 1 / 0 || 1",
        "1 || 1 / 0",
        "UNKNOWN == 0",
        "5 / 2 == 2 && -5 % 3 == -2",
        "(2 > 1) + (1 >= 1) + (1 <= 1) + (1 != 2) == 4",
        "(3 & 5 ^ 1 | 8) == 8",
        "true && !false",
        "10u == 10 && 4000000000 > 0 && 1ull",
        "X ? X : 0",
        "1 ? 2 ? 3 : 4 : 5",
    ];
    for expr in taken {
        assert!(condition(expr), "{expr} should be true");
    }
    for expr in ["-1 < 0u", "0", "X - 1", "1 > 2 ? 1 : 0", "!X", "0 || 0"] {
        assert!(!condition(expr), "{expr} should be false");
    }
}

#[test]
fn macros_persist_across_runs_and_predefines() {
    let mut files = SourceFiles::new();
    let prelude = files.add(
        "prelude.rpsl",
        "#define rtv [readwrite(rendertarget)] texture\n".to_string(),
    );
    let mut pp = Preprocessor::new();
    pp.define("__RPSL__", "1");
    pp.define("MAX(a, b)", "((a) > (b) ? (a) : (b))");
    let loader = MemoryLoader::new();
    let (_, diags) = pp.run(&mut files, prelude, &loader);
    assert!(diags.is_empty());
    assert!(pp.is_defined("rtv") && pp.is_defined("__RPSL__"));
    let script = files.add(
        "s.rpsl",
        "#if __RPSL__\nnode f(rtv t, MAX(1, 2));\n#endif\n".to_string(),
    );
    let (expanded, diags) = pp.run(&mut files, script, &loader);
    assert!(diags.is_empty());
    assert_eq!(
        expanded.text,
        "\nnode f([readwrite(rendertarget)] texture t, ((1) > (2) ? (1) : (2)));\n\n"
    );
    let rtv_at = expanded.text.find("texture").unwrap() as u32;
    assert_eq!(
        files.location(expanded.map.span(rtv_at, rtv_at + 7)),
        "s.rpsl:2:8"
    );
    let exp = expanded.map.expansion(rtv_at).unwrap();
    assert_eq!(exp.macro_name, "rtv");
    assert_eq!(files.location(exp.definition), "prelude.rpsl:1:9");
}

#[test]
fn includes_are_relative_to_the_including_file() {
    let fixture = Fixture::new(&[
        ("dir/a.rpsl", "#include \"inc/b.rpsli\"\nint a = B + C;\n"),
        (
            "dir/inc/b.rpsli",
            "#include \"../c.rpsli\"\nint b;\n#define B 2",
        ),
        ("dir/c.rpsli", "#define C 3\nint c;\n"),
    ]);
    assert_eq!(fixture.headlines(), Vec::<String>::new());
    assert_eq!(
        fixture.expanded.text,
        "\n\n\nint c;\nint b;\nint a = 2 + 3;\n"
    );
    assert_eq!(fixture.loc("int c", 0), "dir/c.rpsli:2:1");
    assert_eq!(fixture.loc("int b", 0), "dir/inc/b.rpsli:2:1");
    assert_eq!(fixture.loc("int a", 0), "dir/a.rpsl:2:1");
    assert_eq!(fixture.loc("2", 0), "dir/a.rpsl:2:9");
    assert_eq!(
        fixture.files.location(
            fixture
                .expanded
                .map
                .expansion(fixture.find("2", 0).0)
                .unwrap()
                .definition
        ),
        "dir/inc/b.rpsli:3:9"
    );
    assert_eq!(fixture.files.len(), 3);
}

#[test]
fn include_guards_and_pragma_once() {
    let fixture = Fixture::new(&[
        ("a.rpsl", "#include \"g.rpsli\"\n#include \"g.rpsli\"\n#include \"o.rpsli\"\n#include \"o.rpsli\"\nG O\n"),
        ("g.rpsli", "#ifndef G_H\n#define G_H\n#include \"g.rpsli\"\n#define G 1\n#endif\n"),
        ("o.rpsli", "#pragma once\n#define O 2\n#include \"o.rpsli\"\n"),
    ]);
    assert_eq!(fixture.headlines(), Vec::<String>::new());
    assert!(fixture.expanded.text.ends_with("1 2\n"));
}

#[test]
fn macro_tokens_map_to_the_invocation() {
    let fixture = Fixture::new(&[("a.rpsl", "#define TWO 2\nint x = TWO + y;\n")]);
    assert_eq!(fixture.expanded.text, "\nint x = 2 + y;\n");
    assert_eq!(fixture.loc("2", 0), "a.rpsl:2:9");
    assert_eq!(fixture.origin("2", 0), "TWO");
    assert_eq!(fixture.loc("y", 0), "a.rpsl:2:15");
    assert_eq!(fixture.origin("2 + y", 0), "TWO + y");
    assert!(fixture
        .expanded
        .map
        .expansion(fixture.find("y", 0).0)
        .is_none());
}

#[test]
fn argument_tokens_map_to_the_argument() {
    let fixture = Fixture::new(&[("a.rpsl", "#define SQ(v) ((v) * (v))\nfloat z = SQ(abc);\n")]);
    assert_eq!(fixture.expanded.text, "\nfloat z = ((abc) * (abc));\n");
    assert_eq!(fixture.loc("abc", 0), "a.rpsl:2:14");
    assert_eq!(fixture.loc("abc", 1), "a.rpsl:2:14");
    assert_eq!(fixture.origin("abc", 1), "abc");
    assert_eq!(fixture.loc("*", 0), "a.rpsl:2:11");
    assert_eq!(fixture.origin("*", 0), "SQ(abc)");
    let exp = fixture
        .expanded
        .map
        .expansion(fixture.find("*", 0).0)
        .unwrap();
    assert_eq!(exp.macro_name, "SQ");
    assert_eq!(fixture.files.location(exp.definition), "a.rpsl:1:9");
    assert_eq!(fixture.files.location(exp.invocation), "a.rpsl:2:11");
    assert_eq!(
        fixture
            .expanded
            .map
            .expansion(fixture.find("abc", 0).0)
            .unwrap()
            .macro_name,
        "SQ"
    );
    assert_eq!(fixture.loc(";", 0), "a.rpsl:2:18");
}

#[test]
fn nested_expansions_chain_to_the_outer_invocation() {
    let fixture = Fixture::new(&[(
        "a.rpsl",
        "#define INNER 7\n#define OUTER (INNER)\nx = OUTER;\n",
    )]);
    assert_eq!(fixture.expanded.text, "\n\nx = (7);\n");
    assert_eq!(fixture.loc("7", 0), "a.rpsl:3:5");
    assert_eq!(fixture.origin("7", 0), "OUTER");
    let chain = fixture.expanded.map.expansion_chain(fixture.find("7", 0).0);
    let names: Vec<&str> = chain.iter().map(|e| e.macro_name.as_str()).collect();
    assert_eq!(names, ["INNER", "OUTER"]);
}

#[test]
fn multi_line_invocations_and_continuations_map_exactly() {
    let fixture = Fixture::new(&[(
        "a.rpsl",
        "#define F(a, b) a + b\nv = F(one,\n      two);\nint q\\\nr;\n",
    )]);
    assert_eq!(fixture.expanded.text, "\nv = one + two;\nint qr;\n");
    assert_eq!(fixture.loc("two", 0), "a.rpsl:3:7");
    assert_eq!(fixture.loc("+", 0), "a.rpsl:2:5");
    assert_eq!(fixture.origin("+", 0), "F(one,\n      two)");
    assert_eq!(fixture.loc("r;", 0), "a.rpsl:5:1");
    assert_eq!(fixture.origin("qr", 0), "q\\\nr");
}

#[test]
fn end_of_output_maps_to_end_of_file() {
    let fixture = Fixture::new(&[("a.rpsl", "int x")]);
    let end = fixture.expanded.text.len() as u32;
    assert_eq!(
        fixture.files.location(fixture.expanded.map.span(end, end)),
        "a.rpsl:1:6"
    );
    let empty = Fixture::new(&[("a.rpsl", "")]);
    assert_eq!(
        empty.files.location(empty.expanded.map.span(0, 0)),
        "a.rpsl:1:1"
    );
}

/// A script of about 1,000 lines like the corpus (structs, nodes, macros, comments).
pub(super) fn big_script() -> String {
    let mut text =
        String::from("#define rtv [readwrite(rendertarget)] texture\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n");
    for i in 0..200 {
        text.push_str(&format!(
            "// Pass {i}: draw something.\nnode Draw{i}(rtv dst : SV_Target0, float4 color);\n\
             export void main{i}([readonly(present)] texture backbuffer) {{\n    uint w = MAX({i}, 16); /* width */\n}}\n"
        ));
    }
    text
}

#[test]
fn map_is_compact() {
    let fixture = Fixture::new(&[("a.rpsl", &big_script())]);
    assert!(fixture.diags.is_empty());
    // Per script line: a few segments around each macro use, none for plain text.
    assert!(
        fixture.expanded.map.segment_count() < 200 * 30,
        "{}",
        fixture.expanded.map.segment_count()
    );
    assert_eq!(fixture.loc("Draw199", 0), "a.rpsl:999:6");
}

/// Times preprocessing of a 1,000-line script: `cargo test --release -p rpsl-frontend
/// benchmark_preprocess -- --ignored --nocapture`.
#[test]
#[ignore]
fn benchmark_preprocess() {
    let script = big_script();
    let start = std::time::Instant::now();
    let n = 200;
    for _ in 0..n {
        let mut files = SourceFiles::new();
        let root = files.add("a.rpsl", script.clone());
        let _ = Preprocessor::new().run(&mut files, root, &MemoryLoader::new());
    }
    println!("preprocess 1,000 lines: {:?} per run", start.elapsed() / n);
}

#[test]
fn corpus_preprocesses_cleanly() {
    let dir = crate::test_support::shared("corpus/rps-sdk");
    if !dir.is_dir() {
        eprintln!("corpus folder missing; skipping");
        return;
    }
    let mut n_files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rpsl") {
            continue;
        }
        let mut files = SourceFiles::new();
        let root = files.add(path.clone(), std::fs::read_to_string(&path).unwrap());
        let mut pp = Preprocessor::new();
        pp.define("__RPSL__", "1");
        let (expanded, diags) = pp.run(&mut files, root, &super::FsLoader);
        assert_eq!(
            diags.iter().map(|d| d.headline(&files)).collect::<Vec<_>>(),
            Vec::<String>::new()
        );
        assert!(!expanded.text.contains("//"), "{}", path.display());
        n_files += 1;
    }
    assert!(n_files >= 10);
}

#[test]
fn unused_file_id_is_harmless() {
    let mut files = SourceFiles::new();
    let (expanded, diags) = Preprocessor::new().run(&mut files, FileId(5), &MemoryLoader::new());
    assert!(expanded.text.is_empty() && diags.is_empty());
}

#[test]
fn crlf_lines_and_unicode_columns() {
    let fixture = Fixture::new(&[("a.rpsl", "#define A 1\r\n// é\r\nx = \"é\" + A;\r\n")]);
    assert_eq!(fixture.expanded.text, "\n\nx = \"é\" + 1;\r\n");
    assert_eq!(fixture.loc("1", 0), "a.rpsl:3:11");
    assert_eq!(fixture.loc(";", 0), "a.rpsl:3:12");
}

#[test]
fn macros_inside_arguments_map_to_their_own_invocation() {
    let fixture = Fixture::new(&[("a.rpsl", "#define ID(x) x\n#define K 5\nID(K) + ID(z)\n")]);
    assert_eq!(fixture.expanded.text, "\n\n5 + z\n");
    assert_eq!(fixture.loc("5", 0), "a.rpsl:3:4");
    assert_eq!(
        fixture
            .expanded
            .map
            .expansion(fixture.find("5", 0).0)
            .unwrap()
            .macro_name,
        "K"
    );
    assert_eq!(fixture.loc("z", 0), "a.rpsl:3:12");
    assert_eq!(
        fixture
            .expanded
            .map
            .expansion(fixture.find("z", 0).0)
            .unwrap()
            .macro_name,
        "ID"
    );
}
