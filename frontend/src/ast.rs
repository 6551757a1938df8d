//! The abstract syntax tree produced by the parser.
//!
//! The tree records the program as written: names are not resolved, types are not checked and
//! constant expressions are not folded (that is the job of `sema`). Every node carries a [`Span`]
//! in the *original* source (mapped back through the preprocessor's source map), so diagnostics
//! about a node point at what the user typed; text produced by a macro expansion maps to the span
//! of the macro invocation.
//!
//! Conventions:
//! - `const` is recorded once, on [`TypeRef::is_const`], wherever it was written (`const uint x`,
//!   `uint const x`, a `const` parameter).
//! - Functional casts and constructors (`float4(v.xy, 0, 1)`, `uint2(a, b)`) are plain
//!   [`ExprKind::Call`]s whose callee is the type name; `sema` decides whether the callee names a
//!   type or a function.
//! - Node declarations are [`Function`]s whose return type is the name `node`
//!   ([`Function::is_node`]), optionally with a [`QueueClass`].
//!
//! `Display` for expressions, types and statements (a fully parenthesized pretty-printer) lives in
//! `crate::parse::print`.

mod name;

pub use name::Name;
pub use rpsl_types::QueueClass;

use crate::source::Span;

/// A name as written, with its location.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name.
    pub name: Name,
    /// Where it was written.
    pub span: Span,
}

/// One parsed translation unit: the items in source order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    /// Top-level items in source order. Items with syntax errors are left out (their errors are
    /// in the diagnostics).
    pub items: Vec<Item>,
}

/// A top-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `struct Name { fields };`
    Struct(StructDef),
    /// `enum Name { A = 1, B, };`
    Enum(EnumDef),
    /// `typedef Type Name[dims];`
    Typedef(Typedef),
    /// A global variable declaration: `static const uint X = 4, Y = 5;`.
    Global(VarDecl),
    /// A function or node declaration or definition.
    Function(Function),
}

impl Item {
    /// The span of the whole item.
    pub fn span(&self) -> Span {
        match self {
            Item::Struct(item) => item.span,
            Item::Enum(item) => item.span,
            Item::Typedef(item) => item.span,
            Item::Global(item) => item.span,
            Item::Function(item) => item.span,
        }
    }
}

/// `struct Name { float4 a; uint b[4]; };`
///
/// `typedef struct [Tag] { .. } Name;` is lowered to a `StructDef` named `Name` (plus a
/// [`Typedef`] of `Name` to the tag when a different tag is given).
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    /// The struct's name.
    pub name: Ident,
    /// The fields in declaration order; `float a, b;` gives two fields.
    pub fields: Vec<StructField>,
    /// The whole definition.
    pub span: Span,
}

/// One field of a struct.
#[derive(Clone, Debug, PartialEq)]
pub struct StructField {
    /// The field's type (without the array dimensions).
    pub ty: TypeRef,
    /// The field's name.
    pub name: Ident,
    /// Array dimensions after the name, outermost first.
    pub array_dims: Vec<ArrayDim>,
    /// An HLSL semantic (`: POSITION`), kept as written.
    pub semantic: Option<Semantic>,
    /// From the type to the end of this declarator.
    pub span: Span,
}

/// `enum Name { A, B = 4, C, };` (a trailing comma is allowed).
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDef {
    /// The enum's name.
    pub name: Ident,
    /// The enumerators in order.
    pub variants: Vec<EnumVariant>,
    /// The whole definition.
    pub span: Span,
}

/// One enumerator: `NAME` or `NAME = expr`.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumVariant {
    /// The enumerator's name.
    pub name: Ident,
    /// The explicit value, if any (a constant expression for `sema` to fold).
    pub value: Option<Expr>,
    /// The enumerator including its value.
    pub span: Span,
}

/// `typedef Type Name[dims];`
#[derive(Clone, Debug, PartialEq)]
pub struct Typedef {
    /// The aliased type.
    pub ty: TypeRef,
    /// The new name.
    pub name: Ident,
    /// Array dimensions after the new name.
    pub array_dims: Vec<ArrayDim>,
    /// The whole declaration.
    pub span: Span,
}

/// A variable declaration with one or more declarators, global or local:
/// `static const uint a = 1, b[2] = {1, 2};`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// Whether `static` was written.
    pub is_static: bool,
    /// The declared type shared by all declarators (`const` is in [`TypeRef::is_const`]).
    pub ty: TypeRef,
    /// The declared names, at least one.
    pub declarators: Vec<Declarator>,
    /// The whole declaration (without the trailing `;` for locals in `for` headers).
    pub span: Span,
}

/// One declared name in a [`VarDecl`]: `name[dims] = init`.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    /// The variable's name.
    pub name: Ident,
    /// Array dimensions, outermost first (`uint a[4][2]` gives `[4, 2]`).
    pub array_dims: Vec<ArrayDim>,
    /// The initializer: an expression or an [`ExprKind::InitList`].
    pub init: Option<Expr>,
    /// From the name to the end of the initializer.
    pub span: Span,
}

/// One array dimension: `[4]` (sized) or `[]` (unsized, only meaningful for parameters and
/// declarations with an initializer list).
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayDim {
    /// The size expression; `None` for `[]`.
    pub size: Option<Expr>,
    /// The brackets and their content.
    pub span: Span,
}

/// An HLSL semantic after `:`, such as `SV_Target3`, kept as written; `sema` splits the
/// trailing index.
#[derive(Clone, Debug, PartialEq)]
pub struct Semantic {
    /// The semantic name as written, with any index (`SV_Target3`).
    pub name: String,
    /// The semantic name (not the colon).
    pub span: Span,
}

/// A function or node: `[attrs] export ret name(params);` or with a body.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Attributes written before the function, e.g. `[subgraph(atomic, sequential)]`.
    pub attributes: Vec<Attribute>,
    /// Whether `export` was written (an entry point).
    pub is_export: bool,
    /// The queue keyword of a node declaration (`graphics`, `compute`, `copy`), if written.
    pub queue: Option<QueueClass>,
    /// The return type as written (`node` for nodes, `void`, ...).
    pub return_type: TypeRef,
    /// The function's name.
    pub name: Ident,
    /// The parameters in order (`(void)` gives none).
    pub params: Vec<Param>,
    /// The body; `None` for a declaration ending in `;`.
    pub body: Option<Block>,
    /// The whole item.
    pub span: Span,
}

impl Function {
    /// Whether this is a node declaration or definition (its return type is `node`).
    pub fn is_node(&self) -> bool {
        matches!(&self.return_type.kind, TypeRefKind::Named(ident) if ident.name == "node")
    }
}

/// A parameter passing direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamDirection {
    /// `in`
    In,
    /// `out`
    Out,
    /// `inout`
    InOut,
}

/// One function or node parameter:
/// `[readwrite(depth)][writeonly(stencil)] out const texture name[4] : SV_Target0 = default`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Attributes in the order written (several `[..]` groups are concatenated; `[a, b]` gives two).
    pub attributes: Vec<Attribute>,
    /// `in`, `out` or `inout` if written (before or after the attributes).
    pub direction: Option<ParamDirection>,
    /// The parameter's type (`const` is in [`TypeRef::is_const`]).
    pub ty: TypeRef,
    /// The parameter's name.
    pub name: Ident,
    /// Array dimensions (`uint a[4]`, `int4 rects[]`).
    pub array_dims: Vec<ArrayDim>,
    /// The semantic after `:` (`SV_Target3`).
    pub semantic: Option<Semantic>,
    /// A default value (`= 1`).
    pub default: Option<Expr>,
    /// The whole parameter.
    pub span: Span,
}

/// An attribute: `name` or `name(args)`, as in `[readonly(ps, cs)]`, `[relaxed]`,
/// `[subgraph(atomic)]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    /// The attribute's name (any word, keywords included).
    pub name: Ident,
    /// The arguments. A bare word such as `ps`, `depth` or `copy` is an [`ExprKind::Name`]
    /// (keywords included); anything else is an ordinary expression.
    pub args: Vec<Expr>,
    /// From the name to the closing parenthesis.
    pub span: Span,
}

/// A type as written.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeRef {
    /// Whether `const` was written with the type.
    pub is_const: bool,
    /// The type's shape.
    pub kind: TypeRefKind,
    /// The type including `const`.
    pub span: Span,
}

/// The shape of a written type.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeRefKind {
    /// A single name: a built-in (`float4`, `uint64_t`, `float4x3`, `texture`, `node`, `void`) or a
    /// user type (`ResourceDesc`). `unsigned int` / `unsigned` / `signed int` appear as one name
    /// with single spaces (`"unsigned int"`).
    Named(Ident),
    /// `vector<elem, len>`.
    Vector {
        /// The element type.
        elem: Box<TypeRef>,
        /// The length (a constant expression).
        len: Box<Expr>,
    },
    /// `matrix<elem, rows, cols>`.
    Matrix {
        /// The element type.
        elem: Box<TypeRef>,
        /// The row count (a constant expression).
        rows: Box<Expr>,
        /// The column count (a constant expression).
        cols: Box<Expr>,
    },
}

/// `{ stmts }`
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The statements in order.
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
}

/// A statement with the attributes written before it (`[subgraph(atomic)] { .. }`,
/// `[unroll] for ..`); `sema` rejects attributes where they mean nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// Attributes written before the statement (usually none).
    pub attributes: Vec<Attribute>,
    /// What the statement is.
    pub kind: StmtKind,
    /// The whole statement, attributes included.
    pub span: Span,
}

/// The kinds of statement.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// A local variable declaration.
    Decl(VarDecl),
    /// An expression followed by `;`.
    Expr(Expr),
    /// `if (cond) then_branch else else_branch`.
    If {
        /// The condition.
        cond: Expr,
        /// The statement run when the condition holds.
        then_branch: Box<Stmt>,
        /// The `else` statement, if any (an `else if` is an `If` here).
        else_branch: Option<Box<Stmt>>,
    },
    /// `for (init; cond; step) body`.
    /// Its parts are boxed: inline they made every statement of the AST three times larger.
    For {
        /// The init clause, if any.
        init: Option<Box<ForInit>>,
        /// The condition, if any.
        cond: Option<Box<Expr>>,
        /// The step expression, if any.
        step: Option<Box<Expr>>,
        /// The loop body.
        body: Box<Stmt>,
    },
    /// `while (cond) body`.
    While {
        /// The condition.
        cond: Expr,
        /// The loop body.
        body: Box<Stmt>,
    },
    /// `do body while (cond);`.
    DoWhile {
        /// The loop body.
        body: Box<Stmt>,
        /// The condition.
        cond: Expr,
    },
    /// `switch (scrutinee) { case ..: stmts  default: stmts }`.
    Switch {
        /// The switched-on value.
        scrutinee: Expr,
        /// The labels in source order; see [`SwitchCase`] for fall-through.
        cases: Vec<SwitchCase>,
    },
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return;` or `return expr;`.
    Return(Option<Expr>),
    /// A nested block.
    Block(Block),
    /// A lone `;`.
    Empty,
}

/// The init clause of a `for`.
#[derive(Clone, Debug, PartialEq)]
pub enum ForInit {
    /// `for (uint i = 0, j = 1; ..)`.
    Decl(VarDecl),
    /// `for (i = 0; ..)`.
    Expr(Expr),
}

/// One label of a `switch` and the statements directly after it, up to the next label.
///
/// Fall-through is explicit: `case 1: case 2: f(); break;` gives a `case 1` with no statements
/// followed by a `case 2` with `f(); break;`. Control falls from one case's statements into the
/// next case's unless they end in `break`/`return`/`continue`.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchCase {
    /// `case expr` or `default`.
    pub label: CaseLabel,
    /// The statements after the label.
    pub body: Vec<Stmt>,
    /// The label and its statements.
    pub span: Span,
}

/// A `switch` label.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseLabel {
    /// `case expr:` (a constant expression for `sema` to fold).
    Case(Expr),
    /// `default:`
    Default,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// The whole expression. A parenthesized expression's span covers its parentheses.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(IntLiteral),
    /// A floating-point literal.
    Float(FloatLiteral),
    /// `true` or `false`.
    Bool(bool),
    /// `null` (the empty resource or node).
    Null,
    /// A name: a variable, enumerator, or (as an attribute argument) a bare word.
    Name(Ident),
    /// A prefix operator applied to an operand.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// A postfix `++` or `--`.
    Postfix {
        /// The operator.
        op: PostfixOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// A binary operator.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// `cond ? then_expr : else_expr`.
    Ternary {
        /// The condition.
        cond: Box<Expr>,
        /// The value when the condition holds.
        then_expr: Box<Expr>,
        /// The value otherwise.
        else_expr: Box<Expr>,
    },
    /// An assignment or compound assignment (`target op= value`).
    Assign {
        /// `=`, `+=`, ...
        op: AssignOp,
        /// The assigned place.
        target: Box<Expr>,
        /// The assigned value (may be an [`ExprKind::InitList`] for `=`).
        value: Box<Expr>,
    },
    /// The comma operator `lhs, rhs` (only where a comma is not a separator).
    Comma {
        /// Evaluated first, value discarded.
        lhs: Box<Expr>,
        /// Evaluated second, the result.
        rhs: Box<Expr>,
    },
    /// A C-style cast `(Type)operand`. See `crate::parse` for the rule that tells casts from
    /// parenthesized expressions.
    Cast {
        /// The target type.
        ty: TypeRef,
        /// The converted value.
        operand: Box<Expr>,
    },
    /// A call `callee(args)`: a function, a node, an intrinsic, or a functional cast /
    /// constructor (`float4(v.xy, 0, 1)`) when `callee` names a type.
    Call {
        /// The called name.
        callee: Ident,
        /// The arguments in order.
        args: Vec<Expr>,
    },
    /// A constructor with a template type: `vector<float, 2>(a, b)`.
    Construct {
        /// The constructed type.
        ty: TypeRef,
        /// The arguments in order.
        args: Vec<Expr>,
    },
    /// A method call `receiver.method(args)` (`t.mips(1)`, `b.desc()`).
    MethodCall {
        /// The value the method is called on.
        receiver: Box<Expr>,
        /// The method's name.
        method: Ident,
        /// The arguments in order.
        args: Vec<Expr>,
    },
    /// Member access or swizzle `base.member` (`v.xy`, `desc.Width`, `0.0f.xxxx`).
    Member {
        /// The accessed value.
        base: Box<Expr>,
        /// The member or swizzle.
        member: Ident,
    },
    /// Indexing `base[index]`.
    Index {
        /// The indexed value.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// `sizeof(Type)`. A lone name in `sizeof(X)` is parsed as a type; `sema` reinterprets it as
    /// a variable when `X` is not a type.
    SizeofType(TypeRef),
    /// `sizeof(expr)` for an operand that is not a plain type.
    SizeofExpr(Box<Expr>),
    /// `async Node(args)`: an asynchronous node call.
    AsyncCall {
        /// The called node.
        callee: Ident,
        /// The arguments in order.
        args: Vec<Expr>,
    },
    /// An initializer list `{a, b, {c, d}}` (in initializers and on the right of `=`).
    InitList(Vec<Expr>),
}

/// An integer literal: `42`, `0xff`, `017`, `7u`, `3ull`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntLiteral {
    /// The value (literals that do not fit in 64 bits are rejected by the parser).
    pub value: u64,
    /// How the digits were written.
    pub radix: IntRadix,
    /// Whether a `u`/`U` suffix was written.
    pub is_unsigned: bool,
    /// The `l`/`ll` suffix, if any.
    pub long: LongSuffix,
}

impl IntLiteral {
    /// Whether the literal was written in hexadecimal.
    pub fn is_hex(&self) -> bool {
        self.radix == IntRadix::Hex
    }
}

/// The base an integer literal was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntRadix {
    /// `42`
    Decimal,
    /// `0x2a`
    Hex,
    /// `052` (a leading zero)
    Octal,
}

/// The length suffix of an integer literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LongSuffix {
    /// No suffix.
    None,
    /// `l` / `L`
    Long,
    /// `ll` / `LL`
    LongLong,
}

/// A floating-point literal: `1.0`, `.5f`, `1e3`, `2.0h`, `1.0L`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatLiteral {
    /// The value.
    pub value: f64,
    /// The suffix.
    pub suffix: FloatSuffix,
}

/// The suffix of a floating-point literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatSuffix {
    /// No suffix (HLSL: `float` when not otherwise constrained).
    None,
    /// `f` / `F`
    F,
    /// `h` / `H` (half)
    H,
    /// `l` / `L` (double)
    L,
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
    /// `++x`
    PreInc,
    /// `--x`
    PreDec,
}

impl UnaryOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Plus => "+",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
            UnaryOp::PreInc => "++",
            UnaryOp::PreDec => "--",
        }
    }
}

/// Postfix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PostfixOp {
    /// `x++`
    PostInc,
    /// `x--`
    PostDec,
}

impl PostfixOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            PostfixOp::PostInc => "++",
            PostfixOp::PostDec => "--",
        }
    }
}

/// Binary operators, from tightest to loosest binding: `* / %`, `+ -`, `<< >>`, `< > <= >=`,
/// `== !=`, `&`, `^`, `|`, `&&`, `||` (all left-associative).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&`
    BitAnd,
    /// `^`
    BitXor,
    /// `|`
    BitOr,
    /// `&&`
    LogicalAnd,
    /// `||`
    LogicalOr,
}

impl BinaryOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Gt => ">",
            BinaryOp::Le => "<=",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::LogicalAnd => "&&",
            BinaryOp::LogicalOr => "||",
        }
    }
}

/// Assignment operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssignOp {
    /// `=`
    Assign,
    /// `+=`
    Add,
    /// `-=`
    Sub,
    /// `*=`
    Mul,
    /// `/=`
    Div,
    /// `%=`
    Rem,
    /// `<<=`
    Shl,
    /// `>>=`
    Shr,
    /// `&=`
    BitAnd,
    /// `|=`
    BitOr,
    /// `^=`
    BitXor,
}

impl AssignOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            AssignOp::Assign => "=",
            AssignOp::Add => "+=",
            AssignOp::Sub => "-=",
            AssignOp::Mul => "*=",
            AssignOp::Div => "/=",
            AssignOp::Rem => "%=",
            AssignOp::Shl => "<<=",
            AssignOp::Shr => ">>=",
            AssignOp::BitAnd => "&=",
            AssignOp::BitOr => "|=",
            AssignOp::BitXor => "^=",
        }
    }

    /// The binary operator a compound assignment applies (`None` for plain `=`).
    pub fn binary_op(self) -> Option<BinaryOp> {
        match self {
            AssignOp::Assign => None,
            AssignOp::Add => Some(BinaryOp::Add),
            AssignOp::Sub => Some(BinaryOp::Sub),
            AssignOp::Mul => Some(BinaryOp::Mul),
            AssignOp::Div => Some(BinaryOp::Div),
            AssignOp::Rem => Some(BinaryOp::Rem),
            AssignOp::Shl => Some(BinaryOp::Shl),
            AssignOp::Shr => Some(BinaryOp::Shr),
            AssignOp::BitAnd => Some(BinaryOp::BitAnd),
            AssignOp::BitOr => Some(BinaryOp::BitOr),
            AssignOp::BitXor => Some(BinaryOp::BitXor),
        }
    }
}
