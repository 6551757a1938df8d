//! The contents of each block: a parameter's, texture's or sampler's sub-directives and its
//! one-line HLSL declaration; a pass's sub-directives; the HLSL of COMMON and PASS blocks.

use std::collections::HashMap;

use rpsl_frontend::diagnostic::Diagnostic;
use rpsl_frontend::source::Span;

use super::lines::{Directive, Line};
use super::{comma_items, include, Parser, RawBlock};
use crate::format::TextureFormat;
use crate::model::{
    AddressMode, Effect, Filter, HlslBlock, ParamType, Parameter, Pass, PassStyle, Sampler,
    Texture, TextureRole, TextureSize, INPUT_TEXTURE, OUTPUT_TEXTURE,
};
use crate::size_expr::SizeExpr;

/// Most render targets a pass may write (D3D11's limit, which the format keeps).
pub const MAX_PASS_OUTPUTS: usize = 8;
/// Most threads in one group (D3D11's and Vulkan's common limit).
pub const MAX_GROUP_THREADS: u32 = 1024;

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
                if let Some(sub) = format.or(source) {
                    self.error_on(
                        sub.name_range,
                        format!("OUTPUT takes no `//!{}`: it is R8G8B8A8_UNORM", sub.name),
                    );
                    return;
                }
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
            effect.textures.push(Texture {
                name: name.to_string(),
                role: TextureRole::Source,
                format,
                size: None,
                source: Some(path),
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

    /// Positive integers separated by commas, between `min` and `max` of them.
    fn sizes(
        &mut self,
        sub: &Directive<'_>,
        min: usize,
        max: usize,
        what: &str,
    ) -> Option<Vec<u32>> {
        let items = comma_items(sub);
        let count_ok = (min..=max).contains(&items.len()) && !sub.args.is_empty();
        if !count_ok {
            let range = if sub.args.is_empty() {
                sub.name_range
            } else {
                sub.args_range
            };
            self.error_on(range, format!("`//!{}` takes {what}", sub.name));
            return None;
        }
        let mut values = Vec::new();
        for (item, range) in items {
            match item.parse::<u32>() {
                Ok(value) if value >= 1 => values.push(value),
                _ => {
                    self.error_on(
                        range,
                        format!(
                            "`//!{}` sizes are whole numbers of at least 1, not `{item}`",
                            sub.name
                        ),
                    );
                    return None;
                }
            }
        }
        Some(values)
    }

    pub(super) fn pass_block(
        &mut self,
        lines: &[Line<'_>],
        block: &RawBlock<'_>,
        effect: &mut Effect,
        is_last: bool,
        written: &mut Vec<bool>,
    ) {
        let directive = &block.directive;
        let expected = effect.passes.len() as u32 + 1;
        let number = match directive.args.parse::<u32>() {
            Ok(number) if number == expected => number,
            _ => {
                let range = if directive.args.is_empty() {
                    directive.name_range
                } else {
                    directive.args_range
                };
                self.error_on(
                    range,
                    format!("passes are numbered from 1 in order: expected `//!PASS {expected}`"),
                );
                return;
            }
        };
        let span = self.span(directive.name_range.0, directive.args_range.1);
        let style_name = block.sub("STYLE").map_or("CS", |sub| sub.args);
        let style = match style_name {
            "CS" => {
                let (Some(block_size), Some(threads)) =
                    (block.sub("BLOCK_SIZE"), block.sub("NUM_THREADS"))
                else {
                    let missing = if block.sub("BLOCK_SIZE").is_none() {
                        "BLOCK_SIZE"
                    } else {
                        "NUM_THREADS"
                    };
                    self.error_on(
                        (directive.name_range.0, directive.args_range.1),
                        format!("pass {number} needs `//!{missing}` (or `//!STYLE PS`)"),
                    );
                    return;
                };
                let Some(block_size) =
                    self.sizes(block_size, 1, 2, "one or two sizes: `WIDTH[, HEIGHT]`")
                else {
                    return;
                };
                let Some(thread_counts) =
                    self.sizes(threads, 1, 3, "one to three counts: `X[, Y[, Z]]`")
                else {
                    return;
                };
                let block_size = [block_size[0], *block_size.get(1).unwrap_or(&block_size[0])];
                let num_threads = [
                    thread_counts[0],
                    *thread_counts.get(1).unwrap_or(&1),
                    *thread_counts.get(2).unwrap_or(&1),
                ];
                let total = num_threads.iter().map(|&n| n as u64).product::<u64>();
                if total > MAX_GROUP_THREADS as u64 || num_threads[2] > 64 {
                    self.error_on(
                        threads.args_range,
                        format!(
                            "pass {number} asks for {total} threads per group (z {}); at most \
                             {MAX_GROUP_THREADS} in all and 64 in z",
                            num_threads[2]
                        ),
                    );
                    return;
                }
                PassStyle::Cs {
                    block_size,
                    num_threads,
                }
            }
            "PS" => {
                if let Some(sub) = block.sub("BLOCK_SIZE").or(block.sub("NUM_THREADS")) {
                    self.error_on(
                        sub.name_range,
                        format!(
                            "`//!{}` does not apply to `//!STYLE PS` passes (they run 16x16 \
                             blocks of 64 threads)",
                            sub.name
                        ),
                    );
                    return;
                }
                PassStyle::Ps
            }
            other => {
                let range = block.sub("STYLE").map_or(directive.name_range, |sub| {
                    if sub.args.is_empty() {
                        sub.name_range
                    } else {
                        sub.args_range
                    }
                });
                self.error_on(
                    range,
                    format!("unknown pass style `{other}` (expected PS or CS)"),
                );
                return;
            }
        };
        let Some(outputs_sub) = block.sub("OUT") else {
            self.error_on(
                (directive.name_range.0, directive.args_range.1),
                format!("pass {number} needs `//!OUT`"),
            );
            return;
        };
        let Some(outputs) = self.texture_list(effect, outputs_sub) else {
            return;
        };
        let inputs = match block.sub("IN") {
            Some(sub) => match self.texture_list(effect, sub) {
                Some(inputs) => inputs,
                None => return,
            },
            None => Vec::new(),
        };
        if outputs.len() > MAX_PASS_OUTPUTS {
            self.error_on(
                outputs_sub.args_range,
                format!(
                    "pass {number} writes {} textures; at most {MAX_PASS_OUTPUTS}",
                    outputs.len()
                ),
            );
            return;
        }
        if !self.pass_rules(
            effect,
            number,
            is_last,
            &inputs,
            &outputs,
            outputs_sub,
            written,
        ) {
            return;
        }
        let hlsl = self.hlsl_block(lines, block);
        effect.passes.push(Pass {
            number,
            desc: block.sub("DESC").map(|sub| sub.args.to_string()),
            style,
            inputs: inputs.into_iter().map(|(index, _)| index).collect(),
            outputs: outputs.into_iter().map(|(index, _)| index).collect(),
            hlsl,
            span,
        });
    }

    /// The format's rules on what a pass reads and writes; `written[i]` tells whether an earlier
    /// pass wrote texture `i`, and is updated. False when a rule is broken.
    #[allow(clippy::too_many_arguments)]
    fn pass_rules(
        &mut self,
        effect: &Effect,
        number: u32,
        is_last: bool,
        inputs: &[(usize, (usize, usize))],
        outputs: &[(usize, (usize, usize))],
        outputs_sub: &Directive<'_>,
        written: &mut Vec<bool>,
    ) -> bool {
        written.resize(effect.textures.len(), false);
        if is_last && !outputs.iter().any(|&(index, _)| index == OUTPUT_TEXTURE) {
            self.error_on(outputs_sub.args_range, "the last pass must write OUTPUT");
            return false;
        }
        for &(index, range) in outputs {
            let texture = &effect.textures[index];
            let problem = match texture.role {
                TextureRole::Input => Some("INPUT cannot be a pass output".to_string()),
                TextureRole::Source => Some(format!(
                    "`{}` is loaded from a file (`//!SOURCE`) and cannot be a pass output",
                    texture.name
                )),
                TextureRole::Output if !is_last => Some(format!(
                    "only the last pass may write OUTPUT, not pass {number}"
                )),
                TextureRole::Intermediate if is_last => Some(format!(
                    "the last pass writes OUTPUT only, not `{}`",
                    texture.name
                )),
                _ => None,
            };
            if let Some(problem) = problem {
                self.error_on(range, problem);
                return false;
            }
        }
        for &(index, range) in inputs {
            let texture = &effect.textures[index];
            let problem = if texture.role == TextureRole::Output {
                Some("OUTPUT cannot be a pass input".to_string())
            } else if outputs.iter().any(|&(out, _)| out == index) {
                Some(format!(
                    "pass {number} both reads and writes `{}`",
                    texture.name
                ))
            } else if texture.role == TextureRole::Intermediate && !written[index] {
                Some(format!(
                    "pass {number} reads `{}`, which no earlier pass writes",
                    texture.name
                ))
            } else {
                None
            };
            if let Some(problem) = problem {
                self.error_on(range, problem);
                return false;
            }
        }
        for &(index, _) in outputs {
            written[index] = true;
        }
        true
    }

    /// The textures named by `//!IN` or `//!OUT`, each with its range; unknown names and
    /// repeats are errors.
    fn texture_list(
        &mut self,
        effect: &Effect,
        sub: &Directive<'_>,
    ) -> Option<Vec<(usize, (usize, usize))>> {
        if sub.args.is_empty() {
            self.error_on(
                sub.name_range,
                format!("`//!{}` needs texture names", sub.name),
            );
            return None;
        }
        let mut list: Vec<(usize, (usize, usize))> = Vec::new();
        for (name, range) in comma_items(sub) {
            let Some((index, _)) = effect.texture(name) else {
                self.error_on(
                    range,
                    format!("unknown texture `{name}` in `//!{}`", sub.name),
                );
                return None;
            };
            if list.iter().any(|(seen, _)| *seen == index) {
                self.error_on(
                    range,
                    format!("`{name}` is listed twice in `//!{}`", sub.name),
                );
                return None;
            }
            list.push((index, range));
        }
        Some(list)
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
