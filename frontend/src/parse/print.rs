//! A pretty-printer for the AST (`Display` impls): every compound expression is printed fully
//! parenthesized, so the printed form shows exactly how the parser grouped it; statements and
//! items print on one line each, in a normalized form that parses back to the same tree.
//!
//! ```
//! use rpsl_frontend::parse::parse_module;
//! use rpsl_frontend::preprocess::Expanded;
//! let text = "void f() { x = a + b * c; }".to_string();
//! let module = parse_module(&Expanded { text, ..Default::default() }, &mut Vec::new());
//! assert_eq!(module.to_string(), "void f() { (x = (a + (b * c))); }\n");
//! ```

use std::fmt::{self, Display, Formatter};

use crate::ast::{
    ArrayDim, Attribute, Block, CaseLabel, Declarator, Expr, ExprKind, FloatSuffix, ForInit,
    Function, IntRadix, Item, LongSuffix, Module, Param, ParamDirection, Stmt, StmtKind, TypeRef,
    TypeRefKind, VarDecl,
};

/// Writes `items` separated by `sep`.
fn list<T: Display>(f: &mut Formatter<'_>, items: &[T], sep: &str) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Int(lit) => {
                match lit.radix {
                    IntRadix::Hex => write!(f, "0x{:x}", lit.value)?,
                    IntRadix::Octal if lit.value != 0 => write!(f, "0{:o}", lit.value)?,
                    IntRadix::Octal | IntRadix::Decimal => write!(f, "{}", lit.value)?,
                }
                if lit.is_unsigned {
                    f.write_str("u")?;
                }
                match lit.long {
                    LongSuffix::None => Ok(()),
                    LongSuffix::Long => f.write_str("l"),
                    LongSuffix::LongLong => f.write_str("ll"),
                }
            }
            ExprKind::Float(lit) => {
                write!(f, "{:?}", lit.value)?;
                f.write_str(match lit.suffix {
                    FloatSuffix::None => "",
                    FloatSuffix::F => "f",
                    FloatSuffix::H => "h",
                    FloatSuffix::L => "L",
                })
            }
            ExprKind::Bool(value) => write!(f, "{value}"),
            ExprKind::Null => f.write_str("null"),
            ExprKind::Name(ident) => f.write_str(&ident.name),
            ExprKind::Unary { op, operand } => write!(f, "({}{operand})", op.as_str()),
            ExprKind::Postfix { op, operand } => write!(f, "({operand}{})", op.as_str()),
            ExprKind::Binary { op, lhs, rhs } => write!(f, "({lhs} {} {rhs})", op.as_str()),
            ExprKind::Ternary {
                cond,
                then_expr,
                else_expr,
            } => write!(f, "({cond} ? {then_expr} : {else_expr})"),
            ExprKind::Assign { op, target, value } => {
                write!(f, "({target} {} {value})", op.as_str())
            }
            ExprKind::Comma { lhs, rhs } => write!(f, "({lhs}, {rhs})"),
            ExprKind::Cast { ty, operand } => write!(f, "(({ty}){operand})"),
            ExprKind::Call { callee, args } | ExprKind::AsyncCall { callee, args } => {
                if matches!(self.kind, ExprKind::AsyncCall { .. }) {
                    f.write_str("async ")?;
                }
                write!(f, "{}(", callee.name)?;
                list(f, args, ", ")?;
                f.write_str(")")
            }
            ExprKind::Construct { ty, args } => {
                write!(f, "{ty}(")?;
                list(f, args, ", ")?;
                f.write_str(")")
            }
            ExprKind::MethodCall {
                receiver,
                method,
                args,
            } => {
                write!(f, "{receiver}.{}(", method.name)?;
                list(f, args, ", ")?;
                f.write_str(")")
            }
            ExprKind::Member { base, member } => write!(f, "{base}.{}", member.name),
            ExprKind::Index { base, index } => write!(f, "{base}[{index}]"),
            ExprKind::SizeofType(ty) => write!(f, "sizeof({ty})"),
            ExprKind::SizeofExpr(operand) => write!(f, "sizeof({operand})"),
            ExprKind::InitList(elements) => {
                f.write_str("{")?;
                list(f, elements, ", ")?;
                f.write_str("}")
            }
        }
    }
}

impl Display for TypeRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.is_const {
            f.write_str("const ")?;
        }
        match &self.kind {
            TypeRefKind::Named(ident) => f.write_str(&ident.name),
            TypeRefKind::Vector { elem, len } => write!(f, "vector<{elem}, {len}>"),
            TypeRefKind::Matrix { elem, rows, cols } => write!(f, "matrix<{elem}, {rows}, {cols}>"),
        }
    }
}

impl Display for ArrayDim {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.size {
            Some(size) => write!(f, "[{size}]"),
            None => f.write_str("[]"),
        }
    }
}

impl Display for Attribute {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "[{}", self.name.name)?;
        if !self.args.is_empty() {
            f.write_str("(")?;
            list(f, &self.args, ", ")?;
            f.write_str(")")?;
        }
        f.write_str("]")
    }
}

impl Display for Declarator {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name.name)?;
        list(f, &self.array_dims, "")?;
        if let Some(init) = &self.init {
            write!(f, " = {init}")?;
        }
        Ok(())
    }
}

impl Display for VarDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.is_static {
            f.write_str("static ")?;
        }
        write!(f, "{} ", self.ty)?;
        list(f, &self.declarators, ", ")
    }
}

impl Display for Block {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for stmt in &self.stmts {
            write!(f, " {stmt}")?;
        }
        f.write_str(" }")
    }
}

impl Display for Stmt {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for attribute in &self.attributes {
            write!(f, "{attribute} ")?;
        }
        match &self.kind {
            StmtKind::Decl(decl) => write!(f, "{decl};"),
            StmtKind::Expr(expr) => write!(f, "{expr};"),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                write!(f, "if ({cond}) {then_branch}")?;
                match else_branch {
                    Some(else_branch) => write!(f, " else {else_branch}"),
                    None => Ok(()),
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                f.write_str("for (")?;
                match init.as_deref() {
                    Some(ForInit::Decl(decl)) => write!(f, "{decl}")?,
                    Some(ForInit::Expr(expr)) => write!(f, "{expr}")?,
                    None => {}
                }
                f.write_str(";")?;
                if let Some(cond) = cond {
                    write!(f, " {cond}")?;
                }
                f.write_str(";")?;
                if let Some(step) = step {
                    write!(f, " {step}")?;
                }
                write!(f, ") {body}")
            }
            StmtKind::While { cond, body } => write!(f, "while ({cond}) {body}"),
            StmtKind::DoWhile { body, cond } => write!(f, "do {body} while ({cond});"),
            StmtKind::Switch { scrutinee, cases } => {
                write!(f, "switch ({scrutinee}) {{")?;
                for case in cases {
                    match &case.label {
                        CaseLabel::Case(value) => write!(f, " case {value}:")?,
                        CaseLabel::Default => f.write_str(" default:")?,
                    }
                    for stmt in &case.body {
                        write!(f, " {stmt}")?;
                    }
                }
                f.write_str(" }")
            }
            StmtKind::Break => f.write_str("break;"),
            StmtKind::Continue => f.write_str("continue;"),
            StmtKind::Return(Some(value)) => write!(f, "return {value};"),
            StmtKind::Return(None) => f.write_str("return;"),
            StmtKind::Block(block) => write!(f, "{block}"),
            StmtKind::Empty => f.write_str(";"),
        }
    }
}

impl Display for Param {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for attribute in &self.attributes {
            write!(f, "{attribute} ")?;
        }
        match self.direction {
            Some(ParamDirection::In) => f.write_str("in ")?,
            Some(ParamDirection::Out) => f.write_str("out ")?,
            Some(ParamDirection::InOut) => f.write_str("inout ")?,
            None => {}
        }
        write!(f, "{} {}", self.ty, self.name.name)?;
        list(f, &self.array_dims, "")?;
        if let Some(semantic) = &self.semantic {
            write!(f, " : {}", semantic.name)?;
        }
        if let Some(default) = &self.default {
            write!(f, " = {default}")?;
        }
        Ok(())
    }
}

impl Display for Function {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for attribute in &self.attributes {
            write!(f, "{attribute} ")?;
        }
        if self.is_export {
            f.write_str("export ")?;
        }
        if let Some(queue) = self.queue {
            write!(f, "{} ", queue.name())?;
        }
        write!(f, "{} {}(", self.return_type, self.name.name)?;
        list(f, &self.params, ", ")?;
        f.write_str(")")?;
        match &self.body {
            Some(body) => write!(f, " {body}"),
            None => f.write_str(";"),
        }
    }
}

impl Display for Item {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Item::Struct(def) => {
                write!(f, "struct {} {{", def.name.name)?;
                for field in &def.fields {
                    write!(f, " {} {}", field.ty, field.name.name)?;
                    list(f, &field.array_dims, "")?;
                    if let Some(semantic) = &field.semantic {
                        write!(f, " : {}", semantic.name)?;
                    }
                    f.write_str(";")?;
                }
                f.write_str(" };")
            }
            Item::Enum(def) => {
                write!(f, "enum {} {{", def.name.name)?;
                for variant in &def.variants {
                    write!(f, " {}", variant.name.name)?;
                    if let Some(value) = &variant.value {
                        write!(f, " = {value}")?;
                    }
                    f.write_str(",")?;
                }
                f.write_str(" };")
            }
            Item::Typedef(def) => {
                write!(f, "typedef {} {}", def.ty, def.name.name)?;
                list(f, &def.array_dims, "")?;
                f.write_str(";")
            }
            Item::Global(decl) => write!(f, "{decl};"),
            Item::Function(function) => write!(f, "{function}"),
        }
    }
}

impl Display for Module {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for item in &self.items {
            writeln!(f, "{item}")?;
        }
        Ok(())
    }
}
