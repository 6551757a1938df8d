//! RPSL and HLSL types: scalars, vectors, matrices, structs, arrays, views; sizes and conversions.
//!
//! The representation follows HLSL as DXC compiles RPSL:
//!
//! * Scalars: `bool`, `int` (i32), `uint` (u32; aliases `uint32_t`, `dword`), `int64_t`, `uint64_t`,
//!   `half`, `float`, `double`. DXC without `-enable-16bit-types` (which is how RPSL is compiled) treats
//!   `half` as a 32-bit float, so `half` is 4 bytes and computes as `f32` on the CPU; it stays a
//!   distinct kind only for overload ranking and display. The 16-bit and minimum-precision spellings
//!   (`int16_t`, `uint16_t`, `min16int`, `min16uint`, `min12int`, `min16float`, `min10float`,
//!   `float16_t`, `float32_t`, `int32_t`, `float64_t`) are aliases of the 32-bit (or 64-bit) kinds.
//! * Two extra scalar kinds type unsuffixed literals: `1` is [`ScalarKind::LiteralInt`] and `1.0` is
//!   [`ScalarKind::LiteralFloat`]. They convert to any numeric kind at (almost) no cost, so
//!   `min(f, 1)` resolves to `min(float, float)`. They become `int` / `float` when a variable is
//!   declared from them ([`Type::concrete`]).
//! * Vectors of 1 to 4 components, matrices of 1 to 4 rows by 1 to 4 columns (`float4x3` is 4 rows,
//!   3 columns), arrays with a length (or without one, as in the parameter `int4 rects[]`), structs
//!   and enums by id (their definitions live in a [`TypeTable`]), the views `texture` and `buffer`,
//!   `node` (the handle a node call returns), `void`, the type of `null` and an error type used after
//!   a diagnostic so that one mistake is reported once.
//!
//! Conversions, operator typing and casts are in [`convert`].

pub mod convert;
pub mod layout;

pub use convert::*;
pub use layout::*;

use std::fmt;

/// The component kind of a scalar, vector or matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarKind {
    /// `bool`: 4 bytes, as in HLSL.
    Bool,
    /// `int`: 32-bit signed.
    Int,
    /// `uint`: 32-bit unsigned.
    Uint,
    /// `int64_t`.
    Int64,
    /// `uint64_t`.
    Uint64,
    /// `half`: a 32-bit float on the CPU (DXC without `-enable-16bit-types`).
    Half,
    /// `float`: 32-bit.
    Float,
    /// `double`: 64-bit.
    Double,
    /// The type of an unsuffixed integer literal; becomes `int` when it must be concrete.
    LiteralInt,
    /// The type of an unsuffixed floating-point literal; becomes `float` when it must be concrete.
    LiteralFloat,
}

impl ScalarKind {
    /// Whether this is an integer kind (`bool` is not).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            ScalarKind::Int
                | ScalarKind::Uint
                | ScalarKind::Int64
                | ScalarKind::Uint64
                | ScalarKind::LiteralInt
        )
    }

    /// Whether this is a floating-point kind.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ScalarKind::Half | ScalarKind::Float | ScalarKind::Double | ScalarKind::LiteralFloat
        )
    }

    /// Whether this is a signed integer kind.
    pub fn is_signed_integer(self) -> bool {
        matches!(
            self,
            ScalarKind::Int | ScalarKind::Int64 | ScalarKind::LiteralInt
        )
    }

    /// Whether this is the kind of an unsuffixed literal.
    pub fn is_literal(self) -> bool {
        matches!(self, ScalarKind::LiteralInt | ScalarKind::LiteralFloat)
    }

    /// The kind a literal kind stands for once it must be concrete (`int`, `float`); others unchanged.
    pub fn concrete(self) -> ScalarKind {
        match self {
            ScalarKind::LiteralInt => ScalarKind::Int,
            ScalarKind::LiteralFloat => ScalarKind::Float,
            other => other,
        }
    }

    /// Size in bytes: 8 for `int64_t`, `uint64_t`, `double`; 4 for all others (`bool` and `half` too).
    pub fn size(self) -> u32 {
        match self.concrete() {
            ScalarKind::Int64 | ScalarKind::Uint64 | ScalarKind::Double => 8,
            _ => 4,
        }
    }

    /// The HLSL spelling (`uint`, `int64_t`); literal kinds print as their concrete kind.
    pub fn name(self) -> &'static str {
        match self.concrete() {
            ScalarKind::Bool => "bool",
            ScalarKind::Int => "int",
            ScalarKind::Uint => "uint",
            ScalarKind::Int64 => "int64_t",
            ScalarKind::Uint64 => "uint64_t",
            ScalarKind::Half => "half",
            ScalarKind::Float => "float",
            ScalarKind::Double => "double",
            ScalarKind::LiteralInt | ScalarKind::LiteralFloat => {
                unreachable!("concrete() removed literals")
            }
        }
    }
}

rpsl_types::define_id!(
    /// Identifies a struct definition in a [`TypeTable`].
    StructId,
    "struct"
);
rpsl_types::define_id!(
    /// Identifies an enum definition in a [`TypeTable`].
    EnumId,
    "enum"
);

/// An RPSL type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `void`: only as a function result.
    Void,
    /// A scalar.
    Scalar(ScalarKind),
    /// A vector of 1 to 4 components (`float4`, `vector<float, 4>`).
    Vector(ScalarKind, u8),
    /// A matrix: kind, rows (1-4), columns (1-4). `float4x3` is `Matrix(Float, 4, 3)`.
    Matrix(ScalarKind, u8, u8),
    /// An array: element type and length; `None` is an unsized array parameter (`int4 rects[]`).
    Array(Box<Type>, Option<u32>),
    /// A user or prelude struct.
    Struct(StructId),
    /// An enum; it behaves as `int` in arithmetic.
    Enum(EnumId),
    /// A texture view (40 bytes, see [`TEXTURE_LAYOUT`]).
    Texture,
    /// A buffer view (40 bytes, see [`BUFFER_LAYOUT`]).
    Buffer,
    /// The handle a node call returns.
    Node,
    /// The type of the `null` keyword: converts to `texture`, `buffer` and `node`.
    Null,
    /// The type of an expression that already had an error; converts to and from everything silently.
    Error,
}

impl Type {
    /// `bool`.
    pub const BOOL: Type = Type::Scalar(ScalarKind::Bool);
    /// `int`.
    pub const INT: Type = Type::Scalar(ScalarKind::Int);
    /// `uint`.
    pub const UINT: Type = Type::Scalar(ScalarKind::Uint);
    /// `float`.
    pub const FLOAT: Type = Type::Scalar(ScalarKind::Float);
    /// `uint64_t`.
    pub const UINT64: Type = Type::Scalar(ScalarKind::Uint64);
    /// The type of an unsuffixed integer literal.
    pub const LITERAL_INT: Type = Type::Scalar(ScalarKind::LiteralInt);
    /// The type of an unsuffixed floating-point literal.
    pub const LITERAL_FLOAT: Type = Type::Scalar(ScalarKind::LiteralFloat);

    /// A scalar (`dim == 0`) or a vector of `dim` components of `kind`.
    pub fn scalar_or_vector(kind: ScalarKind, dim: u8) -> Type {
        if dim == 0 {
            Type::Scalar(kind)
        } else {
            Type::Vector(kind, dim)
        }
    }

    /// An array of `len` elements (`None`: unsized).
    pub fn array(elem: Type, len: Option<u32>) -> Type {
        Type::Array(Box::new(elem), len)
    }

    /// The component kind of a scalar, vector or matrix; enums count as `int`.
    pub fn component_kind(&self) -> Option<ScalarKind> {
        match self {
            Type::Scalar(k) | Type::Vector(k, _) | Type::Matrix(k, _, _) => Some(*k),
            Type::Enum(_) => Some(ScalarKind::Int),
            _ => None,
        }
    }

    /// Whether this is a scalar, vector, matrix or enum (something arithmetic applies to).
    pub fn is_numeric(&self) -> bool {
        self.component_kind().is_some()
    }

    /// Whether this is a scalar or an enum.
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Scalar(_) | Type::Enum(_))
    }

    /// Whether this is `texture` or `buffer`.
    pub fn is_view(&self) -> bool {
        matches!(self, Type::Texture | Type::Buffer)
    }

    /// Number of scalar components of a scalar (1), vector or matrix; `None` for other types.
    pub fn component_count(&self) -> Option<u32> {
        match self {
            Type::Scalar(_) | Type::Enum(_) => Some(1),
            Type::Vector(_, n) => Some(*n as u32),
            Type::Matrix(_, r, c) => Some(*r as u32 * *c as u32),
            _ => None,
        }
    }

    /// The same shape with another component kind (`float3` with `Bool` is `bool3`); enums become the
    /// scalar. Non-numeric types are returned unchanged.
    pub fn with_kind(&self, kind: ScalarKind) -> Type {
        match self {
            Type::Scalar(_) | Type::Enum(_) => Type::Scalar(kind),
            Type::Vector(_, n) => Type::Vector(kind, *n),
            Type::Matrix(_, r, c) => Type::Matrix(kind, *r, *c),
            other => other.clone(),
        }
    }

    /// Whether the type has a literal kind (`1`, `1.0` before they become `int` / `float`), also
    /// as the element of an array: whether [`Type::concrete`] changes it.
    pub fn has_literal_kind(&self) -> bool {
        match self {
            Type::Scalar(k) | Type::Vector(k, _) | Type::Matrix(k, _, _) => k.is_literal(),
            Type::Array(elem, _) => elem.has_literal_kind(),
            _ => false,
        }
    }

    /// Replaces literal kinds by `int` / `float` (the type a `var` declared from the value gets).
    pub fn concrete(&self) -> Type {
        match self {
            Type::Scalar(k) => Type::Scalar(k.concrete()),
            Type::Vector(k, n) => Type::Vector(k.concrete(), *n),
            Type::Matrix(k, r, c) => Type::Matrix(k.concrete(), *r, *c),
            Type::Array(elem, n) => Type::Array(Box::new(elem.concrete()), *n),
            other => other.clone(),
        }
    }

    /// The type of `value[i]`: the element of an array, the component of a vector, the row of a
    /// matrix (`float4x3` gives `float3`).
    pub fn index_result(&self) -> Option<Type> {
        match self {
            Type::Array(elem, _) => Some((**elem).clone()),
            Type::Vector(k, _) => Some(Type::Scalar(*k)),
            Type::Matrix(k, _, c) => Some(Type::Vector(*k, *c)),
            Type::Error => Some(Type::Error),
            _ => None,
        }
    }

    /// The type of a swizzle such as `v.xyz` / `v.rgba` / `s.xx` on a scalar, vector (or enum).
    /// `None` when the swizzle is invalid (mixed sets, component out of range, more than 4).
    ///
    /// ```
    /// use rpsl_frontend::types::{Type, ScalarKind};
    /// assert_eq!(Type::Vector(ScalarKind::Float, 4).swizzle("zyx"), Some(Type::Vector(ScalarKind::Float, 3)));
    /// assert_eq!(Type::Vector(ScalarKind::Uint, 3).swizzle("x"), Some(Type::UINT));
    /// assert_eq!(Type::Vector(ScalarKind::Uint, 2).swizzle("z"), None);
    /// ```
    pub fn swizzle(&self, letters: &str) -> Option<Type> {
        let (kind, dim) = match self {
            Type::Scalar(k) => (*k, 1),
            Type::Vector(k, n) => (*k, *n),
            _ => return None,
        };
        swizzle_indices(letters, dim)?;
        let n = letters.len() as u8;
        Some(if n == 1 {
            Type::Scalar(kind)
        } else {
            Type::Vector(kind, n)
        })
    }

    /// Shows the type with struct and enum names from `table`.
    pub fn display<'a>(&'a self, table: &'a TypeTable) -> TypeDisplay<'a> {
        TypeDisplay {
            ty: self,
            table: Some(table),
        }
    }
}

/// The component indices of a swizzle (`"zyx"` → `[2, 1, 0]`) on a value of `dim` components
/// (a scalar has 1). `None` when letters mix `xyzw` and `rgba`, exceed `dim`, or number over 4.
pub fn swizzle_indices(letters: &str, dim: u8) -> Option<Vec<u8>> {
    if letters.is_empty() || letters.len() > 4 {
        return None;
    }
    let xyzw = letters.chars().all(|c| "xyzw".contains(c));
    let rgba = letters.chars().all(|c| "rgba".contains(c));
    let set = if xyzw {
        "xyzw"
    } else if rgba {
        "rgba"
    } else {
        return None;
    };
    letters
        .chars()
        .map(|c| {
            let i = set.find(c)? as u8;
            (i < dim.max(1)).then_some(i)
        })
        .collect()
}

/// Why a matrix member such as `_m01_m10` does not apply to a matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixMemberError {
    /// Not made of `_mRC` / `_RC` parts.
    Syntax,
    /// Zero-based `_mRC` and one-based `_RC` parts in one member.
    MixedStyles,
    /// A row or column beyond the matrix's size.
    OutOfRange,
    /// More than 4 parts.
    TooMany,
}

/// The lanes a matrix member selects, row-major (`row * cols + col`): `_m01` is zero-based row 0,
/// column 1; `_12` is the same element one-based; several parts (`_m00_m11`, `_11_22_33`) select
/// a vector of up to 4 components, all in the same style.
///
/// ```
/// use rpsl_frontend::types::{matrix_member_indices, MatrixMemberError};
/// assert_eq!(matrix_member_indices("_m01", 3, 3), Ok(vec![1]));
/// assert_eq!(matrix_member_indices("_11_22_33", 3, 3), Ok(vec![0, 4, 8]));
/// assert_eq!(matrix_member_indices("_m00_11", 3, 3), Err(MatrixMemberError::MixedStyles));
/// assert_eq!(matrix_member_indices("_m20", 2, 2), Err(MatrixMemberError::OutOfRange));
/// ```
pub fn matrix_member_indices(name: &str, rows: u8, cols: u8) -> Result<Vec<u8>, MatrixMemberError> {
    let Some(rest) = name.strip_prefix('_') else {
        return Err(MatrixMemberError::Syntax);
    };
    let mut zero_based = None;
    let mut indices = Vec::new();
    let mut out_of_range = false;
    for part in rest.split('_') {
        let (zero, digits) = match part.strip_prefix('m') {
            Some(digits) => (true, digits),
            None => (false, part),
        };
        let bytes = digits.as_bytes();
        if bytes.len() != 2 || !bytes.iter().all(u8::is_ascii_digit) {
            return Err(MatrixMemberError::Syntax);
        }
        if *zero_based.get_or_insert(zero) != zero {
            return Err(MatrixMemberError::MixedStyles);
        }
        let (mut row, mut col) = (bytes[0] - b'0', bytes[1] - b'0');
        if !zero {
            if row == 0 || col == 0 {
                return Err(MatrixMemberError::Syntax);
            }
            row -= 1;
            col -= 1;
        }
        if row > 3 || col > 3 {
            return Err(MatrixMemberError::Syntax);
        }
        out_of_range |= row >= rows || col >= cols;
        indices.push(row * cols + col);
    }
    if indices.len() > 4 {
        return Err(MatrixMemberError::TooMany);
    }
    if out_of_range {
        return Err(MatrixMemberError::OutOfRange);
    }
    Ok(indices)
}

/// Displays a type as HLSL spells it; from [`Type::display`] (with names) or `Display` on [`Type`].
pub struct TypeDisplay<'a> {
    ty: &'a Type,
    table: Option<&'a TypeTable>,
}

impl fmt::Display for TypeDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Array dimensions print after the innermost element type: `uint[4][2]`.
        let mut base = self.ty;
        let mut dims = Vec::new();
        while let Type::Array(elem, len) = base {
            dims.push(*len);
            base = elem;
        }
        match base {
            Type::Void => f.write_str("void")?,
            Type::Scalar(k) => f.write_str(k.name())?,
            Type::Vector(k, n) => write!(f, "{}{}", k.name(), n)?,
            Type::Matrix(k, r, c) => write!(f, "{}{}x{}", k.name(), r, c)?,
            Type::Array(..) => unreachable!("arrays were unwrapped above"),
            Type::Struct(id) => match self.table.and_then(|t| t.struct_def(*id)) {
                Some(def) => f.write_str(&def.name)?,
                None => write!(f, "{id}")?,
            },
            Type::Enum(id) => match self.table.and_then(|t| t.enum_def(*id)) {
                Some(def) => f.write_str(&def.name)?,
                None => write!(f, "{id}")?,
            },
            Type::Texture => f.write_str("texture")?,
            Type::Buffer => f.write_str("buffer")?,
            Type::Node => f.write_str("node")?,
            Type::Null => f.write_str("null")?,
            Type::Error => f.write_str("{error}")?,
        }
        for len in dims {
            match len {
                Some(n) => write!(f, "[{n}]")?,
                None => f.write_str("[]")?,
            }
        }
        Ok(())
    }
}

/// Shows the type as HLSL spells it; structs and enums without a table print as `struct3` / `enum1`
/// (use [`Type::display`] for names).
///
/// ```
/// use rpsl_frontend::types::{parse_builtin_type_name, Type};
/// assert_eq!(parse_builtin_type_name("float4x3").unwrap().to_string(), "float4x3");
/// assert_eq!(Type::array(Type::UINT, Some(4)).to_string(), "uint[4]");
/// ```
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        TypeDisplay {
            ty: self,
            table: None,
        }
        .fmt(f)
    }
}

/// The scalar kind of a scalar type name, including aliases (`dword`, `uint32_t`, `min16float`).
pub fn parse_scalar_name(name: &str) -> Option<ScalarKind> {
    use ScalarKind::*;
    Some(match name {
        "bool" => Bool,
        "int" | "int32_t" | "int16_t" | "min16int" | "min12int" | "signed" | "signed int" => Int,
        "uint" | "uint32_t" | "dword" | "uint16_t" | "min16uint" | "unsigned" | "unsigned int" => {
            Uint
        }
        "int64_t" => Int64,
        "uint64_t" => Uint64,
        "half" | "float16_t" | "min16float" | "min10float" => Half,
        "float" | "float32_t" => Float,
        "double" | "float64_t" => Double,
        _ => return None,
    })
}

/// The type a built-in type name stands for: `void`, `node`, `texture`, `buffer`, scalar names and
/// aliases, vectors `float4` / `uint2`, matrices `float4x3` (rows x columns). Template spellings
/// (`vector<float, 4>`, `matrix<float, 4, 4>`) go through [`vector_type`] and [`matrix_type`].
///
/// ```
/// use rpsl_frontend::types::{parse_builtin_type_name, ScalarKind, Type};
/// assert_eq!(parse_builtin_type_name("dword"), Some(Type::UINT));
/// assert_eq!(parse_builtin_type_name("int2"), Some(Type::Vector(ScalarKind::Int, 2)));
/// assert_eq!(parse_builtin_type_name("float4x3"), Some(Type::Matrix(ScalarKind::Float, 4, 3)));
/// assert_eq!(parse_builtin_type_name("float5"), None);
/// ```
pub fn parse_builtin_type_name(name: &str) -> Option<Type> {
    match name {
        "void" => return Some(Type::Void),
        "node" => return Some(Type::Node),
        "texture" => return Some(Type::Texture),
        "buffer" => return Some(Type::Buffer),
        "vector" => return Some(Type::Vector(ScalarKind::Float, 4)),
        "matrix" => return Some(Type::Matrix(ScalarKind::Float, 4, 4)),
        _ => {}
    }
    if let Some(kind) = parse_scalar_name(name) {
        return Some(Type::Scalar(kind));
    }
    // Split a trailing `N` or `NxM` off the scalar name.
    let bytes = name.as_bytes();
    let digit = |i: usize| {
        bytes
            .get(i)
            .filter(|b| (b'1'..=b'4').contains(b))
            .map(|b| b - b'0')
    };
    let len = bytes.len();
    if len >= 4 && bytes[len - 2] == b'x' {
        if let (Some(rows), Some(cols)) = (digit(len - 3), digit(len - 1)) {
            let kind = parse_scalar_name(&name[..len - 3])?;
            return Some(Type::Matrix(kind, rows, cols));
        }
    }
    if len >= 2 {
        if let Some(n) = digit(len - 1) {
            let kind = parse_scalar_name(&name[..len - 1])?;
            return Some(Type::Vector(kind, n));
        }
    }
    None
}

/// `vector<T, N>`: `None` unless `elem` is a scalar and `n` is 1 to 4.
pub fn vector_type(elem: &Type, n: i64) -> Option<Type> {
    match elem {
        Type::Scalar(k) if (1..=4).contains(&n) => Some(Type::Vector(*k, n as u8)),
        _ => None,
    }
}

/// `matrix<T, R, C>`: `None` unless `elem` is a scalar and `rows` and `cols` are 1 to 4.
pub fn matrix_type(elem: &Type, rows: i64, cols: i64) -> Option<Type> {
    match elem {
        Type::Scalar(k) if (1..=4).contains(&rows) && (1..=4).contains(&cols) => {
            Some(Type::Matrix(*k, rows as u8, cols as u8))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarKind::*;

    #[test]
    fn names_parse_and_display() {
        let cases = [
            ("bool", "bool"),
            ("int", "int"),
            ("uint32_t", "uint"),
            ("dword", "uint"),
            ("int64_t", "int64_t"),
            ("uint64_t", "uint64_t"),
            ("half", "half"),
            ("min16float", "half"),
            ("int16_t", "int"),
            ("min16uint", "uint"),
            ("double", "double"),
            ("float4", "float4"),
            ("uint3", "uint3"),
            ("bool2", "bool2"),
            ("float1", "float1"),
            ("float4x3", "float4x3"),
            ("int2x2", "int2x2"),
            ("uint64_t2", "uint64_t2"),
            ("texture", "texture"),
            ("buffer", "buffer"),
            ("node", "node"),
            ("void", "void"),
        ];
        for (name, shown) in cases {
            let ty = parse_builtin_type_name(name).unwrap_or_else(|| panic!("{name} should parse"));
            assert_eq!(ty.to_string(), shown, "{name}");
        }
        for bad in [
            "float5",
            "float0",
            "floatx",
            "float4x5",
            "foo",
            "x4",
            "float4x",
            "ResourceDesc",
            "",
        ] {
            assert_eq!(parse_builtin_type_name(bad), None, "{bad}");
        }
        assert_eq!(
            parse_builtin_type_name("float4x3"),
            Some(Type::Matrix(Float, 4, 3))
        );
        assert_eq!(vector_type(&Type::FLOAT, 4), Some(Type::Vector(Float, 4)));
        assert_eq!(vector_type(&Type::FLOAT, 5), None);
        assert_eq!(matrix_type(&Type::INT, 4, 4), Some(Type::Matrix(Int, 4, 4)));
        assert_eq!(
            Type::array(Type::array(Type::UINT, Some(2)), Some(4)).to_string(),
            "uint[4][2]"
        );
        assert_eq!(
            Type::array(Type::Vector(Int, 4), None).to_string(),
            "int4[]"
        );
        assert_eq!(Type::LITERAL_INT.to_string(), "int");
    }

    #[test]
    fn swizzles_and_indexing() {
        let f4 = Type::Vector(Float, 4);
        assert_eq!(f4.swizzle("rgb"), Some(Type::Vector(Float, 3)));
        assert_eq!(f4.swizzle("xg"), None);
        assert_eq!(f4.swizzle("xyzwx"), None);
        assert_eq!(Type::FLOAT.swizzle("xxxx"), Some(Type::Vector(Float, 4)));
        assert_eq!(Type::FLOAT.swizzle("y"), None);
        assert_eq!(swizzle_indices("wzyx", 4), Some(vec![3, 2, 1, 0]));
        assert_eq!(
            Type::Matrix(Float, 4, 3).index_result(),
            Some(Type::Vector(Float, 3))
        );
        assert_eq!(
            Type::array(Type::Texture, Some(3)).index_result(),
            Some(Type::Texture)
        );
        assert_eq!(Type::Texture.index_result(), None);
    }
}
