//! Node declarations for the runtime: every HIR node declaration (the prelude's built-ins
//! included) converted into a [`NodeDeclDesc`] with the same parameter layout the lowering writes,
//! plus the frontend-to-runtime conversion of types. Queue classes and semantics are the same
//! `rpsl-types` values on both sides; access attributes resolve with
//! [`rpsl_frontend::access::AccessDesc::resolved`].

use std::collections::HashMap;
use std::sync::Arc;

use rpsl_frontend::hir::{self, ScalarKind, StructId, Type, TypeTable};
use rpsl_runtime::{
    BuiltinNode, NodeDeclDesc, ParamDesc, ScalarType, SemanticKind, StructField, StructType,
    ValueType,
};

/// Converts frontend types into runtime value types, sharing one [`StructType`] per struct.
#[derive(Debug, Default)]
pub(crate) struct TypeConverter {
    structs: HashMap<StructId, Arc<StructType>>,
}

impl TypeConverter {
    /// The runtime type of a frontend type; `None` for types without a value layout (`void`).
    pub(crate) fn value_type(&mut self, types: &TypeTable, ty: &Type) -> Option<ValueType> {
        Some(match ty {
            Type::Scalar(kind) => ValueType::Scalar(scalar_type(*kind)),
            Type::Vector(kind, n) => ValueType::Vector(scalar_type(*kind), *n as u32),
            Type::Matrix(kind, r, c) => ValueType::Matrix(scalar_type(*kind), *r as u32, *c as u32),
            Type::Array(elem, len) => {
                ValueType::Array(Box::new(self.value_type(types, elem)?), len.unwrap_or(0))
            }
            Type::Struct(id) => ValueType::Struct(self.struct_type(types, *id)?),
            Type::Enum(_) => ValueType::Scalar(ScalarType::I32),
            Type::Texture => ValueType::Texture,
            Type::Buffer => ValueType::Buffer,
            Type::Node => ValueType::NodeHandle,
            Type::Void | Type::Null | Type::Error => return None,
        })
    }

    fn struct_type(&mut self, types: &TypeTable, id: StructId) -> Option<Arc<StructType>> {
        if let Some(existing) = self.structs.get(&id) {
            return Some(Arc::clone(existing));
        }
        let def = types.struct_def(id)?;
        let mut fields = Vec::with_capacity(def.fields.len());
        for field in &def.fields {
            fields.push(StructField {
                name: field.name.clone(),
                value_type: self.value_type(types, &field.ty)?,
                offset: field.offset,
            });
        }
        let converted = Arc::new(StructType {
            name: def.name.clone(),
            fields,
            size: def.layout.size,
            align: def.layout.align,
        });
        self.structs.insert(id, Arc::clone(&converted));
        Some(converted)
    }
}

/// The runtime scalar of a frontend scalar kind (`half` is stored as a 4-byte float).
pub(crate) fn scalar_type(kind: ScalarKind) -> ScalarType {
    match kind.concrete() {
        ScalarKind::Bool => ScalarType::Bool,
        ScalarKind::Int | ScalarKind::LiteralInt => ScalarType::I32,
        ScalarKind::Uint => ScalarType::U32,
        ScalarKind::Int64 => ScalarType::I64,
        ScalarKind::Uint64 => ScalarType::U64,
        ScalarKind::Double => ScalarType::F64,
        ScalarKind::Half | ScalarKind::Float | ScalarKind::LiteralFloat => ScalarType::F32,
    }
}

/// A node declaration the runtime cannot represent (a layout mismatch would corrupt arguments).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DeclError {
    pub(crate) message: String,
    pub(crate) span: rpsl_frontend::source::Span,
}

/// Converts every node declaration of a module, in [`hir::NodeId`] order (so HIR node `i` is
/// runtime declaration `i` and the VM's `NodeDeclId(i)`).
pub(crate) fn node_declarations(module: &hir::Module) -> Result<Vec<NodeDeclDesc>, DeclError> {
    let mut converter = TypeConverter::default();
    let mut decls = Vec::with_capacity(module.nodes.len());
    for node in &module.nodes {
        let mut params = Vec::with_capacity(node.params.len());
        for param in &node.params {
            let Some(value_type) = converter.value_type(&module.types, &param.ty) else {
                return Err(DeclError {
                    message: format!("node parameter `{}` has no value layout", param.name),
                    span: param.span,
                });
            };
            let mut desc = ParamDesc::new(param.name.clone(), value_type);
            if let Some(access) = &param.access {
                desc = desc.with_access(access.resolved());
            }
            match (param.semantic, param.render_target) {
                (Some(semantic), _) => desc = desc.with_semantic(semantic.kind, semantic.index),
                (None, Some(slot)) => desc = desc.with_semantic(SemanticKind::Target, slot),
                (None, None) => {}
            }
            params.push(desc);
        }
        let mut decl = NodeDeclDesc::new(node.name.clone(), node.queue, params);
        if node.is_builtin {
            let Some(builtin) = BuiltinNode::of_declaration(&decl) else {
                return Err(DeclError {
                    message: format!(
                        "internal error: rpsl.h node `{}` has no built-in implementation with \
                         these parameters",
                        node.name
                    ),
                    span: node.span,
                });
            };
            decl = decl.with_builtin(builtin);
        }
        for (runtime, hir) in decl.params.iter().zip(&node.params) {
            if runtime.offset != hir.offset {
                return Err(DeclError {
                    message: format!(
                        "internal error: parameter `{}` of node `{}` lies at byte {} in the runtime \
                         but at byte {} in the script",
                        hir.name, node.name, runtime.offset, hir.offset
                    ),
                    span: hir.span,
                });
            }
        }
        decls.push(decl);
    }
    Ok(decls)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_nodes_convert_with_matching_layout() {
        let source = "struct G { float s; texture t; };\n\
                      graphics node Draw([readwrite(rendertarget)] texture rt, G g, uint64_t big, \
                      [readonly(ps)] texture srcs[2]);\n\
                      export void main() {}\n";
        let compilation = rpsl_frontend::check_source("decl.rpsl", source);
        let module = compilation.module.expect("checks");
        let decls = node_declarations(&module).expect("converts");
        let draw = decls.iter().find(|d| d.name == "Draw").expect("Draw");
        assert_eq!(draw.params[0].semantic, Some((SemanticKind::Target, 0)));
        assert_eq!(draw.params[1].view_slots[0].name, "g.t");
        assert_eq!(draw.params[2].offset, 88);
        assert_eq!(draw.params[3].view_slots.len(), 2);
        assert!(decls
            .iter()
            .any(|d| d.name == "clear" && d.builtin == Some(BuiltinNode::ClearColorFloat)));
    }

    #[test]
    fn the_preludes_nodes_resolve_to_every_builtin_once_and_in_order() {
        let compilation = rpsl_frontend::check_source("empty.rpsl", "export void main() {}\n");
        let decls = node_declarations(&compilation.module.expect("checks")).expect("converts");
        let builtins: Vec<_> = decls.iter().filter_map(|decl| decl.builtin).collect();
        assert_eq!(builtins, BuiltinNode::ALL);
        for decl in decls.iter().filter(|decl| decl.is_builtin()) {
            let runtime = decl.builtin.unwrap().declaration();
            let offsets = |d: &NodeDeclDesc| d.params.iter().map(|p| p.offset).collect::<Vec<_>>();
            assert_eq!(offsets(decl), offsets(&runtime), "{}", decl.name);
            assert_eq!(decl.queue, runtime.queue, "{}", decl.name);
        }
    }
}
