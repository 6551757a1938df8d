//! A readable text dump of the HIR (`Display` for [`Module`]): one line per declaration and
//! statement, expressions fully parenthesized with conversions shown as `float(x)`-style casts.

use std::fmt::{self, Write as _};

use super::{
    Arg, Block, Callee, Expr, ExprKind, Function, Module, NodeDecl, Place, Projection, StmtKind,
    UnaryOp,
};
use crate::types::Type;

struct Printer<'a> {
    module: &'a Module,
    function: Option<&'a Function>,
    out: String,
}

impl Printer<'_> {
    fn ty(&self, ty: &Type) -> String {
        ty.display(&self.module.types).to_string()
    }

    fn local(&self, id: super::LocalId) -> String {
        match self.function.and_then(|f| f.locals.get(id.index())) {
            Some(local) => format!("{}#{}", local.name, id.0),
            None => id.to_string(),
        }
    }

    fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn place(&self, place: &Place) -> String {
        let mut text = self.local(place.local);
        let mut ty = self
            .function
            .and_then(|f| f.locals.get(place.local.index()))
            .map(|l| l.ty.clone())
            .unwrap_or(Type::Error);
        for projection in &place.path {
            match projection {
                Projection::Field(i) => {
                    let field = match &ty {
                        Type::Struct(id) => self
                            .module
                            .types
                            .struct_def(*id)
                            .and_then(|d| d.fields.get(*i as usize)),
                        _ => None,
                    };
                    match field {
                        Some(field) => {
                            let _ = write!(text, ".{}", field.name);
                            ty = field.ty.clone();
                        }
                        None => {
                            let _ = write!(text, ".#{i}");
                            ty = Type::Error;
                        }
                    }
                }
                Projection::ViewField(offset) => {
                    let _ = write!(text, ".@{offset}");
                    ty = Type::Error;
                }
                Projection::Index { index, .. } => {
                    let _ = write!(text, "[{}]", self.expr(index));
                    ty = ty.index_result().unwrap_or(Type::Error);
                }
                Projection::Swizzle(components) => {
                    text.push('.');
                    text.push_str(&swizzle_text(&ty, components));
                    ty = Type::Error;
                }
            }
        }
        text
    }

    fn args(&self, args: &[Arg]) -> String {
        args.iter()
            .map(|arg| match arg {
                Arg::In(expr) => self.expr(expr),
                Arg::Out(place) => format!("out {}", self.place(place)),
                Arg::InOut(place) => format!("inout {}", self.place(place)),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn expr(&self, expr: &Expr) -> String {
        match &expr.kind {
            ExprKind::Const(value) => match &expr.ty {
                Type::Scalar(_) | Type::Null | Type::Texture | Type::Buffer => value.to_string(),
                Type::Enum(id) => {
                    let def = self.module.types.enum_def(*id);
                    let name = def
                        .and_then(|d| d.values.iter().find(|v| Some(v.value) == value.as_i64()))
                        .map(|v| v.name.clone());
                    name.unwrap_or_else(|| format!("{}({value})", self.ty(&expr.ty)))
                }
                other => format!("{}{}", self.ty(other), value),
            },
            ExprKind::Local(id) => self.local(*id),
            ExprKind::Global(id) => self
                .module
                .globals
                .get(id.index())
                .map(|g| g.name.clone())
                .unwrap_or_default(),
            ExprKind::Field { base, field } => {
                let name = match &base.ty {
                    Type::Struct(id) => self
                        .module
                        .types
                        .struct_def(*id)
                        .and_then(|d| d.fields.get(*field as usize))
                        .map(|f| f.name.clone())
                        .unwrap_or_else(|| field.to_string()),
                    _ => field.to_string(),
                };
                format!("{}.{name}", self.expr(base))
            }
            ExprKind::ViewField { base, offset } => format!("{}.@{offset}", self.expr(base)),
            ExprKind::Index { base, index, len } => {
                format!("{}[{} /*<{len}*/]", self.expr(base), self.expr(index))
            }
            ExprKind::Swizzle { base, components } => {
                format!("{}.{}", self.expr(base), swizzle_text(&base.ty, components))
            }
            ExprKind::Unary { op, operand } => {
                let op = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "!",
                    UnaryOp::BitNot => "~",
                };
                format!("({op}{})", self.expr(operand))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                format!("({} {} {})", self.expr(lhs), op.as_str(), self.expr(rhs))
            }
            ExprKind::LogicalAnd(lhs, rhs) => format!("({} && {})", self.expr(lhs), self.expr(rhs)),
            ExprKind::LogicalOr(lhs, rhs) => format!("({} || {})", self.expr(lhs), self.expr(rhs)),
            ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            } => {
                format!(
                    "({} ? {} : {})",
                    self.expr(cond),
                    self.expr(then_expr),
                    self.expr(else_expr)
                )
            }
            ExprKind::Select {
                cond,
                then_expr,
                else_expr,
            } => {
                format!(
                    "select({}, {}, {})",
                    self.expr(cond),
                    self.expr(then_expr),
                    self.expr(else_expr)
                )
            }
            ExprKind::Convert(inner) => format!("{}({})", self.ty(&expr.ty), self.expr(inner)),
            ExprKind::Construct(parts) => {
                let parts: Vec<String> = parts.iter().map(|p| self.expr(p)).collect();
                format!("{}{{{}}}", self.ty(&expr.ty), parts.join(", "))
            }
            ExprKind::Aggregate(parts) => {
                let parts: Vec<String> = parts.iter().map(|p| self.expr(p)).collect();
                format!("{}{{{}}}", self.ty(&expr.ty), parts.join(", "))
            }
            ExprKind::Call {
                callee,
                args,
                is_async,
            } => {
                let name = match callee {
                    Callee::Function(id) => {
                        format!(
                            "fn {}",
                            self.module
                                .functions
                                .get(id.index())
                                .map(|f| f.name.as_str())
                                .unwrap_or("?")
                        )
                    }
                    Callee::Intrinsic(i) => format!("intrinsic {}", i.name()),
                    Callee::Builtin(b) => format!("builtin {b:?}"),
                    Callee::Node(id) => {
                        format!(
                            "node {}#{}",
                            self.module
                                .nodes
                                .get(id.index())
                                .map(|n| n.name.as_str())
                                .unwrap_or("?"),
                            id.0
                        )
                    }
                };
                let prefix = if *is_async { "async " } else { "" };
                format!("{prefix}{name}({})", self.args(args))
            }
            ExprKind::Assign { place, value } => {
                format!("({} = {})", self.place(place), self.expr(value))
            }
            ExprKind::Update {
                place,
                value,
                returns_old,
            } => {
                let kind = if *returns_old {
                    "post-update"
                } else {
                    "update"
                };
                format!("({kind} {} := {})", self.place(place), self.expr(value))
            }
            ExprKind::PlaceValue => "old".to_string(),
            ExprKind::Comma(lhs, rhs) => format!("({}, {})", self.expr(lhs), self.expr(rhs)),
            ExprKind::Error => "<error>".to_string(),
        }
    }

    fn block(&mut self, block: &Block, depth: usize) {
        for stmt in &block.stmts {
            match &stmt.kind {
                StmtKind::Expr(expr) => {
                    let text = format!("{};", self.expr(expr));
                    self.line(depth, &text);
                }
                StmtKind::Local { local, init } => {
                    let ty = self
                        .function
                        .and_then(|f| f.locals.get(local.index()))
                        .map(|l| self.ty(&l.ty))
                        .unwrap_or_default();
                    let text = match init {
                        Some(init) => {
                            format!("let {}: {ty} = {};", self.local(*local), self.expr(init))
                        }
                        None => format!("let {}: {ty};", self.local(*local)),
                    };
                    self.line(depth, &text);
                }
                StmtKind::If {
                    cond,
                    then_block,
                    else_block,
                } => {
                    let text = format!("if {} {{", self.expr(cond));
                    self.line(depth, &text);
                    self.block(then_block, depth + 1);
                    if let Some(else_block) = else_block {
                        self.line(depth, "} else {");
                        self.block(else_block, depth + 1);
                    }
                    self.line(depth, "}");
                }
                StmtKind::Loop {
                    cond,
                    step,
                    body,
                    test_first,
                } => {
                    let cond = cond
                        .as_ref()
                        .map(|c| self.expr(c))
                        .unwrap_or_else(|| "true".into());
                    let step = step
                        .as_ref()
                        .map(|s| format!(" step {}", self.expr(s)))
                        .unwrap_or_default();
                    let text = if *test_first {
                        format!("while {cond}{step} {{")
                    } else {
                        format!("do{step} {{")
                    };
                    self.line(depth, &text);
                    self.block(body, depth + 1);
                    let end = if *test_first {
                        "}".to_string()
                    } else {
                        format!("}} while {cond}")
                    };
                    self.line(depth, &end);
                }
                StmtKind::Switch { value, cases } => {
                    let text = format!("switch {} {{", self.expr(value));
                    self.line(depth, &text);
                    for case in cases {
                        let label = case
                            .label
                            .map(|v| format!("case {v}:"))
                            .unwrap_or_else(|| "default:".into());
                        self.line(depth + 1, &label);
                        self.block(&case.body, depth + 2);
                    }
                    self.line(depth, "}");
                }
                StmtKind::Break => self.line(depth, "break;"),
                StmtKind::Continue => self.line(depth, "continue;"),
                StmtKind::Return(value) => {
                    let text = match value {
                        Some(v) => format!("return {};", self.expr(v)),
                        None => "return;".into(),
                    };
                    self.line(depth, &text);
                }
                StmtKind::Block(block) => {
                    self.line(depth, "{");
                    self.block(block, depth + 1);
                    self.line(depth, "}");
                }
                StmtKind::Subgraph { flags, body } => {
                    let text = format!(
                        "subgraph(atomic={}, sequential={}) {{",
                        flags.atomic, flags.sequential
                    );
                    self.line(depth, &text);
                    self.block(body, depth + 1);
                    self.line(depth, "}");
                }
            }
        }
    }

    fn node(&mut self, id: usize, node: &NodeDecl) {
        let params: Vec<String> = node
            .params
            .iter()
            .map(|p| {
                let access = p
                    .access
                    .as_ref()
                    .map(|a| format!("{a} "))
                    .unwrap_or_default();
                let semantic = p.semantic.map(|s| format!(" : {s}")).unwrap_or_default();
                format!(
                    "{access}{} {}{semantic} @{}",
                    self.ty(&p.ty),
                    p.name,
                    p.offset
                )
            })
            .collect();
        let builtin = if node.is_builtin { "builtin " } else { "" };
        let text = format!(
            "{builtin}{} node#{id} {}({})",
            node.queue.name(),
            node.name,
            params.join(", ")
        );
        self.line(0, &text);
        for slot in &node.slots {
            let text = format!(
                "slot {} param {} +{} {:?}",
                slot.name, slot.param, slot.offset_in_param, slot.view
            );
            self.line(1, &text);
        }
    }
}

impl fmt::Display for Module {
    /// The script's declarations (prelude ones are left out).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut printer = Printer {
            module: self,
            function: None,
            out: String::new(),
        };
        for global in self.globals.iter().filter(|g| !g.is_prelude) {
            let value = match (&global.value, &global.init) {
                (Some(v), _) => v.to_string(),
                (None, Some(init)) => printer.expr(init),
                (None, None) => String::new(),
            };
            let text = format!(
                "const {}: {} = {value};",
                global.name,
                printer.ty(&global.ty)
            );
            printer.line(0, &text);
        }
        for (id, node) in self.nodes.iter().enumerate().filter(|(_, n)| !n.is_builtin) {
            printer.node(id, node);
        }
        for function in self.functions.iter().filter(|f| !f.is_prelude) {
            printer.function = Some(function);
            let params: Vec<String> = function
                .params
                .iter()
                .map(|p| {
                    let dir = match p.direction {
                        super::ParamDirection::In => "",
                        super::ParamDirection::Out => "out ",
                        super::ParamDirection::InOut => "inout ",
                    };
                    format!("{dir}{}: {}", printer.local(p.local), printer.ty(&p.ty))
                })
                .collect();
            let kind = match function.kind {
                super::FunctionKind::Entry => "export fn",
                super::FunctionKind::Helper => "fn",
                super::FunctionKind::NodeDefinition => "node fn",
            };
            let subgraph = function
                .subgraph
                .map(|s| {
                    format!(
                        "[subgraph(atomic={}, sequential={})] ",
                        s.atomic, s.sequential
                    )
                })
                .unwrap_or_default();
            let text = format!(
                "{subgraph}{kind} {}({}) -> {} {{",
                function.name,
                params.join(", "),
                printer.ty(&function.ret)
            );
            printer.line(0, &text);
            printer.block(&function.body, 1);
            printer.line(0, "}");
        }
        f.write_str(&printer.out)
    }
}

/// A swizzle as written: `xzy` on vectors and scalars, zero-based members (`_m01_m10`) on
/// matrices, whose components are lanes `row * cols + col`.
fn swizzle_text(base: &Type, components: &[u8]) -> String {
    match base {
        Type::Matrix(_, _, cols) if *cols > 0 => components
            .iter()
            .map(|&c| format!("_m{}{}", c / cols, c % cols))
            .collect(),
        _ => components
            .iter()
            .map(|&c| b"xyzw"[c as usize & 3] as char)
            .collect(),
    }
}
