//! The contents of PARAMETER, TEXTURE and SAMPLER blocks (sub-directives and the one-line HLSL
//! declaration) and the HLSL of COMMON and PASS blocks; passes themselves are in `pass.rs`.

use std::collections::HashMap;

use rpsl_frontend::diagnostic::Diagnostic;
use rpsl_frontend::source::Span;

use super::lines::{Directive, Line};
use super::{include, Parser, RawBlock};
use crate::format::TextureFormat;
use crate::model::{
    AddressMode, Effect, Filter, HlslBlock, ParamType, Parameter, Sampler, Texture, TextureRole,
    TextureSize, INPUT_TEXTURE, OUTPUT_TEXTURE,
};
use crate::size_expr::SizeExpr;

/// `INPUT` or `OUTPUT` as implied when the effect does not declare it.
pub fn implied_texture(role: TextureRole) -> Texture {
    Texture {
        name: match role {
            TextureRole::Input => "INPUT",
            _ => "OUTPUT",
        }
        .to_string(),
        role,
        format: None,
        size: None,
        source: None,
        source_span: None,
        span: None,
    }
}

/// Names declared so far (parameters, textures and samplers share one namespace).
#[derive(Default)]
pub struct DeclaredNames {
    first: HashMap<String, Span>,
}

/// A token of a declaration: an identifier or one punctuation character, with its file range.
struct Token<'a> {
    text: &'a str,
    range: (usize, usize),
}

fn tokens<'a>(lines: &'a [Line<'_>], body: std::ops::Range<usize>) -> Vec<Token<'a>> {
    let mut found = Vec::new();
    for line in &lines[body] {
        let code = line.code.as_str();
        let mut chars = code.char_indices().peekable();
        while let Some((start, c)) = chars.next() {
            if c.is_whitespace() {
                continue;
            }
            let mut end = start + c.len_utf8();
            if c.is_ascii_alphanumeric() || c == '_' {
                while let Some(&(at, next)) = chars.peek() {
                    if !(next.is_ascii_alphanumeric() || next == '_') {
                        break;
                    }
                    end = at + 1;
                    chars.next();
                }
            }
            found.push(Token {
                text: &code[start..end],
                range: (line.start + start, line.start + end),
            });
        }
    }
    found
}

fn is_identifier(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

impl Parser<'_> {
    /// The `TYPE NAME;` declaration of a PARAMETER, TEXTURE or SAMPLER block: returns the type
    /// and the name with its range.
    fn declaration<'l>(
        &mut self,
        lines: &'l [Line<'_>],
        block: &RawBlock<'_>,
        types: &[&str],
    ) -> Option<(&'l str, &'l str, (usize, usize))> {
        let found = tokens(lines, block.body.clone());
        let expected = match types {
            [only] => format!("`{only} NAME;`"),
            _ => format!("`{} NAME;` or `{} NAME;`", types[0], types[1]),
        };
        let shape_ok = found.len() >= 3
            && types.contains(&found[0].text)
            && is_identifier(found[1].text)
            && found[2].text == ";";
        if !shape_ok {
            let at = found
                .iter()
                .zip([0usize, 1, 2])
                .find(|(token, index)| match index {
                    0 => !types.contains(&token.text),
                    1 => !is_identifier(token.text),
                    _ => token.text != ";",
                })
                .map(|(token, _)| token.range);
            let at = at.unwrap_or(block.directive.name_range);
            self.error_on(
                at,
                format!(
                    "expected the declaration {expected} after `{}`",
                    block.kind.directive()
                ),
            );
            return None;
        }
        if let Some(extra) = found.get(3) {
            self.error_on(
                extra.range,
                format!(
                    "a `{}` block holds one declaration; move other HLSL to `//!COMMON`",
                    block.kind.directive()
                ),
            );
            return None;
        }
        Some((found[0].text, found[1].text, found[1].range))
    }

    /// Records `name`; reports a duplicate or a reserved name and returns false.
    fn declare(&mut self, names: &mut DeclaredNames, name: &str, range: (usize, usize)) -> bool {
        let span = self.span(range.0, range.1);
        if name.starts_with("__") {
            self.errors.push(Diagnostic::error(
                span,
                format!("`{name}`: names starting with `__` are reserved"),
            ));
            return false;
        }
        if let Some(first) = names.first.get(name) {
            let first = *first;
            self.errors.push(
                Diagnostic::error(span, format!("`{name}` is already declared"))
                    .with_secondary(first, "first declared here"),
            );
            return false;
        }
        names.first.insert(name.to_string(), span);
        true
    }

    fn number(&mut self, sub: &Directive<'_>) -> Option<f64> {
        match sub.args.parse::<f64>() {
            Ok(value) if value.is_finite() => Some(value),
            _ => {
                let range = if sub.args.is_empty() {
                    sub.name_range
                } else {
                    sub.args_range
                };
                self.error_on(
                    range,
                    format!("`//!{}` takes a number, not `{}`", sub.name, sub.args),
                );
                None
            }
        }
    }

    pub(super) fn parameter_block(
        &mut self,
        lines: &[Line<'_>],
        block: &RawBlock<'_>,
        effect: &mut Effect,
        names: &mut DeclaredNames,
    ) {
        let Some((ty, name, name_range)) = self.declaration(lines, block, &["float", "int"]) else {
            return;
        };
        let ty = if ty == "int" {
            ParamType::Int
        } else {
            ParamType::Float
        };
        let declared = self.declare(names, name, name_range);
        let mut values = [0.0; 4];
        let mut complete = declared;
        for (slot, key) in ["DEFAULT", "MIN", "MAX", "STEP"].into_iter().enumerate() {
            let Some(sub) = block.sub(key) else {
                self.error_on(name_range, format!("parameter `{name}` needs `//!{key}`"));
                complete = false;
                continue;
            };
            match self.number(sub) {
                Some(value) if ty == ParamType::Int && value.fract() != 0.0 => {
                    self.error_on(
                        sub.args_range,
                        format!("`//!{key}` of the int parameter `{name}` must be a whole number"),
                    );
                    complete = false;
                }
                Some(value) => values[slot] = value,
                None => complete = false,
            }
        }
        if !complete {
            return;
        }
        let [default, min, max, step] = values;
        if min > max {
            self.error_on(
                block.sub("MIN").map_or(name_range, |sub| sub.args_range),
                format!("parameter `{name}`: `//!MIN` {min} is above `//!MAX` {max}"),
            );
            return;
        }
        if !(min..=max).contains(&default) {
            self.error_on(
                block
                    .sub("DEFAULT")
                    .map_or(name_range, |sub| sub.args_range),
                format!("parameter `{name}`: `//!DEFAULT` {default} is outside {min}..={max}"),
            );
            return;
        }
        if step <= 0.0 {
            self.error_on(
                block.sub("STEP").map_or(name_range, |sub| sub.args_range),
                format!("parameter `{name}`: `//!STEP` must be above 0"),
            );
            return;
        }
        effect.params.push(Parameter {
            name: name.to_string(),
            ty,
            label: block.sub("LABEL").map(|sub| sub.args.to_string()),
            default,
            min,
            max,
            step,
            span: self.span(name_range.0, name_range.1),
        });
    }

    fn size_expr(&mut self, sub: &Directive<'_>) -> Option<SizeExpr> {
        match SizeExpr::parse(sub.args) {
            Ok(expr) => Some(expr),
            Err(error) => {
                let at = sub.args_range.0 + error.offset;
                let fault_len = sub
                    .args
                    .get(error.offset..)
                    .and_then(|rest| rest.chars().next())
                    .map_or(0, char::len_utf8);
                let at = if sub.args.is_empty() {
                    sub.name_range
                } else {
                    (at, at + fault_len)
                };
                self.error_on(at, error.message);
                None
            }
        }
    }

    pub(super) fn texture_block(
        &mut self,
        lines: &[Line<'_>],
        block: &RawBlock<'_>,
        effect: &mut Effect,
        names: &mut DeclaredNames,
    ) {
        let Some((_, name, name_range)) = self.declaration(lines, block, &["Texture2D"]) else {
            return;
        };
        if !self.declare(names, name, name_range) {
            return;
        }
        let span = Some(self.span(name_range.0, name_range.1));
        let width = block.sub("WIDTH");
        let height = block.sub("HEIGHT");
        let format = block.sub("FORMAT");
        let source = block.sub("SOURCE");
        match name {
            "INPUT" => {
                if let Some(sub) = width.or(height).or(format).or(source) {
                    self.error_on(
                        sub.name_range,
                        format!(
                            "INPUT takes no `//!{}`: it is the image the effect is applied to \
                             (R8G8B8A8_UNORM, its size)",
                            sub.name
                        ),
                    );
                    return;
                }
                effect.textures[INPUT_TEXTURE].span = span;
                return;
            }
            "OUTPUT" => {
                if let Some(sub) = source {
                    self.error_on(
                        sub.name_range,
                        "OUTPUT takes no `//!SOURCE`: it is what the effect writes",
                    );
                    return;
                }
                // An rpsl extension: OUTPUT may have a format (R8G8B8A8_UNORM without one).
                let output_format = match format {
                    Some(sub) => match TextureFormat::from_name(sub.args) {
                        Some(format) => Some(format),
                        None => {
                            let range = if sub.args.is_empty() {
                                sub.name_range
                            } else {
                                sub.args_range
                            };
                            self.error_on(range, format!("unknown texture format `{}`", sub.args));
                            return;
                        }
                    },
                    None => None,
                };
                let size = match (width, height) {
                    (None, None) => None,
                    (Some(width), Some(height)) => {
                        let (Some(w), Some(h)) = (self.size_expr(width), self.size_expr(height))
                        else {
                            return;
                        };
                        for (expr, sub) in [(&w, width), (&h, height)] {
                            if expr.uses_output() {
                                self.error_on(
                                    sub.args_range,
                                    "OUTPUT's size cannot use OUTPUT_WIDTH or OUTPUT_HEIGHT",
                                );
                                return;
                            }
                        }
                        Some(TextureSize {
                            width: w,
                            height: h,
                        })
                    }
                    (Some(only), None) | (None, Some(only)) => {
                        let missing = if only.name == "WIDTH" {
                            "HEIGHT"
                        } else {
                            "WIDTH"
                        };
                        self.error_on(
                            only.name_range,
                            format!("OUTPUT has `//!{}` but no `//!{missing}`", only.name),
                        );
                        return;
                    }
                };
                let output = &mut effect.textures[OUTPUT_TEXTURE];
                output.size = size;
                output.format = output_format;
                output.span = span;
                return;
            }
            _ => {}
        }
        let format = match format {
            Some(sub) => match TextureFormat::from_name(sub.args) {
                Some(format) => Some(format),
                None => {
                    let range = if sub.args.is_empty() {
                        sub.name_range
                    } else {
                        sub.args_range
                    };
                    self.error_on(range, format!("unknown texture format `{}`", sub.args));
                    return;
                }
            },
            None => None,
        };
        if let Some(source) = source {
            if let Some(sub) = width.or(height) {
                self.error_on(
                    sub.name_range,
                    format!(
                        "texture `{name}` is loaded from a file (`//!SOURCE`): its size is the \
                         file's, so it takes no `//!{}`",
                        sub.name
                    ),
                );
                return;
            }
            let Some(path) = self.source_file(source) else {
                return;
            };
            let source_span = Some(self.span(source.args_range.0, source.args_range.1));
            effect.textures.push(Texture {
                name: name.to_string(),
                role: TextureRole::Source,
                format,
                size: None,
                source: Some(path),
                source_span,
                span,
            });
            return;
        }
        let (Some(width), Some(height)) = (width, height) else {
            self.error_on(
                name_range,
                format!("texture `{name}` needs `//!WIDTH` and `//!HEIGHT` (or `//!SOURCE`)"),
            );
            return;
        };
        let Some(format) = format else {
            self.error_on(name_range, format!("texture `{name}` needs `//!FORMAT`"));
            return;
        };
        let (Some(width), Some(height)) = (self.size_expr(width), self.size_expr(height)) else {
            return;
        };
        effect.textures.push(Texture {
            name: name.to_string(),
            role: TextureRole::Intermediate,
            format: Some(format),
            size: Some(TextureSize { width, height }),
            source: None,
            source_span: None,
            span,
        });
    }

    pub(super) fn sampler_block(
        &mut self,
        lines: &[Line<'_>],
        block: &RawBlock<'_>,
        effect: &mut Effect,
        names: &mut DeclaredNames,
    ) {
        let Some((_, name, name_range)) = self.declaration(lines, block, &["SamplerState"]) else {
            return;
        };
        if !self.declare(names, name, name_range) {
            return;
        }
        let Some(filter) = block.sub("FILTER") else {
            self.error_on(
                name_range,
                format!("sampler `{name}` needs `//!FILTER` (LINEAR or POINT)"),
            );
            return;
        };
        let filter = match filter.args {
            "LINEAR" => Filter::Linear,
            "POINT" => Filter::Point,
            other => {
                self.error_on(
                    filter.args_range,
                    format!("unknown filter `{other}` (expected LINEAR or POINT)"),
                );
                return;
            }
        };
        let address = match block.sub("ADDRESS").map(|sub| (sub.args, sub.args_range)) {
            None | Some(("CLAMP", _)) => AddressMode::Clamp,
            Some(("WRAP", _)) => AddressMode::Wrap,
            Some((other, range)) => {
                self.error_on(
                    range,
                    format!("unknown address mode `{other}` (expected CLAMP or WRAP)"),
                );
                return;
            }
        };
        effect.samplers.push(Sampler {
            name: name.to_string(),
            filter,
            address,
            span: self.span(name_range.0, name_range.1),
        });
    }

    /// The HLSL of a COMMON or PASS block: its body with directive lines blanked and includes
    /// expanded.
    pub(super) fn hlsl_block(&mut self, lines: &[Line<'_>], block: &RawBlock<'_>) -> HlslBlock {
        let body = &lines[block.body.clone()];
        let first_line = block.body.start as u32 + 1;
        let mut text = String::new();
        for (offset, line) in body.iter().enumerate() {
            if super::lines::directive(line).is_some() {
                text.push('\n');
                continue;
            }
            let line_number = first_line + offset as u32;
            let from = include::IncludingFile {
                file: self.file,
                folder: self.folder.clone(),
                stack: Vec::new(),
            };
            self.line_with_includes(line, &from, line_number, &mut text);
        }
        HlslBlock {
            text,
            file: self.path.to_path_buf(),
            first_line,
        }
    }
}
