//! Entry argument names: a parameter (`radius`) or a part of one by path (`light.color`,
//! `weights[2]`, `light.color.x`, `m[1]` for a matrix row), in the argument-name grammar of
//! [`rpsl_runtime::parse_arg_path`], resolved with the frontend's type layouts.

use rpsl_frontend::hir::{Type, TypeTable};
use rpsl_runtime::{parse_arg_path, ArgPathStep};
use rpsl_vm::lower::EntryInfo;

use super::{arg_error, ArgError};

/// The part of an entry parameter an argument name picks.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EntryTarget {
    /// The parameter's index.
    pub(crate) index: usize,
    /// Whether the name is the whole parameter.
    pub(crate) whole: bool,
    /// The part's type.
    pub(crate) ty: Type,
    /// Where the part's bytes start within the parameter's value.
    pub(crate) offset: u32,
    /// How many bytes it has.
    pub(crate) size: u32,
}

impl EntryTarget {
    /// Whether a leaf at `offset` within the parameter's value lies in the part.
    pub(crate) fn contains(&self, offset: u32) -> bool {
        (self.offset..self.offset + self.size).contains(&offset)
    }
}

const COMPONENTS: [&str; 4] = ["x", "y", "z", "w"];

/// Resolves argument name `path` of `entry`.
pub(crate) fn resolve(
    types: &TypeTable,
    entry: &EntryInfo,
    path: &str,
) -> Result<EntryTarget, ArgError> {
    let Some((name, steps)) = parse_arg_path(path) else {
        return arg_error(format!(
            "bad argument name `{path}` (expected NAME, NAME.FIELD or NAME[INDEX])"
        ));
    };
    let Some(index) = entry.params.iter().position(|p| p.name == name) else {
        let names: Vec<String> = entry
            .params
            .iter()
            .map(|p| format!("`{}`", p.name))
            .collect();
        let known = if names.is_empty() {
            "it takes no parameters".to_string()
        } else {
            format!("parameters: {}", names.join(", "))
        };
        return arg_error(format!(
            "entry point `{}` has no parameter `{name}` ({known})",
            entry.name
        ));
    };
    let whole = steps.is_empty();
    let mut ty = entry.params[index].ty.clone();
    let mut offset = 0u32;
    let mut walked = name.to_string();
    for step in steps {
        let shown = ty.display(types).to_string();
        let (next, at) = match (step, &ty) {
            (ArgPathStep::Field(field), Type::Struct(id)) => {
                let def = types.struct_def(*id);
                let Some(found) = def.and_then(|def| def.field(field)) else {
                    let names: Vec<String> = def
                        .map(|def| def.fields.iter().map(|f| format!("`{}`", f.name)).collect())
                        .unwrap_or_default();
                    return arg_error(format!(
                        "`{walked}` ({shown}) has no field `{field}` (fields: {})",
                        names.join(", ")
                    ));
                };
                (found.ty.clone(), found.offset)
            }
            (ArgPathStep::Field(field), Type::Vector(kind, count))
                if COMPONENTS[..*count as usize].contains(&field) =>
            {
                let component = COMPONENTS.iter().position(|c| *c == field).unwrap_or(0);
                (Type::Scalar(*kind), component as u32 * kind.size())
            }
            (ArgPathStep::Field(field), _) => {
                return arg_error(format!("`{walked}` ({shown}) has no field `{field}`"));
            }
            (ArgPathStep::Index(at), indexed) => {
                let (len, elem, stride) = match indexed {
                    Type::Array(elem, Some(count)) => (
                        *count,
                        (**elem).clone(),
                        types.layout_of(elem).map_or(0, |layout| layout.size),
                    ),
                    Type::Vector(kind, count) => (*count as u32, Type::Scalar(*kind), kind.size()),
                    Type::Matrix(kind, rows, cols) => (
                        *rows as u32,
                        Type::Vector(*kind, *cols),
                        *cols as u32 * kind.size(),
                    ),
                    _ => {
                        return arg_error(format!("`{walked}` ({shown}) has no element [{at}]"));
                    }
                };
                if at >= len {
                    return arg_error(format!(
                        "`{walked}[{at}]` is out of range: `{walked}` ({shown}) has {len} \
                         element{}",
                        if len == 1 { "" } else { "s" }
                    ));
                }
                (elem, at * stride)
            }
        };
        walked = match step {
            ArgPathStep::Field(field) => format!("{walked}.{field}"),
            ArgPathStep::Index(at) => format!("{walked}[{at}]"),
        };
        ty = next;
        offset += at;
    }
    let size = types.layout_of(&ty).map_or(0, |layout| layout.size);
    Ok(EntryTarget {
        index,
        whole,
        ty,
        offset,
        size,
    })
}
