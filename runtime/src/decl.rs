//! Node declarations: parameter value types and layouts, and the view slots through which the
//! builder finds the views inside an argument block. Access attributes, semantics, queue classes
//! and view kinds are `rpsl-types`' (rpsl.h's data model), re-exported here.

use crate::builtins::BuiltinNode;
use crate::view::VIEW_BYTES;
use std::sync::Arc;

pub use rpsl_types::{AccessDesc, AccessFlags, AccessMode, QueueClass, SemanticKind, ViewKind};

/// A scalar type of an argument value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ScalarType {
    /// HLSL `bool`, stored as 4 bytes (0 or 1).
    Bool,
    /// `int`.
    I32,
    /// `uint` (also enums).
    U32,
    /// `int64_t`.
    I64,
    /// `uint64_t`.
    U64,
    /// `float`.
    F32,
    /// `double`.
    F64,
}

impl ScalarType {
    /// Bytes of one value (also its alignment).
    pub fn size(self) -> u32 {
        match self {
            ScalarType::Bool | ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 4,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 8,
        }
    }

    /// The RPSL (HLSL) spelling: `bool`, `int`, `uint`, `int64_t`, `uint64_t`, `float`,
    /// `double` (`half` is stored as a `float`).
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::I32 => "int",
            ScalarType::U32 => "uint",
            ScalarType::I64 => "int64_t",
            ScalarType::U64 => "uint64_t",
            ScalarType::F32 => "float",
            ScalarType::F64 => "double",
        }
    }
}

/// A struct type of argument values, with explicit field offsets.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct StructType {
    /// The struct's name.
    pub name: String,
    /// Fields in declaration order.
    pub fields: Vec<StructField>,
    /// Total size in bytes (a multiple of `align`).
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
}

/// One field of a [`StructType`].
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct StructField {
    /// Field name.
    pub name: String,
    /// Field type.
    pub value_type: ValueType,
    /// Byte offset within the struct.
    pub offset: u32,
}

impl StructType {
    /// A struct with C layout: each field at the next multiple of its alignment, the size rounded
    /// up to the largest alignment.
    ///
    /// ```
    /// use rpsl_runtime::{ScalarType, StructType, ValueType};
    /// let s = StructType::with_c_layout("S", vec![("a".into(), ValueType::Scalar(ScalarType::U32)), ("b".into(), ValueType::Scalar(ScalarType::U64))]);
    /// assert_eq!((s.fields[1].offset, s.size), (8, 16));
    /// ```
    pub fn with_c_layout(name: impl Into<String>, fields: Vec<(String, ValueType)>) -> StructType {
        let mut offset = 0u32;
        let mut align = 1u32;
        let mut laid_out = Vec::with_capacity(fields.len());
        for (field_name, value_type) in fields {
            let field_align = value_type.align();
            offset = offset.next_multiple_of(field_align);
            align = align.max(field_align);
            let size = value_type.size();
            laid_out.push(StructField {
                name: field_name,
                value_type,
                offset,
            });
            offset += size;
        }
        StructType {
            name: name.into(),
            fields: laid_out,
            size: offset.next_multiple_of(align),
            align,
        }
    }
}

/// The type of an argument value. Sizes and alignments follow C layout of the scalars; views are
/// 40 bytes (see [`crate::TextureView`], [`crate::BufferView`]); a node handle is a `u32` node id
/// (`u32::MAX` = none).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ValueType {
    /// A scalar.
    Scalar(ScalarType),
    /// `float4` and the like: scalar, component count.
    Vector(ScalarType, u32),
    /// `float4x4` and the like: scalar, rows, columns (row-major, tightly packed).
    Matrix(ScalarType, u32, u32),
    /// A fixed-size array. A length of 0 stands for an unsized array (`int4 rects[]`): no bytes.
    Array(Box<ValueType>, u32),
    /// A struct.
    Struct(Arc<StructType>),
    /// A `texture` view.
    Texture,
    /// A `buffer` view.
    Buffer,
    /// A `node` handle.
    NodeHandle,
}

impl ValueType {
    /// Bytes of one value.
    pub fn size(&self) -> u32 {
        match self {
            ValueType::Scalar(scalar) => scalar.size(),
            ValueType::Vector(scalar, count) => scalar.size() * count,
            ValueType::Matrix(scalar, rows, cols) => scalar.size() * rows * cols,
            ValueType::Array(elem, count) => elem.stride() * count,
            ValueType::Struct(ty) => ty.size,
            ValueType::Texture | ValueType::Buffer => VIEW_BYTES as u32,
            ValueType::NodeHandle => 4,
        }
    }

    /// Alignment in bytes.
    pub fn align(&self) -> u32 {
        match self {
            ValueType::Scalar(scalar)
            | ValueType::Vector(scalar, _)
            | ValueType::Matrix(scalar, _, _) => scalar.size(),
            ValueType::Array(elem, _) => elem.align(),
            ValueType::Struct(ty) => ty.align,
            ValueType::Texture => 4,
            ValueType::Buffer => 8,
            ValueType::NodeHandle => 4,
        }
    }

    /// Distance between array elements of this type: the size rounded up to the alignment.
    pub fn stride(&self) -> u32 {
        self.size().next_multiple_of(self.align())
    }

    /// The array dimensions around the innermost non-array type, outermost first
    /// (`float w[2][3]` gives `float` and `[2, 3]`).
    fn array_dimensions(&self) -> (&ValueType, Vec<u32>) {
        let mut dims = Vec::new();
        let mut inner = self;
        while let ValueType::Array(elem, count) = inner {
            dims.push(*count);
            inner = elem;
        }
        (inner, dims)
    }

    /// The type contains a texture or buffer view.
    pub fn has_views(&self) -> bool {
        match self {
            ValueType::Texture | ValueType::Buffer => true,
            ValueType::Array(elem, _) => elem.has_views(),
            ValueType::Struct(ty) => ty.fields.iter().any(|field| field.value_type.has_views()),
            _ => false,
        }
    }
}

/// RPSL's spelling of the type: `float4`, `uint2x3`, `float[3]` (`[]` unsized), the struct's
/// name, `texture`, `buffer`, `node`.
///
/// ```
/// use rpsl_runtime::{ScalarType, ValueType};
/// let weights = ValueType::Array(Box::new(ValueType::Vector(ScalarType::F32, 4)), 3);
/// assert_eq!(weights.to_string(), "float4[3]");
/// assert_eq!(ValueType::Matrix(ScalarType::U32, 2, 3).to_string(), "uint2x3");
/// ```
impl std::fmt::Display for ValueType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueType::Scalar(scalar) => f.write_str(scalar.name()),
            ValueType::Vector(scalar, count) => write!(f, "{}{count}", scalar.name()),
            ValueType::Matrix(scalar, rows, cols) => write!(f, "{}{rows}x{cols}", scalar.name()),
            ValueType::Array(..) => {
                let (inner, dims) = self.array_dimensions();
                write!(f, "{inner}")?;
                for count in dims {
                    match count {
                        0 => f.write_str("[]")?,
                        count => write!(f, "[{count}]")?,
                    }
                }
                Ok(())
            }
            ValueType::Struct(ty) => f.write_str(&ty.name),
            ValueType::Texture => f.write_str("texture"),
            ValueType::Buffer => f.write_str("buffer"),
            ValueType::NodeHandle => f.write_str("node"),
        }
    }
}

/// One view of a parameter, flattened (`srcs[3]`, `gbuf.albedo`).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ViewSlot {
    /// Flattened name.
    pub name: String,
    /// Byte offset within the parameter's value.
    pub offset: u32,
    /// Texture or buffer.
    pub kind: ViewKind,
    /// The access (the parameter's).
    pub access: AccessDesc,
    /// The semantic with its index adjusted for array elements (`rts[2] : SV_Target1` = target 3).
    pub semantic: Option<(SemanticKind, u32)>,
}

/// A parameter of a node declaration.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ParamDesc {
    /// Name.
    pub name: String,
    /// Value type.
    pub value_type: ValueType,
    /// Access attributes of a view parameter (`None` on a view parameter = readonly, no flags).
    pub access: Option<AccessDesc>,
    /// Semantic and index.
    pub semantic: Option<(SemanticKind, u32)>,
    /// Byte offset of the value in the argument block (set by [`NodeDeclDesc::new`]).
    pub offset: u32,
    /// Views inside the value (set by [`NodeDeclDesc::new`]).
    pub view_slots: Vec<ViewSlot>,
}

impl ParamDesc {
    /// A parameter without access or semantic.
    pub fn new(name: impl Into<String>, value_type: ValueType) -> ParamDesc {
        ParamDesc {
            name: name.into(),
            value_type,
            access: None,
            semantic: None,
            offset: 0,
            view_slots: Vec::new(),
        }
    }

    /// With access attributes.
    pub fn with_access(mut self, access: AccessDesc) -> ParamDesc {
        self.access = Some(access);
        self
    }

    /// With a semantic.
    pub fn with_semantic(mut self, kind: SemanticKind, index: u32) -> ParamDesc {
        self.semantic = Some((kind, index));
        self
    }
}

/// A node declaration, registered once per program.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct NodeDeclDesc {
    /// RPSL name.
    pub name: String,
    /// Queue class.
    pub queue: QueueClass,
    /// Parameters with offsets and view slots.
    pub params: Vec<ParamDesc>,
    /// Size of the argument block (the end of the last parameter rounded up to 8 bytes).
    pub args_size: u32,
    /// The end of the last parameter: the fewest bytes `call_node` accepts.
    pub args_end: u32,
    /// The built-in node of rpsl.h this declares (`clear`, `copy_texture`, ...), resolved once
    /// when the declaration is made; `None` for a script's node.
    pub builtin: Option<BuiltinNode>,
}

impl NodeDeclDesc {
    /// A declaration; lays out the parameters in C order (each at the next multiple of its
    /// alignment) and flattens their views into `view_slots`.
    pub fn new(
        name: impl Into<String>,
        queue: QueueClass,
        mut params: Vec<ParamDesc>,
    ) -> NodeDeclDesc {
        let mut offset = 0u32;
        for param in &mut params {
            offset = offset.next_multiple_of(param.value_type.align());
            param.offset = offset;
            offset += param.value_type.size();
            param.view_slots.clear();
            let access = param.access.unwrap_or_default();
            let mut slots = Vec::new();
            flatten_views(
                &param.value_type,
                &param.name,
                0,
                access,
                param.semantic,
                &mut slots,
            );
            param.view_slots = slots;
        }
        NodeDeclDesc {
            name: name.into(),
            queue,
            params,
            args_size: offset.next_multiple_of(8),
            args_end: offset,
            builtin: None,
        }
    }

    /// Marks the declaration as rpsl.h's built-in node `node` (found for a declaration by
    /// [`BuiltinNode::of_declaration`]).
    pub fn with_builtin(mut self, node: BuiltinNode) -> NodeDeclDesc {
        self.builtin = Some(node);
        self
    }

    /// A built-in node of rpsl.h.
    pub fn is_builtin(&self) -> bool {
        self.builtin.is_some()
    }

    /// The parameter of a name.
    pub fn param(&self, name: &str) -> Option<&ParamDesc> {
        self.params.iter().find(|param| param.name == name)
    }
}

fn flatten_views(
    value_type: &ValueType,
    name: &str,
    offset: u32,
    access: AccessDesc,
    semantic: Option<(SemanticKind, u32)>,
    out: &mut Vec<ViewSlot>,
) {
    match value_type {
        ValueType::Texture | ValueType::Buffer => out.push(ViewSlot {
            name: name.to_string(),
            offset,
            kind: if *value_type == ValueType::Texture {
                ViewKind::Texture
            } else {
                ViewKind::Buffer
            },
            access,
            semantic,
        }),
        ValueType::Array(elem, count) if elem.has_views() => {
            for index in 0..*count {
                let elem_semantic = semantic.map(|(kind, base)| (kind, base + index));
                flatten_views(
                    elem,
                    &format!("{name}[{index}]"),
                    offset + index * elem.stride(),
                    access,
                    elem_semantic,
                    out,
                );
            }
        }
        ValueType::Struct(ty) => {
            for field in &ty.fields {
                if field.value_type.has_views() {
                    flatten_views(
                        &field.value_type,
                        &format!("{name}.{}", field.name),
                        offset + field.offset,
                        access,
                        semantic,
                        out,
                    );
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_flattening() {
        let gbuf = Arc::new(StructType::with_c_layout(
            "GBuf",
            vec![
                ("scale".into(), ValueType::Scalar(ScalarType::F32)),
                ("albedo".into(), ValueType::Texture),
            ],
        ));
        let decl = NodeDeclDesc::new(
            "blt_all",
            QueueClass::Graphics,
            vec![
                ParamDesc::new("id", ValueType::Scalar(ScalarType::U32)),
                ParamDesc::new("srcs", ValueType::Array(Box::new(ValueType::Texture), 3))
                    .with_access(AccessDesc::readonly(AccessFlags::PS))
                    .with_semantic(SemanticKind::Target, 1),
                ParamDesc::new("g", ValueType::Struct(gbuf)),
                ParamDesc::new("b", ValueType::Buffer),
            ],
        );
        assert_eq!(decl.params[1].offset, 4);
        let names: Vec<_> = decl.params[1]
            .view_slots
            .iter()
            .map(|slot| (slot.name.as_str(), slot.offset, slot.semantic))
            .collect();
        assert_eq!(names[2], ("srcs[2]", 80, Some((SemanticKind::Target, 3))));
        assert_eq!(decl.params[2].view_slots[0].name, "g.albedo");
        assert_eq!(decl.params[2].view_slots[0].offset, 4);
        assert_eq!(decl.params[3].offset, 168);
        assert_eq!(decl.args_size, 208);
    }
}
