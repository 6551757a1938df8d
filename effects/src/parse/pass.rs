//! The contents of a PASS block: its number, style with block and thread sizes, `//!IN` and
//! `//!OUT` textures, and the format's rules on what a pass may read and write.

use super::lines::{Directive, Line};
use super::{comma_items, Parser, RawBlock};
use crate::model::{Effect, Pass, PassStyle, TextureRole, OUTPUT_TEXTURE};

/// Most render targets a pass may write (D3D11's limit, which the format keeps).
pub const MAX_PASS_OUTPUTS: usize = 8;
/// Most threads in one group (D3D11's and Vulkan's common limit).
pub const MAX_GROUP_THREADS: u32 = 1024;

impl Parser<'_> {
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
}
