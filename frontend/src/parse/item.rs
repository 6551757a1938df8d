//! Lowering of items, declarations, parameters, attributes and types.

use pest::iterators::Pair;

use super::{is_keyword, Lowered, Lowerer, Rule};
use crate::ast::{
    ArrayDim, Attribute, Declarator, EnumDef, EnumVariant, Expr, ExprKind, Function, Ident, Item,
    Name, Param, ParamDirection, QueueClass, Semantic, StructDef, StructField, TypeRef,
    TypeRefKind, Typedef, VarDecl,
};
use crate::diagnostic::Diagnostic;

impl Lowerer<'_> {
    /// Lowers an `item` pair; one syntactic item may give two AST items (`typedef struct Tag {..}
    /// Name;` gives the struct and an alias).
    pub(crate) fn item(&mut self, pair: Pair<'_, Rule>) -> Lowered<Vec<Item>> {
        let inner = first_child(pair);
        match inner.as_rule() {
            Rule::struct_def => Ok(vec![Item::Struct(self.struct_def(inner)?)]),
            Rule::enum_def => Ok(vec![Item::Enum(self.enum_def(inner)?)]),
            Rule::typedef_decl => self.typedef_decl(inner),
            Rule::function => Ok(vec![Item::Function(self.function(inner)?)]),
            Rule::global_var => Ok(vec![Item::Global(self.var_decl(first_child(inner))?)]),
            rule => unreachable!("rule item: {rule:?}"),
        }
    }

    /// `struct Name { fields };`
    fn struct_def(&mut self, pair: Pair<'_, Rule>) -> Lowered<StructDef> {
        let span = self.span(pair.as_span());
        let mut inner = pair.into_inner();
        let _struct_kw = inner.next();
        let name = self.ident(inner.next().expect("struct name"));
        let fields = self.struct_body(inner.next().expect("struct body"))?;
        Ok(StructDef { name, fields, span })
    }

    /// `{ fields }`: one [`StructField`] per declarator.
    fn struct_body(&mut self, pair: Pair<'_, Rule>) -> Lowered<Vec<StructField>> {
        let mut fields = Vec::new();
        for field in pair.into_inner() {
            debug_assert_eq!(field.as_rule(), Rule::struct_field);
            let mut inner = field.into_inner();
            let ty_pair = inner.next().expect("field type");
            let ty_span = ty_pair.as_span();
            let ty = self.type_ref(ty_pair)?;
            for declarator in inner {
                let end = declarator.as_span().end();
                let mut parts = declarator.into_inner();
                let name = self.ident(parts.next().expect("field name"));
                let mut array_dims = Vec::new();
                let mut semantic = None;
                for part in parts {
                    match part.as_rule() {
                        Rule::array_dim => array_dims.push(self.array_dim(part)?),
                        Rule::semantic => semantic = Some(self.semantic(part)),
                        rule => unreachable!("rule field_declarator: {rule:?}"),
                    }
                }
                let span = self.map.span(
                    (self.base + ty_span.start()) as u32,
                    (self.base + end) as u32,
                );
                fields.push(StructField {
                    ty: ty.clone(),
                    name,
                    array_dims,
                    semantic,
                    span,
                });
            }
        }
        Ok(fields)
    }

    /// `enum Name { variants };`
    fn enum_def(&mut self, pair: Pair<'_, Rule>) -> Lowered<EnumDef> {
        let span = self.span(pair.as_span());
        let mut inner = pair.into_inner();
        let _enum_kw = inner.next();
        let name = self.ident(inner.next().expect("enum name"));
        let variants = self.enum_body(inner.next().expect("enum body"))?;
        Ok(EnumDef {
            name,
            variants,
            span,
        })
    }

    /// `{ A = 1, B, }`
    fn enum_body(&mut self, pair: Pair<'_, Rule>) -> Lowered<Vec<EnumVariant>> {
        let mut variants = Vec::new();
        for variant in pair.into_inner() {
            let span = self.span(variant.as_span());
            let mut inner = variant.into_inner();
            let name = self.ident(inner.next().expect("enumerator name"));
            let value = inner
                .next()
                .map(|value| self.assign_expr(value))
                .transpose()?;
            variants.push(EnumVariant { name, value, span });
        }
        Ok(variants)
    }

    /// `typedef ..;`
    fn typedef_decl(&mut self, pair: Pair<'_, Rule>) -> Lowered<Vec<Item>> {
        let span = self.span(pair.as_span());
        let mut inner = pair.into_inner();
        let _typedef_kw = inner.next();
        let body = inner.next().expect("typedef body");
        match body.as_rule() {
            Rule::typedef_alias => {
                let mut parts = body.into_inner();
                let ty = self.type_ref(parts.next().expect("typedef type"))?;
                let name = self.ident(parts.next().expect("typedef name"));
                let array_dims = parts
                    .map(|dim| self.array_dim(dim))
                    .collect::<Lowered<Vec<_>>>()?;
                Ok(vec![Item::Typedef(Typedef {
                    ty,
                    name,
                    array_dims,
                    span,
                })])
            }
            Rule::typedef_struct | Rule::typedef_enum => {
                let is_struct = body.as_rule() == Rule::typedef_struct;
                let mut parts: Vec<Pair<'_, Rule>> = body.into_inner().skip(1).collect();
                let name = self.ident(parts.pop().expect("typedef name"));
                let body_pair = parts.pop().expect("typedef body");
                let tag = parts.pop().map(|tag| self.ident(tag));
                let mut items = Vec::new();
                let defined_name = match &tag {
                    Some(tag) if tag.name != name.name => tag.clone(),
                    _ => name.clone(),
                };
                if is_struct {
                    let fields = self.struct_body(body_pair)?;
                    items.push(Item::Struct(StructDef {
                        name: defined_name.clone(),
                        fields,
                        span,
                    }));
                } else {
                    let variants = self.enum_body(body_pair)?;
                    items.push(Item::Enum(EnumDef {
                        name: defined_name.clone(),
                        variants,
                        span,
                    }));
                }
                if defined_name.name != name.name {
                    let ty = TypeRef {
                        is_const: false,
                        span: defined_name.span,
                        kind: TypeRefKind::Named(defined_name),
                    };
                    items.push(Item::Typedef(Typedef {
                        ty,
                        name,
                        array_dims: Vec::new(),
                        span,
                    }));
                }
                Ok(items)
            }
            rule => unreachable!("rule typedef_decl: {rule:?}"),
        }
    }

    /// A function or node declaration or definition.
    fn function(&mut self, pair: Pair<'_, Rule>) -> Lowered<Function> {
        let span = self.span(pair.as_span());
        let mut attributes = Vec::new();
        let mut is_export = false;
        let mut queue = None;
        let mut return_type = None;
        let mut name = None;
        let mut params = Vec::new();
        let mut body = None;
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::attribute_list => self.attribute_list(part, &mut attributes)?,
                Rule::export_kw => is_export = true,
                Rule::queue_kw => {
                    queue = Some(match part.as_str() {
                        "graphics" => QueueClass::Graphics,
                        "compute" => QueueClass::Compute,
                        "copy" => QueueClass::Copy,
                        other => unreachable!("rule queue_kw: {other}"),
                    })
                }
                Rule::type_ref => return_type = Some(self.type_ref(part)?),
                Rule::ident => name = Some(self.ident(part)),
                Rule::param_list => {
                    for param in part.into_inner() {
                        match param.as_rule() {
                            Rule::param => params.push(self.param(param)?),
                            Rule::void_params => {}
                            rule => unreachable!("rule param_list: {rule:?}"),
                        }
                    }
                }
                Rule::block => body = Some(self.block(part)?),
                rule => unreachable!("rule function: {rule:?}"),
            }
        }
        Ok(Function {
            attributes,
            is_export,
            queue,
            return_type: return_type.expect("function return type"),
            name: name.expect("function name"),
            params,
            body,
            span,
        })
    }

    /// One parameter.
    fn param(&mut self, pair: Pair<'_, Rule>) -> Lowered<Param> {
        let span = self.span(pair.as_span());
        let mut attributes = Vec::new();
        let mut direction = None;
        let mut leading_const = None;
        let mut ty = None;
        let mut name = None;
        let mut array_dims = Vec::new();
        let mut semantic = None;
        let mut default = None;
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::attribute_list => self.attribute_list(part, &mut attributes)?,
                Rule::direction_kw => {
                    direction = Some(match part.as_str() {
                        "in" => ParamDirection::In,
                        "out" => ParamDirection::Out,
                        "inout" => ParamDirection::InOut,
                        other => unreachable!("rule direction_kw: {other}"),
                    })
                }
                Rule::const_kw => leading_const = Some(self.span(part.as_span())),
                Rule::type_ref => ty = Some(self.type_ref(part)?),
                Rule::ident => name = Some(self.ident(part)),
                Rule::array_dim => array_dims.push(self.array_dim(part)?),
                Rule::semantic => semantic = Some(self.semantic(part)),
                Rule::init_list | Rule::assign_expr => default = Some(self.initializer(part)?),
                rule => unreachable!("rule param: {rule:?}"),
            }
        }
        let mut ty = ty.expect("param type");
        if let Some(const_span) = leading_const {
            ty.is_const = true;
            ty.span = const_span.to(ty.span);
        }
        Ok(Param {
            attributes,
            direction,
            ty,
            name: name.expect("param name"),
            array_dims,
            semantic,
            default,
            span,
        })
    }

    /// `[a, b(args)]`: appends the attributes to `out`.
    pub(crate) fn attribute_list(
        &mut self,
        pair: Pair<'_, Rule>,
        out: &mut Vec<Attribute>,
    ) -> Lowered<()> {
        for attribute in pair.into_inner() {
            let span = self.span(attribute.as_span());
            let mut inner = attribute.into_inner();
            let name = self.word(inner.next().expect("attribute name"));
            let mut args = Vec::new();
            for arg in inner {
                let value = first_child(arg);
                match value.as_rule() {
                    Rule::assign_expr => args.push(self.assign_expr(value)?),
                    Rule::word => {
                        let ident = self.word(value);
                        args.push(Expr {
                            span: ident.span,
                            kind: ExprKind::Name(ident),
                        });
                    }
                    rule => unreachable!("rule attribute_arg: {rule:?}"),
                }
            }
            out.push(Attribute { name, args, span });
        }
        Ok(())
    }

    /// `: SV_Target0`
    fn semantic(&self, pair: Pair<'_, Rule>) -> Semantic {
        let word = first_child(pair);
        Semantic {
            name: word.as_str().to_string(),
            span: self.span(word.as_span()),
        }
    }

    /// `[size]` or `[]`.
    pub(crate) fn array_dim(&mut self, pair: Pair<'_, Rule>) -> Lowered<ArrayDim> {
        let span = self.span(pair.as_span());
        let size = pair
            .into_inner()
            .next()
            .map(|size| self.expr(size))
            .transpose()?;
        Ok(ArrayDim { size, span })
    }

    /// `static const Type a = 1, b[2]`.
    pub(crate) fn var_decl(&mut self, pair: Pair<'_, Rule>) -> Lowered<VarDecl> {
        let span = self.span(pair.as_span());
        let mut is_static = false;
        let mut ty = None;
        let mut declarators = Vec::new();
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::static_kw => is_static = true,
                Rule::type_ref => ty = Some(self.type_ref(part)?),
                Rule::declarator => declarators.push(self.declarator(part)?),
                rule => unreachable!("rule var_decl: {rule:?}"),
            }
        }
        Ok(VarDecl {
            is_static,
            ty: ty.expect("declaration type"),
            declarators,
            span,
        })
    }

    /// `name[dims] = init`
    fn declarator(&mut self, pair: Pair<'_, Rule>) -> Lowered<Declarator> {
        let span = self.span(pair.as_span());
        let mut inner = pair.into_inner();
        let name = self.ident(inner.next().expect("declarator name"));
        let mut array_dims = Vec::new();
        let mut init = None;
        for part in inner {
            match part.as_rule() {
                Rule::array_dim => array_dims.push(self.array_dim(part)?),
                Rule::init_list | Rule::assign_expr => init = Some(self.initializer(part)?),
                rule => unreachable!("rule declarator: {rule:?}"),
            }
        }
        Ok(Declarator {
            name,
            array_dims,
            init,
            span,
        })
    }

    /// A type with its qualifiers.
    pub(crate) fn type_ref(&mut self, pair: Pair<'_, Rule>) -> Lowered<TypeRef> {
        let span = self.span(pair.as_span());
        let mut is_const = false;
        let mut kind = None;
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::const_kw => is_const = true,
                _ => kind = Some(self.type_core(part)?),
            }
        }
        Ok(TypeRef {
            is_const,
            kind: kind.expect("type core"),
            span,
        })
    }

    /// The type without qualifiers (`type_name`, `unsigned_type`, `builtin_type_name`,
    /// `vector_type`, `matrix_type`).
    pub(crate) fn type_core(&mut self, pair: Pair<'_, Rule>) -> Lowered<TypeRefKind> {
        Ok(match pair.as_rule() {
            Rule::type_name => TypeRefKind::Named(self.ident(first_child(pair))),
            Rule::builtin_type_name => TypeRefKind::Named(self.word(pair)),
            Rule::unsigned_type => {
                let name = pair
                    .as_str()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                TypeRefKind::Named(Ident {
                    name: Name::from(name),
                    span: self.span(pair.as_span()),
                })
            }
            Rule::vector_type => {
                let mut inner = pair.into_inner();
                let elem = Box::new(self.type_ref(inner.next().expect("vector element"))?);
                let len = Box::new(self.template_arg(inner.next().expect("vector length"))?);
                TypeRefKind::Vector { elem, len }
            }
            Rule::matrix_type => {
                let mut inner = pair.into_inner();
                let elem = Box::new(self.type_ref(inner.next().expect("matrix element"))?);
                let rows = Box::new(self.template_arg(inner.next().expect("matrix rows"))?);
                let cols = Box::new(self.template_arg(inner.next().expect("matrix columns"))?);
                TypeRefKind::Matrix { elem, rows, cols }
            }
            rule => unreachable!("rule type_core: {rule:?}"),
        })
    }

    /// A `template_arg` (one unary operand).
    fn template_arg(&mut self, pair: Pair<'_, Rule>) -> Lowered<Expr> {
        Ok(self.operand(pair.into_inner())?.expr)
    }

    /// An `ident` pair as an [`Ident`]; a reserved word is reported (and kept, so that lowering
    /// goes on).
    pub(crate) fn ident(&mut self, pair: Pair<'_, Rule>) -> Ident {
        let is_reserved = is_keyword(pair.as_str());
        let ident = self.word(pair);
        if is_reserved {
            self.report(Diagnostic::error(
                ident.span,
                format!("expected identifier, found keyword `{}`", ident.name),
            ));
        }
        ident
    }

    /// A `word` pair (any word, keywords included) as an [`Ident`].
    pub(crate) fn word(&self, pair: Pair<'_, Rule>) -> Ident {
        Ident {
            name: Name::from(pair.as_str()),
            span: self.span(pair.as_span()),
        }
    }
}

/// The first child of a pair whose grammar guarantees one.
pub(crate) fn first_child(pair: Pair<'_, Rule>) -> Pair<'_, Rule> {
    let rule = pair.as_rule();
    match pair.into_inner().next() {
        Some(child) => child,
        None => unreachable!("rule {rule:?} without children"),
    }
}
