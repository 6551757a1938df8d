//! [`NodeArgs`]: a node's argument block read by parameter name and Rust type, for node
//! implementations on every backend. The layout is the declaration's ([`NodeDeclDesc`]:
//! parameter offsets, [`ValueType`] sizes, strides and struct field offsets); nothing here
//! computes a layout of its own.
//!
//! A name is a parameter (`radius`), a struct field by path (`light.color`), an array element
//! (`weights[2]`) or any mix (`lights[1].color`). Rust types read the RPSL types of the same
//! shape ([`FromArgBytes`]): `bool`, `i32`, `u32`, `i64`, `u64`, `f32` (also `half`, stored as
//! a `float`), `f64`; `[T; N]` for vectors, matrices (rows) and arrays; `Vec<T>` for arrays
//! (sized or not); [`TextureView`], [`BufferView`] and `Option<NodeId>` for views and node
//! handles.

use std::borrow::Cow;
use std::fmt;

use crate::decl::{NodeDeclDesc, ScalarType, ValueType};
use crate::graph::RecordedGraph;
use crate::ids::NodeId;
use crate::view::{BufferView, TextureView};

/// A wrong name, a type that does not match, or an argument block too short for the
/// declaration. The message names the argument, its declared type and the requested one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeArgError {
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for NodeArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NodeArgError {}

/// Node callbacks return `Result<(), String>`: `?` turns a [`NodeArgError`] into its message.
impl From<NodeArgError> for String {
    fn from(error: NodeArgError) -> String {
        error.message
    }
}

fn error<T>(message: String) -> Result<T, NodeArgError> {
    Err(NodeArgError { message })
}

/// Where a named argument lies in the argument block, and its declared type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ArgField<'a> {
    /// The index of the parameter it belongs to in the declaration.
    pub param: usize,
    /// Its declared type.
    pub value_type: &'a ValueType,
    /// Its byte offset in the argument block.
    pub offset: u32,
    /// Its size in bytes (an unsized array: the elements the block holds).
    pub size: u32,
}

impl ArgField<'_> {
    /// The number of elements of an array (of an unsized one: those the block holds); `None`
    /// when the argument is not an array.
    pub fn array_len(&self) -> Option<u32> {
        match self.value_type {
            ValueType::Array(elem, _) => Some(self.size / elem.stride().max(1)),
            _ => None,
        }
    }
}

/// A Rust type that a node argument of matching RPSL type reads as (see the module docs for
/// the pairs). Implement it for your own types to read whole values at once.
pub trait FromArgBytes: Sized {
    /// The type's name in error messages (`f32`, `[f32; 4]`).
    fn type_name() -> String;
    /// Whether an argument declared as `ty` reads as this type.
    fn matches(ty: &ValueType) -> bool;
    /// Reads a value of declared type `ty` (one [`FromArgBytes::matches`] accepted) from the
    /// start of `bytes`; `None` when `bytes` is too short.
    fn read(ty: &ValueType, bytes: &[u8]) -> Option<Self>;
}

fn le_bytes<const N: usize>(bytes: &[u8]) -> Option<[u8; N]> {
    bytes.get(..N)?.try_into().ok()
}

macro_rules! scalar_reads {
    ($($rust:ty => $scalar:ident, |$bytes:ident| $read:expr;)*) => {$(
        impl FromArgBytes for $rust {
            fn type_name() -> String {
                stringify!($rust).to_string()
            }
            fn matches(ty: &ValueType) -> bool {
                *ty == ValueType::Scalar(ScalarType::$scalar)
            }
            fn read(_: &ValueType, $bytes: &[u8]) -> Option<Self> {
                $read
            }
        }
    )*};
}

scalar_reads! {
    bool => Bool, |bytes| le_bytes(bytes).map(|b| u32::from_le_bytes(b) != 0);
    i32 => I32, |bytes| le_bytes(bytes).map(i32::from_le_bytes);
    u32 => U32, |bytes| le_bytes(bytes).map(u32::from_le_bytes);
    i64 => I64, |bytes| le_bytes(bytes).map(i64::from_le_bytes);
    u64 => U64, |bytes| le_bytes(bytes).map(u64::from_le_bytes);
    f32 => F32, |bytes| le_bytes(bytes).map(f32::from_le_bytes);
    f64 => F64, |bytes| le_bytes(bytes).map(f64::from_le_bytes);
}

/// The element type and stride of a value of `ty` seen as `count` elements: a vector's
/// components, a matrix's rows, a sized array's elements.
fn elements_of(ty: &ValueType, count: usize) -> Option<(Cow<'_, ValueType>, usize)> {
    match ty {
        ValueType::Vector(scalar, n) if *n as usize == count => Some((
            Cow::Owned(ValueType::Scalar(*scalar)),
            scalar.size() as usize,
        )),
        ValueType::Matrix(scalar, rows, cols) if *rows as usize == count => Some((
            Cow::Owned(ValueType::Vector(*scalar, *cols)),
            (scalar.size() * cols) as usize,
        )),
        ValueType::Array(elem, n) if *n != 0 && *n as usize == count => {
            Some((Cow::Borrowed(&**elem), elem.stride() as usize))
        }
        _ => None,
    }
}

/// A vector (`[f32; 4]` reads `float4`), a matrix by rows (`[[f32; 4]; 3]` reads `float3x4`)
/// or a sized array (`[u32; 3]` reads `uint[3]`).
impl<T: FromArgBytes, const N: usize> FromArgBytes for [T; N] {
    fn type_name() -> String {
        format!("[{}; {N}]", T::type_name())
    }

    fn matches(ty: &ValueType) -> bool {
        elements_of(ty, N).is_some_and(|(elem, _)| T::matches(&elem))
    }

    fn read(ty: &ValueType, bytes: &[u8]) -> Option<Self> {
        let (elem, stride) = elements_of(ty, N)?;
        let mut items = Vec::with_capacity(N);
        for index in 0..N {
            items.push(T::read(&elem, bytes.get(index * stride..)?)?);
        }
        items.try_into().ok()
    }
}

/// An array, sized or not (`Vec<[i32; 4]>` reads `int4 rects[]`): every element the bytes
/// hold.
impl<T: FromArgBytes> FromArgBytes for Vec<T> {
    fn type_name() -> String {
        format!("Vec<{}>", T::type_name())
    }

    fn matches(ty: &ValueType) -> bool {
        matches!(ty, ValueType::Array(elem, _) if T::matches(elem))
    }

    fn read(ty: &ValueType, bytes: &[u8]) -> Option<Self> {
        let ValueType::Array(elem, count) = ty else {
            return None;
        };
        let stride = elem.stride().max(1) as usize;
        let count = match *count {
            0 => bytes.len() / stride,
            count => count as usize,
        };
        (0..count)
            .map(|index| T::read(elem, bytes.get(index * stride..)?))
            .collect()
    }
}

impl FromArgBytes for TextureView {
    fn type_name() -> String {
        "TextureView".to_string()
    }

    fn matches(ty: &ValueType) -> bool {
        *ty == ValueType::Texture
    }

    fn read(_: &ValueType, bytes: &[u8]) -> Option<Self> {
        TextureView::from_bytes(bytes)
    }
}

impl FromArgBytes for BufferView {
    fn type_name() -> String {
        "BufferView".to_string()
    }

    fn matches(ty: &ValueType) -> bool {
        *ty == ValueType::Buffer
    }

    fn read(_: &ValueType, bytes: &[u8]) -> Option<Self> {
        BufferView::from_bytes(bytes)
    }
}

/// A `node` handle: the node it names, `None` for a null handle.
impl FromArgBytes for Option<NodeId> {
    fn type_name() -> String {
        "Option<NodeId>".to_string()
    }

    fn matches(ty: &ValueType) -> bool {
        *ty == ValueType::NodeHandle
    }

    fn read(_: &ValueType, bytes: &[u8]) -> Option<Self> {
        let id = u32::from_le_bytes(le_bytes(bytes)?);
        Some((id != u32::MAX).then_some(NodeId(id)))
    }
}

/// One step of an argument name after the parameter's: a field (`.color`) or an element
/// (`[2]`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArgPathStep<'p> {
    /// `.NAME`: a struct field (entry arguments also take a vector's `x`, `y`, `z`, `w`).
    Field(&'p str),
    /// `[INDEX]`: an array element (entry arguments also take a vector's component or a
    /// matrix's row).
    Index(u32),
}

/// Splits an argument name (`light.color`, `weights[2]`, `lights[1].color`) into the
/// parameter's name and the steps after it; `None` when it is malformed. The one grammar of
/// argument names, for node arguments ([`NodeArgs`]) and entry arguments alike.
///
/// ```
/// use rpsl_runtime::{parse_arg_path, ArgPathStep};
/// let (name, steps) = parse_arg_path("lights[1].color").unwrap();
/// assert_eq!((name, steps), ("lights", vec![ArgPathStep::Index(1), ArgPathStep::Field("color")]));
/// assert_eq!(parse_arg_path("lights[").map(|(name, _)| name), None);
/// ```
pub fn parse_arg_path(path: &str) -> Option<(&str, Vec<ArgPathStep<'_>>)> {
    let is_name = |text: &str| {
        let mut chars = text.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let name_end = path.find(['.', '[']).unwrap_or(path.len());
    let (name, mut rest) = path.split_at(name_end);
    if !is_name(name) {
        return None;
    }
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let (field, tail) = after.split_at(end);
            if !is_name(field) {
                return None;
            }
            steps.push(ArgPathStep::Field(field));
            rest = tail;
        } else {
            let after = rest.strip_prefix('[')?;
            let (digits, tail) = after.split_once(']')?;
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            steps.push(ArgPathStep::Index(digits.parse().ok()?));
            rest = tail;
        }
    }
    Some((name, steps))
}

/// A node's argument block read by name and type (see the module docs).
///
/// ```
/// use std::sync::Arc;
/// use rpsl_runtime::*;
/// let light = Arc::new(StructType::with_c_layout(
///     "Light",
///     vec![
///         ("intensity".into(), ValueType::Scalar(ScalarType::F32)),
///         ("color".into(), ValueType::Vector(ScalarType::F32, 4)),
///     ],
/// ));
/// let decl = NodeDeclDesc::new(
///     "shade",
///     QueueClass::Graphics,
///     vec![
///         ParamDesc::new("radius", ValueType::Scalar(ScalarType::U32)),
///         ParamDesc::new("light", ValueType::Struct(light)),
///     ],
/// );
/// let mut block = ArgsWriter::new(&decl);
/// block.write_u32(0, 3).write_f32(1, 4, 0.5).write_f32(1, 16, 1.0);
/// let args = NodeArgs::new(&decl, block.bytes());
/// assert_eq!(args.get::<u32>("radius"), Ok(3));
/// assert_eq!(args.get::<[f32; 4]>("light.color"), Ok([0.5, 0.0, 0.0, 1.0]));
/// let wrong = args.get::<f32>("radius").unwrap_err();
/// assert_eq!(wrong.message, "`radius` of node `shade` is `uint`, requested as `f32`");
/// ```
#[derive(Copy, Clone, Debug)]
pub struct NodeArgs<'a> {
    decl: &'a NodeDeclDesc,
    bytes: &'a [u8],
}

impl<'a> NodeArgs<'a> {
    /// The arguments `bytes` of a call of `decl`.
    pub fn new(decl: &'a NodeDeclDesc, bytes: &'a [u8]) -> NodeArgs<'a> {
        NodeArgs { decl, bytes }
    }

    /// The arguments of node `node` of a recorded graph; an error when the graph has no such
    /// node.
    pub fn of_node(graph: &'a RecordedGraph, node: NodeId) -> Result<NodeArgs<'a>, NodeArgError> {
        let Some(record) = graph.nodes.get(node.index()) else {
            return error(format!(
                "the graph has no node {} (it has {})",
                node.0,
                graph.nodes.len()
            ));
        };
        let Some(decl) = graph.decls.get(record.decl.index()) else {
            return error(format!("node {} has no declaration", node.0));
        };
        let bytes = graph
            .args
            .get(record.args.start as usize..record.args.end as usize)
            .unwrap_or_default();
        Ok(NodeArgs::new(decl, bytes))
    }

    /// The node's declaration.
    pub fn decl(&self) -> &'a NodeDeclDesc {
        self.decl
    }

    /// The whole argument block.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Where argument `path` lies and its declared type (introspection).
    pub fn field(&self, path: &str) -> Result<ArgField<'a>, NodeArgError> {
        let node = &self.decl.name;
        let Some((name, steps)) = parse_arg_path(path) else {
            return error(format!(
                "bad argument name `{path}` for node `{node}` (expected NAME, NAME.FIELD or \
                 NAME[INDEX])"
            ));
        };
        let Some(param) = self.decl.params.iter().position(|p| p.name == name) else {
            let names: Vec<String> = self
                .decl
                .params
                .iter()
                .map(|p| format!("`{}`", p.name))
                .collect();
            let known = if names.is_empty() {
                "it takes no parameters".to_string()
            } else {
                format!("parameters: {}", names.join(", "))
            };
            return error(format!("node `{node}` has no parameter `{name}` ({known})"));
        };
        let mut value_type = &self.decl.params[param].value_type;
        let mut offset = self.decl.params[param].offset;
        let mut walked = name.to_string();
        for step in steps {
            match (step, value_type) {
                (ArgPathStep::Field(field), ValueType::Struct(ty)) => {
                    let Some(found) = ty.fields.iter().find(|f| f.name == field) else {
                        let names: Vec<String> =
                            ty.fields.iter().map(|f| format!("`{}`", f.name)).collect();
                        return error(format!(
                            "`{walked}` ({value_type}) of node `{node}` has no field `{field}` \
                             (fields: {})",
                            names.join(", ")
                        ));
                    };
                    offset = offset.saturating_add(found.offset);
                    value_type = &found.value_type;
                    walked = format!("{walked}.{field}");
                }
                (ArgPathStep::Field(field), _) => {
                    return error(format!(
                        "`{walked}` ({value_type}) of node `{node}` has no field `{field}`: it \
                         is not a struct"
                    ));
                }
                (ArgPathStep::Index(index), ValueType::Array(elem, count)) => {
                    let stride = elem.stride().max(1);
                    let len = match *count {
                        0 => {
                            (self.bytes.len() as u64).saturating_sub(offset as u64) / stride as u64
                        }
                        count => count as u64,
                    };
                    if index as u64 >= len {
                        return error(format!(
                            "`{walked}[{index}]` of node `{node}` is out of range: `{walked}` \
                             ({value_type}) has {len} element{}",
                            if len == 1 { "" } else { "s" }
                        ));
                    }
                    offset = offset.saturating_add(index.saturating_mul(stride));
                    value_type = elem;
                    walked = format!("{walked}[{index}]");
                }
                (ArgPathStep::Index(index), _) => {
                    return error(format!(
                        "`{walked}` ({value_type}) of node `{node}` has no element [{index}]: \
                         it is not an array"
                    ));
                }
            }
        }
        let size = match value_type {
            ValueType::Array(elem, 0) => {
                let stride = elem.stride().max(1);
                (self.bytes.len() as u32).saturating_sub(offset) / stride * stride
            }
            other => other.size(),
        };
        if offset as u64 + size as u64 > self.bytes.len() as u64 {
            return error(format!(
                "the argument block of node `{node}` has {} bytes; `{path}` needs bytes {}..{}",
                self.bytes.len(),
                offset,
                offset as u64 + size as u64
            ));
        }
        Ok(ArgField {
            param,
            value_type,
            offset,
            size,
        })
    }

    /// The bytes of argument `path`.
    pub fn raw(&self, path: &str) -> Result<&'a [u8], NodeArgError> {
        let field = self.field(path)?;
        let start = field.offset as usize;
        Ok(&self.bytes[start..start + field.size as usize])
    }

    /// Argument `path` as a `T`; an error when the name is unknown or its declared type does
    /// not read as `T`.
    pub fn get<T: FromArgBytes>(&self, path: &str) -> Result<T, NodeArgError> {
        let field = self.field(path)?;
        if !T::matches(field.value_type) {
            return error(format!(
                "`{path}` of node `{}` is `{}`, requested as `{}`",
                self.decl.name,
                field.value_type,
                T::type_name()
            ));
        }
        let start = field.offset as usize;
        let bytes = &self.bytes[start..start + field.size as usize];
        match T::read(field.value_type, bytes) {
            Some(value) => Ok(value),
            None => error(format!(
                "`{path}` of node `{}` ({}) does not read as `{}`",
                self.decl.name,
                field.value_type,
                T::type_name()
            )),
        }
    }
}

#[cfg(test)]
#[path = "node_args_tests.rs"]
mod tests;
