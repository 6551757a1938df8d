//! Flattening of a node parameter into one access slot per view it holds: `srcs[3]`, `gbuf.albedo`,
//! `gbufs[1].normal`, each with the view's byte offset inside the parameter value.

use crate::types::{Type, TypeTable};

/// One view inside a parameter value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FlatView {
    /// The access path from the parameter name (`srcs[3]`, `gbufs[1].normal`).
    pub name: String,
    /// Byte offset of the view inside the parameter value (layouts of [`TypeTable`]).
    pub offset: u32,
    /// `true` for a `texture`, `false` for a `buffer`.
    pub is_texture: bool,
}

/// The views held by a value of type `ty` named `name`, in layout order (array elements in index
/// order, struct members in declaration order, recursively). Unsized arrays hold no slots (their
/// length is unknown; sema rejects them where views are needed).
///
/// ```
/// use rpsl_frontend::access::flatten_views;
/// use rpsl_frontend::types::{Type, TypeTable};
/// let views = flatten_views(&Type::array(Type::Texture, Some(2)), "srcs", &TypeTable::new());
/// let shown: Vec<_> = views.iter().map(|v| (v.name.as_str(), v.offset)).collect();
/// assert_eq!(shown, [("srcs[0]", 0), ("srcs[1]", 40)]);
/// ```
pub fn flatten_views(ty: &Type, name: &str, table: &TypeTable) -> Vec<FlatView> {
    let mut out = Vec::new();
    flatten_into(ty, name, 0, table, &mut out);
    out
}

/// The number of views a value of type `ty` holds ([`flatten_views`]' length), counted without
/// building them (saturating).
pub fn count_views(ty: &Type, table: &TypeTable) -> u64 {
    match ty {
        Type::Texture | Type::Buffer => 1,
        Type::Array(elem, Some(len)) => count_views(elem, table).saturating_mul(*len as u64),
        Type::Struct(id) => table.struct_def(*id).map_or(0, |def| {
            def.fields.iter().fold(0u64, |sum, field| {
                sum.saturating_add(count_views(&field.ty, table))
            })
        }),
        _ => 0,
    }
}

/// The most views one node's parameters may hold together: an access records its view's
/// index within the parameter in 16 bits.
pub const MAX_NODE_VIEWS: u64 = 1 << 16;

fn flatten_into(ty: &Type, name: &str, offset: u32, table: &TypeTable, out: &mut Vec<FlatView>) {
    match ty {
        Type::Texture | Type::Buffer => out.push(FlatView {
            name: name.to_string(),
            offset,
            is_texture: *ty == Type::Texture,
        }),
        Type::Array(elem, Some(len)) => {
            if !table.contains_view(elem) {
                return;
            }
            let stride = table.size_of(elem).unwrap_or(0);
            for i in 0..*len {
                let elem_offset = offset.saturating_add(stride.saturating_mul(i));
                flatten_into(elem, &format!("{name}[{i}]"), elem_offset, table, out);
            }
        }
        Type::Struct(id) => {
            let Some(def) = table.struct_def(*id) else {
                return;
            };
            for field in &def.fields {
                let path = format!("{name}.{}", field.name);
                flatten_into(
                    &field.ty,
                    &path,
                    offset.saturating_add(field.offset),
                    table,
                    out,
                );
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, Span};

    fn shown(views: &[FlatView]) -> Vec<String> {
        views
            .iter()
            .map(|v| {
                format!(
                    "{}@{}{}",
                    v.name,
                    v.offset,
                    if v.is_texture { "" } else { " buf" }
                )
            })
            .collect()
    }

    #[test]
    fn counts_views_without_building_them() {
        let table = TypeTable::new();
        let nested = Type::array(Type::array(Type::Texture, Some(3)), Some(5));
        assert_eq!(count_views(&nested, &table), 15);
        assert_eq!(
            count_views(&nested, &table),
            flatten_views(&nested, "n", &table).len() as u64
        );
        assert_eq!(
            count_views(
                &Type::array(Type::Scalar(crate::types::ScalarKind::Uint), Some(9)),
                &table
            ),
            0
        );
    }

    #[test]
    fn flattens_arrays_and_structs() {
        let span = Span::new(FileId(0), 0, 0);
        let mut table = TypeTable::new();
        let gbuf = table
            .add_struct(
                "GBuffer",
                span,
                vec![
                    ("albedo".into(), Type::Texture, span),
                    ("scale".into(), Type::FLOAT, span),
                    ("normal".into(), Type::Texture, span),
                    ("data".into(), Type::Buffer, span),
                ],
            )
            .unwrap();
        // albedo 0, scale 40, normal 44, data 88 (aligned to 8), size 128.
        assert_eq!(table.size_of(&Type::Struct(gbuf)), Some(128));
        assert_eq!(shown(&flatten_views(&Type::Texture, "t", &table)), ["t@0"]);
        assert_eq!(
            shown(&flatten_views(&Type::Buffer, "b", &table)),
            ["b@0 buf"]
        );
        assert_eq!(
            shown(&flatten_views(&Type::FLOAT, "f", &table)),
            Vec::<String>::new()
        );
        assert_eq!(
            shown(&flatten_views(
                &Type::array(Type::Texture, Some(3)),
                "srcs",
                &table
            )),
            ["srcs[0]@0", "srcs[1]@40", "srcs[2]@80"]
        );
        assert_eq!(
            shown(&flatten_views(&Type::Struct(gbuf), "gbuf", &table)),
            ["gbuf.albedo@0", "gbuf.normal@44", "gbuf.data@88 buf"]
        );
        assert_eq!(
            shown(&flatten_views(
                &Type::array(Type::Struct(gbuf), Some(2)),
                "gbufs",
                &table
            )),
            [
                "gbufs[0].albedo@0",
                "gbufs[0].normal@44",
                "gbufs[0].data@88 buf",
                "gbufs[1].albedo@128",
                "gbufs[1].normal@172",
                "gbufs[1].data@216 buf"
            ]
        );
        let grid = Type::array(Type::array(Type::Buffer, Some(2)), Some(2));
        assert_eq!(
            shown(&flatten_views(&grid, "g", &table)),
            [
                "g[0][0]@0 buf",
                "g[0][1]@40 buf",
                "g[1][0]@80 buf",
                "g[1][1]@120 buf"
            ]
        );
        assert!(flatten_views(&Type::array(Type::Texture, None), "u", &table).is_empty());
    }
}
