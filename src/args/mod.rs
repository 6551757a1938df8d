//! Entry-point arguments: set from Rust values ([`EntryValue`], [`EntryArgs::set_value`],
//! [`EntryArgs::set_resource`]) or parsed from `--arg NAME=VALUE` (`docs/cli.md`), both through
//! one setter; and the flattened layout of each parameter in the I/O block.
//!
//! Data parameters take their scalar leaves in declaration order, comma separated (`3`, `true`,
//! `1.5`, `0xff`, `1,2,3,4`, struct fields flattened: `0,0,1280,720,0,1`); enums take a value or
//! an enumerator name; floats also take `inf`, `-inf`, `nan` or `0x` bit patterns. A parameter
//! that is a `texture` takes `WxH[:FORMAT]`, a `buffer` its size in bytes. A name may pick a
//! part of a parameter (`light.color`, `weights[2]`); the rest keeps its value (zero at first).

mod path;
mod value;

use std::fmt;

pub use value::EntryValue;

use rpsl_frontend::hir::{self, ScalarKind, Type, TypeTable};
use rpsl_runtime::{Format, ResourceDesc, ResourceKind};
use rpsl_vm::lower::EntryInfo;
use rpsl_vm::Value;

use crate::Program;

/// The default size of an external texture argument.
pub const DEFAULT_TEXTURE: (u32, u32) = (1280, 720);
/// The default size in bytes of an external buffer argument.
pub const DEFAULT_BUFFER_BYTES: u64 = 65536;

/// A bad entry argument (an `--arg` or a Rust value): unknown name, unparsable value, wrong
/// number of values, a Rust value of another shape, a resource of the wrong kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError {
    /// What is wrong, naming the parameter.
    pub message: String,
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ArgError {}

fn arg_error<T>(message: impl Into<String>) -> Result<T, ArgError> {
    Err(ArgError {
        message: message.into(),
    })
}

/// Writes a scalar argument's little-endian bytes at `offset` of the I/O block, as the VM
/// stores it (`bool` as a 4-byte 0 or 1); nothing when it does not fit.
pub(crate) fn write_value(value: Value, io: &mut [u8], offset: usize) {
    let mut put = |bytes: &[u8]| {
        if let Some(dst) = io.get_mut(offset..offset + bytes.len()) {
            dst.copy_from_slice(bytes);
        }
    };
    match value {
        Value::Bool(v) => put(&(v as u32).to_le_bytes()),
        Value::I32(v) => put(&v.to_le_bytes()),
        Value::U32(v) | Value::Addr(v) => put(&v.to_le_bytes()),
        Value::I64(v) => put(&v.to_le_bytes()),
        Value::U64(v) => put(&v.to_le_bytes()),
        Value::F32(v) => put(&v.to_le_bytes()),
        Value::F64(v) => put(&v.to_le_bytes()),
    }
}

/// What a leaf of a parameter's value is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeafKind {
    /// A scalar of this kind.
    Scalar(ScalarKind),
    /// An enum value (`int`), parsed by value or enumerator name.
    Enum(hir::EnumId),
    /// A `node` handle (`uint`).
    Node,
    /// A texture view: imported as an external resource named `path`.
    Texture,
    /// A buffer view: imported as an external resource named `path`.
    Buffer,
}

impl LeafKind {
    /// The value of a leaf left at its default: zero of its kind, as the VM holds it.
    fn zero(&self) -> Value {
        match self {
            LeafKind::Scalar(kind) => match kind.concrete() {
                ScalarKind::Bool => Value::Bool(false),
                ScalarKind::Uint => Value::U32(0),
                ScalarKind::Int64 => Value::I64(0),
                ScalarKind::Uint64 => Value::U64(0),
                ScalarKind::Double => Value::F64(0.0),
                ScalarKind::Half | ScalarKind::Float | ScalarKind::LiteralFloat => Value::F32(0.0),
                ScalarKind::Int | ScalarKind::LiteralInt => Value::I32(0),
            },
            LeafKind::Enum(_) => Value::I32(0),
            LeafKind::Node | LeafKind::Texture | LeafKind::Buffer => Value::U32(0),
        }
    }
}

/// One scalar or view inside an entry parameter, at a byte offset of the I/O block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// What it holds.
    pub kind: LeafKind,
    /// Byte offset in the I/O block.
    pub offset: u32,
    /// Flattened name (`viewport.x`, `srcs[1]`).
    pub path: String,
}

impl Leaf {
    /// A scalar (a data value), not a view.
    fn is_data(&self) -> bool {
        !matches!(self.kind, LeafKind::Texture | LeafKind::Buffer)
    }
}

/// The leaves of a value of `ty` at `offset`, in declaration order.
pub fn leaves_of(types: &TypeTable, ty: &Type, offset: u32, path: &str, out: &mut Vec<Leaf>) {
    let mut push = |kind| {
        out.push(Leaf {
            kind,
            offset,
            path: path.to_string(),
        })
    };
    match ty {
        Type::Scalar(kind) => push(LeafKind::Scalar(kind.concrete())),
        Type::Enum(id) => push(LeafKind::Enum(*id)),
        Type::Node => push(LeafKind::Node),
        Type::Texture => push(LeafKind::Texture),
        Type::Buffer => push(LeafKind::Buffer),
        Type::Vector(kind, n) => {
            for i in 0..*n as u32 {
                out.push(Leaf {
                    kind: LeafKind::Scalar(kind.concrete()),
                    offset: offset + i * kind.size(),
                    path: format!("{path}.{}", ["x", "y", "z", "w"][i as usize % 4]),
                });
            }
        }
        Type::Matrix(kind, rows, cols) => {
            for i in 0..(*rows as u32 * *cols as u32) {
                out.push(Leaf {
                    kind: LeafKind::Scalar(kind.concrete()),
                    offset: offset + i * kind.size(),
                    path: format!("{path}[{}][{}]", i / *cols as u32, i % *cols as u32),
                });
            }
        }
        Type::Array(elem, len) => {
            let stride = types.layout_of(elem).map_or(0, |l| l.size);
            for i in 0..len.unwrap_or(0) {
                leaves_of(
                    types,
                    elem,
                    offset + i * stride,
                    &format!("{path}[{i}]"),
                    out,
                );
            }
        }
        Type::Struct(id) => {
            if let Some(def) = types.struct_def(*id) {
                for field in &def.fields {
                    let field_path = format!("{path}.{}", field.name);
                    leaves_of(types, &field.ty, offset + field.offset, &field_path, out);
                }
            }
        }
        Type::Void | Type::Null | Type::Error => {}
    }
}

/// The value given for one parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// The data leaves, in order (view leaves excluded).
    Data(Vec<Value>),
    /// The description of an external texture or buffer parameter.
    Resource(ResourceDesc),
}

/// The arguments of one entry point: a value per parameter, or `None` for the default (zero,
/// the frame counter for `uint frameIndex`, a 1280x720 RGBA8 texture).
///
/// ```
/// let program = rpsl::Program::from_source("a.rpsl", "export void main(uint n, float2 s) {}\n").unwrap();
/// let entry = program.entry(None).unwrap();
/// let args = rpsl::EntryArgs::parse(&program, entry, ["n=0x10", "s=1.5,-2"]).unwrap();
/// assert_eq!(args.value(0), Some(&rpsl::ArgValue::Data(vec![rpsl::vm::Value::U32(16)])));
/// assert!(rpsl::EntryArgs::parse(&program, entry, ["s=1"]).is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EntryArgs {
    values: Vec<Option<ArgValue>>,
}

impl EntryArgs {
    /// Every parameter at its default.
    pub fn defaults(entry: &EntryInfo) -> EntryArgs {
        EntryArgs {
            values: vec![None; entry.params.len()],
        }
    }

    /// Parses `NAME=VALUE` strings (the CLI's `--arg`s); later ones override earlier ones.
    pub fn parse<S: AsRef<str>>(
        program: &Program,
        entry: &EntryInfo,
        args: impl IntoIterator<Item = S>,
    ) -> Result<EntryArgs, ArgError> {
        let mut parsed = EntryArgs::defaults(entry);
        for arg in args {
            let arg = arg.as_ref();
            let Some((name, value)) = arg.split_once('=') else {
                return arg_error(format!("`--arg` expects NAME=VALUE, got `{arg}`"));
            };
            parsed.set(program, entry, name.trim(), value.trim())?;
        }
        Ok(parsed)
    }

    /// Sets argument `name` (a parameter, or a part of one: `light.color`, `weights[2]`) from
    /// its textual value (`--arg`'s syntax).
    pub fn set(
        &mut self,
        program: &Program,
        entry: &EntryInfo,
        name: &str,
        text: &str,
    ) -> Result<(), ArgError> {
        let types = &program.hir().types;
        let target = path::resolve(types, entry, name)?;
        match &target.ty {
            Type::Texture => self.set_resource(program, entry, name, parse_texture(name, text)?),
            Type::Buffer => self.set_resource(program, entry, name, parse_buffer(name, text)?),
            ty => {
                let leaves = data_leaves(types, entry, &target);
                let parts: Vec<&str> = text.split(',').map(str::trim).collect();
                check_count(types, name, ty, leaves.len(), parts.len())?;
                let mut scalars = Vec::with_capacity(parts.len());
                for (leaf, part) in leaves.iter().zip(parts) {
                    scalars.push(parse_leaf(types, leaf, part).map_err(|why| ArgError {
                        message: format!("bad value `{part}` for `{}`: {why}", leaf.path),
                    })?);
                }
                self.store(types, entry, &target, name, scalars)
            }
        }
    }

    /// Sets argument `name` (a parameter, or a part of one: `light.color`, `weights[2]`,
    /// `light.color.x`) from a Rust value of the same shape ([`EntryValue`]): the values
    /// `--arg` would give, with the same errors for unknown names.
    ///
    /// ```
    /// let source = "struct Light { float intensity; float4 color; };\n\
    ///               export void main(uint radius, Light light, float4x4 m) {}\n";
    /// let program = rpsl::Program::from_source("a.rpsl", source).unwrap();
    /// let entry = program.entry(None).unwrap();
    /// let mut args = rpsl::EntryArgs::defaults(entry);
    /// args.set_value(&program, entry, "radius", 3u32).unwrap();
    /// args.set_value(&program, entry, "light.color", [1.0f32, 0.5, 0.0, 1.0]).unwrap();
    /// args.set_value(&program, entry, "m[3]", [0.0f32, 0.0, 1.0, 1.0]).unwrap();
    /// let parsed = rpsl::EntryArgs::parse(&program, entry, ["radius=3", "light.color=1,0.5,0,1", "m[3]=0,0,1,1"]);
    /// assert_eq!(Ok(args.clone()), parsed);
    /// let wrong = args.set_value(&program, entry, "radius", 3.0f32).unwrap_err();
    /// assert_eq!(wrong.message, "`radius` is `uint`, given a `f32`");
    /// ```
    pub fn set_value<V: EntryValue>(
        &mut self,
        program: &Program,
        entry: &EntryInfo,
        name: &str,
        value: V,
    ) -> Result<(), ArgError> {
        let types = &program.hir().types;
        let target = path::resolve(types, entry, name)?;
        if !V::fits(types, &target.ty) {
            return arg_error(format!(
                "`{name}` is `{}`, given a `{}`",
                target.ty.display(types),
                V::type_name()
            ));
        }
        let mut scalars = Vec::new();
        value.push_scalars(&mut scalars);
        self.store(types, entry, &target, name, scalars)
    }

    /// Sets `texture` or `buffer` parameter `name` to an external resource of description
    /// `desc` (a texture's for a `texture`, a buffer's for a `buffer`; validated).
    ///
    /// ```
    /// let program = rpsl::Program::from_source("a.rpsl", "export void main(texture bb) {}\n").unwrap();
    /// let entry = program.entry(None).unwrap();
    /// let mut args = rpsl::EntryArgs::defaults(entry);
    /// let desc = rpsl::runtime::ResourceDesc::tex2d(rpsl::runtime::Format::B8G8R8A8_UNORM, 64, 32);
    /// args.set_resource(&program, entry, "bb", desc).unwrap();
    /// assert_eq!(Ok(args), rpsl::EntryArgs::parse(&program, entry, ["bb=64x32:B8G8R8A8_UNORM"]));
    /// ```
    pub fn set_resource(
        &mut self,
        program: &Program,
        entry: &EntryInfo,
        name: &str,
        desc: ResourceDesc,
    ) -> Result<(), ArgError> {
        let types = &program.hir().types;
        let target = path::resolve(types, entry, name)?;
        let given = if desc.kind == ResourceKind::Buffer {
            "buffer"
        } else {
            "texture"
        };
        let wanted = match target.ty {
            Type::Texture | Type::Buffer if !target.whole => {
                let param = &entry.params[target.index];
                return arg_error(format!(
                    "`{name}` is a view inside parameter `{}` ({}): only whole `texture` and \
                     `buffer` parameters take resources",
                    param.name,
                    param.ty.display(types)
                ));
            }
            Type::Texture => "texture",
            Type::Buffer => "buffer",
            _ => {
                return arg_error(format!(
                    "`{name}` is `{}`, given a {given} description (only `texture` and \
                     `buffer` parameters take resources)",
                    target.ty.display(types)
                ))
            }
        };
        if wanted != given {
            return arg_error(format!(
                "`{name}` is a `{wanted}`, given a {given} description"
            ));
        }
        desc.validate().map_err(|error| ArgError {
            message: format!("bad description for `{name}`: {error}"),
        })?;
        self.values[target.index] = Some(ArgValue::Resource(desc));
        Ok(())
    }

    /// Stores `scalars` as the values of the data leaves of `target` (argument name `name`),
    /// keeping the other leaves of its parameter: the one place arguments are set.
    fn store(
        &mut self,
        types: &TypeTable,
        entry: &EntryInfo,
        target: &path::EntryTarget,
        name: &str,
        scalars: Vec<Value>,
    ) -> Result<(), ArgError> {
        let param = &entry.params[target.index];
        let mut leaves = Vec::new();
        leaves_of(types, &param.ty, 0, &param.name, &mut leaves);
        let data: Vec<&Leaf> = leaves.iter().filter(|leaf| leaf.is_data()).collect();
        let picked = data
            .iter()
            .filter(|leaf| target.contains(leaf.offset))
            .count();
        check_count(types, name, &target.ty, picked, scalars.len())?;
        let mut values = match self.values[target.index].take() {
            Some(ArgValue::Data(values)) if values.len() == data.len() => values,
            _ => data.iter().map(|leaf| leaf.kind.zero()).collect(),
        };
        let mut given = scalars.into_iter();
        for (slot, leaf) in values.iter_mut().zip(&data) {
            if target.contains(leaf.offset) {
                if let Some(scalar) = given.next() {
                    *slot = scalar;
                }
            }
        }
        self.values[target.index] = Some(ArgValue::Data(values));
        Ok(())
    }

    /// The value given for parameter `index`, `None` when it keeps its default.
    pub fn value(&self, index: usize) -> Option<&ArgValue> {
        self.values.get(index).and_then(Option::as_ref)
    }
}

/// The data leaves (views excluded) of the part of its parameter `target` picks.
fn data_leaves(types: &TypeTable, entry: &EntryInfo, target: &path::EntryTarget) -> Vec<Leaf> {
    let param = &entry.params[target.index];
    let mut leaves = Vec::new();
    leaves_of(types, &param.ty, 0, &param.name, &mut leaves);
    leaves.retain(|leaf| leaf.is_data() && target.contains(leaf.offset));
    leaves
}

/// The check that argument `name` of type `ty` gets as many scalars as it has data leaves.
fn check_count(
    types: &TypeTable,
    name: &str,
    ty: &Type,
    leaves: usize,
    given: usize,
) -> Result<(), ArgError> {
    if leaves == given {
        return Ok(());
    }
    arg_error(format!(
        "parameter `{name}` ({}) takes {leaves} value{}, got {given}",
        ty.display(types),
        if leaves == 1 { "" } else { "s" },
    ))
}

fn parse_integer(text: &str) -> Result<i128, String> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let magnitude = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i128::from_str_radix(hex, 16)
    } else {
        digits.parse::<i128>()
    }
    .map_err(|_| "not an integer".to_string())?;
    Ok(if negative { -magnitude } else { magnitude })
}

fn ranged<T: TryFrom<i128>>(value: i128, what: &str) -> Result<T, String> {
    T::try_from(value).map_err(|_| format!("{value} is out of range for {what}"))
}

fn parse_leaf(types: &TypeTable, leaf: &Leaf, text: &str) -> Result<Value, String> {
    Ok(match &leaf.kind {
        LeafKind::Scalar(ScalarKind::Bool) => match text {
            "true" | "1" => Value::Bool(true),
            "false" | "0" => Value::Bool(false),
            _ => return Err("expected `true` or `false`".to_string()),
        },
        LeafKind::Scalar(ScalarKind::Int) => Value::I32(ranged(parse_integer(text)?, "int")?),
        LeafKind::Scalar(ScalarKind::Uint) | LeafKind::Node => {
            Value::U32(ranged(parse_integer(text)?, "uint")?)
        }
        LeafKind::Scalar(ScalarKind::Int64) => Value::I64(ranged(parse_integer(text)?, "int64_t")?),
        LeafKind::Scalar(ScalarKind::Uint64) => {
            Value::U64(ranged(parse_integer(text)?, "uint64_t")?)
        }
        LeafKind::Scalar(ScalarKind::Double) => Value::F64(parse_float(text)?),
        LeafKind::Scalar(_) => {
            if let Some(hex) = text.strip_prefix("0x") {
                let bits = u32::from_str_radix(hex, 16).map_err(|_| "not a hex bit pattern")?;
                Value::F32(f32::from_bits(bits))
            } else {
                Value::F32(parse_float(text)? as f32)
            }
        }
        LeafKind::Enum(id) => {
            if let Ok(value) = parse_integer(text) {
                Value::I32(ranged(value, "an enum")?)
            } else {
                let def = types.enum_def(*id).ok_or("unknown enum")?;
                let name = text.rsplit("::").next().unwrap_or(text);
                let value = def.values.iter().find(|v| v.name == name).ok_or_else(|| {
                    let names: Vec<&str> = def.values.iter().map(|v| v.name.as_str()).collect();
                    format!(
                        "`{}` has no enumerator `{name}` ({})",
                        def.name,
                        names.join(", ")
                    )
                })?;
                Value::I32(ranged(value.value as i128, "an enum")?)
            }
        }
        LeafKind::Texture | LeafKind::Buffer => return Err("a view takes no data value".into()),
    })
}

fn parse_float(text: &str) -> Result<f64, String> {
    match text.to_ascii_lowercase().as_str() {
        "nan" => Ok(f64::NAN),
        "inf" | "+inf" => Ok(f64::INFINITY),
        "-inf" => Ok(f64::NEG_INFINITY),
        _ => text.parse::<f64>().map_err(|_| "not a number".to_string()),
    }
}

/// Parses `WxH[:FORMAT]` into a 2D texture description.
pub fn parse_texture(name: &str, text: &str) -> Result<ResourceDesc, ArgError> {
    let bad = |why: &str| ArgError {
        message: format!("bad texture `{text}` for `{name}`: {why} (expected WxH[:FORMAT])"),
    };
    let (size, format) = match text.split_once(':') {
        Some((size, format)) => (size, Some(format)),
        None => (text, None),
    };
    let (w, h) = size.split_once(['x', 'X']).ok_or_else(|| bad("no `x`"))?;
    let width: u32 = w.trim().parse().map_err(|_| bad("bad width"))?;
    let height: u32 = h.trim().parse().map_err(|_| bad("bad height"))?;
    let format = match format {
        Some(format) => Format::from_name(format.trim()).ok_or_else(|| bad("unknown format"))?,
        None => Format::R8G8B8A8_UNORM,
    };
    let desc = ResourceDesc::tex2d(format, width, height);
    desc.validate().map_err(|err| bad(&err.to_string()))?;
    Ok(desc)
}

fn parse_buffer(name: &str, text: &str) -> Result<ResourceDesc, ArgError> {
    let size = parse_integer(text)
        .ok()
        .and_then(|v| u64::try_from(v).ok())
        .filter(|&v| v > 0)
        .ok_or_else(|| ArgError {
            message: format!("bad buffer size `{text}` for `{name}` (expected a byte count)"),
        })?;
    Ok(ResourceDesc::buffer(size))
}

/// The description an external view parameter gets without `--arg`.
pub fn default_resource(kind: &LeafKind) -> ResourceDesc {
    match kind {
        LeafKind::Buffer => ResourceDesc::buffer(DEFAULT_BUFFER_BYTES),
        _ => ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, DEFAULT_TEXTURE.0, DEFAULT_TEXTURE.1),
    }
}
