//! The typed, resolved module (HIR) that the bytecode lowering consumes.
//!
//! Everything the lowering needs is explicit here:
//! - every [`Expr`] has its resolved [`Type`] and a [`Span`];
//! - implicit conversions are [`ExprKind::Convert`] nodes (the operand's type is the source type,
//!   the node's type the target);
//! - calls name a concrete [`Callee`] (a user function, an HLSL intrinsic, a host built-in, or a
//!   node declaration) with default arguments already filled in;
//! - writes go through a [`Place`] (a local and a path of fields, indices and swizzles);
//! - compound assignments and `++`/`--` are [`ExprKind::Update`] whose new value reads the place's
//!   old value through [`ExprKind::PlaceValue`] (the place is evaluated once);
//! - constants (enumerators, folded `static const` globals, `sizeof`, case labels) are
//!   [`ConstValue`]s.
//!
//! Structs and enums (with folded values) live in the module's [`TypeTable`].
//! [`Module`]'s `Display` prints a readable dump (used by tests and `--dump-hir` style tools).

use std::fmt;

pub use crate::access::{AccessDesc, SemanticKind, SystemSemantic};
use crate::builtins::Builtin;
use crate::intrinsics::Intrinsic;
use crate::source::Span;
pub use crate::types::{EnumId, ScalarKind, StructId, Type, TypeTable};
pub use rpsl_types::{QueueClass, ViewKind};

mod dump;

use rpsl_types::define_id;

define_id!(
    /// A function of [`Module::functions`] (user helpers, entry points, node definitions).
    FuncId,
    "fn"
);
define_id!(
    /// A node declaration of [`Module::nodes`].
    NodeId,
    "node"
);
define_id!(
    /// A local variable (parameters included) of one [`Function::locals`].
    LocalId,
    "l"
);
define_id!(
    /// A global constant of [`Module::globals`].
    GlobalId,
    "g"
);

/// A whole checked program: the prelude's declarations and the script's, together.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// Struct and enum definitions (enumerator values folded).
    pub types: TypeTable,
    /// Global constants, indexed by [`GlobalId`].
    pub globals: Vec<Global>,
    /// Functions with bodies, indexed by [`FuncId`].
    pub functions: Vec<Function>,
    /// Node declarations (the script's and the prelude's built-in nodes), indexed by [`NodeId`].
    pub nodes: Vec<NodeDecl>,
    /// The exported entry points, in source order.
    pub entries: Vec<FuncId>,
}

impl Module {
    /// The function with this id.
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }

    /// The node declaration with this id.
    pub fn node(&self, id: NodeId) -> &NodeDecl {
        &self.nodes[id.index()]
    }

    /// The global with this id.
    pub fn global(&self, id: GlobalId) -> &Global {
        &self.globals[id.index()]
    }

    /// The exported entry point with this name.
    pub fn entry(&self, name: &str) -> Option<FuncId> {
        self.entries
            .iter()
            .copied()
            .find(|&id| self.function(id).name == name)
    }

    /// The first function with this name (overloads share a name).
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    /// The node declarations with this name (built-in `clear` has several overloads).
    pub fn nodes_by_name<'a>(&'a self, name: &'a str) -> impl Iterator<Item = NodeId> + 'a {
        self.nodes
            .iter()
            .enumerate()
            .filter(move |(_, n)| n.name == name)
            .map(|(i, _)| NodeId(i as u32))
    }
}

/// A global constant (`static const uint N = 4;`).
#[derive(Clone, Debug)]
pub struct Global {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// The folded value when the initializer is a constant expression.
    pub value: Option<ConstValue>,
    /// The initializer when it could not be folded (e.g. it calls an intrinsic); the VM
    /// evaluates these once, in order, before running an entry point.
    pub init: Option<Expr>,
    /// Where it is declared.
    pub span: Span,
    /// Whether it comes from the prelude.
    pub is_prelude: bool,
}

/// What a function is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// A helper called from script code.
    Helper,
    /// An exported entry point (`export void main(..)`); always returns `void`.
    Entry,
    /// A node declared with a body (`node Upload(..) { return copy_buffer(..); }`): called like a
    /// function, it returns the `node` handle of the node call it makes.
    NodeDefinition,
}

/// Subgraph scheduling flags of `[subgraph(atomic, sequential)]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SubgraphFlags {
    /// `atomic`: no outside node is scheduled between the subgraph's nodes.
    pub atomic: bool,
    /// `sequential`: the subgraph's nodes keep their relative order.
    pub sequential: bool,
}

/// A parameter passing direction (copy-in / copy-out semantics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ParamDirection {
    /// Copied in (the default).
    #[default]
    In,
    /// Copied out when the function returns; starts zeroed.
    Out,
    /// Copied in, and out when the function returns.
    InOut,
}

/// A function with a body.
#[derive(Clone, Debug)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// What kind of function it is.
    pub kind: FunctionKind,
    /// The parameters, in order; each is also a local.
    pub params: Vec<Param>,
    /// The result type (`void`, `node` for node definitions, ...).
    pub ret: Type,
    /// All locals, parameters first (`LocalId(i)` is `params[i]` for `i < params.len()`).
    pub locals: Vec<Local>,
    /// The body.
    pub body: Block,
    /// `[subgraph(..)]` on the function: every call is wrapped in subgraph begin/end markers.
    pub subgraph: Option<SubgraphFlags>,
    /// Whether it comes from the prelude.
    pub is_prelude: bool,
    /// The whole definition.
    pub span: Span,
    /// The name's location.
    pub name_span: Span,
}

/// A function parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// The local that holds it.
    pub local: LocalId,
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// `in`, `out` or `inout`.
    pub direction: ParamDirection,
    /// Access attributes (entry points: the external access state of a resource argument).
    pub access: Option<AccessDesc>,
    /// Where it is declared.
    pub span: Span,
}

/// A local variable (parameters included).
#[derive(Clone, Debug)]
pub struct Local {
    /// Its name as written.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Whether it was declared `const` (assignments are rejected by sema).
    pub is_const: bool,
    /// Where it is declared.
    pub span: Span,
}

/// A node declaration: a pass the render graph records when the script calls it.
#[derive(Clone, Debug)]
pub struct NodeDecl {
    /// Its name (built-in nodes keep their rpsl.h names: `clear`, `copy_texture`, ...).
    pub name: String,
    /// The queue class it needs.
    pub queue: QueueClass,
    /// The parameters, in order.
    pub params: Vec<NodeParam>,
    /// One slot per view reachable from the parameters, in parameter order (arrays and structs
    /// flattened, recursively).
    pub slots: Vec<AccessSlot>,
    /// Whether it is one of the prelude's built-in nodes (the runtime resolves each to the
    /// built-in of its name and parameter types).
    pub is_builtin: bool,
    /// The function that defines it, for a node declared with a body.
    pub definition: Option<FuncId>,
    /// The whole declaration.
    pub span: Span,
}

/// One parameter of a node declaration.
#[derive(Clone, Debug)]
pub struct NodeParam {
    /// Its name.
    pub name: String,
    /// Its type (`texture`, `float4`, `texture[12]`, a struct, ...).
    pub ty: Type,
    /// The access attributes, for parameters that hold views.
    pub access: Option<AccessDesc>,
    /// The system semantic (kind and index), if any; user semantics are dropped.
    pub semantic: Option<SystemSemantic>,
    /// The first render-target slot it binds (explicit `SV_TargetN`, or the lowest free slot for
    /// a render-target view without a semantic); `None` when it is not a render target.
    pub render_target: Option<u32>,
    /// Byte offset of this parameter in the flattened argument block (parameters laid out in
    /// order, each aligned to its type's alignment).
    pub offset: u32,
    /// Where it is declared.
    pub span: Span,
}

/// One view inside a node's arguments.
#[derive(Clone, Debug)]
pub struct AccessSlot {
    /// The parameter index it belongs to.
    pub param: u32,
    /// The path as the graph dump names it: `dst`, `srcs[3]`, `gbuf.albedo`.
    pub name: String,
    /// Byte offset of the view inside its parameter.
    pub offset_in_param: u32,
    /// Texture or buffer.
    pub view: ViewKind,
}

/// A `{ .. }` sequence of statements.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// The statements in order.
    pub stmts: Vec<Stmt>,
}

/// A statement.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What it does.
    pub kind: StmtKind,
    /// Where it is written.
    pub span: Span,
}

/// The kinds of statement.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// An expression evaluated for its effects.
    Expr(Expr),
    /// A local comes into scope; without an initializer it is zeroed (views become `null`).
    Local {
        /// The declared local.
        local: LocalId,
        /// Its initial value, of exactly the local's type.
        init: Option<Expr>,
    },
    /// `if`; the condition is a scalar `bool`.
    If {
        /// A scalar `bool`.
        cond: Expr,
        /// Run when the condition holds.
        then_block: Block,
        /// Run otherwise.
        else_block: Option<Block>,
    },
    /// A loop: `while`, `for` (its init is a separate statement before the loop, inside a
    /// block) and `do .. while`. `continue` jumps to `step`, then to the condition.
    Loop {
        /// A scalar `bool`; `None` loops until `break`/`return`.
        cond: Option<Expr>,
        /// The `for` step expression, evaluated after the body and on `continue`.
        step: Option<Expr>,
        /// The body.
        body: Block,
        /// `true` for `while`/`for` (test before each iteration), `false` for `do .. while`.
        test_first: bool,
    },
    /// `switch`: jump to the case whose label equals the value, else to `default`, else past
    /// the switch. A case's statements fall through into the next case unless they leave.
    Switch {
        /// A scalar `int` or `uint` value.
        value: Expr,
        /// The cases in source order.
        cases: Vec<SwitchCase>,
    },
    /// `break` out of the innermost loop or switch.
    Break,
    /// `continue` the innermost loop.
    Continue,
    /// `return`, with a value (converted to the result type) in non-void functions.
    Return(Option<Expr>),
    /// A nested scope.
    Block(Block),
    /// `[subgraph(..)] { .. }`: subgraph begin/end markers around the block.
    Subgraph {
        /// The flags.
        flags: SubgraphFlags,
        /// The scope.
        body: Block,
    },
}

/// One case of a switch.
#[derive(Clone, Debug)]
pub struct SwitchCase {
    /// `Some(value)` for `case value:` (the folded label, converted to the switch value's type),
    /// `None` for `default:`.
    pub label: Option<i64>,
    /// The statements after the label.
    pub body: Block,
    /// The label and its statements.
    pub span: Span,
}

/// A typed expression.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it computes.
    pub kind: ExprKind,
    /// Its type.
    pub ty: Type,
    /// Where it is written.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A constant of the expression's type (literals, enumerators, folded constants, `sizeof`,
    /// `null`).
    Const(ConstValue),
    /// Reads a local.
    Local(LocalId),
    /// Reads a global constant that could not be folded (folded ones become `Const`).
    Global(GlobalId),
    /// Reads field number `field` of a struct value.
    Field {
        /// A struct value.
        base: Box<Expr>,
        /// The field index in the struct definition.
        field: u32,
    },
    /// Reads a field of a `texture` or `buffer` value (`t.Resource`; `t.SubresourceRange` reads
    /// the struct `SubResourceRange` at byte 16). The expression's type is the field's type.
    ViewField {
        /// A view value.
        base: Box<Expr>,
        /// Byte offset of the field (see `types::TEXTURE_LAYOUT` / `BUFFER_LAYOUT`).
        offset: u32,
    },
    /// `base[index]` on an array, vector or matrix (row); the index is checked against `len` at
    /// run time.
    Index {
        /// The indexed value.
        base: Box<Expr>,
        /// A scalar index: `int` when the script indexes with a signed integer, else `uint`.
        index: Box<Expr>,
        /// The number of elements (0 for an unsized array parameter: checked against the
        /// argument's length by the VM).
        len: u32,
    },
    /// Components of a scalar or vector, by index (`v.zyx` is `[2, 1, 0]`).
    Swizzle {
        /// A scalar or vector value.
        base: Box<Expr>,
        /// Component indices.
        components: Vec<u8>,
    },
    /// A prefix operator; the operand has the expression's type except for `Not`, whose operand
    /// is converted to `bool` of the same shape.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// A binary operator on two operands of the same type (shifts: both of the left operand's
    /// type); comparisons yield `bool` of the operands' shape, other operators the operands' type.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `lhs && rhs` on scalar `bool`s: `rhs` is evaluated only when `lhs` is true.
    LogicalAnd(Box<Expr>, Box<Expr>),
    /// `lhs || rhs` on scalar `bool`s: `rhs` is evaluated only when `lhs` is false.
    LogicalOr(Box<Expr>, Box<Expr>),
    /// `cond ? a : b` with a scalar `bool` condition: only the chosen branch is evaluated.
    Conditional {
        /// A scalar `bool`.
        cond: Box<Expr>,
        /// Value when true.
        then_expr: Box<Expr>,
        /// Value when false.
        else_expr: Box<Expr>,
    },
    /// `cond ? a : b` with a `boolN` condition: component-wise select, everything evaluated.
    Select {
        /// A `bool` vector of the result's shape.
        cond: Box<Expr>,
        /// Components when true.
        then_expr: Box<Expr>,
        /// Components when false.
        else_expr: Box<Expr>,
    },
    /// Converts the operand to the expression's type (numeric kinds and shapes: scalar splat,
    /// vector truncation, enum to int, `null` to a view, literal kinds to concrete kinds).
    Convert(Box<Expr>),
    /// Builds a scalar, vector or matrix from the components of `parts` in order (a scalar gives
    /// one component, a vector its components, a matrix its components row by row); every part
    /// already has the result's component kind.
    Construct(Vec<Expr>),
    /// Builds a struct (fields in order) or an array (elements in order); each element has
    /// exactly the field's / element's type.
    Aggregate(Vec<Expr>),
    /// A call with arguments matching the callee's parameters one for one (defaults filled in).
    Call {
        /// What is called.
        callee: Callee,
        /// The arguments.
        args: Vec<Arg>,
        /// `async` was written (only on node calls and node definitions).
        is_async: bool,
    },
    /// `place = value`; the result is the stored value.
    Assign {
        /// Where to store.
        place: Box<Place>,
        /// The value, of exactly the place's type.
        value: Box<Expr>,
    },
    /// A read-modify-write of `place` (`x += 1`, `++x`, `x--`): the place (including its index
    /// expressions) is evaluated once, its current value is read and made available to `value`
    /// as [`ExprKind::PlaceValue`], then `value` is stored. The result is the new value, or the
    /// old one when `returns_old` (postfix `++`/`--`).
    Update {
        /// Where to read and store.
        place: Box<Place>,
        /// The new value, of exactly the place's type.
        value: Box<Expr>,
        /// Whether the expression's result is the value before the update.
        returns_old: bool,
    },
    /// The old value of the innermost enclosing [`ExprKind::Update`]'s place.
    PlaceValue,
    /// `lhs, rhs`: `lhs` evaluated for effects, then `rhs` is the result.
    Comma(Box<Expr>, Box<Expr>),
    /// Stands for an expression that had an error (never present in a module without errors).
    Error,
}

/// Prefix operators after desugaring (`+x` disappears, `++x` is an [`ExprKind::Update`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Arithmetic negation.
    Neg,
    /// Logical not, component-wise, on `bool`s.
    Not,
    /// Bitwise not on integers.
    BitNot,
}

/// Binary operators (component-wise on vectors and matrices). `&&` and `||` on vectors are
/// component-wise `LogicalAnd`/`LogicalOr` with both sides evaluated; on scalars they are
/// [`ExprKind::LogicalAnd`] / [`ExprKind::LogicalOr`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*` (component-wise; HLSL's matrix product is the `mul` intrinsic)
    Mul,
    /// `/` (integer division by zero is a runtime fault)
    Div,
    /// `%`
    Rem,
    /// `<<` (the shift amount is masked to the bit width, as HLSL does)
    Shl,
    /// `>>` (arithmetic on signed kinds)
    Shr,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==` (on views: compares all fields)
    Eq,
    /// `!=`
    Ne,
    /// Component-wise `&&` on `bool` vectors.
    LogicalAnd,
    /// Component-wise `||` on `bool` vectors.
    LogicalOr,
}

impl BinaryOp {
    /// Whether the result is `bool` (comparisons).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
        )
    }

    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::LogicalAnd => "&&",
            BinaryOp::LogicalOr => "||",
        }
    }
}

/// What a call calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A function with a body (user helper, prelude helper, node definition).
    Function(FuncId),
    /// An HLSL intrinsic computed by the VM (`max`, `asuint`, ...); the arguments already have
    /// the intrinsic overload's parameter types.
    Intrinsic(Intrinsic),
    /// A host built-in (`create_tex2d`, view methods such as `mips`: the receiver is the first
    /// argument).
    Builtin(Builtin),
    /// A node: records a node call, returns its `node` handle.
    Node(NodeId),
}

/// One argument of a call.
#[derive(Clone, Debug)]
pub enum Arg {
    /// An `in` argument, of exactly the parameter's type (except that an array passed to an
    /// unsized array parameter such as `int4 rects[]` keeps its sized type).
    In(Expr),
    /// An `out` argument: the place receives the parameter's final value.
    Out(Place),
    /// An `inout` argument: copied in from the place and back out on return.
    InOut(Place),
}

impl Arg {
    /// The argument's type.
    pub fn ty(&self) -> &Type {
        match self {
            Arg::In(expr) => &expr.ty,
            Arg::Out(place) | Arg::InOut(place) => &place.ty,
        }
    }

    /// The input expression, for `in` arguments.
    pub fn as_in(&self) -> Option<&Expr> {
        match self {
            Arg::In(expr) => Some(expr),
            _ => None,
        }
    }
}

/// A writable location: a local and a path into it.
#[derive(Clone, Debug)]
pub struct Place {
    /// The local written to.
    pub local: LocalId,
    /// Fields, indices and swizzles from the local to the location, outermost first.
    pub path: Vec<Projection>,
    /// The type of the location.
    pub ty: Type,
    /// Where it is written.
    pub span: Span,
}

/// One step of a [`Place`]'s path.
#[derive(Clone, Debug)]
pub enum Projection {
    /// Field number `n` of a struct.
    Field(u32),
    /// A field of a view, by byte offset.
    ViewField(u32),
    /// An element of an array / component of a vector / row of a matrix; checked against `len`
    /// at run time (0: an unsized array parameter).
    Index {
        /// A scalar index: `int` when the script indexes with a signed integer, else `uint`.
        index: Expr,
        /// The number of elements.
        len: u32,
    },
    /// Components of a vector (distinct indices).
    Swizzle(Vec<u8>),
}

/// A constant value.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    /// `bool`.
    Bool(bool),
    /// Signed integer kinds and enums (`int` values are kept in `i32` range).
    Int(i64),
    /// Unsigned integer kinds (`uint` values are kept in `u32` range).
    Uint(u64),
    /// Floating-point kinds (`float` and `half` values are rounded to `f32`).
    Float(f64),
    /// The `null` view (`Resource` = `u32::MAX`, the rest zero).
    NullView,
    /// Components of a vector or matrix (row-major), elements of an array, fields of a struct.
    Composite(Vec<ConstValue>),
}

impl ConstValue {
    /// The value as a signed integer, for integer, bool and float scalars (floats truncate).
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            ConstValue::Bool(b) => Some(b as i64),
            ConstValue::Int(v) => Some(v),
            ConstValue::Uint(v) => Some(v as i64),
            ConstValue::Float(v) => Some(v as i64),
            _ => None,
        }
    }
}

impl fmt::Display for ConstValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstValue::Bool(b) => write!(f, "{b}"),
            ConstValue::Int(v) => write!(f, "{v}"),
            ConstValue::Uint(v) => write!(f, "{v}u"),
            ConstValue::Float(v) => {
                if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
                    write!(f, "{v:.1}")
                } else if (*v as f32) as f64 == *v {
                    // Values rounded to `f32` print in their shortest `f32` form (`0.2`).
                    write!(f, "{}", *v as f32)
                } else {
                    write!(f, "{v}")
                }
            }
            ConstValue::NullView => f.write_str("null"),
            ConstValue::Composite(parts) => {
                f.write_str("{")?;
                for (i, part) in parts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{part}")?;
                }
                f.write_str("}")
            }
        }
    }
}

impl Expr {
    /// An expression of kind `kind` and type `ty`.
    pub fn new(kind: ExprKind, ty: Type, span: Span) -> Expr {
        Expr { kind, ty, span }
    }

    /// The error expression (type [`Type::Error`]).
    pub fn error(span: Span) -> Expr {
        Expr {
            kind: ExprKind::Error,
            ty: Type::Error,
            span,
        }
    }

    /// The constant value, when this is a `Const`.
    pub fn as_const(&self) -> Option<&ConstValue> {
        match &self.kind {
            ExprKind::Const(value) => Some(value),
            _ => None,
        }
    }
}
