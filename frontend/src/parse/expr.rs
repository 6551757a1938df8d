//! Lowering of expressions: operator precedence (an explicit-stack shunting-yard, so long operator
//! chains never recurse), casts, postfix chains, literals and the expression depth limit.

use pest::iterators::Pair;

use super::item::first_child;
use super::{Lowered, Lowerer, Rule, MAX_EXPR_DEPTH};
use crate::ast::{
    AssignOp, BinaryOp, Expr, ExprKind, FloatLiteral, FloatSuffix, IntLiteral, IntRadix,
    LongSuffix, PostfixOp, TypeRef, TypeRefKind, UnaryOp,
};
use crate::diagnostic::Diagnostic;
use crate::source::Span;

/// An expression with the depth of its tree (a leaf has depth 1).
pub(crate) struct Tree {
    /// The expression.
    pub(crate) expr: Expr,
    /// The height of the expression tree.
    pub(crate) depth: u32,
}

/// The pairs of one operand seen so far.
#[derive(Default)]
struct OperandParts<'i> {
    /// Prefix operators and casts, in source order.
    prefixes: Vec<Pair<'i, Rule>>,
    /// The primary expression with the postfix operations seen so far.
    tree: Option<Tree>,
}

/// An infix operator waiting on the shunting-yard stack.
pub(crate) enum Infix {
    /// A binary operator.
    Binary(BinaryOp),
    /// An assignment operator.
    Assign(AssignOp),
    /// `? middle :`
    Ternary(Tree),
}

impl Infix {
    /// Binding strength; larger binds tighter.
    fn precedence(&self) -> u8 {
        match self {
            Infix::Assign(_) => 0,
            Infix::Ternary(_) => 1,
            Infix::Binary(op) => match op {
                BinaryOp::LogicalOr => 2,
                BinaryOp::LogicalAnd => 3,
                BinaryOp::BitOr => 4,
                BinaryOp::BitXor => 5,
                BinaryOp::BitAnd => 6,
                BinaryOp::Eq | BinaryOp::Ne => 7,
                BinaryOp::Lt | BinaryOp::Gt | BinaryOp::Le | BinaryOp::Ge => 8,
                BinaryOp::Shl | BinaryOp::Shr => 9,
                BinaryOp::Add | BinaryOp::Sub => 10,
                BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 11,
            },
        }
    }

    /// Whether `a op b op c` groups as `a op (b op c)`.
    fn is_right_assoc(&self) -> bool {
        matches!(self, Infix::Assign(_) | Infix::Ternary(_))
    }
}

impl Lowerer<'_> {
    /// A full expression (`expr` pair, commas included).
    pub(crate) fn expr(&mut self, pair: Pair<'_, Rule>) -> Lowered<Expr> {
        Ok(self.expr_tree(pair)?.expr)
    }

    /// An `assign_expr` pair (no top-level commas).
    pub(crate) fn assign_expr(&mut self, pair: Pair<'_, Rule>) -> Lowered<Expr> {
        Ok(self.assign_tree(pair)?.expr)
    }

    /// An initializer: an `init_list` or `assign_expr` pair.
    pub(crate) fn initializer(&mut self, pair: Pair<'_, Rule>) -> Lowered<Expr> {
        Ok(self.initializer_tree(pair)?.expr)
    }

    /// Builds a node, enforcing [`MAX_EXPR_DEPTH`].
    fn node(&mut self, kind: ExprKind, span: Span, depth: u32) -> Lowered<Tree> {
        if depth > MAX_EXPR_DEPTH {
            return Err(self.abort(
                Diagnostic::error(span, "expression is too deeply nested").with_label(format!(
                    "more than {MAX_EXPR_DEPTH} levels of operators and operands"
                )),
            ));
        }
        Ok(Tree {
            expr: Expr { kind, span },
            depth,
        })
    }

    fn expr_tree(&mut self, pair: Pair<'_, Rule>) -> Lowered<Tree> {
        let mut parts = pair.into_inner();
        let mut acc = self.assign_tree(parts.next().expect("first operand of expr"))?;
        for part in parts {
            let rhs = self.assign_tree(part)?;
            let span = acc.expr.span.to(rhs.expr.span);
            let depth = 1 + acc.depth.max(rhs.depth);
            let kind = ExprKind::Comma {
                lhs: Box::new(acc.expr),
                rhs: Box::new(rhs.expr),
            };
            acc = self.node(kind, span, depth)?;
        }
        Ok(acc)
    }

    fn initializer_tree(&mut self, pair: Pair<'_, Rule>) -> Lowered<Tree> {
        match pair.as_rule() {
            Rule::init_list => self.init_list(pair),
            Rule::assign_expr => self.assign_tree(pair),
            rule => unreachable!("rule initializer: {rule:?}"),
        }
    }

    fn init_list(&mut self, pair: Pair<'_, Rule>) -> Lowered<Tree> {
        let span = self.span(pair.as_span());
        let mut depth = 0;
        let mut elements = Vec::new();
        for element in pair.into_inner() {
            let tree = self.initializer_tree(element)?;
            depth = depth.max(tree.depth);
            elements.push(tree.expr);
        }
        self.node(ExprKind::InitList(elements), span, depth + 1)
    }

    /// Operands and infix operators, grouped by precedence with explicit stacks (the item's
    /// shared [`super::ExprStacks`]: this call only touches the entries above the current tops,
    /// and leaves the stacks as it found them).
    fn assign_tree(&mut self, pair: Pair<'_, Rule>) -> Lowered<Tree> {
        let operator_base = self.stacks.operators.len();
        let mut trailing_list = None;
        let mut operand = OperandParts::default();
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::infix_op | Rule::ternary_op => {
                    let finished = self.finish_operand(std::mem::take(&mut operand))?;
                    self.stacks.operands.push(finished);
                    let incoming = match part.as_rule() {
                        Rule::ternary_op => Infix::Ternary(self.expr_tree(first_child(part))?),
                        _ => infix_operator(part.as_str()),
                    };
                    while self.stacks.operators.len() > operator_base {
                        let top = self.stacks.operators.last().expect("operator on the stack");
                        let reduce = top.precedence() > incoming.precedence()
                            || (top.precedence() == incoming.precedence()
                                && !incoming.is_right_assoc());
                        if !reduce {
                            break;
                        }
                        let op = self.stacks.operators.pop().expect("operator on the stack");
                        self.reduce(op)?;
                    }
                    self.stacks.operators.push(incoming);
                }
                Rule::init_assign_op => {}
                Rule::init_list => trailing_list = Some(self.init_list(part)?),
                _ => self.feed_operand(&mut operand, part)?,
            }
        }
        let last = self.finish_operand(operand)?;
        self.stacks.operands.push(last);
        while self.stacks.operators.len() > operator_base {
            let op = self.stacks.operators.pop().expect("operator on the stack");
            self.reduce(op)?;
        }
        let mut tree = self
            .stacks
            .operands
            .pop()
            .expect("assign_expr has an operand");
        if let Some(list) = trailing_list {
            let span = tree.expr.span.to(list.expr.span);
            let depth = 1 + tree.depth.max(list.depth);
            let kind = ExprKind::Assign {
                op: AssignOp::Assign,
                target: Box::new(tree.expr),
                value: Box::new(list.expr),
            };
            tree = self.node(kind, span, depth)?;
        }
        Ok(tree)
    }

    /// Pops two operands, applies `op` and pushes the result.
    fn reduce(&mut self, op: Infix) -> Lowered<()> {
        let rhs = self.stacks.operands.pop().expect("right operand");
        let lhs = self.stacks.operands.pop().expect("left operand");
        let span = lhs.expr.span.to(rhs.expr.span);
        let (kind, depth) = match op {
            Infix::Binary(op) => (
                ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs.expr),
                    rhs: Box::new(rhs.expr),
                },
                1 + lhs.depth.max(rhs.depth),
            ),
            Infix::Assign(op) => (
                ExprKind::Assign {
                    op,
                    target: Box::new(lhs.expr),
                    value: Box::new(rhs.expr),
                },
                1 + lhs.depth.max(rhs.depth),
            ),
            Infix::Ternary(middle) => (
                ExprKind::Ternary {
                    cond: Box::new(lhs.expr),
                    then_expr: Box::new(middle.expr),
                    else_expr: Box::new(rhs.expr),
                },
                1 + lhs.depth.max(middle.depth).max(rhs.depth),
            ),
        };
        let tree = self.node(kind, span, depth)?;
        self.stacks.operands.push(tree);
        Ok(())
    }

    /// The operand made of `parts` (the pairs of one `operand`: prefixes, a primary, postfixes).
    pub(crate) fn operand<'i>(
        &mut self,
        parts: impl Iterator<Item = Pair<'i, Rule>>,
    ) -> Lowered<Tree> {
        let mut operand = OperandParts::default();
        for part in parts {
            self.feed_operand(&mut operand, part)?;
        }
        self.finish_operand(operand)
    }

    /// Adds one pair of an operand: a prefix is kept for later, a primary starts the tree and a
    /// postfix operation wraps it.
    fn feed_operand<'i>(
        &mut self,
        operand: &mut OperandParts<'i>,
        part: Pair<'i, Rule>,
    ) -> Lowered<()> {
        match part.as_rule() {
            Rule::prefix_op | Rule::builtin_cast | Rule::user_cast => operand.prefixes.push(part),
            Rule::member | Rule::index | Rule::postfix_op => {
                let base = operand
                    .tree
                    .take()
                    .expect("a primary before a postfix operation");
                operand.tree = Some(self.postfix(base, part)?);
            }
            Rule::number
            | Rule::bool_lit
            | Rule::null_lit
            | Rule::sizeof_expr
            | Rule::async_call
            | Rule::construct
            | Rule::name_or_call
            | Rule::paren_expr => operand.tree = Some(self.primary(part)?),
            rule => unreachable!("rule operand: {rule:?}"),
        }
        Ok(())
    }

    /// Applies the prefix operators and casts (innermost last written) to the operand's tree.
    fn finish_operand(&mut self, operand: OperandParts<'_>) -> Lowered<Tree> {
        let mut tree = operand.tree.expect("operand has a primary");
        for prefix in operand.prefixes.into_iter().rev() {
            let span = self.span(prefix.as_span()).to(tree.expr.span);
            let operand = Box::new(tree.expr);
            let kind = match prefix.as_rule() {
                Rule::prefix_op => {
                    let op = match prefix.as_str() {
                        "-" => UnaryOp::Neg,
                        "+" => UnaryOp::Plus,
                        "!" => UnaryOp::Not,
                        "~" => UnaryOp::BitNot,
                        "++" => UnaryOp::PreInc,
                        "--" => UnaryOp::PreDec,
                        other => unreachable!("rule prefix_op: {other}"),
                    };
                    ExprKind::Unary { op, operand }
                }
                _ => ExprKind::Cast {
                    ty: self.cast_type(prefix)?,
                    operand,
                },
            };
            tree = self.node(kind, span, tree.depth + 1)?;
        }
        Ok(tree)
    }

    /// The type inside a `builtin_cast` or `user_cast` pair.
    fn cast_type(&mut self, pair: Pair<'_, Rule>) -> Lowered<TypeRef> {
        let mut is_const = false;
        let mut kind = None;
        let mut span: Option<Span> = None;
        for part in pair.into_inner() {
            let part_span = self.span(part.as_span());
            span = Some(span.map_or(part_span, |s| s.to(part_span)));
            match part.as_rule() {
                Rule::const_kw => is_const = true,
                Rule::ident => kind = Some(TypeRefKind::Named(self.ident(part))),
                _ => kind = Some(self.type_core(part)?),
            }
        }
        Ok(TypeRef {
            is_const,
            kind: kind.expect("cast type"),
            span: span.expect("cast type span"),
        })
    }

    /// A member access, method call, indexing or `++`/`--` applied to `tree`.
    fn postfix(&mut self, tree: Tree, part: Pair<'_, Rule>) -> Lowered<Tree> {
        {
            let span = tree.expr.span.to(self.span(part.as_span()));
            let base = Box::new(tree.expr);
            let mut depth = tree.depth + 1;
            let kind = match part.as_rule() {
                Rule::member => {
                    let mut inner = part.into_inner();
                    let member = self.word(inner.next().expect("member name"));
                    match inner.next() {
                        Some(args) => {
                            let (args, args_depth) = self.call_args(args)?;
                            depth = depth.max(args_depth + 1);
                            ExprKind::MethodCall {
                                receiver: base,
                                method: member,
                                args,
                            }
                        }
                        None => ExprKind::Member { base, member },
                    }
                }
                Rule::index => {
                    let index = self.expr_tree(first_child(part))?;
                    depth = depth.max(index.depth + 1);
                    ExprKind::Index {
                        base,
                        index: Box::new(index.expr),
                    }
                }
                Rule::postfix_op => {
                    let op = if part.as_str() == "++" {
                        PostfixOp::PostInc
                    } else {
                        PostfixOp::PostDec
                    };
                    ExprKind::Postfix { op, operand: base }
                }
                rule => unreachable!("rule postfix: {rule:?}"),
            };
            self.node(kind, span, depth)
        }
    }

    /// `(args)`: the arguments and the deepest argument's depth.
    fn call_args(&mut self, pair: Pair<'_, Rule>) -> Lowered<(Vec<Expr>, u32)> {
        let mut depth = 0;
        let inner = pair.into_inner();
        let mut args = Vec::with_capacity(inner.len());
        for arg in inner {
            let tree = self.assign_tree(arg)?;
            depth = depth.max(tree.depth);
            args.push(tree.expr);
        }
        Ok((args, depth))
    }

    fn primary(&mut self, pair: Pair<'_, Rule>) -> Lowered<Tree> {
        let span = self.span(pair.as_span());
        match pair.as_rule() {
            Rule::number => {
                let kind = match parse_number(pair.as_str()) {
                    Ok(kind) => kind,
                    Err(message) => {
                        self.report(Diagnostic::error(span, message));
                        ExprKind::Int(IntLiteral {
                            value: 0,
                            radix: IntRadix::Decimal,
                            is_unsigned: false,
                            long: LongSuffix::None,
                        })
                    }
                };
                self.node(kind, span, 1)
            }
            Rule::bool_lit => self.node(ExprKind::Bool(pair.as_str() == "true"), span, 1),
            Rule::null_lit => self.node(ExprKind::Null, span, 1),
            Rule::name_or_call | Rule::async_call => {
                let is_async = pair.as_rule() == Rule::async_call;
                let mut inner = pair.into_inner();
                if is_async {
                    let _async_kw = inner.next();
                }
                let callee = self.ident(inner.next().expect("callee"));
                match inner.next() {
                    Some(args) => {
                        let (args, depth) = self.call_args(args)?;
                        let kind = if is_async {
                            ExprKind::AsyncCall { callee, args }
                        } else {
                            ExprKind::Call { callee, args }
                        };
                        self.node(kind, span, depth + 1)
                    }
                    None => self.node(ExprKind::Name(callee), span, 1),
                }
            }
            Rule::construct => {
                let mut inner = pair.into_inner();
                let ty_pair = inner.next().expect("constructed type");
                let ty_span = self.span(ty_pair.as_span());
                let ty = TypeRef {
                    is_const: false,
                    kind: self.type_core(ty_pair)?,
                    span: ty_span,
                };
                let (args, depth) = self.call_args(inner.next().expect("constructor arguments"))?;
                self.node(ExprKind::Construct { ty, args }, span, depth + 1)
            }
            Rule::sizeof_expr => {
                let operand = pair.into_inner().nth(1).expect("sizeof operand");
                match operand.as_rule() {
                    Rule::sizeof_type => {
                        let ty = self.type_ref(first_child(operand))?;
                        self.node(ExprKind::SizeofType(ty), span, 1)
                    }
                    Rule::expr => {
                        let tree = self.expr_tree(operand)?;
                        self.node(
                            ExprKind::SizeofExpr(Box::new(tree.expr)),
                            span,
                            tree.depth + 1,
                        )
                    }
                    rule => unreachable!("rule sizeof_expr: {rule:?}"),
                }
            }
            Rule::paren_expr => {
                let mut tree = self.expr_tree(first_child(pair))?;
                tree.expr.span = span;
                Ok(tree)
            }
            rule => unreachable!("rule primary: {rule:?}"),
        }
    }
}

/// The operator an `infix_op` token stands for.
fn infix_operator(text: &str) -> Infix {
    match text {
        "*" => Infix::Binary(BinaryOp::Mul),
        "/" => Infix::Binary(BinaryOp::Div),
        "%" => Infix::Binary(BinaryOp::Rem),
        "+" => Infix::Binary(BinaryOp::Add),
        "-" => Infix::Binary(BinaryOp::Sub),
        "<<" => Infix::Binary(BinaryOp::Shl),
        ">>" => Infix::Binary(BinaryOp::Shr),
        "<" => Infix::Binary(BinaryOp::Lt),
        ">" => Infix::Binary(BinaryOp::Gt),
        "<=" => Infix::Binary(BinaryOp::Le),
        ">=" => Infix::Binary(BinaryOp::Ge),
        "==" => Infix::Binary(BinaryOp::Eq),
        "!=" => Infix::Binary(BinaryOp::Ne),
        "&" => Infix::Binary(BinaryOp::BitAnd),
        "^" => Infix::Binary(BinaryOp::BitXor),
        "|" => Infix::Binary(BinaryOp::BitOr),
        "&&" => Infix::Binary(BinaryOp::LogicalAnd),
        "||" => Infix::Binary(BinaryOp::LogicalOr),
        "=" => Infix::Assign(AssignOp::Assign),
        "+=" => Infix::Assign(AssignOp::Add),
        "-=" => Infix::Assign(AssignOp::Sub),
        "*=" => Infix::Assign(AssignOp::Mul),
        "/=" => Infix::Assign(AssignOp::Div),
        "%=" => Infix::Assign(AssignOp::Rem),
        "<<=" => Infix::Assign(AssignOp::Shl),
        ">>=" => Infix::Assign(AssignOp::Shr),
        "&=" => Infix::Assign(AssignOp::BitAnd),
        "|=" => Infix::Assign(AssignOp::BitOr),
        "^=" => Infix::Assign(AssignOp::BitXor),
        other => unreachable!("rule infix_op: {other}"),
    }
}

/// Checks and evaluates a numeric literal token as lexed by the `number` rule (digits, an
/// optional fraction and exponent, then any letters as a suffix).
///
/// Errors: `hexadecimal literal has no digits`, `exponent has no digits`,
/// `integer literal is too large`, `invalid digit `9` in octal literal`,
/// `invalid suffix `xyz` on integer literal` / `on floating-point literal`.
pub(crate) fn parse_number(text: &str) -> Result<ExprKind, String> {
    let bytes = text.as_bytes();
    if bytes.len() >= 2 && bytes[0] == b'0' && (bytes[1] == b'x' || bytes[1] == b'X') {
        let digits_end = 2 + bytes[2..]
            .iter()
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        let digits = &text[2..digits_end];
        if digits.is_empty() {
            return Err("hexadecimal literal has no digits".to_string());
        }
        let (is_unsigned, long) = int_suffix(&text[digits_end..])?;
        let value = u64::from_str_radix(digits, 16)
            .map_err(|_| "integer literal is too large".to_string())?;
        return Ok(ExprKind::Int(IntLiteral {
            value,
            radix: IntRadix::Hex,
            is_unsigned,
            long,
        }));
    }
    let int_end = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut end = int_end;
    let mut is_float = false;
    if bytes.get(end) == Some(&b'.') {
        is_float = true;
        end += 1;
        end += bytes[end..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
    }
    if matches!(bytes.get(end), Some(b'e') | Some(b'E')) {
        let mut exp_end = end + 1;
        if matches!(bytes.get(exp_end), Some(b'+') | Some(b'-')) {
            exp_end += 1;
        }
        let exp_digits = bytes[exp_end..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if exp_digits == 0 {
            return Err("exponent has no digits".to_string());
        }
        is_float = true;
        end = exp_end + exp_digits;
    }
    let suffix = &text[end..];
    if !is_float && matches!(suffix, "f" | "F" | "h" | "H") {
        is_float = true;
    }
    if is_float {
        let suffix = match suffix {
            "" => FloatSuffix::None,
            "f" | "F" => FloatSuffix::F,
            "h" | "H" => FloatSuffix::H,
            "l" | "L" => FloatSuffix::L,
            other => {
                return Err(format!(
                    "invalid suffix `{other}` on floating-point literal"
                ))
            }
        };
        let value: f64 = text[..end]
            .parse()
            .map_err(|_| format!("invalid floating-point literal `{text}`"))?;
        return Ok(ExprKind::Float(FloatLiteral { value, suffix }));
    }
    let digits = &text[..int_end];
    let (is_unsigned, long) = int_suffix(suffix)?;
    let (radix, value) = if digits.len() > 1 && digits.starts_with('0') {
        if let Some(bad) = digits.chars().find(|c| *c == '8' || *c == '9') {
            return Err(format!("invalid digit `{bad}` in octal literal"));
        }
        (IntRadix::Octal, u64::from_str_radix(&digits[1..], 8))
    } else {
        (IntRadix::Decimal, digits.parse::<u64>())
    };
    let value = value.map_err(|_| "integer literal is too large".to_string())?;
    Ok(ExprKind::Int(IntLiteral {
        value,
        radix,
        is_unsigned,
        long,
    }))
}

/// The meaning of an integer suffix (`u`, `l`, `ll`, `ul`, `lu`, `ull`, `llu`, any case).
fn int_suffix(suffix: &str) -> Result<(bool, LongSuffix), String> {
    Ok(match suffix.to_ascii_lowercase().as_str() {
        "" => (false, LongSuffix::None),
        "u" => (true, LongSuffix::None),
        "l" => (false, LongSuffix::Long),
        "ul" | "lu" => (true, LongSuffix::Long),
        "ll" => (false, LongSuffix::LongLong),
        "ull" | "llu" => (true, LongSuffix::LongLong),
        _ => return Err(format!("invalid suffix `{suffix}` on integer literal")),
    })
}
