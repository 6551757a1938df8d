//! Declarations (pass 1): structs, enums with folded values, typedefs, global constants, and the
//! signatures of functions and nodes. Bodies are checked afterwards, so a function may call one
//! declared later in the file.

use std::collections::HashMap;

use super::{Checker, PendingBody, SigId, SigParam, Signature, Symbol, Target};
use crate::ast;
use crate::diagnostic::Diagnostic;
use crate::hir::{self, ConstValue, FuncId, GlobalId, ParamDirection};
use crate::types::{self, EnumId, EnumValue, Type};

impl Checker<'_> {
    /// Declares one top-level item; returns the function whose body must be checked later.
    pub fn declare_item<'a>(&mut self, item: &'a ast::Item) -> Option<PendingBody<'a>> {
        match item {
            ast::Item::Struct(def) => self.declare_struct(def),
            ast::Item::Enum(def) => self.declare_enum(def),
            ast::Item::Typedef(def) => {
                let base = self.resolve_type(&def.ty);
                let ty = self.apply_array_dims(base, &def.array_dims, false);
                self.define_global(
                    &def.name.name,
                    def.name.span,
                    Symbol::Type(ty, def.name.span),
                );
            }
            ast::Item::Global(decl) => self.declare_globals(decl),
            ast::Item::Function(function) => return self.declare_function(function),
        }
        None
    }

    /// The type a written type stands for; unknown names are reported and give the error type.
    pub fn resolve_type(&mut self, ty: &ast::TypeRef) -> Type {
        match &ty.kind {
            ast::TypeRefKind::Named(ident) => {
                let name = match ident.name.as_str() {
                    "unsigned int" | "unsigned" => "uint",
                    "signed int" | "signed" => "int",
                    other => other,
                };
                if let Some(builtin) = types::parse_builtin_type_name(name) {
                    return builtin;
                }
                match self.symbols.get(name) {
                    Some(Symbol::Type(ty, _)) => ty.clone(),
                    _ => {
                        let mut diag =
                            Diagnostic::error(ident.span, format!("unknown type `{name}`"));
                        if let Some(help) = self.suggest_type(name) {
                            diag = diag.with_help(help);
                        }
                        self.report(diag);
                        Type::Error
                    }
                }
            }
            ast::TypeRefKind::Vector { elem, len } => {
                let elem_ty = self.resolve_type(elem);
                let len = self.const_int(len, "vector size");
                match len {
                    Some(n) => types::vector_type(&elem_ty, n).unwrap_or_else(|| {
                        if elem_ty != Type::Error {
                            self.error(
                                ty.span,
                                format!(
                                    "invalid vector type `vector<{}, {n}>`",
                                    self.show(&elem_ty)
                                ),
                            );
                        }
                        Type::Error
                    }),
                    None => Type::Error,
                }
            }
            ast::TypeRefKind::Matrix { elem, rows, cols } => {
                let elem_ty = self.resolve_type(elem);
                let (rows, cols) = (
                    self.const_int(rows, "matrix size"),
                    self.const_int(cols, "matrix size"),
                );
                match (rows, cols) {
                    (Some(r), Some(c)) => types::matrix_type(&elem_ty, r, c).unwrap_or_else(|| {
                        if elem_ty != Type::Error {
                            self.error(
                                ty.span,
                                format!(
                                    "invalid matrix type `matrix<{}, {r}, {c}>`",
                                    self.show(&elem_ty)
                                ),
                            );
                        }
                        Type::Error
                    }),
                    _ => Type::Error,
                }
            }
        }
    }

    /// Wraps `base` in the array dimensions (outermost first). Unsized dimensions are allowed only
    /// where `allow_unsized` (parameters, declarations with an initializer list).
    pub fn apply_array_dims(
        &mut self,
        base: Type,
        dims: &[ast::ArrayDim],
        allow_unsized: bool,
    ) -> Type {
        let mut ty = base;
        for dim in dims.iter().rev() {
            let len = match &dim.size {
                Some(size) => match self.const_int(size, "array size") {
                    Some(n) if n > 0 && n <= u32::MAX as i64 => Some(n as u32),
                    Some(n) => {
                        self.error(size.span, format!("array size must be positive, found {n}"));
                        return Type::Error;
                    }
                    None => return Type::Error,
                },
                None if allow_unsized => None,
                None => {
                    self.error(dim.span, "array size is missing");
                    return Type::Error;
                }
            };
            if ty == Type::Error {
                return Type::Error;
            }
            let element = self
                .types
                .layout_of(&ty)
                .map_or(0, |layout| layout.size as u64);
            ty = Type::array(ty, len);
            let size = element.saturating_mul(len.unwrap_or(0) as u64);
            if size > types::MAX_VALUE_SIZE as u64 {
                let shown = ty.display(&self.types).to_string();
                self.report(
                    Diagnostic::error(
                        dim.span,
                        format!(
                            "array `{shown}` takes {size} bytes; a value may take at most {} (16 MiB)",
                            types::MAX_VALUE_SIZE
                        ),
                    )
                    .with_help("keep large data in a buffer resource, not in a script value"),
                );
                return Type::Error;
            }
        }
        ty
    }

    /// Folds an integer constant expression (array sizes, vector sizes, enumerators, case labels);
    /// reports `WHAT must be a constant expression` when it is not constant.
    pub fn const_int(&mut self, expr: &ast::Expr, what: &str) -> Option<i64> {
        let checked = self.check_expr(expr);
        if checked.ty == Type::Error {
            return None;
        }
        if !checked.ty.is_scalar()
            || !checked
                .ty
                .component_kind()
                .is_some_and(|k| k.is_integer() || k == types::ScalarKind::Bool)
        {
            self.error(
                expr.span,
                format!(
                    "{what} must be an integer, found `{}`",
                    self.show(&checked.ty)
                ),
            );
            return None;
        }
        match checked.as_const() {
            Some(value) => value.as_i64(),
            None => {
                self.error(expr.span, format!("{what} must be a constant expression"));
                None
            }
        }
    }

    fn declare_struct(&mut self, def: &ast::StructDef) {
        let mut members = Vec::with_capacity(def.fields.len());
        for field in &def.fields {
            let base = self.resolve_type(&field.ty);
            let ty = self.apply_array_dims(base, &field.array_dims, false);
            members.push((field.name.name.to_string(), ty, field.name.span));
        }
        let id = match self
            .types
            .add_struct(def.name.name.clone(), def.name.span, members)
        {
            Ok(id) => id,
            Err(err) => {
                let (span, previous) = match &err {
                    types::LayoutError::DuplicateField { span, previous, .. } => {
                        (*span, Some(*previous))
                    }
                    types::LayoutError::UnsizedField { span, .. }
                    | types::LayoutError::TooLarge { span, .. } => (*span, None),
                };
                let mut diag = Diagnostic::error(span, err.to_string());
                if let Some(previous) = previous {
                    diag = diag.with_secondary(previous, "previous definition here");
                }
                self.report(diag);
                return;
            }
        };
        self.define_global(
            &def.name.name,
            def.name.span,
            Symbol::Type(Type::Struct(id), def.name.span),
        );
    }

    fn declare_enum(&mut self, def: &ast::EnumDef) {
        let id = EnumId(self.types.enums().count() as u32);
        let mut values = Vec::with_capacity(def.variants.len());
        let mut next = 0i64;
        for variant in &def.variants {
            if let Some(value) = &variant.value {
                if let Some(v) = self.const_int(value, "enumerator value") {
                    next = v;
                }
            }
            let symbol = Symbol::Enumerator(id, next, variant.name.span);
            if self.define_global(&variant.name.name, variant.name.span, symbol) {
                values.push(EnumValue {
                    name: variant.name.name.to_string(),
                    value: next,
                    span: variant.name.span,
                });
            }
            next = next.wrapping_add(1);
        }
        let added = self
            .types
            .add_enum(def.name.name.clone(), def.name.span, values);
        debug_assert_eq!(added, id);
        self.define_global(
            &def.name.name,
            def.name.span,
            Symbol::Type(Type::Enum(id), def.name.span),
        );
    }

    fn declare_globals(&mut self, decl: &ast::VarDecl) {
        let base = self.resolve_type(&decl.ty);
        for declarator in &decl.declarators {
            let unsized_ok = matches!(
                declarator.init.as_ref().map(|e| &e.kind),
                Some(ast::ExprKind::InitList(_))
            );
            let mut ty = self.apply_array_dims(base.clone(), &declarator.array_dims, unsized_ok);
            let init = declarator
                .init
                .as_ref()
                .map(|init| self.check_initializer(init, &mut ty));
            let value = init.as_ref().and_then(|e| e.as_const().cloned());
            let value = match (value, &init) {
                (Some(v), _) => Some(v),
                (None, None) => Some(zero_value(&ty, &self.types)),
                (None, Some(_)) => None,
            };
            let init = if value.is_some() { None } else { init };
            let id = GlobalId(self.globals.len() as u32);
            self.globals.push(hir::Global {
                name: declarator.name.name.to_string(),
                ty,
                value,
                init,
                span: declarator.name.span,
                is_prelude: self.is_prelude,
            });
            self.define_global(
                &declarator.name.name,
                declarator.name.span,
                Symbol::Global(id),
            );
        }
    }

    /// Resolves a parameter list into signature parameters (types, directions, defaults); linear
    /// in the number of parameters (names are looked up in a hash map for duplicates).
    pub fn resolve_params(&mut self, params: &[ast::Param]) -> Vec<SigParam> {
        let mut out: Vec<SigParam> = Vec::with_capacity(params.len());
        let mut first_by_name: HashMap<&str, usize> = HashMap::with_capacity(params.len());
        for (index, param) in params.iter().enumerate() {
            let base = self.resolve_type(&param.ty);
            let ty = self.apply_array_dims(base, &param.array_dims, true);
            if ty == Type::Void {
                self.error(param.ty.span, "parameters cannot have type `void`");
            }
            let direction = match param.direction {
                None | Some(ast::ParamDirection::In) => ParamDirection::In,
                Some(ast::ParamDirection::Out) => ParamDirection::Out,
                Some(ast::ParamDirection::InOut) => ParamDirection::InOut,
            };
            let default = param.default.as_ref().map(|d| {
                let expr = self.check_expr_as(d, &ty);
                if expr.as_const().is_none() && expr.ty != Type::Error {
                    self.error(d.span, "default argument must be a constant expression");
                }
                expr
            });
            if default.is_none() && out.last().is_some_and(|p| p.default.is_some()) {
                self.error(
                    param.name.span,
                    format!("parameter `{}` needs a default value", param.name.name),
                );
            }
            let name: &str = &param.name.name;
            if let Some(&previous) = first_by_name.get(name) {
                let previous_span = params[previous].name.span;
                self.report(
                    Diagnostic::error(
                        param.name.span,
                        format!("`{}` is already defined", param.name.name),
                    )
                    .with_secondary(previous_span, "previous definition here"),
                );
            } else {
                first_by_name.insert(name, index);
            }
            out.push(SigParam {
                name: param.name.name.to_string(),
                ty,
                direction,
                default,
            });
        }
        out
    }

    fn declare_function<'a>(&mut self, function: &'a ast::Function) -> Option<PendingBody<'a>> {
        let ret = self.resolve_type(&function.return_type);
        let params = self.resolve_params(&function.params);
        let name = function.name.name.to_string();
        let is_node = function.is_node();
        if !is_node && function.queue.is_some() {
            self.error(
                function.return_type.span,
                "a queue keyword can only be used on a node declaration",
            );
        }
        // An earlier declaration with the same parameter types.
        let same_params = |sig: &Signature| {
            sig.params.len() == params.len()
                && sig.params.iter().zip(&params).all(|(a, b)| a.ty == b.ty)
        };
        let existing = match self.symbols.get(&name) {
            Some(Symbol::Callables(list)) => list
                .iter()
                .copied()
                .find(|id| same_params(&self.sigs[id.0 as usize])),
            _ => None,
        };
        if function.body.is_none() {
            if existing.is_some() {
                return None; // a repeated declaration
            }
            let target = if is_node {
                Target::Node(self.declare_node(function, &params, None))
            } else if self.is_prelude {
                match crate::builtins::builtin_for(
                    &name,
                    &params.iter().map(|p| p.ty.clone()).collect::<Vec<_>>(),
                ) {
                    Some(builtin) => Target::Builtin(builtin),
                    None => {
                        self.error(
                            function.name.span,
                            format!("prelude function `{name}` has no host implementation"),
                        );
                        Target::Undefined
                    }
                }
            } else {
                Target::Undefined
            };
            self.add_signature(function, name, params, ret, target, is_node);
            return None;
        }
        // A definition.
        let func = FuncId(self.functions.len() as u32);
        self.functions.push(None);
        let sig = match existing {
            Some(id) if self.sigs[id.0 as usize].target == Target::Undefined => {
                let sig = &mut self.sigs[id.0 as usize];
                sig.target = Target::Function(func);
                sig.params = params;
                id
            }
            Some(id) => {
                let previous = self.sigs[id.0 as usize].span;
                self.report(
                    Diagnostic::error(function.name.span, format!("`{name}` is already defined"))
                        .with_secondary(previous, "previous definition here"),
                );
                return None;
            }
            None => {
                if is_node {
                    self.declare_node(function, &params, Some(func));
                }
                self.add_signature(function, name, params, ret, Target::Function(func), is_node)
            }
        };
        if function.is_export {
            self.entries.push(func);
        }
        Some((sig, function))
    }

    fn add_signature(
        &mut self,
        function: &ast::Function,
        name: String,
        params: Vec<SigParam>,
        ret: Type,
        target: Target,
        is_node: bool,
    ) -> SigId {
        let id = SigId(self.sigs.len() as u32);
        let span = function.name.span;
        self.sigs.push(Signature {
            name: name.clone(),
            params,
            ret,
            target,
            span,
            is_node,
        });
        self.define_callable(&name, span, id);
        id
    }
}

/// The zero value of a type (views are `null`), used for globals without an initializer.
pub(crate) fn zero_value(ty: &Type, table: &types::TypeTable) -> ConstValue {
    use types::ScalarKind::*;
    let scalar = |k: types::ScalarKind| match k {
        Bool => ConstValue::Bool(false),
        Int | Int64 | LiteralInt => ConstValue::Int(0),
        Uint | Uint64 => ConstValue::Uint(0),
        Half | Float | Double | LiteralFloat => ConstValue::Float(0.0),
    };
    match ty {
        Type::Scalar(k) => scalar(*k),
        Type::Enum(_) => ConstValue::Int(0),
        Type::Vector(k, n) => ConstValue::Composite(vec![scalar(*k); *n as usize]),
        Type::Matrix(k, r, c) => ConstValue::Composite(vec![scalar(*k); *r as usize * *c as usize]),
        Type::Array(elem, len) => {
            ConstValue::Composite(vec![zero_value(elem, table); len.unwrap_or(0) as usize])
        }
        Type::Struct(id) => ConstValue::Composite(
            table
                .struct_def(*id)
                .map(|d| d.fields.iter().map(|f| zero_value(&f.ty, table)).collect())
                .unwrap_or_default(),
        ),
        Type::Texture | Type::Buffer => ConstValue::NullView,
        _ => ConstValue::Int(0),
    }
}
