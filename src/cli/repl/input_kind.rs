//! What kind of input a line of the REPL is: more lines needed (open brackets, comments,
//! strings), a declaration that joins the script, or a statement that joins the entry's body.

/// Whether an input joins the script's declarations or the entry's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Declaration,
    Statement,
}

/// Whether `text` needs more lines: a bracket, brace or parenthesis is still open, or a
/// comment or string has not ended.
pub fn needs_more(text: &str) -> bool {
    let mut depth = 0i64;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => while chars.next_if(|&c| c != '\n').is_some() {},
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut closed = false;
                while let Some(c) = chars.next() {
                    if c == '*' && chars.next_if_eq(&'/').is_some() {
                        closed = true;
                        break;
                    }
                }
                if !closed {
                    return true;
                }
            }
            '"' => {
                let mut closed = false;
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => {
                            closed = true;
                            break;
                        }
                        _ => {}
                    }
                }
                if !closed {
                    return true;
                }
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    depth > 0
}

/// A declaration starts with a declaration keyword, or is a function definition (`TYPE NAME(`
/// ... `{ ... }`); anything else is a statement.
pub fn part_of(text: &str) -> Part {
    let mut rest = text;
    // Attributes (`[subgraph(atomic)]`) lead declarations and statements alike.
    while let Some(after) = rest.strip_prefix('[') {
        let Some(end) = after.find(']') else { break };
        rest = after[end + 1..].trim_start();
    }
    let words: Vec<&str> = rest
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '#'))
        .filter(|word| !word.is_empty())
        .take(2)
        .collect();
    const DECLARATION: &[&str] = &[
        "node", "graphics", "compute", "copy", "struct", "static", "typedef", "enum", "export",
        "cbuffer", "#define", "#include", "#undef", "#if", "#ifdef", "#ifndef",
    ];
    const STATEMENT: &[&str] = &[
        "return", "if", "for", "while", "do", "switch", "else", "break", "continue", "async",
    ];
    let Some(&first) = words.first() else {
        return Part::Statement;
    };
    if DECLARATION.contains(&first) || first.starts_with('#') {
        return Part::Declaration;
    }
    if STATEMENT.contains(&first) {
        return Part::Statement;
    }
    // `TYPE NAME(...) { ... }`: the second word is followed by `(`, no `=` before the body.
    let head = rest.split('{').next().unwrap_or_default();
    let second_then_paren = words.len() == 2 && {
        // The first word may follow other characters (`€ab`): slice after where it is.
        let end = rest.find(first).map_or(rest.len(), |at| at + first.len());
        let after_first = rest[end..].trim_start();
        after_first
            .strip_prefix(words[1])
            .is_some_and(|after| after.trim_start().starts_with('('))
    };
    if second_then_paren && rest.trim_end().ends_with('}') && !head.contains('=') {
        Part::Declaration
    } else {
        Part::Statement
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_sorted_into_declarations_and_statements() {
        for declaration in [
            "graphics node Draw(rtv rt : SV_Target0);",
            "struct S { uint a; };",
            "static const uint N = 3;",
            "#define W 4",
            "uint twice(uint x) { return 2 * x; }",
            "[subgraph(atomic)] void pass(texture t) { Draw(t); }",
            "export void other(texture bb) { }",
        ] {
            assert_eq!(part_of(declaration), Part::Declaration, "{declaration}");
        }
        for statement in [
            "Draw(backbuffer)",
            "texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);",
            "for (uint i = 0; i < 3; i++) { Draw(backbuffer); }",
            "if (frameIndex > 0) { Draw(backbuffer); }",
            "uint x = twice(3);",
            "async clear(t, float4(0, 0, 0, 1));",
        ] {
            assert_eq!(part_of(statement), Part::Statement, "{statement}");
        }
        // Not RPSL, but never a panic: the first word after a multi-byte character.
        for text in ["€ab cd(x) { }", "«» x", "€"] {
            let _ = part_of(text);
        }
    }

    #[test]
    fn open_brackets_comments_and_strings_ask_for_more() {
        assert!(needs_more("for (uint i = 0; i < 3; i++) {"));
        assert!(needs_more("Draw(backbuffer,"));
        assert!(needs_more("/* a comment"));
        assert!(!needs_more("Draw(backbuffer); // (not counted"));
        assert!(!needs_more("#include \"a(b.rpsl\""));
        assert!(!needs_more("{ Draw(backbuffer); }"));
    }
}
