//! The effect-file parser (format version 4): the header (`//!MAGPIE EFFECT`, `//!VERSION`,
//! `//!USE`, `//!CAPABILITY`, `//!SORT_NAME`), then blocks (`//!PARAMETER`, `//!TEXTURE`,
//! `//!SAMPLER`, `//!COMMON`, `//!PASS`) with their sub-directives, then the rules that tie passes
//! and textures together.
//!
//! Directive lines are `//!NAME ARGUMENTS` on a line of their own; every other line belongs to the
//! HLSL of the current block. A block's sub-directives may stand anywhere in it (they are comments
//! to HLSL). `#include "x"` in COMMON and PASS blocks is expanded from files inside the effect's
//! folder; includes of `StubDefs.hlsli` (an editor aid the format names optional) are dropped.

mod blocks;
mod include;
pub(crate) mod lines;
mod pass;

use std::path::{Path, PathBuf};

use rpsl_frontend::diagnostic::Diagnostic;
use rpsl_frontend::source::{FileId, SourceFiles, Span};

use crate::error::EffectErrors;
use crate::model::Effect;
use lines::{directive, split_lines, Directive, Line};

/// The effect format version this parser reads.
pub const FORMAT_VERSION: u32 = 4;

/// The largest effect or include file read (the public collection's largest is about 1 MB).
pub const MAX_FILE_BYTES: u64 = 8 << 20;

/// Reads and parses the effect at `path`; includes and `//!SOURCE` files are looked up next to it.
///
/// ```
/// let folder = tempfile::tempdir().unwrap();
/// let path = folder.path().join("Invert.hlsl");
/// std::fs::write(&path, "//!MAGPIE EFFECT\n//!VERSION 4\n\
///     //!PASS 1\n//!STYLE PS\n//!IN INPUT\n//!OUT OUTPUT\n\
///     float4 Pass1(float2 pos) { return 1 - INPUT.SampleLevel(sam, pos, 0); }\n").unwrap();
/// let effect = rpsl_effects::parse_effect_file(&path).unwrap();
/// assert_eq!(effect.passes.len(), 1);
/// assert_eq!(effect.textures[0].name, "INPUT");
/// ```
pub fn parse_effect_file(path: &Path) -> Result<Effect, EffectErrors> {
    match read_text_file(path) {
        Ok(text) => parse_effect_source(path, text),
        Err(message) => {
            let mut files = SourceFiles::new();
            let file = files.add(path, String::new());
            Err(EffectErrors {
                files,
                diagnostics: vec![Diagnostic::error(Span::new(file, 0, 0), message)],
            })
        }
    }
}

/// Parses `text` as the effect file `path` (includes and `//!SOURCE` files are looked up in
/// `path`'s folder, which must exist).
pub fn parse_effect_source(path: &Path, text: String) -> Result<Effect, EffectErrors> {
    let mut files = SourceFiles::new();
    let file = files.add(path, text);
    let text = files.get(file).text.clone();
    let display_folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let folder = std::fs::canonicalize(if display_folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        &display_folder
    })
    .ok();
    let mut parser = Parser {
        path,
        file,
        files,
        errors: Vec::new(),
        folder,
        display_folder,
    };
    let effect = parser.parse(&text);
    match effect {
        Some(mut effect) if parser.errors.is_empty() => {
            for id in 0..parser.files.len() {
                let path = &parser.files.get(FileId(id as u32)).path;
                if !effect.files.contains(path) {
                    effect.files.push(path.clone());
                }
            }
            Ok(effect)
        }
        _ => {
            if parser.errors.is_empty() {
                parser.error_at(0, 0, "the effect was rejected");
            }
            Err(EffectErrors {
                files: parser.files,
                diagnostics: parser.errors,
            })
        }
    }
}

/// Reads a UTF-8 text file of at most [`MAX_FILE_BYTES`]; the error is a sentence.
pub(crate) fn read_text_file(path: &Path) -> Result<String, String> {
    let metadata = std::fs::metadata(path)
        .map_err(|error| format!("cannot read `{}`: {error}", path.display()))?;
    if !metadata.is_file() {
        return Err(format!("`{}` is not a file", path.display()));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(format!(
            "`{}` is larger than {} MiB",
            path.display(),
            MAX_FILE_BYTES >> 20
        ));
    }
    let bytes = std::fs::read(path)
        .map_err(|error| format!("cannot read `{}`: {error}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("`{}` is not UTF-8 text", path.display()))
}

/// The kinds of block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockKind {
    Parameter,
    Texture,
    Sampler,
    Common,
    Pass,
}

impl BlockKind {
    fn from_directive(name: &str) -> Option<BlockKind> {
        Some(match name {
            "PARAMETER" => BlockKind::Parameter,
            "TEXTURE" => BlockKind::Texture,
            "SAMPLER" => BlockKind::Sampler,
            "COMMON" => BlockKind::Common,
            "PASS" => BlockKind::Pass,
            _ => return None,
        })
    }

    fn directive(self) -> &'static str {
        match self {
            BlockKind::Parameter => "//!PARAMETER",
            BlockKind::Texture => "//!TEXTURE",
            BlockKind::Sampler => "//!SAMPLER",
            BlockKind::Common => "//!COMMON",
            BlockKind::Pass => "//!PASS",
        }
    }

    /// The sub-directives the block takes.
    fn sub_directives(self) -> &'static [&'static str] {
        match self {
            BlockKind::Parameter => &["LABEL", "DEFAULT", "MIN", "MAX", "STEP"],
            BlockKind::Texture => &["WIDTH", "HEIGHT", "FORMAT", "SOURCE"],
            BlockKind::Sampler => &["FILTER", "ADDRESS"],
            BlockKind::Common => &[],
            BlockKind::Pass => &["IN", "OUT", "BLOCK_SIZE", "NUM_THREADS", "STYLE", "DESC"],
        }
    }
}

const HEADER_DIRECTIVES: [&str; 3] = ["USE", "CAPABILITY", "SORT_NAME"];

/// The blocks a sub-directive belongs to, for messages.
fn owner_of(name: &str) -> Option<BlockKind> {
    [
        BlockKind::Parameter,
        BlockKind::Texture,
        BlockKind::Sampler,
        BlockKind::Pass,
    ]
    .into_iter()
    .find(|kind| kind.sub_directives().contains(&name))
}

/// A block as found in the file, before its contents are checked.
struct RawBlock<'a> {
    kind: BlockKind,
    directive: Directive<'a>,
    /// Sub-directives, in file order, each at most once.
    subs: Vec<Directive<'a>>,
    /// Indices into the file's lines of the block's body (after its directive).
    body: std::ops::Range<usize>,
}

impl<'a> RawBlock<'a> {
    fn sub(&self, name: &str) -> Option<&Directive<'a>> {
        self.subs.iter().find(|sub| sub.name == name)
    }
}

/// The header directives' values.
#[derive(Default)]
struct Header {
    sort_name: Option<String>,
    uses_mul_add: bool,
    supports_fp16: bool,
}

struct Parser<'p> {
    path: &'p Path,
    file: FileId,
    files: SourceFiles,
    errors: Vec<Diagnostic>,
    /// The effect's folder, canonical (`None` when it cannot be resolved: includes then fail).
    folder: Option<PathBuf>,
    /// The effect's folder as diagnostics show it.
    display_folder: PathBuf,
}

impl Parser<'_> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start as u32, end as u32)
    }

    fn error_at(&mut self, start: usize, end: usize, message: impl Into<String>) {
        let span = self.span(start, end);
        self.errors.push(Diagnostic::error(span, message));
    }

    fn error_on(&mut self, range: (usize, usize), message: impl Into<String>) {
        self.error_at(range.0, range.1, message);
    }

    fn parse(&mut self, text: &str) -> Option<Effect> {
        let lines = split_lines(text);
        let (header, blocks) = self.split_blocks(&lines)?;
        if !self.errors.is_empty() {
            // A misplaced or unknown directive would only cause follow-on errors below.
            return None;
        }
        let effect = self.build(&lines, header, &blocks);
        if !self.errors.is_empty() {
            return None;
        }
        effect
    }

    /// The header and the blocks; `None` when the file is not an effect at all.
    fn split_blocks<'a>(&mut self, lines: &[Line<'a>]) -> Option<(Header, Vec<RawBlock<'a>>)> {
        let mut index = 0;
        // `//!MAGPIE EFFECT` first, after comments and blank lines only.
        let magpie = loop {
            let Some(line) = lines.get(index) else {
                self.error_at(
                    0,
                    0,
                    "not a MagpieFX effect: it has no `//!MAGPIE EFFECT` line",
                );
                return None;
            };
            index += 1;
            if let Some(found) = directive(line) {
                break found;
            }
            if line.has_code() {
                let start = line.start + (line.code.len() - line.code.trim_start().len());
                self.error_at(
                    start,
                    line.start + line.code.trim_end().len(),
                    "not a MagpieFX effect: `//!MAGPIE EFFECT` must come before any HLSL",
                );
                return None;
            }
        };
        if magpie.name != "MAGPIE" || magpie.args != "EFFECT" {
            self.error_on(
                (magpie.name_range.0, magpie.args_range.1),
                "not a MagpieFX effect: the first directive must be `//!MAGPIE EFFECT`",
            );
            return None;
        }
        let version_line = lines[index..]
            .iter()
            .position(|line| directive(line).is_some() || line.has_code())
            .map(|offset| index + offset);
        let version = version_line.and_then(|at| directive(&lines[at]));
        match version {
            Some(version) if version.name == "VERSION" => {
                index = version_line.unwrap_or(index) + 1;
                match version.args.parse::<u32>() {
                    Ok(FORMAT_VERSION) => {}
                    Ok(other) => {
                        self.error_on(
                            version.args_range,
                            format!(
                                "unsupported effect format version {other} (this reader \
                                 reads version {FORMAT_VERSION})"
                            ),
                        );
                        return None;
                    }
                    Err(_) => {
                        self.error_on(
                            version.args_range,
                            format!("`//!VERSION` takes a number, not `{}`", version.args),
                        );
                        return None;
                    }
                }
            }
            _ => {
                self.error_on(
                    (magpie.name_range.0, magpie.args_range.1),
                    "`//!MAGPIE EFFECT` must be followed by `//!VERSION 4`",
                );
                return None;
            }
        }

        let mut header = Header::default();
        let mut blocks: Vec<RawBlock<'a>> = Vec::new();
        for (line_index, line) in lines.iter().enumerate().skip(index) {
            let Some(found) = directive(line) else {
                if blocks.is_empty() && line.has_code() && !include::is_stub_include(line) {
                    let start = line.start + (line.code.len() - line.code.trim_start().len());
                    self.error_at(
                        start,
                        line.start + line.code.trim_end().len(),
                        "HLSL outside a block: code belongs after `//!COMMON` or `//!PASS`",
                    );
                }
                continue;
            };
            if let Some(kind) = BlockKind::from_directive(found.name) {
                if let Some(last) = blocks.last_mut() {
                    last.body.end = line_index;
                }
                if kind != BlockKind::Pass && !found.args.is_empty() {
                    self.error_on(
                        found.args_range,
                        format!("`//!{}` takes no arguments", found.name),
                    );
                }
                blocks.push(RawBlock {
                    kind,
                    directive: found,
                    subs: Vec::new(),
                    body: line_index + 1..lines.len(),
                });
            } else if HEADER_DIRECTIVES.contains(&found.name) {
                if blocks.is_empty() {
                    self.header_directive(&mut header, &found);
                } else {
                    self.error_on(
                        found.name_range,
                        format!(
                            "`//!{}` belongs in the header, before the first block",
                            found.name
                        ),
                    );
                }
            } else if matches!(found.name, "MAGPIE" | "VERSION") {
                self.error_on(found.name_range, format!("duplicate `//!{}`", found.name));
            } else if let Some(block) = blocks.last_mut() {
                if !block.kind.sub_directives().contains(&found.name) {
                    let message = match owner_of(found.name) {
                        Some(owner) => format!(
                            "`//!{}` belongs in a `{}` block, not in a `{}` block",
                            found.name,
                            owner.directive(),
                            block.kind.directive()
                        ),
                        None => format!("unknown directive `//!{}`", found.name),
                    };
                    self.error_on(found.name_range, message);
                } else if let Some(first) = block.sub(found.name) {
                    let first = self.span(first.name_range.0, first.name_range.1);
                    let span = self.span(found.name_range.0, found.name_range.1);
                    self.errors.push(
                        Diagnostic::error(span, format!("duplicate `//!{}`", found.name))
                            .with_secondary(first, "first given here"),
                    );
                } else {
                    block.subs.push(found);
                }
            } else {
                let message = match owner_of(found.name) {
                    Some(owner) => format!(
                        "`//!{}` belongs in a `{}` block",
                        found.name,
                        owner.directive()
                    ),
                    None => format!("unknown directive `//!{}`", found.name),
                };
                self.error_on(found.name_range, message);
            }
        }
        Some((header, blocks))
    }

    fn header_directive(&mut self, header: &mut Header, found: &Directive<'_>) {
        match found.name {
            "USE" => {
                for (item, range) in comma_items(found) {
                    match item {
                        "MulAdd" => header.uses_mul_add = true,
                        other => self.error_on(
                            range,
                            format!("unknown `//!USE` value `{other}` (expected MulAdd)"),
                        ),
                    }
                }
            }
            "CAPABILITY" => {
                for (item, range) in comma_items(found) {
                    match item {
                        "FP16" => header.supports_fp16 = true,
                        other => self.error_on(
                            range,
                            format!("unknown `//!CAPABILITY` value `{other}` (expected FP16)"),
                        ),
                    }
                }
            }
            _ => {
                if found.args.is_empty() {
                    self.error_on(found.name_range, "`//!SORT_NAME` needs a name");
                } else if header.sort_name.is_some() {
                    self.error_on(found.name_range, "duplicate `//!SORT_NAME`");
                } else {
                    header.sort_name = Some(found.args.to_string());
                }
            }
        }
    }

    fn build(
        &mut self,
        lines: &[Line<'_>],
        header: Header,
        blocks: &[RawBlock<'_>],
    ) -> Option<Effect> {
        let mut effect = Effect {
            path: self.path.to_path_buf(),
            sort_name: header.sort_name,
            uses_mul_add: header.uses_mul_add,
            supports_fp16: header.supports_fp16,
            params: Vec::new(),
            textures: vec![
                blocks::implied_texture(crate::model::TextureRole::Input),
                blocks::implied_texture(crate::model::TextureRole::Output),
            ],
            samplers: Vec::new(),
            common_hlsl: Vec::new(),
            passes: Vec::new(),
            files: Vec::new(),
        };
        // Declarations first (a pass may name a texture declared further down), then the HLSL
        // blocks and passes in file order.
        let mut names = blocks::DeclaredNames::default();
        for block in blocks {
            match block.kind {
                BlockKind::Parameter => self.parameter_block(lines, block, &mut effect, &mut names),
                BlockKind::Texture => self.texture_block(lines, block, &mut effect, &mut names),
                BlockKind::Sampler => self.sampler_block(lines, block, &mut effect, &mut names),
                BlockKind::Common | BlockKind::Pass => {}
            }
        }
        if !self.errors.is_empty() {
            return None;
        }
        let pass_count = blocks
            .iter()
            .filter(|block| block.kind == BlockKind::Pass)
            .count();
        let mut written = Vec::new();
        for block in blocks {
            match block.kind {
                BlockKind::Common => {
                    let hlsl = self.hlsl_block(lines, block);
                    effect.common_hlsl.push(hlsl);
                }
                BlockKind::Pass => {
                    let is_last = effect.passes.len() + 1 == pass_count;
                    self.pass_block(lines, block, &mut effect, is_last, &mut written);
                    if !self.errors.is_empty() {
                        return None;
                    }
                }
                _ => {}
            }
        }
        if effect.passes.is_empty() && self.errors.is_empty() {
            let end = lines.last().map_or(0, |line| line.start + line.text.len());
            self.error_at(end, end, "the effect has no `//!PASS`");
        }
        Some(effect)
    }
}

/// The comma-separated items of a directive's arguments, each with its byte range.
fn comma_items<'a>(found: &Directive<'a>) -> Vec<(&'a str, (usize, usize))> {
    let mut items = Vec::new();
    let mut offset = found.args_range.0;
    for raw in found.args.split(',') {
        let lead = raw.len() - raw.trim_start().len();
        let item = raw.trim();
        items.push((item, (offset + lead, offset + lead + item.len())));
        offset += raw.len() + 1;
    }
    items
}
