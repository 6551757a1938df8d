//! Struct and enum definitions (the [`TypeTable`]) and byte layouts: sizes and alignments as DXC's
//! `sizeof` reports them for RPSL, and the fixed layouts of `texture` and `buffer` views.
//!
//! Rules (what the VM stores and what `sizeof` returns):
//! * scalars are 4 bytes (including `bool` and `half`) except `int64_t`, `uint64_t`, `double` (8);
//!   alignment equals size;
//! * a vector is `n * scalar`, a matrix `rows * cols * scalar` (`float4x3` is 48), aligned as the scalar;
//! * an array is `len * element size` (elements are not padded beyond their own size); an unsized array
//!   has size 0;
//! * a struct is laid out like C: each member at the next offset that is a multiple of its alignment,
//!   the struct aligned to its largest member alignment and its size rounded up to that;
//! * enums and `node` handles are 4 bytes;
//! * views have the layout of rpsl.h (see [`TEXTURE_LAYOUT`] and [`BUFFER_LAYOUT`]), 40 bytes each;
//!   the offsets are `rpsl-types`' `view_offsets`, the ones the VM and the runtime read.

use std::fmt;

use rpsl_types::{view_offsets, VIEW_BYTES};

use super::{EnumId, ScalarKind, StructId, Type};
use crate::source::Span;

/// One field of a fixed view layout: name, type and byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewField {
    /// Field name as rpsl.h spells it.
    pub name: &'static str,
    /// Scalar kind of the field (`SubresourceRange` is listed as its four `uint`s).
    pub kind: ScalarKind,
    /// Byte offset from the start of the view.
    pub offset: u32,
}

/// The layout of a `texture` value (40 bytes, alignment 4), as rpsl.h declares `struct texture`:
///
/// | offset | field | type |
/// |---|---|---|
/// | 0 | Resource (`u32::MAX` for `null`) | u32 |
/// | 4 | ViewFormat (RPS_FORMAT) | u32 |
/// | 8 | TemporalLayer | u32 |
/// | 12 | Flags (RESOURCE_VIEW_FLAGS) | u32 |
/// | 16 | SubresourceRange.BaseMipLevel | u32 |
/// | 20 | SubresourceRange.MipLevelCount | u32 |
/// | 24 | SubresourceRange.BaseArrayLayer | u32 |
/// | 28 | SubresourceRange.ArrayLayerCount | u32 |
/// | 32 | MinLodClamp | f32 |
/// | 36 | ComponentMapping | u32 |
pub const TEXTURE_LAYOUT: [ViewField; 10] = [
    ViewField {
        name: "Resource",
        kind: ScalarKind::Uint,
        offset: view_offsets::RESOURCE,
    },
    ViewField {
        name: "ViewFormat",
        kind: ScalarKind::Uint,
        offset: view_offsets::VIEW_FORMAT,
    },
    ViewField {
        name: "TemporalLayer",
        kind: ScalarKind::Uint,
        offset: view_offsets::TEMPORAL_LAYER,
    },
    ViewField {
        name: "Flags",
        kind: ScalarKind::Uint,
        offset: view_offsets::FLAGS,
    },
    ViewField {
        name: "BaseMipLevel",
        kind: ScalarKind::Uint,
        offset: view_offsets::BASE_MIP,
    },
    ViewField {
        name: "MipLevelCount",
        kind: ScalarKind::Uint,
        offset: view_offsets::MIP_COUNT,
    },
    ViewField {
        name: "BaseArrayLayer",
        kind: ScalarKind::Uint,
        offset: view_offsets::BASE_LAYER,
    },
    ViewField {
        name: "ArrayLayerCount",
        kind: ScalarKind::Uint,
        offset: view_offsets::LAYER_COUNT,
    },
    ViewField {
        name: "MinLodClamp",
        kind: ScalarKind::Float,
        offset: view_offsets::MIN_LOD,
    },
    ViewField {
        name: "ComponentMapping",
        kind: ScalarKind::Uint,
        offset: view_offsets::COMPONENT_MAPPING,
    },
];

/// Size in bytes of a `texture` value.
pub const TEXTURE_SIZE: u32 = VIEW_BYTES as u32;

/// The layout of a `buffer` value (40 bytes, alignment 8), as rpsl.h declares `struct buffer`:
///
/// | offset | field | type |
/// |---|---|---|
/// | 0 | Resource (`u32::MAX` for `null`) | u32 |
/// | 4 | ViewFormat (RPS_FORMAT) | u32 |
/// | 8 | TemporalLayer | u32 |
/// | 12 | Flags (RESOURCE_VIEW_FLAGS) | u32 |
/// | 16 | Offset | u64 |
/// | 24 | SizeInBytes | u64 |
/// | 32 | Stride | u32 |
/// | 36 | (padding to the 8-byte alignment) | |
pub const BUFFER_LAYOUT: [ViewField; 7] = [
    ViewField {
        name: "Resource",
        kind: ScalarKind::Uint,
        offset: view_offsets::RESOURCE,
    },
    ViewField {
        name: "ViewFormat",
        kind: ScalarKind::Uint,
        offset: view_offsets::VIEW_FORMAT,
    },
    ViewField {
        name: "TemporalLayer",
        kind: ScalarKind::Uint,
        offset: view_offsets::TEMPORAL_LAYER,
    },
    ViewField {
        name: "Flags",
        kind: ScalarKind::Uint,
        offset: view_offsets::FLAGS,
    },
    ViewField {
        name: "Offset",
        kind: ScalarKind::Uint64,
        offset: view_offsets::OFFSET,
    },
    ViewField {
        name: "SizeInBytes",
        kind: ScalarKind::Uint64,
        offset: view_offsets::SIZE,
    },
    ViewField {
        name: "Stride",
        kind: ScalarKind::Uint,
        offset: view_offsets::STRIDE,
    },
];

/// Size in bytes of a `buffer` value.
pub const BUFFER_SIZE: u32 = VIEW_BYTES as u32;

/// Size and alignment of a type, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// `sizeof`.
    pub size: u32,
    /// Required alignment (a power of two).
    pub align: u32,
}

/// One member of a struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDef {
    /// Member name.
    pub name: String,
    /// Member type.
    pub ty: Type,
    /// Byte offset inside the struct.
    pub offset: u32,
    /// Where the member is declared.
    pub span: Span,
}

/// A struct definition with its computed layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructDef {
    /// Struct name.
    pub name: String,
    /// Members in declaration order, with offsets.
    pub fields: Vec<FieldDef>,
    /// Size and alignment.
    pub layout: Layout,
    /// Where the struct is declared.
    pub span: Span,
}

impl StructDef {
    /// The member with this name.
    pub fn field(&self, name: &str) -> Option<&FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// One enumerator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumValue {
    /// Enumerator name.
    pub name: String,
    /// Its value.
    pub value: i64,
    /// Where it is declared.
    pub span: Span,
}

/// An enum definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumDef {
    /// Enum name.
    pub name: String,
    /// Enumerators in declaration order.
    pub values: Vec<EnumValue>,
    /// Where the enum is declared.
    pub span: Span,
}

/// Why a struct could not be registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// Two members share a name.
    DuplicateField {
        /// The repeated name.
        name: String,
        /// The second declaration.
        span: Span,
        /// The first declaration.
        previous: Span,
    },
    /// A member has a type without a size (`void`, an unsized array, an unknown struct id).
    UnsizedField {
        /// Member name.
        name: String,
        /// Its type as shown.
        ty: String,
        /// The member declaration.
        span: Span,
    },
    /// The struct is larger than [`MAX_VALUE_SIZE`].
    TooLarge {
        /// Struct name.
        name: String,
        /// Its size in bytes (saturated at `u32::MAX`).
        size: u32,
        /// The struct's name in its definition.
        span: Span,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::DuplicateField { name, .. } => write!(f, "duplicate member `{name}`"),
            LayoutError::UnsizedField { name, ty, .. } => {
                write!(f, "member `{name}` has type `{ty}`, which has no size")
            }
            LayoutError::TooLarge { name, size, .. } => write!(
                f,
                "struct `{name}` takes {size} bytes; a value may take at most {MAX_VALUE_SIZE} \
                 (16 MiB)"
            ),
        }
    }
}

impl std::error::Error for LayoutError {}

/// Owns struct and enum definitions; sema registers them as it meets their declarations.
#[derive(Clone, Debug, Default)]
pub struct TypeTable {
    structs: Vec<StructDef>,
    enums: Vec<EnumDef>,
}

impl TypeTable {
    /// An empty table.
    pub fn new() -> TypeTable {
        TypeTable::default()
    }

    /// Registers a struct from its members `(name, type, span)` and computes offsets and layout.
    /// Member types must already be known to this table (HLSL declares structs before use).
    ///
    /// ```
    /// use rpsl_frontend::types::{parse_builtin_type_name, Type, TypeTable};
    /// use rpsl_frontend::source::{FileId, Span};
    /// let span = Span::new(FileId(0), 0, 0);
    /// let mut table = TypeTable::new();
    /// let id = table.add_struct("InstanceData", span, vec![
    ///     ("transform".into(), parse_builtin_type_name("float4x3").unwrap(), span),
    ///     ("color".into(), parse_builtin_type_name("float4").unwrap(), span),
    /// ]).unwrap();
    /// assert_eq!(table.size_of(&Type::Struct(id)), Some(64));
    /// assert_eq!(table.struct_def(id).unwrap().fields[1].offset, 48);
    /// ```
    pub fn add_struct(
        &mut self,
        name: impl Into<String>,
        span: Span,
        members: Vec<(String, Type, Span)>,
    ) -> Result<StructId, LayoutError> {
        let mut fields: Vec<FieldDef> = Vec::with_capacity(members.len());
        let mut offset = 0u32;
        let mut align = 1u32;
        for (field_name, ty, field_span) in members {
            if let Some(prev) = fields.iter().find(|f| f.name == field_name) {
                return Err(LayoutError::DuplicateField {
                    name: field_name,
                    span: field_span,
                    previous: prev.span,
                });
            }
            let field_layout = match self.layout_of(&ty) {
                Some(l) if !matches!(ty, Type::Array(_, None)) => l,
                _ => {
                    let shown = ty.display(self).to_string();
                    return Err(LayoutError::UnsizedField {
                        name: field_name,
                        ty: shown,
                        span: field_span,
                    });
                }
            };
            offset = align_up(offset, field_layout.align);
            fields.push(FieldDef {
                name: field_name,
                ty,
                offset,
                span: field_span,
            });
            offset = offset.saturating_add(field_layout.size);
            align = align.max(field_layout.align);
        }
        let layout = Layout {
            size: align_up(offset, align),
            align,
        };
        if layout.size > MAX_VALUE_SIZE {
            return Err(LayoutError::TooLarge {
                name: name.into(),
                size: layout.size,
                span,
            });
        }
        let id = StructId(self.structs.len() as u32);
        self.structs.push(StructDef {
            name: name.into(),
            fields,
            layout,
            span,
        });
        Ok(id)
    }

    /// Registers an enum.
    pub fn add_enum(
        &mut self,
        name: impl Into<String>,
        span: Span,
        values: Vec<EnumValue>,
    ) -> EnumId {
        let id = EnumId(self.enums.len() as u32);
        self.enums.push(EnumDef {
            name: name.into(),
            values,
            span,
        });
        id
    }

    /// The struct with this id.
    pub fn struct_def(&self, id: StructId) -> Option<&StructDef> {
        self.structs.get(id.0 as usize)
    }

    /// The enum with this id.
    pub fn enum_def(&self, id: EnumId) -> Option<&EnumDef> {
        self.enums.get(id.0 as usize)
    }

    /// The struct with this name.
    pub fn struct_by_name(&self, name: &str) -> Option<StructId> {
        self.structs
            .iter()
            .position(|s| s.name == name)
            .map(|i| StructId(i as u32))
    }

    /// The enum with this name.
    pub fn enum_by_name(&self, name: &str) -> Option<EnumId> {
        self.enums
            .iter()
            .position(|e| e.name == name)
            .map(|i| EnumId(i as u32))
    }

    /// All structs, by id order.
    pub fn structs(&self) -> impl Iterator<Item = (StructId, &StructDef)> {
        self.structs
            .iter()
            .enumerate()
            .map(|(i, s)| (StructId(i as u32), s))
    }

    /// All enums, by id order.
    pub fn enums(&self) -> impl Iterator<Item = (EnumId, &EnumDef)> {
        self.enums
            .iter()
            .enumerate()
            .map(|(i, e)| (EnumId(i as u32), e))
    }

    /// Size and alignment of a type; `None` for `void`, `null`, the error type and unknown ids.
    /// An unsized array has size 0 and its element's alignment.
    pub fn layout_of(&self, ty: &Type) -> Option<Layout> {
        let scalar = |k: ScalarKind| Layout {
            size: k.size(),
            align: k.size(),
        };
        Some(match ty {
            Type::Scalar(k) => scalar(*k),
            Type::Vector(k, n) => Layout {
                size: k.size() * *n as u32,
                align: k.size(),
            },
            Type::Matrix(k, r, c) => Layout {
                size: k.size() * *r as u32 * *c as u32,
                align: k.size(),
            },
            Type::Array(elem, len) => {
                let elem = self.layout_of(elem)?;
                Layout {
                    size: elem.size.saturating_mul(len.unwrap_or(0)),
                    align: elem.align,
                }
            }
            Type::Struct(id) => self.struct_def(*id)?.layout,
            Type::Enum(_) | Type::Node => Layout { size: 4, align: 4 },
            Type::Texture => Layout {
                size: TEXTURE_SIZE,
                align: 4,
            },
            Type::Buffer => Layout {
                size: BUFFER_SIZE,
                align: 8,
            },
            Type::Void | Type::Null | Type::Error => return None,
        })
    }

    /// `sizeof(ty)`.
    pub fn size_of(&self, ty: &Type) -> Option<u32> {
        self.layout_of(ty).map(|l| l.size)
    }

    /// Whether the type holds a `texture` or `buffer` anywhere (directly, in an array or a struct).
    pub fn contains_view(&self, ty: &Type) -> bool {
        match ty {
            Type::Texture | Type::Buffer => true,
            Type::Array(elem, _) => self.contains_view(elem),
            Type::Struct(id) => self
                .struct_def(*id)
                .is_some_and(|s| s.fields.iter().any(|f| self.contains_view(&f.ty))),
            _ => false,
        }
    }
}

/// The largest value (array or struct) a script may declare: 16 MiB, what one function's frame
/// of locals may hold in the VM. Larger ones are errors where they are declared.
pub const MAX_VALUE_SIZE: u32 = 1 << 24;

/// Rounds `offset` up to a multiple of `align` (a power of two).
pub fn align_up(offset: u32, align: u32) -> u32 {
    let align = align.max(1);
    offset.div_ceil(align).saturating_mul(align)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;
    use crate::types::parse_builtin_type_name;

    fn span() -> Span {
        Span::new(FileId(0), 0, 0)
    }

    fn ty(name: &str) -> Type {
        parse_builtin_type_name(name).unwrap()
    }

    fn members(list: &[(&str, Type)]) -> Vec<(String, Type, Span)> {
        list.iter()
            .map(|(n, t)| (n.to_string(), t.clone(), span()))
            .collect()
    }

    #[test]
    fn sizes_of_builtin_types() {
        let table = TypeTable::new();
        let cases = [
            ("bool", 4),
            ("half", 4),
            ("int", 4),
            ("uint64_t", 8),
            ("double", 8),
            ("float4", 16),
            ("bool3", 12),
            ("double2", 16),
            ("float4x3", 48),
            ("float4x4", 64),
            ("int2x3", 24),
            ("texture", 40),
            ("buffer", 40),
            ("node", 4),
        ];
        for (name, size) in cases {
            assert_eq!(table.size_of(&ty(name)), Some(size), "{name}");
        }
        assert_eq!(table.size_of(&Type::array(Type::UINT, Some(10))), Some(40));
        assert_eq!(
            table.size_of(&Type::array(Type::Texture, Some(3))),
            Some(120)
        );
        assert_eq!(table.size_of(&Type::Void), None);
        assert_eq!(
            table.layout_of(&Type::Buffer),
            Some(Layout { size: 40, align: 8 })
        );
    }

    #[test]
    fn struct_layouts() {
        let mut table = TypeTable::new();
        let instance = table
            .add_struct(
                "InstanceData",
                span(),
                members(&[("transform", ty("float4x3")), ("color", ty("float4"))]),
            )
            .unwrap();
        assert_eq!(table.size_of(&Type::Struct(instance)), Some(64));
        let cbuffer = table
            .add_struct(
                "CBufferData",
                span(),
                members(&[
                    ("viewProjMat", ty("float4x4")),
                    ("lightViewProjMat", ty("float4x4")),
                    ("lightDir", ty("float3")),
                    ("timeInSeconds", ty("float")),
                ]),
            )
            .unwrap();
        assert_eq!(table.size_of(&Type::Struct(cbuffer)), Some(144));
        let mixed = table
            .add_struct(
                "Mixed",
                span(),
                members(&[("a", ty("uint")), ("b", ty("uint64_t")), ("c", ty("bool"))]),
            )
            .unwrap();
        let def = table.struct_def(mixed).unwrap();
        assert_eq!(
            def.fields.iter().map(|f| f.offset).collect::<Vec<_>>(),
            [0, 8, 16]
        );
        assert_eq!(def.layout, Layout { size: 24, align: 8 });
        let views = table
            .add_struct(
                "Views",
                span(),
                members(&[("t", Type::Texture), ("b", Type::Buffer), ("n", ty("uint"))]),
            )
            .unwrap();
        let def = table.struct_def(views).unwrap();
        assert_eq!(
            def.fields.iter().map(|f| f.offset).collect::<Vec<_>>(),
            [0, 40, 80]
        );
        assert_eq!(def.layout.size, 88);
        assert!(table.contains_view(&Type::array(Type::Struct(views), Some(2))));
        assert!(!table.contains_view(&Type::Struct(instance)));
        assert_eq!(table.struct_by_name("Views"), Some(views));
        assert_eq!(Type::Struct(views).display(&table).to_string(), "Views");
    }

    #[test]
    fn struct_errors() {
        let mut table = TypeTable::new();
        let err = table
            .add_struct(
                "S",
                span(),
                members(&[("a", Type::INT), ("a", Type::FLOAT)]),
            )
            .unwrap_err();
        assert_eq!(err.to_string(), "duplicate member `a`");
        let err = table
            .add_struct("S", span(), members(&[("v", Type::Void)]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "member `v` has type `void`, which has no size"
        );
        let err = table
            .add_struct("S", span(), members(&[("r", Type::array(Type::INT, None))]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "member `r` has type `int[]`, which has no size"
        );
    }
}
