//! A source check for HLSL's square-matrix `*` trap: in HLSL `a * b` on two matrices is
//! element-wise, but glslang compiles it to a matrix product when both are square. The check is
//! lexical: it finds `x * y` / `x *= y` where both names are declared with the same square matrix
//! type (`float4x4`, `half3x3`, `matrix<float, 2, 2>`, ...) in the shader or its includes. It does
//! not follow expressions (`(a + b) * c`), member accesses or scopes.

use std::collections::HashMap;

use crate::compile::CompileSettings;
use crate::error::ShaderError;
use crate::include::collect_includes;
use crate::request::ShaderRequest;

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    Number(u32),
    Punct(&'static str),
    Other,
}

/// Tokens with their 1-based lines; comments removed.
fn tokenize(source: &str) -> Vec<(Token, u32)> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    let mut line = 1u32;
    while at < bytes.len() {
        let byte = bytes[at];
        if byte == b'\n' {
            line += 1;
            at += 1;
        } else if byte.is_ascii_whitespace() {
            at += 1;
        } else if bytes[at..].starts_with(b"//") {
            while at < bytes.len() && bytes[at] != b'\n' {
                at += 1;
            }
        } else if bytes[at..].starts_with(b"/*") {
            at += 2;
            while at < bytes.len() && !bytes[at..].starts_with(b"*/") {
                line += (bytes[at] == b'\n') as u32;
                at += 1;
            }
            at += 2;
        } else if byte.is_ascii_alphabetic() || byte == b'_' {
            let start = at;
            while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
                at += 1;
            }
            tokens.push((Token::Ident(source[start..at].to_string()), line));
        } else if byte.is_ascii_digit() {
            let start = at;
            while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'.') {
                at += 1;
            }
            let value = source[start..at]
                .parse()
                .map_or(Token::Other, Token::Number);
            tokens.push((value, line));
        } else if bytes[at..].starts_with(b"*=") {
            tokens.push((Token::Punct("*="), line));
            at += 2;
        } else {
            let punct = match byte {
                b'*' => Some("*"),
                b',' => Some(","),
                b'.' => Some("."),
                b'(' => Some("("),
                b'[' => Some("["),
                b'<' => Some("<"),
                b'>' => Some(">"),
                b';' => Some(";"),
                _ => None,
            };
            tokens.push((punct.map_or(Token::Other, Token::Punct), line));
            at += 1;
            // Skip the rest of a multi-byte UTF-8 character.
            while at < bytes.len() && (bytes[at] & 0xc0) == 0x80 {
                at += 1;
            }
        }
    }
    tokens
}

/// `float4x4` -> Some(4) when square; other types -> None.
fn square_size_of_type_name(name: &str) -> Option<u32> {
    let scalars = [
        "float",
        "half",
        "double",
        "int",
        "uint",
        "bool",
        "min16float",
        "min10float",
        "min16int",
        "min16uint",
        "dword",
    ];
    let scalar = scalars
        .iter()
        .filter(|s| name.starts_with(**s))
        .max_by_key(|s| s.len())?;
    let dims = &name.as_bytes()[scalar.len()..];
    if dims.len() == 3 && dims[1] == b'x' && dims[0] == dims[2] && (b'2'..=b'4').contains(&dims[0])
    {
        return Some(u32::from(dims[0] - b'0'));
    }
    None
}

fn ident(tokens: &[(Token, u32)], index: usize) -> Option<&str> {
    match tokens.get(index) {
        Some((Token::Ident(name), _)) => Some(name),
        _ => None,
    }
}

fn punct(tokens: &[(Token, u32)], index: usize) -> Option<&'static str> {
    match tokens.get(index) {
        Some((Token::Punct(p), _)) => Some(p),
        _ => None,
    }
}

/// Names declared with a square matrix type, with the size.
fn square_matrix_names(tokens: &[(Token, u32)], names: &mut HashMap<String, u32>) {
    let mut index = 0;
    while index < tokens.len() {
        let mut size = ident(tokens, index).and_then(square_size_of_type_name);
        let mut next = index + 1;
        // `matrix<float, 4, 4>`
        if size.is_none()
            && ident(tokens, index) == Some("matrix")
            && punct(tokens, index + 1) == Some("<")
        {
            let rows = tokens.get(index + 4).map(|t| &t.0);
            let columns = tokens.get(index + 6).map(|t| &t.0);
            if let (Some(Token::Number(rows)), Some(Token::Number(columns))) = (rows, columns) {
                if punct(tokens, index + 7) == Some(">") {
                    size = (rows == columns).then_some(*rows);
                    next = index + 8;
                }
            }
        }
        if let Some(size) = size {
            let mut at = next;
            while let Some(name) = ident(tokens, at) {
                names.insert(name.to_string(), size);
                if punct(tokens, at + 1) == Some(",") && ident(tokens, at + 2).is_some() {
                    at += 2;
                } else {
                    break;
                }
            }
        }
        index += 1;
    }
}

/// The first `a * b` / `a *= b` with two same-size square matrices, as (line, a, b).
fn find_square_multiply(
    tokens: &[(Token, u32)],
    names: &HashMap<String, u32>,
) -> Option<(u32, String, String)> {
    for index in 1..tokens.len().saturating_sub(1) {
        let Some(op) = punct(tokens, index) else {
            continue;
        };
        if op != "*" && op != "*=" {
            continue;
        }
        let (Some(left), Some(right)) = (ident(tokens, index - 1), ident(tokens, index + 1)) else {
            continue;
        };
        if index >= 2 && punct(tokens, index - 2) == Some(".") {
            continue;
        }
        if matches!(punct(tokens, index + 2), Some("." | "(" | "[")) {
            continue;
        }
        match (names.get(left), names.get(right)) {
            (Some(a), Some(b)) if a == b => {
                return Some((tokens[index].1, left.to_string(), right.to_string()));
            }
            _ => {}
        }
    }
    None
}

/// Rejects `request` if it multiplies two square matrices with `*` (see the module doc).
pub fn check_square_matrix_multiply(
    request: &ShaderRequest,
    settings: &CompileSettings,
) -> Result<(), ShaderError> {
    let path = request.display_path();
    let mut files = vec![(path.clone(), request.source.clone())];
    for include in collect_includes(&request.source, &path, &settings.include_dirs)
        .into_iter()
        .flatten()
    {
        files.push((include.path.display().to_string(), include.content));
    }
    let tokenized: Vec<(String, Vec<(Token, u32)>)> = files
        .into_iter()
        .map(|(file, text)| (file, tokenize(&text)))
        .collect();
    let mut names = HashMap::new();
    for (_, tokens) in &tokenized {
        square_matrix_names(tokens, &mut names);
    }
    if names.is_empty() {
        return Ok(());
    }
    for (file, tokens) in &tokenized {
        if let Some((line, left, right)) = find_square_multiply(tokens, &names) {
            return Err(ShaderError::SquareMatrixMultiply {
                file: file.clone(),
                line,
                operands: (left, right),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{ShaderLanguage, ShaderStage};

    fn check(source: &str) -> Result<(), String> {
        let request = ShaderRequest::new(
            source,
            "t.comp.hlsl",
            ShaderLanguage::Hlsl,
            ShaderStage::Compute,
        );
        let settings = CompileSettings {
            include_dirs: vec![],
            optimize: false,
            hlsl_shifts: Default::default(),
            debug_info: false,
        };
        check_square_matrix_multiply(&request, &settings).map_err(|error| error.to_string())
    }

    #[test]
    fn flags_square_matrix_star() {
        assert_eq!(
            check("float4x4 a, b;\n// a * b\nfloat4x4 c = a *\n b;"),
            Err("t.comp.hlsl:3: 'a * b' multiplies two square matrices: HLSL '*' is element-wise but glslang compiles it to a matrix product; write mul(a, b) for a product, or multiply the rows explicitly".to_string())
        );
        assert!(check("half3x3 m; half3x3 n; void f() { m *= n; }").is_err());
        assert!(check("matrix<float, 2, 2> p, q; void f() { p * q; }").is_err());
        assert_eq!(
            check("matrix<float, 2, 3> p, q; void f() { p * q; }"),
            Ok(())
        );
    }

    #[test]
    fn accepts_other_products() {
        assert_eq!(
            check("float4x4 a; float4 v; float4 r = mul(a, v) * v;"),
            Ok(())
        );
        assert_eq!(check("float4x4 a; float3x3 b; float x = a * 2.0;"), Ok(()));
        assert_eq!(check("float4x4 a; float3x3 b; void f() { a * b; }"), Ok(()));
        assert_eq!(check("float2x3 a, b; void f() { a * b; }"), Ok(()));
        assert_eq!(check("float4x4 a, b; void f() { a * b.x; }"), Ok(()));
    }
}
