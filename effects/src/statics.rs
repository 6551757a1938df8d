//! Global `static const` variables initialised from run-time values, such as
//! `static const float kScaleX = 1 / GetScale().x;` or `static const float s = sharpness - 0.5;`.
//! D3D compilers evaluate such initialisers when the shader starts; glslang crashes on them. The
//! generator turns each into a macro with the same value and type,
//! `#define kScaleX ((float)(1 / GetScale().x))`, on the declaration's first line (later lines of
//! the declaration become blank, so line numbers stay). Only whole-line declarations of one
//! scalar, vector or matrix variable are rewritten; arrays, initialiser lists and variables whose
//! name is also a macro's (`#define RGBtoYUV(Kb, Kr) ...` next to a `RGBtoYUV` variable) stay as
//! written.

use std::collections::HashSet;

use crate::parse::lines::split_lines;

/// The predefined functions that read the constant buffer.
pub const RUNTIME_FUNCTIONS: [&str; 5] = [
    "GetInputSize",
    "GetInputPt",
    "GetOutputSize",
    "GetOutputPt",
    "GetScale",
];

/// The identifiers of `code`.
fn identifiers(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

/// The names `text` defines as macros (`#define NAME` or `#define NAME(...)`).
pub fn defined_macros(text: &str) -> impl Iterator<Item = String> + '_ {
    split_lines(text).into_iter().filter_map(|line| {
        let directive = line.code.trim_start().strip_prefix('#')?.trim_start();
        let rest = directive.strip_prefix("define")?;
        if !rest.starts_with(char::is_whitespace) {
            return None;
        }
        identifiers(rest).next().map(str::to_string)
    })
}

/// `text` with its top-level `static const` declarations whose initialiser names one of
/// `runtime_names` rewritten as macros, unless the variable's name is in `macro_names`; the names
/// rewritten are added to `runtime_names` (a later initialiser that uses one is run-time too).
pub fn lift_runtime_statics(
    text: &str,
    runtime_names: &mut HashSet<String>,
    macro_names: &HashSet<String>,
) -> String {
    let lines = split_lines(text);
    let mut out: Vec<String> = lines.iter().map(|line| line.text.to_string()).collect();
    let mut depth = 0i64;
    let mut index = 0;
    while index < lines.len() {
        let code = lines[index].code.trim();
        if depth == 0 && !code.starts_with('#') {
            let rewrite = statement_at(&lines, index, runtime_names)
                .filter(|(_, _, name)| !macro_names.contains(name));
            if let Some(rewrite) = rewrite {
                let (end, define, name) = rewrite;
                out[index] = define;
                for blank in out.iter_mut().take(end + 1).skip(index + 1) {
                    blank.clear();
                }
                runtime_names.insert(name);
                index = end + 1;
                continue;
            }
        }
        if !code.starts_with('#') {
            for c in code.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
            }
        }
        index += 1;
    }
    let mut result = out.join("\n");
    if text.ends_with('\n') {
        result.push('\n');
    }
    result
}

/// A rewritable declaration starting on line `start`: its last line, the `#define` and the name.
fn statement_at(
    lines: &[crate::parse::lines::Line<'_>],
    start: usize,
    runtime_names: &HashSet<String>,
) -> Option<(usize, String, String)> {
    let first = lines[start].code.trim_start();
    let rest = first.strip_prefix("static")?.trim_start();
    let rest = rest.strip_prefix("const")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    // The statement runs to the first `;`, which must end its line.
    let mut statement = String::new();
    let mut end = start;
    loop {
        let code = lines[end].code.as_str();
        let code = if end == start { first } else { code };
        if code.trim_start().starts_with('#') {
            return None;
        }
        if let Some(semicolon) = code.find(';') {
            if !code[semicolon + 1..].trim().is_empty() {
                return None;
            }
            statement.push_str(&code[..semicolon]);
            break;
        }
        statement.push_str(code);
        statement.push(' ');
        end += 1;
        if end >= lines.len() || end - start > 64 {
            return None;
        }
    }
    let declaration = statement.trim_start().strip_prefix("static")?.trim_start();
    let declaration = declaration.strip_prefix("const")?.trim();
    let (head, initialiser) = declaration.split_once('=')?;
    let mut head_words = head.split_whitespace();
    let (ty, name) = (head_words.next()?, head_words.next()?);
    let is_word = |word: &str| {
        word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
    };
    if head_words.next().is_some() || !is_word(ty) || !is_word(name) {
        return None;
    }
    let initialiser = initialiser.trim();
    if initialiser.contains(['{', '}', '"']) || has_top_level_comma(initialiser) {
        return None;
    }
    if !identifiers(initialiser).any(|word| runtime_names.contains(word)) {
        return None;
    }
    let define = format!("#define {name} (({ty})({initialiser}))");
    Some((end, define, name.to_string()))
}

fn has_top_level_comma(expr: &str) -> bool {
    let mut depth = 0i32;
    for c in expr.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> HashSet<String> {
        list.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn run_time_initialisers_become_macros_transitively() {
        let mut runtime = names(&["sharpness", "GetScale"]);
        let text = "static const float kEps = 1.0f / 255.0f;\n\
                    static const float slider = sharpness - 0.5f; // comment\n\
                    static const float scale = (slider >= 0.0f)\n\
                    \t? 1.25f : 1.0f;\n\
                    static const float2 kScale = 1 / GetScale();\n\
                    float f() { static const float local = sharpness; return local; }\n";
        assert_eq!(
            lift_runtime_statics(text, &mut runtime, &HashSet::new()),
            "static const float kEps = 1.0f / 255.0f;\n\
             #define slider ((float)(sharpness - 0.5f))\n\
             #define scale ((float)((slider >= 0.0f) \t? 1.25f : 1.0f))\n\
             \n\
             #define kScale ((float2)(1 / GetScale()))\n\
             float f() { static const float local = sharpness; return local; }\n"
        );
        assert!(runtime.contains("scale") && runtime.contains("kScale"));
        assert!(!runtime.contains("kEps"));
    }

    #[test]
    fn arrays_lists_and_shared_lines_stay() {
        let mut runtime = names(&["p"]);
        let text = "static const float w[2] = { p, p };\n\
                    static const float a = p, b = 2;\n\
                    float x; static const float c = p;\n\
                    static const float d = p; float y;\n\
                    struct S {\n static const float e = p;\n};\n\
                    #define M(a) a\n\
                    static const float M = M(p);\n";
        let macros: HashSet<String> = defined_macros(text).collect();
        assert_eq!(macros, names(&["M"]));
        assert_eq!(lift_runtime_statics(text, &mut runtime, &macros), text);
    }
}
