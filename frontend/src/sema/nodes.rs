//! Node declarations: queue class, parameters with access attributes and semantics (validated by
//! `access`), the argument block layout and the flattened access slots (`srcs[3]`, `gbuf.albedo`).

use super::{Checker, SigParam};
use crate::access::{self, NodeParamInfo};
use crate::ast;
use crate::hir::{self, AccessSlot, FuncId, NodeId, ParamDirection, ViewKind};
use crate::types::{self, Type};

impl Checker<'_> {
    /// Parses and validates the access attributes of one parameter: only parameters holding
    /// views (`texture`, `buffer`, or arrays/structs of them) may have them.
    pub fn param_access(&mut self, param: &ast::Param, ty: &Type) -> Option<hir::AccessDesc> {
        let type_name = match &param.ty.kind {
            ast::TypeRefKind::Named(ident) => Some(ident.name.as_str()),
            _ => None,
        };
        if param.attributes.is_empty() && type_name.and_then(access::shorthand).is_none() {
            return None;
        }
        let (desc, diags) = access::parse_param_access(&param.attributes, type_name);
        for diag in diags {
            self.report(diag);
        }
        if desc.is_some() && *ty != Type::Error && !self.types.contains_view(ty) {
            let shown = self.show(ty);
            let span = param.attributes[0].span;
            self.error(span, format!("access attributes are only allowed on `texture` and `buffer` parameters, found `{shown}`"));
            return None;
        }
        desc
    }

    /// Builds the node declaration of `function` (whose parameters are already resolved).
    pub fn declare_node(
        &mut self,
        function: &ast::Function,
        params: &[SigParam],
        definition: Option<FuncId>,
    ) -> NodeId {
        let queue = function.queue.unwrap_or_default();
        for attr in &function.attributes {
            self.error(
                attr.name.span,
                format!("attribute `{}` cannot be applied to a node", attr.name.name),
            );
        }
        let mut node_params = Vec::with_capacity(params.len());
        let mut offset = 0u32;
        for (ast_param, param) in function.params.iter().zip(params) {
            let access = self.param_access(ast_param, &param.ty);
            if param.direction != ParamDirection::In {
                self.error(
                    ast_param.name.span,
                    "node parameters cannot be `out` or `inout`",
                );
            }
            if matches!(param.ty, Type::Array(_, None)) && self.types.contains_view(&param.ty) {
                self.error(
                    ast_param.name.span,
                    "an array of views in a node parameter needs a fixed size",
                );
            }
            let semantic = match &ast_param.semantic {
                Some(sem) => match access::parse_semantic(&sem.name) {
                    Ok(parsed) => parsed.map(|s| (s, sem.span)),
                    Err(diag) => {
                        self.report(diag.to_diagnostic(sem.span));
                        None
                    }
                },
                None => None,
            };
            let layout = self
                .types
                .layout_of(&param.ty)
                .unwrap_or(types::Layout { size: 0, align: 4 });
            offset = types::align_up(offset, layout.align);
            node_params.push((
                hir::NodeParam {
                    name: param.name.clone(),
                    ty: param.ty.clone(),
                    access,
                    semantic: semantic.map(|(s, _)| s),
                    render_target: None,
                    offset,
                    span: ast_param.span,
                },
                semantic,
            ));
            offset = offset.saturating_add(layout.size);
        }
        let views: u64 = node_params
            .iter()
            .map(|(p, _)| access::count_views(&p.ty, &self.types))
            .fold(0, u64::saturating_add);
        if views > access::MAX_NODE_VIEWS {
            self.error(
                function.name.span,
                format!(
                    "node `{}` takes {views} views in its parameters; a node may take at most {}",
                    function.name.name,
                    access::MAX_NODE_VIEWS
                ),
            );
            for (param, _) in &mut node_params {
                if access::count_views(&param.ty, &self.types) > 0 {
                    param.ty = Type::Error;
                }
            }
        }
        let infos: Vec<NodeParamInfo> = node_params
            .iter()
            .map(|(p, semantic)| NodeParamInfo {
                name: &p.name,
                ty: &p.ty,
                access: p.access.as_ref(),
                semantic: *semantic,
                span: p.span,
            })
            .collect();
        let diags = access::validate_node_params(&infos, &self.types);
        let render_targets = access::render_target_slots(&infos);
        // The prelude's built-in nodes are rpsl.h's declarations as they are; only script nodes
        // are validated.
        if !self.is_prelude {
            for diag in diags {
                self.report(diag);
            }
        }
        let mut slots = Vec::new();
        let mut hir_params = Vec::with_capacity(node_params.len());
        for (index, ((mut param, _), render_target)) in
            node_params.into_iter().zip(render_targets).enumerate()
        {
            param.render_target = render_target;
            for view in access::flatten_views(&param.ty, &param.name, &self.types) {
                slots.push(AccessSlot {
                    param: index as u32,
                    name: view.name,
                    offset_in_param: view.offset,
                    view: if view.is_texture {
                        ViewKind::Texture
                    } else {
                        ViewKind::Buffer
                    },
                });
            }
            hir_params.push(param);
        }
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(hir::NodeDecl {
            name: function.name.name.to_string(),
            queue,
            params: hir_params,
            slots,
            is_builtin: self.is_prelude,
            definition,
            span: function.span,
        });
        id
    }
}
