//! Access attributes of node and entry-point parameters (`[readonly(ps, cs)]`, `[relaxed]`, ...) as
//! rpsl.h defines them: parsing from the AST, merging stacked attributes, and validation. The modes
//! and the table of argument names and bits ([`AccessMode`], [`AccessFlags`]) are `rpsl-types`',
//! shared with the runtime that decodes them.
//!
//! Semantics (`SV_Target3`) and node parameter checks are in [`semantic`]; the flattening of
//! parameters into per-view access slots is in [`flatten`].
//!
//! Merging: every `readonly` / `writeonly` / `readwrite` attribute is kept as an [`AccessEntry`] (so
//! `[readwrite(depth)][writeonly(stencil)]` keeps depth read-write and stencil write-only, see
//! [`AccessDesc::plane_mode`]); [`AccessDesc::mode`] and [`AccessDesc::args`] are the unions.
//! `writeonly(..)` is `readwrite(discard_before, ..)`: its entry gets
//! [`AccessFlags::DISCARD_BEFORE`] and its mode is [`AccessMode::WriteOnly`].

pub mod flatten;
pub mod semantic;

pub use flatten::*;
pub use semantic::*;

use std::fmt;

pub use rpsl_types::{AccessFlags, AccessMode};

use crate::ast::{Attribute, ExprKind};
use crate::builtins::suggest;
use crate::diagnostic::Diagnostic;
use crate::source::Span;

/// One `readonly` / `writeonly` / `readwrite` attribute as written (`writeonly` entries include
/// `discard_before`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AccessEntry {
    /// The attribute.
    pub mode: AccessMode,
    /// Its arguments.
    pub args: AccessFlags,
}

/// The merged access attributes of one parameter.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AccessDesc {
    /// The access attributes in the order written.
    pub entries: Vec<AccessEntry>,
    /// `[relaxed]`: may reorder with other relaxed writers of overlapping views.
    pub relaxed: bool,
}

impl AccessDesc {
    /// The union of all entries' modes; `None` when only `[relaxed]` was written.
    pub fn mode(&self) -> Option<AccessMode> {
        self.entries
            .iter()
            .map(|e| e.mode)
            .reduce(AccessMode::merge)
    }

    /// The union of all entries' arguments.
    pub fn args(&self) -> AccessFlags {
        self.entries
            .iter()
            .fold(AccessFlags::NONE, |acc, e| acc | e.args)
    }

    /// The mode of the entries naming `plane` (`AccessFlags::DEPTH` or `AccessFlags::STENCIL`):
    /// `[readwrite(depth)][writeonly(stencil)]` gives depth `ReadWrite`, stencil `WriteOnly`.
    pub fn plane_mode(&self, plane: AccessFlags) -> Option<AccessMode> {
        self.entries
            .iter()
            .filter(|e| e.args.contains(plane))
            .map(|e| e.mode)
            .reduce(AccessMode::merge)
    }

    /// The access as the render graph records it: one mode per plane (attributes that give the
    /// depth and stencil planes different modes, `[readwrite(depth)][writeonly(stencil)]`, keep
    /// both), the union of the arguments, and `[relaxed]`. Only `[relaxed]` means `readonly`.
    ///
    /// ```
    /// use rpsl_frontend::access::{AccessDesc, AccessEntry, AccessFlags, AccessMode};
    /// let written = AccessDesc {
    ///     entries: vec![
    ///         AccessEntry { mode: AccessMode::ReadWrite, args: AccessFlags::DEPTH },
    ///         AccessEntry { mode: AccessMode::WriteOnly, args: AccessFlags::STENCIL },
    ///     ],
    ///     relaxed: false,
    /// };
    /// let access = written.resolved();
    /// assert_eq!((access.mode, access.stencil_mode), (AccessMode::ReadWrite, Some(AccessMode::WriteOnly)));
    /// assert_eq!(access.flags, AccessFlags::DEPTH | AccessFlags::STENCIL);
    /// ```
    pub fn resolved(&self) -> rpsl_types::AccessDesc {
        let merged = self.mode().unwrap_or(AccessMode::ReadOnly);
        let depth = self.plane_mode(AccessFlags::DEPTH);
        let stencil = self.plane_mode(AccessFlags::STENCIL);
        let (mode, stencil_mode) = match (depth, stencil) {
            (Some(depth), Some(stencil)) if depth != stencil => (depth, Some(stencil)),
            _ => (merged, None),
        };
        rpsl_types::AccessDesc {
            mode,
            stencil_mode,
            flags: self.args(),
            relaxed: self.relaxed,
        }
    }

    /// Whether data of `plane` (or of the whole view, for `AccessFlags::NONE`) may be discarded before
    /// the access: every entry touching it has `discard_before`.
    pub fn discard_before(&self, plane: AccessFlags) -> bool {
        let mut touching = self
            .entries
            .iter()
            .filter(|e| plane.is_empty() || e.args.contains(plane))
            .peekable();
        touching.peek().is_some() && touching.all(|e| e.args.contains(AccessFlags::DISCARD_BEFORE))
    }
}

impl fmt::Display for AccessDesc {
    /// As attributes: `[relaxed][readwrite(depth)][writeonly(stencil, discard_before)]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.relaxed {
            f.write_str("[relaxed]")?;
        }
        for e in &self.entries {
            write!(f, "[{}({})]", e.mode.name(), e.args)?;
        }
        Ok(())
    }
}

/// One access shorthand of rpsl.h (`rtv` is `[readwrite(rendertarget)] texture`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shorthand {
    /// The shorthand's name.
    pub name: &'static str,
    /// The access it stands for.
    pub mode: AccessMode,
    /// Its arguments (as written in rpsl.h; `writeonly` adds `discard_before` when applied).
    pub args: AccessFlags,
    /// `true` for `texture`, `false` for `buffer`.
    pub is_texture: bool,
}

const fn shorthand_entry(
    name: &'static str,
    mode: AccessMode,
    args: AccessFlags,
    is_texture: bool,
) -> Shorthand {
    Shorthand {
        name,
        mode,
        args,
        is_texture,
    }
}

/// The 9 access shorthands, as rpsl.h defines them.
pub const SHORTHANDS: [Shorthand; 9] = [
    shorthand_entry(
        "rtv",
        AccessMode::ReadWrite,
        AccessFlags::RENDER_TARGET,
        true,
    ),
    shorthand_entry(
        "dsv",
        AccessMode::ReadWrite,
        AccessFlags(AccessFlags::DEPTH.0 | AccessFlags::STENCIL.0),
        true,
    ),
    shorthand_entry(
        "discard_rtv",
        AccessMode::WriteOnly,
        AccessFlags::RENDER_TARGET,
        true,
    ),
    shorthand_entry(
        "srv",
        AccessMode::ReadOnly,
        AccessFlags(AccessFlags::PS.0 | AccessFlags::CS.0),
        true,
    ),
    shorthand_entry(
        "srv_buf",
        AccessMode::ReadOnly,
        AccessFlags(AccessFlags::PS.0 | AccessFlags::CS.0),
        false,
    ),
    shorthand_entry("ps_srv", AccessMode::ReadOnly, AccessFlags::PS, true),
    shorthand_entry("ps_srv_buf", AccessMode::ReadOnly, AccessFlags::PS, false),
    shorthand_entry(
        "uav",
        AccessMode::ReadWrite,
        AccessFlags(AccessFlags::PS.0 | AccessFlags::CS.0),
        true,
    ),
    shorthand_entry(
        "uav_buf",
        AccessMode::ReadWrite,
        AccessFlags(AccessFlags::PS.0 | AccessFlags::CS.0),
        false,
    ),
];

/// The shorthand with this name (the prelude declares them as type names, see `prelude.rpsl`).
pub fn shorthand(name: &str) -> Option<&'static Shorthand> {
    SHORTHANDS.iter().find(|s| s.name == name)
}

impl Shorthand {
    /// The view type it declares.
    pub fn view_type(&self) -> crate::types::Type {
        if self.is_texture {
            crate::types::Type::Texture
        } else {
            crate::types::Type::Buffer
        }
    }

    /// Its access entry (`writeonly` with `discard_before` added).
    pub fn entry(&self) -> AccessEntry {
        let discard = if self.mode == AccessMode::WriteOnly {
            AccessFlags::DISCARD_BEFORE
        } else {
            AccessFlags::NONE
        };
        AccessEntry {
            mode: self.mode,
            args: self.args | discard,
        }
    }
}

/// [`parse_access`] for a parameter whose type was written as `type_name`: when that name is an
/// access shorthand (`rtv`, `uav`, ...), its access is added after the written attributes, so
/// `[relaxed] uav dst` is `[relaxed][readwrite(ps, cs)] texture dst`.
pub fn parse_param_access(
    attributes: &[Attribute],
    type_name: Option<&str>,
) -> (Option<AccessDesc>, Vec<Diagnostic>) {
    let (desc, diags) = parse_access(attributes);
    match type_name.and_then(shorthand) {
        Some(short) => {
            let mut desc = desc.unwrap_or_default();
            desc.entries.push(short.entry());
            (Some(desc), diags)
        }
        None => (desc, diags),
    }
}

/// Attribute names valid on parameters.
pub const PARAM_ATTRIBUTES: &[&str] = &["readonly", "writeonly", "readwrite", "relaxed"];

/// Parses a parameter's attributes into an [`AccessDesc`] (`None` when there is none), with
/// diagnostics for the attributes that are wrong (those are left out of the result):
/// * "unknown attribute `foo`" (help "did you mean `readonly`?" when close);
/// * "`before` is a reserved attribute name" (also `after`);
/// * "`relaxed` takes no arguments";
/// * "access attribute arguments must be names";
/// * "unknown access attribute argument `pss`" (help "did you mean `ps`?" when close);
/// * "`rendertarget` requires `writeonly` or `readwrite`" (also `streamout`);
/// * "`present` is only valid with `readonly`" (also `indirectargs`, `shadingrate`, `predication`).
pub fn parse_access(attributes: &[Attribute]) -> (Option<AccessDesc>, Vec<Diagnostic>) {
    let mut desc = AccessDesc::default();
    let mut any = false;
    let mut diags = Vec::new();
    for attr in attributes {
        let name = attr.name.name.as_str();
        let mode = match name {
            "readonly" => AccessMode::ReadOnly,
            "writeonly" => AccessMode::WriteOnly,
            "readwrite" => AccessMode::ReadWrite,
            "relaxed" => {
                if !attr.args.is_empty() {
                    diags.push(Diagnostic::error(attr.span, "`relaxed` takes no arguments"));
                }
                desc.relaxed = true;
                any = true;
                continue;
            }
            "before" | "after" => {
                diags.push(Diagnostic::error(
                    attr.name.span,
                    format!("`{name}` is a reserved attribute name"),
                ));
                continue;
            }
            _ => {
                let mut diag =
                    Diagnostic::error(attr.name.span, format!("unknown attribute `{name}`"));
                if let Some(s) = suggest(name, PARAM_ATTRIBUTES.iter().copied()) {
                    diag = diag.with_help(format!("did you mean `{s}`?"));
                }
                diags.push(diag.with_note(format!(
                    "attributes of node parameters: {}",
                    backticked(PARAM_ATTRIBUTES.iter().copied())
                )));
                continue;
            }
        };
        let mut args = AccessFlags::NONE;
        for arg in &attr.args {
            let ExprKind::Name(ident) = &arg.kind else {
                diags.push(Diagnostic::error(
                    arg.span,
                    "access attribute arguments must be names",
                ));
                continue;
            };
            match AccessFlags::from_name(&ident.name) {
                Some(flag) => {
                    if let Some(message) = mode_conflict(mode, flag) {
                        diags.push(Diagnostic::error(ident.span, message));
                    } else {
                        args |= flag;
                    }
                }
                None => diags.push(unknown_argument(&ident.name, ident.span)),
            }
        }
        if mode == AccessMode::WriteOnly {
            args |= AccessFlags::DISCARD_BEFORE;
        }
        desc.entries.push(AccessEntry { mode, args });
        any = true;
    }
    (any.then_some(desc), diags)
}

/// Access arguments that only make sense on a `texture`.
pub const TEXTURE_ONLY_ARGS: AccessFlags = AccessFlags(
    AccessFlags::DEPTH.0
        | AccessFlags::STENCIL.0
        | AccessFlags::CUBEMAP.0
        | AccessFlags::SHADING_RATE.0
        | AccessFlags::PRESENT.0,
);

/// Access arguments that only make sense on a `buffer`.
pub const BUFFER_ONLY_ARGS: AccessFlags = AccessFlags(
    AccessFlags::RTAS.0
        | AccessFlags::VB.0
        | AccessFlags::IB.0
        | AccessFlags::CB.0
        | AccessFlags::INDIRECT_ARGS.0
        | AccessFlags::PREDICATION.0
        | AccessFlags::STREAM_OUT.0,
);

/// Checks the arguments against the view kind the parameter holds: "`depth` is only valid on
/// `texture` parameters" (also `stencil`, `cubemap`, `shadingrate`, `present`), "`rtas` is only valid
/// on `buffer` parameters" (also `vb`, `ib`, `cb`, `indirectargs`, `predication`, `streamout`). One
/// message per offending argument, in rpsl.h order. (`rendertarget` is allowed on buffers, as the
/// corpus's `test_buffer_rtv` does.)
pub fn view_kind_conflicts(desc: &AccessDesc, is_texture: bool) -> Vec<String> {
    let (bad, kind) = if is_texture {
        (BUFFER_ONLY_ARGS, "buffer")
    } else {
        (TEXTURE_ONLY_ARGS, "texture")
    };
    let found = AccessFlags(desc.args().0 & bad.0);
    found
        .names()
        .map(|name| format!("`{name}` is only valid on `{kind}` parameters"))
        .collect()
}

/// The error message when `flag` is not allowed with `mode`, if it is not.
pub fn mode_conflict(mode: AccessMode, flag: AccessFlags) -> Option<String> {
    let write_only = [AccessFlags::RENDER_TARGET, AccessFlags::STREAM_OUT];
    let read_only = [
        AccessFlags::PRESENT,
        AccessFlags::INDIRECT_ARGS,
        AccessFlags::SHADING_RATE,
        AccessFlags::PREDICATION,
    ];
    let name = flag.names().next().unwrap_or("");
    if mode == AccessMode::ReadOnly && write_only.contains(&flag) {
        return Some(format!("`{name}` requires `writeonly` or `readwrite`"));
    }
    if mode != AccessMode::ReadOnly && read_only.contains(&flag) {
        return Some(format!("`{name}` is only valid with `readonly`"));
    }
    None
}

fn unknown_argument(name: &str, span: Span) -> Diagnostic {
    let names = || AccessFlags::ALL.iter().map(|(_, n)| *n);
    let diag =
        Diagnostic::error(span, format!("unknown access attribute argument `{name}`")).with_note(
            format!("access attribute arguments: {}", backticked(names())),
        );
    match suggest(name, names()) {
        Some(s) => diag.with_help(format!("did you mean `{s}`?")),
        None => diag,
    }
}

/// `a`, `b`, `c`: names as a list for a note.
fn backticked<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ast::{Expr, Ident};
    use crate::source::FileId;

    pub(crate) fn span() -> Span {
        Span::new(FileId(0), 0, 0)
    }

    /// An attribute `name(args)`; an arg starting with a digit becomes a non-name expression.
    pub(crate) fn attr(name: &str, args: &[&str]) -> Attribute {
        let ident = |n: &str| Ident {
            name: n.into(),
            span: span(),
        };
        let args = args
            .iter()
            .map(|a| {
                let kind = if a.starts_with(|c: char| c.is_ascii_digit()) {
                    ExprKind::Bool(true)
                } else {
                    ExprKind::Name(ident(a))
                };
                Expr { kind, span: span() }
            })
            .collect();
        Attribute {
            name: ident(name),
            args,
            span: span(),
        }
    }

    fn parse(attrs: &[Attribute]) -> (Option<String>, Vec<String>) {
        let (desc, diags) = parse_access(attrs);
        let msgs = diags
            .iter()
            .map(|d| match &d.help {
                Some(h) => format!("{} ({h})", d.message),
                None => d.message.clone(),
            })
            .collect();
        (desc.map(|d| d.to_string()), msgs)
    }

    #[test]
    fn parses_and_merges() {
        assert_eq!(parse(&[]), (None, vec![]));
        assert_eq!(
            parse(&[attr("readonly", &["ps", "cs"])]),
            (Some("[readonly(ps, cs)]".into()), vec![])
        );
        assert_eq!(
            parse(&[attr("writeonly", &["rendertarget"])]),
            (
                Some("[writeonly(rendertarget, discard_before)]".into()),
                vec![]
            )
        );
        assert_eq!(
            parse(&[attr("relaxed", &[]), attr("readwrite", &["ps", "cs"])]),
            (Some("[relaxed][readwrite(ps, cs)]".into()), vec![])
        );
        let (desc, diags) = parse_access(&[
            attr("readwrite", &["depth"]),
            attr("writeonly", &["stencil"]),
        ]);
        assert!(diags.is_empty());
        let desc = desc.unwrap();
        assert_eq!(desc.mode(), Some(AccessMode::ReadWrite));
        assert_eq!(
            desc.plane_mode(AccessFlags::DEPTH),
            Some(AccessMode::ReadWrite)
        );
        assert_eq!(
            desc.plane_mode(AccessFlags::STENCIL),
            Some(AccessMode::WriteOnly)
        );
        assert!(!desc.discard_before(AccessFlags::DEPTH));
        assert!(desc.discard_before(AccessFlags::STENCIL));
        assert!(!desc.discard_before(AccessFlags::NONE));
        assert_eq!(
            desc.args(),
            AccessFlags::DEPTH | AccessFlags::STENCIL | AccessFlags::DISCARD_BEFORE
        );
        let (desc, _) = parse_access(&[attr("readonly", &["depth", "stencil"])]);
        assert_eq!(
            desc.unwrap().plane_mode(AccessFlags::STENCIL),
            Some(AccessMode::ReadOnly)
        );
        let (desc, _) = parse_access(&[attr("relaxed", &[])]);
        assert_eq!(desc.unwrap().mode(), None);
        let (desc, _) = parse_access(&[attr("writeonly", &["cs"])]);
        assert!(desc.unwrap().discard_before(AccessFlags::NONE));
        assert_eq!(AccessFlags::ALL.len(), 28);
    }

    #[test]
    fn view_kinds() {
        let (desc, _) = parse_access(&[attr("readonly", &["ps", "cubemap", "cb"])]);
        let desc = desc.unwrap();
        assert_eq!(
            view_kind_conflicts(&desc, true),
            ["`cb` is only valid on `buffer` parameters"]
        );
        assert_eq!(
            view_kind_conflicts(&desc, false),
            ["`cubemap` is only valid on `texture` parameters"]
        );
        let (desc, _) = parse_access(&[attr("readwrite", &["rendertarget"])]);
        assert!(view_kind_conflicts(&desc.unwrap(), false).is_empty());
        let (desc, _) = parse_access(&[
            attr("readwrite", &["depth"]),
            attr("writeonly", &["stencil"]),
        ]);
        assert_eq!(
            view_kind_conflicts(&desc.unwrap(), false),
            [
                "`depth` is only valid on `texture` parameters",
                "`stencil` is only valid on `texture` parameters"
            ]
        );
    }

    #[test]
    fn shorthands() {
        let (desc, diags) = parse_param_access(&[attr("relaxed", &[])], Some("uav"));
        assert!(diags.is_empty());
        assert_eq!(desc.unwrap().to_string(), "[relaxed][readwrite(ps, cs)]");
        let (desc, _) = parse_param_access(&[], Some("discard_rtv"));
        assert_eq!(
            desc.unwrap().to_string(),
            "[writeonly(rendertarget, discard_before)]"
        );
        let (desc, _) = parse_param_access(&[], Some("texture"));
        assert_eq!(desc, None);
        assert_eq!(
            shorthand("srv_buf").unwrap().view_type(),
            crate::types::Type::Buffer
        );
        assert_eq!(
            shorthand("dsv").unwrap().entry().args,
            AccessFlags::DEPTH | AccessFlags::STENCIL
        );
        // The table matches the prelude's macros.
        for s in &SHORTHANDS {
            let args: Vec<&str> = s.args.names().collect();
            let view = if s.is_texture { "texture" } else { "buffer" };
            let define = format!("[{}({})] {view}", s.mode.name(), args.join(", "));
            let typedef = format!("typedef {view:<7} {};", s.name);
            assert!(
                crate::builtins::PRELUDE
                    .lines()
                    .any(|l| l.trim() == typedef.trim()),
                "the prelude declares `{typedef}` (for `{define}`)"
            );
        }
    }

    #[test]
    fn validation_messages() {
        let msgs = |attrs: &[Attribute]| parse(attrs).1;
        assert_eq!(
            msgs(&[attr("readonly", &["rendertarget"])]),
            ["`rendertarget` requires `writeonly` or `readwrite`"]
        );
        assert_eq!(
            msgs(&[attr("readonly", &["streamout"])]),
            ["`streamout` requires `writeonly` or `readwrite`"]
        );
        assert_eq!(
            msgs(&[attr("readwrite", &["present"])]),
            ["`present` is only valid with `readonly`"]
        );
        assert_eq!(
            msgs(&[attr("writeonly", &["indirectargs"])]),
            ["`indirectargs` is only valid with `readonly`"]
        );
        assert_eq!(
            msgs(&[attr("readwrite", &["shadingrate"])]),
            ["`shadingrate` is only valid with `readonly`"]
        );
        assert_eq!(
            msgs(&[attr("writeonly", &["predication"])]),
            ["`predication` is only valid with `readonly`"]
        );
        assert!(msgs(&[attr(
            "readonly",
            &["present", "indirectargs", "predication", "shadingrate"]
        )])
        .is_empty());
        assert!(msgs(&[attr("writeonly", &["rendertarget", "streamout"])]).is_empty());
        assert_eq!(
            msgs(&[attr("readonly", &["pss"])]),
            ["unknown access attribute argument `pss` (did you mean `ps`?)"]
        );
        assert_eq!(
            msgs(&[attr("readwrite", &["rendertraget"])]),
            ["unknown access attribute argument `rendertraget` (did you mean `rendertarget`?)"]
        );
        assert_eq!(
            msgs(&[attr("readonly", &["zzzzzz"])]),
            ["unknown access attribute argument `zzzzzz`"]
        );
        assert_eq!(
            msgs(&[attr("readonly", &["1"])]),
            ["access attribute arguments must be names"]
        );
        assert_eq!(
            msgs(&[attr("readonyl", &["ps"])]),
            ["unknown attribute `readonyl` (did you mean `readonly`?)"]
        );
        assert_eq!(
            msgs(&[attr("before", &[])]),
            ["`before` is a reserved attribute name"]
        );
        assert_eq!(
            msgs(&[attr("relaxed", &["ps"])]),
            ["`relaxed` takes no arguments"]
        );
    }
}
