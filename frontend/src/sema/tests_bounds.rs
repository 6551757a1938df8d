//! Inputs that used to take quadratic time or worse: huge parameter lists (duplicate names,
//! semantics, render-target slots) and megabyte-long identifiers (the "did you mean" search).
//! They assert the diagnostics, not the time: a regression shows as a test that never ends.

use crate::driver::check_source;

/// `LINE:COL: MESSAGE (help: HELP)` of every error of the script.
fn errors(text: &str) -> Vec<String> {
    let compilation = check_source("t.rpsl", text);
    compilation
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let (line, col) = compilation.files.get(d.span.file).line_col(d.span.start);
            let help = d
                .help
                .as_ref()
                .map(|h| format!(" (help: {h})"))
                .unwrap_or_default();
            format!("{line}:{col}: {}{help}", d.message)
        })
        .collect()
}

/// `graphics node N(PARAMS);` on line 1 with the parameters `make(k)` for k in 0..count, then
/// `extra` appended to the list.
fn node_with(count: usize, make: impl Fn(usize) -> String, extra: &str) -> String {
    let mut params: Vec<String> = (0..count).map(make).collect();
    if !extra.is_empty() {
        params.push(extra.to_string());
    }
    format!(
        "graphics node N({});\nexport void main() {{ }}\n",
        params.join(", ")
    )
}

#[test]
fn twenty_thousand_parameters_check_in_linear_time() {
    const COUNT: usize = 20_000;
    // Duplicate names: found through a map, reported at the second one.
    let text = node_with(COUNT, |k| format!("uint p{k}"), "uint p7");
    let column = text.find("uint p7,").unwrap() as u32 + 1;
    let duplicate_column = text.rfind("uint p7").unwrap() as u32 + 6;
    assert_eq!(
        errors(&text),
        [format!("1:{duplicate_column}: `p7` is already defined")]
    );
    assert!(column < duplicate_column);
    // Render targets without semantics take slots 0..COUNT-1 in order: a clear color for the
    // last one matches, one past it does not.
    let text = node_with(
        COUNT,
        |k| format!("rtv t{k}"),
        &format!("float4 c : SV_ClearColor{COUNT}"),
    );
    let at = text.find(": SV_ClearColor").unwrap() as u32 + 3;
    assert_eq!(
        errors(&text),
        [format!(
            "1:{at}: `SV_ClearColor{COUNT}` has no matching render target"
        )]
    );
    let last = COUNT - 1;
    let text = node_with(
        COUNT,
        |k| format!("rtv t{k}"),
        &format!("float4 c : SV_ClearColor{last}"),
    );
    assert_eq!(errors(&text), Vec::<String>::new());
    // Explicit semantics: a duplicate found through a map.
    let text = node_with(
        COUNT,
        |k| format!("rtv t{k} : SV_Target{k}"),
        "rtv again : SV_Target12345",
    );
    let at = text.rfind(": SV_Target12345").unwrap() as u32 + 3;
    assert_eq!(
        errors(&text),
        [format!("1:{at}: duplicate semantic `SV_Target12345`")]
    );
}

#[test]
fn render_target_slots_fill_the_gaps_between_explicit_ones() {
    let compilation = check_source(
        "t.rpsl",
        "graphics node N(rtv a : SV_Target1, rtv b, rtv c[2], rtv d, rtv e : SV_Target3);\n\
         export void main() { }\n",
    );
    assert!(
        !compilation.has_errors(),
        "{}",
        compilation.render_diagnostics()
    );
    let module = compilation.module.unwrap();
    let node = module.nodes.iter().find(|n| n.name == "N").unwrap();
    let slots: Vec<Option<u32>> = node.params.iter().map(|p| p.render_target).collect();
    // b takes 0; c needs two free slots in a row: 4 and 5 (1 and 3 are taken); d then 2.
    assert_eq!(slots, [Some(1), Some(0), Some(4), Some(2), Some(3)]);
}

#[test]
fn a_megabyte_identifier_gets_no_suggestion_search() {
    let name = "v".repeat(1 << 20);
    let typo = format!("{}w", &name[1..]);
    // Declared and misspelled: both a megabyte long, never compared character by character.
    let text = format!("export void main() {{ uint {name} = 1; uint x = {typo}; }}\n");
    let column = text.find("= v").unwrap() as u32 + 3;
    assert_eq!(
        errors(&text),
        [format!("1:{column}: unknown name `{typo}`")]
    );
    // A long unknown name among short ones, and a short typo among long names.
    let text = format!("export void main() {{ uint vv = 1; uint x = {name}; }}\n");
    let column = text.find("= v").unwrap() as u32 + 3;
    assert_eq!(
        errors(&text),
        [format!("1:{column}: unknown name `{name}`")]
    );
    let text = format!("export void main() {{ uint {name} = 1; uint x = vvvvw; }}\n");
    let column = text.find("= vvvvw").unwrap() as u32 + 3;
    assert_eq!(errors(&text), [format!("1:{column}: unknown name `vvvvw`")]);
}
