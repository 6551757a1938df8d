//! System semantics of node parameters (`SV_Target3`, `SV_ClearColor1`, `SV_DepthStencil`, ...) and
//! the checks of a node's parameter list that involve them.
//!
//! A semantic without the `SV_` prefix is a user semantic: allowed and ignored. `SV_` names are
//! matched case-insensitively (as HLSL does); the trailing decimal digits are the index (0 when
//! absent). A parameter with an array of views bound to `SV_TargetN` occupies the slots `N` to
//! `N + count - 1`. Render-target views (access argument `rendertarget`) without a semantic take the
//! lowest free target slots in parameter order ([`render_target_slots`]); that is how a clear color
//! of the built-in `clear_color_regions` finds its target.

use std::collections::{HashMap, HashSet};
use std::fmt;

pub use rpsl_types::SemanticKind;

use super::{AccessDesc, AccessFlags};
use crate::builtins::suggest;
use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::types::{ScalarKind, Type, TypeTable};

/// A parsed system semantic: kind and index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SystemSemantic {
    /// What it binds.
    pub kind: SemanticKind,
    /// The trailing index (0 when none was written).
    pub index: u32,
}

impl fmt::Display for SystemSemantic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.kind.name(), self.index)
    }
}

/// Splits a semantic into its name and trailing index: `SV_Target3` → (`SV_Target`, 3),
/// `SV_Target` → (`SV_Target`, 0); `None` when the index does not fit a `u32`.
pub fn split_semantic_index(semantic: &str) -> Option<(&str, u32)> {
    let name = semantic.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = &semantic[name.len()..];
    let index = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    Some((name, index))
}

/// Why a semantic is not valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SemanticError {
    /// An `SV_` name RPSL does not know.
    Unknown {
        /// The semantic as written.
        semantic: String,
        /// A close known name, for "did you mean".
        suggestion: Option<&'static str>,
    },
    /// The trailing index does not fit a `u32`.
    IndexTooLarge {
        /// The semantic as written.
        semantic: String,
    },
}

impl fmt::Display for SemanticError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SemanticError::Unknown { semantic, .. } => {
                write!(f, "unknown system semantic `{semantic}`")
            }
            SemanticError::IndexTooLarge { semantic } => {
                write!(f, "semantic index of `{semantic}` is too large")
            }
        }
    }
}

impl std::error::Error for SemanticError {}

impl SemanticError {
    /// The error as a diagnostic at `span`, with "did you mean `SV_Target`?" help when there is a
    /// close name.
    pub fn to_diagnostic(&self, span: Span) -> Diagnostic {
        let diag = Diagnostic::error(span, self.to_string());
        match self {
            SemanticError::Unknown {
                suggestion: Some(s),
                ..
            } => diag.with_help(format!("did you mean `{s}`?")),
            _ => diag,
        }
    }
}

/// Parses a semantic as written: `Ok(None)` for a user semantic (no `SV_` prefix), the system
/// semantic otherwise, or an error: "unknown system semantic `SV_Foo`" (with a suggestion when
/// close), "semantic index of `SV_Target99999999999` is too large".
///
/// ```
/// use rpsl_frontend::access::{parse_semantic, SemanticKind, SystemSemantic};
/// assert_eq!(parse_semantic("SV_Target3").unwrap(), Some(SystemSemantic { kind: SemanticKind::Target, index: 3 }));
/// assert_eq!(parse_semantic("TEXCOORD0").unwrap(), None);
/// ```
pub fn parse_semantic(semantic: &str) -> Result<Option<SystemSemantic>, SemanticError> {
    if !semantic
        .get(..3)
        .is_some_and(|p| p.eq_ignore_ascii_case("SV_"))
    {
        return Ok(None);
    }
    let Some((name, index)) = split_semantic_index(semantic) else {
        return Err(SemanticError::IndexTooLarge {
            semantic: semantic.to_string(),
        });
    };
    match SemanticKind::ALL
        .iter()
        .find(|k| k.name().eq_ignore_ascii_case(name))
    {
        Some(&kind) => Ok(Some(SystemSemantic { kind, index })),
        None => Err(SemanticError::Unknown {
            semantic: semantic.to_string(),
            suggestion: suggest(name, SemanticKind::ALL.iter().map(|k| k.name())),
        }),
    }
}

/// What [`validate_node_params`] needs to know about one node parameter.
#[derive(Clone, Copy, Debug)]
pub struct NodeParamInfo<'a> {
    /// The parameter's name.
    pub name: &'a str,
    /// Its type.
    pub ty: &'a Type,
    /// Its access attributes.
    pub access: Option<&'a AccessDesc>,
    /// Its system semantic and where it is written.
    pub semantic: Option<(SystemSemantic, Span)>,
    /// The whole parameter.
    pub span: Span,
}

/// The innermost element type of (nested) arrays, and how many elements there are in all.
fn array_base(ty: &Type) -> (&Type, u32) {
    let mut base = ty;
    let mut count = 1u32;
    while let Type::Array(elem, len) = base {
        count = count.saturating_mul(len.unwrap_or(1));
        base = elem;
    }
    (base, count)
}

fn is_render_target_view(p: &NodeParamInfo) -> bool {
    array_base(p.ty).0.is_view()
        && p.access
            .is_some_and(|a| a.args().contains(AccessFlags::RENDER_TARGET))
}

/// The first render target slot of each parameter (`None` for parameters that are not render
/// targets): explicit `SV_TargetN` indices, then render-target views without a semantic in the lowest
/// free slots, in parameter order. An array takes as many consecutive slots as it has elements.
///
/// Linear in the number of slots: the search for a free run of slots starts at the lowest slot
/// not yet taken, which only grows.
pub fn render_target_slots(params: &[NodeParamInfo]) -> Vec<Option<u32>> {
    let mut used: HashSet<u32> = HashSet::new();
    let mut slots: Vec<Option<u32>> = vec![None; params.len()];
    for (i, p) in params.iter().enumerate() {
        if let Some((
            SystemSemantic {
                kind: SemanticKind::Target,
                index,
            },
            _,
        )) = p.semantic
        {
            let count = array_base(p.ty).1;
            used.extend((0..count).map(|k| index.saturating_add(k)));
            slots[i] = Some(index);
        }
    }
    let mut lowest_free = 0u32;
    for (i, p) in params.iter().enumerate() {
        if p.semantic.is_none() && is_render_target_view(p) {
            let count = array_base(p.ty).1;
            while used.contains(&lowest_free) {
                lowest_free = lowest_free.saturating_add(1);
            }
            let mut first = lowest_free;
            // The first run of `count` free slots: restart past any taken slot inside it.
            while let Some(taken) = (0..count)
                .rev()
                .map(|k| first.saturating_add(k))
                .find(|slot| used.contains(slot))
            {
                if taken == u32::MAX {
                    break;
                }
                first = taken + 1;
            }
            used.extend((0..count).map(|k| first.saturating_add(k)));
            slots[i] = Some(first);
        }
    }
    slots
}

/// Checks a node's parameter list; the messages:
/// * "`SV_Target` requires a `texture` or `buffer` parameter, found `float4`" (buffers can be render
///   targets, as in the corpus's `test_buffer_rtv`);
/// * "`SV_DepthStencil` requires a `texture` parameter, found `buffer`" (also `SV_ResolveTarget`);
/// * "`SV_Viewport` requires an `RpsViewport` parameter, found `float4`";
/// * "`SV_ScissorRect` requires an `int4` or `uint4` parameter, found `float4`";
/// * "`SV_ClearColor` requires a `float4`, `int4` or `uint4` parameter, found `float`";
/// * "`SV_ClearDepth` requires a `float` parameter, found `uint2`";
/// * "`SV_ClearStencil` requires a `uint` parameter, found `float`";
/// * "duplicate semantic `SV_Target1`" (secondary "previously bound here"); a view array bound to
///   `SV_Target0` takes slots 0 to n-1;
/// * "`SV_ClearColor1` has no matching render target";
/// * "`SV_ClearDepth` has no matching depth-stencil view" (also `SV_ClearStencil`).
pub fn validate_node_params(params: &[NodeParamInfo], table: &TypeTable) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    // Occupied (kind, index) → where.
    let mut bound: HashMap<(SemanticKind, u32), Span> = HashMap::new();
    for p in params {
        let Some((sem, span)) = p.semantic else {
            continue;
        };
        if let Some(expected) = type_requirement(sem.kind, p.ty, table) {
            let found = p.ty.display(table);
            diags.push(Diagnostic::error(
                span,
                format!(
                    "`{}` requires {expected} parameter, found `{found}`",
                    sem.kind.name()
                ),
            ));
            continue;
        }
        let count = match sem.kind {
            SemanticKind::Target
            | SemanticKind::ResolveTarget
            | SemanticKind::Viewport
            | SemanticKind::ScissorRect => array_base(p.ty).1,
            _ => 1,
        };
        // Depth-stencil values have one slot whatever the index.
        let first = match sem.kind {
            SemanticKind::DepthStencil | SemanticKind::ClearDepth | SemanticKind::ClearStencil => 0,
            _ => sem.index,
        };
        for k in 0..count {
            let index = first.saturating_add(k);
            if let Some(&previous) = bound.get(&(sem.kind, index)) {
                let shown = match sem.kind {
                    SemanticKind::DepthStencil
                    | SemanticKind::ClearDepth
                    | SemanticKind::ClearStencil => sem.kind.name().to_string(),
                    kind => SystemSemantic { kind, index }.to_string(),
                };
                diags.push(
                    Diagnostic::error(span, format!("duplicate semantic `{shown}`"))
                        .with_secondary(previous, "previously bound here"),
                );
                break;
            }
            bound.insert((sem.kind, index), span);
        }
    }
    let slots = render_target_slots(params);
    let targets: HashSet<u32> = params
        .iter()
        .zip(&slots)
        .filter_map(|(p, slot)| slot.map(|first| (first, array_base(p.ty).1)))
        .flat_map(|(first, count)| (0..count).map_while(move |k| first.checked_add(k)))
        .collect();
    let has_target = |index: u32| targets.contains(&index);
    let has_depth_stencil = params.iter().any(|p| {
        array_base(p.ty).0 == &Type::Texture
            && (matches!(
                p.semantic,
                Some((
                    SystemSemantic {
                        kind: SemanticKind::DepthStencil,
                        ..
                    },
                    _
                ))
            ) || p.access.is_some_and(|a| {
                a.args()
                    .intersects(AccessFlags::DEPTH | AccessFlags::STENCIL)
            }))
    });
    for p in params {
        let Some((sem, span)) = p.semantic else {
            continue;
        };
        if type_requirement(sem.kind, p.ty, table).is_some() {
            continue;
        }
        match sem.kind {
            SemanticKind::ClearColor if !has_target(sem.index) => {
                diags.push(Diagnostic::error(
                    span,
                    format!("`{sem}` has no matching render target"),
                ));
            }
            SemanticKind::ClearDepth | SemanticKind::ClearStencil if !has_depth_stencil => {
                diags.push(Diagnostic::error(
                    span,
                    format!("`{}` has no matching depth-stencil view", sem.kind.name()),
                ));
            }
            _ => {}
        }
    }
    diags
}

/// What the semantic requires of the parameter type ("a `texture`"), when `ty` does not fit.
fn type_requirement(kind: SemanticKind, ty: &Type, table: &TypeTable) -> Option<&'static str> {
    use ScalarKind::*;
    let (base, _) = array_base(ty);
    let is_array = matches!(ty, Type::Array(..));
    let ok = match kind {
        SemanticKind::Target => base.is_view(),
        SemanticKind::ResolveTarget => *base == Type::Texture,
        SemanticKind::DepthStencil => *ty == Type::Texture,
        SemanticKind::Viewport => {
            matches!(base, Type::Struct(id) if table.struct_def(*id).is_some_and(|s| s.name == "RpsViewport"))
        }
        SemanticKind::ScissorRect => matches!(base, Type::Vector(Int | Uint, 4)),
        SemanticKind::ClearColor => !is_array && matches!(ty, Type::Vector(Float | Int | Uint, 4)),
        SemanticKind::ClearDepth => matches!(ty, Type::Scalar(Float | Half)),
        SemanticKind::ClearStencil => matches!(ty, Type::Scalar(Uint | Int)),
    };
    if ok || *ty == Type::Error {
        return None;
    }
    Some(match kind {
        SemanticKind::Target => "a `texture` or `buffer`",
        SemanticKind::ResolveTarget | SemanticKind::DepthStencil => "a `texture`",
        SemanticKind::Viewport => "an `RpsViewport`",
        SemanticKind::ScissorRect => "an `int4` or `uint4`",
        SemanticKind::ClearColor => "a `float4`, `int4` or `uint4`",
        SemanticKind::ClearDepth => "a `float`",
        SemanticKind::ClearStencil => "a `uint`",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::parse_access;
    use crate::access::tests::{attr, span};
    use crate::source::FileId;
    use crate::types::parse_builtin_type_name;

    #[test]
    fn parses_semantics() {
        let p = |s: &str| {
            parse_semantic(s)
                .map(|o| o.map(|s| s.to_string()))
                .map_err(|e| {
                    let d = e.to_diagnostic(span());
                    match d.help {
                        Some(h) => format!("{} ({h})", d.message),
                        None => d.message,
                    }
                })
        };
        assert_eq!(p("SV_Target3"), Ok(Some("SV_Target3".into())));
        assert_eq!(p("SV_Target"), Ok(Some("SV_Target0".into())));
        assert_eq!(p("SV_TARGET1"), Ok(Some("SV_Target1".into())));
        assert_eq!(p("SV_ClearColor1"), Ok(Some("SV_ClearColor1".into())));
        assert_eq!(p("SV_DepthStencil"), Ok(Some("SV_DepthStencil0".into())));
        assert_eq!(p("SV_ClearDepth"), Ok(Some("SV_ClearDepth0".into())));
        assert_eq!(p("SV_ClearStencil"), Ok(Some("SV_ClearStencil0".into())));
        assert_eq!(p("SV_ResolveTarget0"), Ok(Some("SV_ResolveTarget0".into())));
        assert_eq!(p("SV_Viewport0"), Ok(Some("SV_Viewport0".into())));
        assert_eq!(p("SV_ScissorRect0"), Ok(Some("SV_ScissorRect0".into())));
        assert_eq!(p("POSITION"), Ok(None));
        assert_eq!(p("TEXCOORD1"), Ok(None));
        assert_eq!(
            p("SV_Targte0"),
            Err("unknown system semantic `SV_Targte0` (did you mean `SV_Target`?)".into())
        );
        assert_eq!(
            p("SV_Position"),
            Err("unknown system semantic `SV_Position`".into())
        );
        assert_eq!(
            p("SV_Target99999999999"),
            Err("semantic index of `SV_Target99999999999` is too large".into())
        );
        assert_eq!(split_semantic_index("SV_Target12"), Some(("SV_Target", 12)));
    }

    struct P {
        name: &'static str,
        ty: Type,
        access: Option<AccessDesc>,
        semantic: Option<&'static str>,
    }

    fn p(
        name: &'static str,
        ty: &str,
        attrs: &[(&str, &[&str])],
        semantic: Option<&'static str>,
        table: &TypeTable,
    ) -> P {
        let ty = match ty.strip_suffix("[2]") {
            Some(base) => Type::array(parse_builtin_type_name(base).unwrap(), Some(2)),
            None => parse_builtin_type_name(ty)
                .or_else(|| table.struct_by_name(ty).map(Type::Struct))
                .unwrap(),
        };
        let attrs: Vec<_> = attrs.iter().map(|(n, a)| attr(n, a)).collect();
        P {
            name,
            ty,
            access: parse_access(&attrs).0,
            semantic,
        }
    }

    fn check(params: &[P], table: &TypeTable) -> Vec<String> {
        let infos: Vec<NodeParamInfo> = params
            .iter()
            .enumerate()
            .map(|(i, p)| NodeParamInfo {
                name: p.name,
                ty: &p.ty,
                access: p.access.as_ref(),
                semantic: p.semantic.map(|s| {
                    (
                        parse_semantic(s).unwrap().unwrap(),
                        Span::new(FileId(0), i as u32, i as u32),
                    )
                }),
                span: span(),
            })
            .collect();
        validate_node_params(&infos, table)
            .into_iter()
            .map(|d| d.message)
            .collect()
    }

    const RTV: &[(&str, &[&str])] = &[("readwrite", &["rendertarget"])];
    const DSV: &[(&str, &[&str])] = &[("readwrite", &["depth", "stencil"])];

    #[test]
    fn node_parameter_rules() {
        let mut table = TypeTable::new();
        let floats = ["x", "y", "width", "height", "minZ", "maxZ"]
            .map(|n| (n.to_string(), Type::FLOAT, span()));
        table
            .add_struct("RpsViewport", span(), floats.to_vec())
            .unwrap();
        let t = &table;
        // The corpus's MRT node: out-of-order targets, clear colors, viewport and scissor.
        let mrt = [
            p("rt1", "texture", RTV, Some("SV_Target1"), t),
            p("vp", "RpsViewport", &[], Some("SV_Viewport"), t),
            p("c1", "float4", &[], Some("SV_ClearColor1"), t),
            p("rt3", "texture", RTV, Some("SV_Target3"), t),
            p("rt2", "texture", RTV, Some("SV_Target2"), t),
            p("c0", "float4", &[], Some("SV_ClearColor0"), t),
            p("rt0", "texture", RTV, Some("SV_Target0"), t),
            p("sc", "uint4", &[], Some("SV_ScissorRect"), t),
        ];
        assert!(check(&mrt, t).is_empty());
        // Arrays take consecutive slots.
        let arrays = [
            p("a", "texture[2]", RTV, Some("SV_Target0"), t),
            p("b", "texture", RTV, Some("SV_Target1"), t),
        ];
        assert_eq!(check(&arrays, t), ["duplicate semantic `SV_Target1`"]);
        let arrays = [
            p("a", "texture[2]", RTV, Some("SV_Target0"), t),
            p("b", "texture", RTV, Some("SV_Target2"), t),
        ];
        assert!(check(&arrays, t).is_empty());
        let dup = [
            p("a", "texture", RTV, Some("SV_Target1"), t),
            p("b", "texture", RTV, Some("SV_Target1"), t),
        ];
        assert_eq!(check(&dup, t), ["duplicate semantic `SV_Target1`"]);
        let dup = [
            p("a", "texture", DSV, Some("SV_DepthStencil"), t),
            p("b", "texture", DSV, Some("SV_DepthStencil1"), t),
        ];
        assert_eq!(check(&dup, t), ["duplicate semantic `SV_DepthStencil`"]);
        let dup = [
            p("a", "RpsViewport", &[], Some("SV_Viewport"), t),
            p("b", "RpsViewport", &[], Some("SV_Viewport0"), t),
        ];
        assert_eq!(check(&dup, t), ["duplicate semantic `SV_Viewport0`"]);
        // Clear values need a target / depth-stencil.
        let clear = [
            p("rt", "texture", RTV, Some("SV_Target0"), t),
            p("c", "float4", &[], Some("SV_ClearColor1"), t),
        ];
        assert_eq!(
            check(&clear, t),
            ["`SV_ClearColor1` has no matching render target"]
        );
        let buffer_rtv = [
            p("b", "buffer", RTV, Some("SV_Target0"), t),
            p("c", "float4", &[], Some("SV_ClearColor0"), t),
        ];
        assert!(check(&buffer_rtv, t).is_empty());
        let implicit = [
            p(
                "t",
                "texture",
                &[("readwrite", &["rendertarget", "clear"])],
                None,
                t,
            ),
            p("c", "float4", &[], Some("SV_ClearColor"), t),
        ];
        assert!(check(&implicit, t).is_empty());
        let ds = [
            p("d", "texture", DSV, Some("SV_DepthStencil"), t),
            p("cd", "float", &[], Some("SV_ClearDepth"), t),
            p("cs", "uint", &[], Some("SV_ClearStencil"), t),
        ];
        assert!(check(&ds, t).is_empty());
        let ds_builtin = [
            p("t", "texture", DSV, None, t),
            p("cd", "float", &[], Some("SV_ClearDepth"), t),
        ];
        assert!(check(&ds_builtin, t).is_empty());
        let no_ds = [
            p("cd", "float", &[], Some("SV_ClearDepth"), t),
            p("cs", "uint", &[], Some("SV_ClearStencil"), t),
        ];
        assert_eq!(
            check(&no_ds, t),
            [
                "`SV_ClearDepth` has no matching depth-stencil view",
                "`SV_ClearStencil` has no matching depth-stencil view"
            ]
        );
        // Types.
        let wrong = [
            p("a", "float4", &[], Some("SV_Target0"), t),
            p("b", "buffer", &[], Some("SV_DepthStencil"), t),
            p("c", "float4", &[], Some("SV_Viewport"), t),
            p("d", "float4", &[], Some("SV_ScissorRect"), t),
            p("e", "float", &[], Some("SV_ClearColor0"), t),
            p("f", "uint2", &[], Some("SV_ClearDepth"), t),
            p("g", "float", &[], Some("SV_ClearStencil"), t),
            p("h", "buffer", &[], Some("SV_ResolveTarget0"), t),
        ];
        assert_eq!(
            check(&wrong, t),
            [
                "`SV_Target` requires a `texture` or `buffer` parameter, found `float4`",
                "`SV_DepthStencil` requires a `texture` parameter, found `buffer`",
                "`SV_Viewport` requires an `RpsViewport` parameter, found `float4`",
                "`SV_ScissorRect` requires an `int4` or `uint4` parameter, found `float4`",
                "`SV_ClearColor` requires a `float4`, `int4` or `uint4` parameter, found `float`",
                "`SV_ClearDepth` requires a `float` parameter, found `uint2`",
                "`SV_ClearStencil` requires a `uint` parameter, found `float`",
                "`SV_ResolveTarget` requires a `texture` parameter, found `buffer`",
            ]
        );
    }

    #[test]
    fn implicit_render_target_slots() {
        let t = &TypeTable::new();
        let params = [
            p("a", "texture", RTV, None, t),
            p("b", "texture", RTV, Some("SV_Target0"), t),
            p("x", "uint", &[], None, t),
            p("c", "texture[2]", RTV, None, t),
            p("s", "texture", &[("readonly", &["ps"])], None, t),
        ];
        let infos: Vec<NodeParamInfo> = params
            .iter()
            .map(|p| NodeParamInfo {
                name: p.name,
                ty: &p.ty,
                access: p.access.as_ref(),
                semantic: p
                    .semantic
                    .map(|s| (parse_semantic(s).unwrap().unwrap(), span())),
                span: span(),
            })
            .collect();
        assert_eq!(
            render_target_slots(&infos),
            [Some(1), Some(0), None, Some(2), None]
        );
    }
}
