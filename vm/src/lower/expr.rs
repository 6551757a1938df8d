//! Lowering of expressions, places' values, calls and HLSL intrinsics.

use super::{lanes_of, vm_type, FnLower, LowerError, PlaceAddr, Val};
use crate::entities::{FuncId as VmFuncId, NodeDeclId, Reg};
use crate::host::NODE_FLAG_ASYNC;
use crate::inst::Inst;
use crate::ops::{BinaryOp as VmBinary, TernaryOp, UnaryOp as VmUnary};
use crate::types::{Type as VmType, Value};
use rpsl_frontend::hir::{self, Arg, BinaryOp, Callee, ConstValue, ExprKind, UnaryOp};
use rpsl_frontend::source::Span;
use rpsl_frontend::types::{ScalarKind, Type};

/// The binary op named `name.ty` (`add.i32`).
pub(crate) fn find_binary(name: &str, ty: VmType, span: Span) -> Result<VmBinary, LowerError> {
    VmBinary::ALL
        .iter()
        .copied()
        .find(|op| op.mnemonic().split_once('.') == Some((name, ty.name())))
        .ok_or_else(|| LowerError {
            message: format!("no `{name}` on {ty}"),
            span,
        })
}

pub(crate) fn find_unary(name: &str, ty: VmType, span: Span) -> Result<VmUnary, LowerError> {
    VmUnary::ALL
        .iter()
        .copied()
        .find(|op| op.mnemonic().split_once('.') == Some((name, ty.name())))
        .ok_or_else(|| LowerError {
            message: format!("no `{name}` on {ty}"),
            span,
        })
}

pub(crate) fn find_ternary(name: &str, ty: VmType, span: Span) -> Result<TernaryOp, LowerError> {
    TernaryOp::ALL
        .iter()
        .copied()
        .find(|op| op.mnemonic().split_once('.') == Some((name, ty.name())))
        .ok_or_else(|| LowerError {
            message: format!("no `{name}` on {ty}"),
            span,
        })
}

impl FnLower<'_> {
    pub(super) fn lanes(&mut self, expr: &hir::Expr) -> Result<Vec<Reg>, LowerError> {
        match self.lower_expr(expr)? {
            Val::Lanes(lanes) => Ok(lanes),
            Val::Mem(_) => self.error(expr.span, "expected a numeric value"),
        }
    }

    fn constant(&mut self, kind: ScalarKind, value: &ConstValue) -> Reg {
        let ty = vm_type(kind);
        let value = match (ty, value) {
            (VmType::Bool, v) => Value::Bool(v.as_i64().unwrap_or(0) != 0),
            (VmType::F32, ConstValue::Float(f)) => Value::F32(*f as f32),
            (VmType::F64, ConstValue::Float(f)) => Value::F64(*f),
            (VmType::F32, v) => Value::F32(v.as_i64().unwrap_or(0) as f32),
            (VmType::F64, v) => Value::F64(v.as_i64().unwrap_or(0) as f64),
            (ty, v) => Value::from_bits(
                ty,
                v.as_i64().unwrap_or(0) as u64
                    & if ty.is_32bit() {
                        u32::MAX as u64
                    } else {
                        u64::MAX
                    },
            ),
        };
        self.b.constant(value)
    }

    fn flatten_const<'v>(value: &'v ConstValue, out: &mut Vec<&'v ConstValue>) {
        match value {
            ConstValue::Composite(parts) => parts.iter().for_each(|p| Self::flatten_const(p, out)),
            other => out.push(other),
        }
    }

    /// Stores a constant of type `ty` at `addr + offset`.
    fn store_const(
        &mut self,
        ty: &Type,
        value: &ConstValue,
        addr: Reg,
        offset: u32,
        span: Span,
    ) -> Result<(), LowerError> {
        match (ty, value) {
            (Type::Texture | Type::Buffer, _) => {
                let all_ones = self.b.iconst_u32(u32::MAX);
                self.b.store(addr, offset, all_ones);
            }
            (Type::Struct(id), ConstValue::Composite(parts)) => {
                let fields = self
                    .types
                    .struct_def(*id)
                    .map(|s| s.fields.clone())
                    .unwrap_or_default();
                for (field, part) in fields.iter().zip(parts) {
                    self.store_const(&field.ty, part, addr, offset + field.offset, span)?;
                }
            }
            (Type::Array(elem, _), ConstValue::Composite(parts)) => {
                let (size, _) = self.layout(elem, span)?;
                for (i, part) in parts.iter().enumerate() {
                    self.store_const(elem, part, addr, offset + i as u32 * size, span)?;
                }
            }
            _ => {
                let val = self.const_val(ty, value, span)?;
                self.store(ty, addr, offset, &val, span)?;
            }
        }
        Ok(())
    }

    fn const_val(&mut self, ty: &Type, value: &ConstValue, span: Span) -> Result<Val, LowerError> {
        if let Some((kind, n)) = lanes_of(ty) {
            let mut scalars = Vec::new();
            Self::flatten_const(value, &mut scalars);
            let lanes = (0..n)
                .map(|i| {
                    self.constant(
                        kind,
                        scalars
                            .get(i)
                            .or(scalars.first())
                            .copied()
                            .unwrap_or(&ConstValue::Int(0)),
                    )
                })
                .collect();
            return Ok(Val::Lanes(lanes));
        }
        let addr = self.temp(ty, span)?;
        self.store_const(ty, value, addr, 0, span)?;
        Ok(Val::Mem(addr))
    }

    /// Lowers an expression.
    pub(crate) fn lower_expr(&mut self, expr: &hir::Expr) -> Result<Val, LowerError> {
        self.at(expr.span);
        let span = expr.span;
        match &expr.kind {
            ExprKind::Const(value) => self.const_val(&expr.ty, value, span),
            ExprKind::Local(local) => {
                if let Some(regs) = self.local_regs[local.index()].clone() {
                    return self.load_place(&PlaceAddr::Regs(regs), &expr.ty, span);
                }
                let addr = self.local_addr(*local);
                Ok(self.load(&expr.ty, addr, 0))
            }
            ExprKind::Global(global) => {
                let global = self.hir.global(*global);
                match (&global.value, &global.init) {
                    (Some(value), _) => self.const_val(&expr.ty, value, span),
                    // `static const` initializers are pure (constants and intrinsics), so
                    // evaluating one at each use gives the value "evaluated once" would.
                    (None, Some(init)) => self.lower_expr(init),
                    (None, None) => self.error(span, "global without a value"),
                }
            }
            ExprKind::Field { base, field } => {
                let Val::Mem(addr) = self.lower_expr(base)? else {
                    return self.error(span, "field of a non-struct");
                };
                let Type::Struct(id) = base.ty else {
                    return self.error(span, "field of a non-struct");
                };
                let offset = self
                    .types
                    .struct_def(id)
                    .and_then(|s| s.fields.get(*field as usize))
                    .map_or(0, |f| f.offset);
                Ok(self.load(&expr.ty, addr, offset))
            }
            ExprKind::ViewField { base, offset } => {
                let Val::Mem(addr) = self.lower_expr(base)? else {
                    return self.error(span, "field of a non-view");
                };
                Ok(self.load(&expr.ty, addr, *offset))
            }
            ExprKind::Index { base, index, len } => {
                if *len == 0 {
                    return self.error(
                        span,
                        "indexing an unsized array parameter is not supported yet",
                    );
                }
                let (elem, stride) = self.element_of(&base.ty, span)?;
                let base_val = self.lower_expr(base)?;
                let addr = match base_val {
                    Val::Mem(addr) => addr,
                    // Vectors and matrices in registers: spill to a temporary to index them.
                    lanes @ Val::Lanes(_) => {
                        let tmp = self.temp(&base.ty, span)?;
                        self.store(&base.ty, tmp, 0, &lanes, span)?;
                        tmp
                    }
                };
                let index = self.scalar(index)?;
                self.at(span);
                let elem_addr = self.b.index_addr(addr, index, stride, *len);
                Ok(self.load(&elem, elem_addr, 0))
            }
            ExprKind::Swizzle { base, components } => {
                let lanes = self.lanes(base)?;
                Ok(Val::Lanes(
                    components
                        .iter()
                        .map(|&c| lanes.get(c as usize).copied().unwrap_or(lanes[0]))
                        .collect(),
                ))
            }
            ExprKind::Unary { op, operand } => {
                let lanes = self.lanes(operand)?;
                let Some((kind, _)) = lanes_of(&expr.ty) else {
                    return self.error(span, "unary operator on a non-numeric value");
                };
                let ty = vm_type(kind);
                let name = match op {
                    UnaryOp::Neg => "neg",
                    UnaryOp::Not | UnaryOp::BitNot => "not",
                };
                let vm_op = find_unary(name, ty, span)?;
                Ok(Val::Lanes(
                    lanes.into_iter().map(|l| self.b.unary(vm_op, l)).collect(),
                ))
            }
            ExprKind::Binary { op, lhs, rhs } => self.lower_binary(*op, lhs, rhs, span),
            ExprKind::LogicalAnd(lhs, rhs) | ExprKind::LogicalOr(lhs, rhs) => {
                let is_and = matches!(expr.kind, ExprKind::LogicalAnd(..));
                let result = self.b.new_reg(VmType::Bool);
                let left = self.scalar(lhs)?;
                self.b.assign(result, left);
                let rhs_bb = self.b.create_block();
                let join = self.b.create_block();
                if is_and {
                    self.b.branch(left, rhs_bb, join);
                } else {
                    self.b.branch(left, join, rhs_bb);
                }
                self.b.switch_to_block(rhs_bb);
                let right = self.scalar(rhs)?;
                self.b.assign(result, right);
                self.b.jump(join);
                self.b.switch_to_block(join);
                Ok(Val::Lanes(vec![result]))
            }
            ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            } => {
                let c = self.scalar(cond)?;
                let (then_bb, else_bb, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                let result = match lanes_of(&expr.ty) {
                    Some((kind, n)) => {
                        Val::Lanes((0..n).map(|_| self.b.new_reg(vm_type(kind))).collect())
                    }
                    None => Val::Mem(self.temp(&expr.ty, span)?),
                };
                self.b.branch(c, then_bb, else_bb);
                for (block, branch) in [(then_bb, then_expr), (else_bb, else_expr)] {
                    self.b.switch_to_block(block);
                    let val = self.lower_expr(branch)?;
                    match (&result, val) {
                        (Val::Lanes(dst), Val::Lanes(src)) => dst
                            .iter()
                            .zip(&src)
                            .for_each(|(&d, &s)| self.b.assign(d, s)),
                        (Val::Mem(dst), val) => self.store(&expr.ty, *dst, 0, &val, span)?,
                        _ => return self.error(span, "mismatched conditional branches"),
                    }
                    self.b.jump(join);
                }
                self.b.switch_to_block(join);
                Ok(result)
            }
            ExprKind::Select {
                cond,
                then_expr,
                else_expr,
            } => {
                let c = self.lanes(cond)?;
                let a = self.lanes(then_expr)?;
                let b = self.lanes(else_expr)?;
                Ok(Val::Lanes(
                    c.iter()
                        .zip(a.iter().zip(&b))
                        .map(|(&c, (&a, &b))| self.b.select(c, a, b))
                        .collect(),
                ))
            }
            ExprKind::Convert(operand) => self.lower_convert(operand, &expr.ty, span),
            ExprKind::Construct(parts) => {
                let mut lanes = Vec::new();
                for part in parts {
                    lanes.extend(self.lanes(part)?);
                }
                Ok(Val::Lanes(lanes))
            }
            ExprKind::Aggregate(parts) => {
                let addr = self.temp(&expr.ty, span)?;
                let slots: Vec<(Type, u32)> = match &expr.ty {
                    Type::Struct(id) => self
                        .types
                        .struct_def(*id)
                        .map(|s| s.fields.iter().map(|f| (f.ty.clone(), f.offset)).collect())
                        .unwrap_or_default(),
                    Type::Array(elem, _) => {
                        let (size, _) = self.layout(elem, span)?;
                        (0..parts.len() as u32)
                            .map(|i| ((**elem).clone(), i * size))
                            .collect()
                    }
                    _ => return self.error(span, "aggregate of a non-aggregate type"),
                };
                for (part, (ty, offset)) in parts.iter().zip(slots) {
                    let val = self.lower_expr(part)?;
                    self.store(&ty, addr, offset, &val, span)?;
                }
                Ok(Val::Mem(addr))
            }
            ExprKind::Call {
                callee,
                args,
                is_async,
            } => self.lower_call(callee, args, *is_async, &expr.ty, span),
            ExprKind::Assign { place, value } => {
                if matches!(place.ty, Type::Texture | Type::Buffer) {
                    self.naming = Some(self.place_name(place));
                }
                let val = self.lower_expr(value);
                self.naming = None;
                let val = val?;
                let addr = self.place_addr(place)?;
                self.store_place(&addr, &place.ty, &val, span)?;
                Ok(val)
            }
            ExprKind::Update {
                place,
                value,
                returns_old,
            } => {
                let addr = self.place_addr(place)?;
                let old = self.load_place(&addr, &place.ty, span)?;
                // Keep the old value in fresh registers: the store below must not change it.
                let old = match old {
                    Val::Lanes(lanes) => Val::Lanes(
                        lanes
                            .into_iter()
                            .map(|l| {
                                let ty = self.b.reg_type(l).unwrap_or(VmType::I32);
                                let copy = self.b.new_reg(ty);
                                self.b.assign(copy, l);
                                copy
                            })
                            .collect(),
                    ),
                    mem => mem,
                };
                self.place_values.push(old.clone());
                let new = self.lower_expr(value);
                self.place_values.pop();
                let new = new?;
                self.store_place(&addr, &place.ty, &new, span)?;
                Ok(if *returns_old { old } else { new })
            }
            ExprKind::PlaceValue => match self.place_values.last() {
                Some(val) => Ok(val.clone()),
                None => self.error(span, "place value outside an update"),
            },
            ExprKind::Comma(lhs, rhs) => {
                self.lower_expr(lhs)?;
                self.lower_expr(rhs)
            }
            ExprKind::Error => self.error(span, "expression with errors"),
        }
    }

    fn lower_binary(
        &mut self,
        op: BinaryOp,
        lhs: &hir::Expr,
        rhs: &hir::Expr,
        span: Span,
    ) -> Result<Val, LowerError> {
        let a = self.lower_expr(lhs)?;
        let b = self.lower_expr(rhs)?;
        self.at(span);
        match (a, b) {
            (Val::Mem(a), Val::Mem(b)) if matches!(op, BinaryOp::Eq | BinaryOp::Ne) => {
                let (size, _) = self.layout(&lhs.ty, span)?;
                let eq = self.b.new_reg(VmType::Bool);
                self.b.ins(Inst::MemEq {
                    dst: eq,
                    a,
                    b,
                    size,
                });
                Ok(Val::Lanes(vec![if op == BinaryOp::Eq {
                    eq
                } else {
                    self.b.unary(VmUnary::NotBool, eq)
                }]))
            }
            (Val::Lanes(a), Val::Lanes(b)) => {
                let Some((kind, _)) = lanes_of(&lhs.ty) else {
                    return self.error(span, "operator on a non-numeric value");
                };
                let ty = vm_type(kind);
                let name = match op {
                    BinaryOp::Add => "add",
                    BinaryOp::Sub => "sub",
                    BinaryOp::Mul => "mul",
                    BinaryOp::Div => "div",
                    BinaryOp::Rem => "rem",
                    BinaryOp::Shl => "shl",
                    BinaryOp::Shr => "shr",
                    BinaryOp::BitAnd | BinaryOp::LogicalAnd => "and",
                    BinaryOp::BitOr | BinaryOp::LogicalOr => "or",
                    BinaryOp::BitXor => "xor",
                    BinaryOp::Lt => "lt",
                    BinaryOp::Le => "le",
                    BinaryOp::Gt => "gt",
                    BinaryOp::Ge => "ge",
                    BinaryOp::Eq => "eq",
                    BinaryOp::Ne => "ne",
                };
                let vm_op = find_binary(name, ty, span)?;
                let n = a.len().max(b.len());
                let lane = |v: &[Reg], i: usize| v.get(i).copied().unwrap_or(v[0]);
                Ok(Val::Lanes(
                    (0..n)
                        .map(|i| self.b.binary(vm_op, lane(&a, i), lane(&b, i)))
                        .collect(),
                ))
            }
            _ => self.error(span, "operator on mismatched values"),
        }
    }

    pub(super) fn convert_lane(&mut self, lane: Reg, to: ScalarKind) -> Reg {
        let to = vm_type(to);
        if self.b.reg_type(lane) == Some(to) {
            lane
        } else {
            self.b.convert(to, lane)
        }
    }

    fn lower_convert(
        &mut self,
        operand: &hir::Expr,
        to: &Type,
        span: Span,
    ) -> Result<Val, LowerError> {
        if matches!(to, Type::Texture | Type::Buffer) && matches!(operand.ty, Type::Null) {
            return self.const_val(to, &ConstValue::NullView, span);
        }
        let val = self.lower_expr(operand)?;
        match (val, lanes_of(to)) {
            (Val::Lanes(lanes), Some((kind, n))) => {
                let picked: Vec<Reg> = (0..n)
                    .map(|i| lanes.get(i).copied().unwrap_or(lanes[0]))
                    .collect();
                Ok(Val::Lanes(
                    picked
                        .into_iter()
                        .map(|l| self.convert_lane(l, kind))
                        .collect(),
                ))
            }
            (mem @ Val::Mem(_), None) => Ok(mem),
            _ => self.error(span, "unsupported conversion"),
        }
    }

    fn lower_call(
        &mut self,
        callee: &Callee,
        args: &[Arg],
        is_async: bool,
        ty: &Type,
        span: Span,
    ) -> Result<Val, LowerError> {
        match callee {
            Callee::Function(id) => self.call_function(*id, args, ty, span),
            Callee::Node(node) => self.call_node(*node, args, is_async, span),
            Callee::Intrinsic(intrinsic) => self.call_intrinsic(*intrinsic, args, ty, span),
            Callee::Builtin(builtin) => self.call_builtin(*builtin, args, ty, span),
        }
    }

    pub(super) fn in_args(&mut self, args: &[Arg], span: Span) -> Result<Vec<Val>, LowerError> {
        args.iter()
            .map(|arg| match arg {
                Arg::In(expr) => self.lower_expr(expr),
                _ => self.error(span, "built-ins take no out arguments"),
            })
            .collect()
    }

    fn call_function(
        &mut self,
        id: hir::FuncId,
        args: &[Arg],
        ty: &Type,
        span: Span,
    ) -> Result<Val, LowerError> {
        let func = self.hir.function(id);
        let mut regs = Vec::new();
        // `out`/`inout` arguments that are not plain memory (swizzles such as `v.zw`, register
        // locals) go through a temporary: copied in for `inout`, copied back after the call.
        let mut copy_backs = Vec::new();
        for arg in args {
            match arg {
                Arg::In(expr) => match self.lower_expr(expr)? {
                    Val::Lanes(lanes) => regs.extend(lanes),
                    Val::Mem(addr) => regs.push(addr),
                },
                Arg::Out(place) | Arg::InOut(place) => match self.place_addr(place)? {
                    PlaceAddr::Mem {
                        addr,
                        swizzle: None,
                    } => regs.push(addr),
                    target => {
                        let temp = self.temp(&place.ty, place.span)?;
                        if matches!(arg, Arg::InOut(_)) {
                            let current = self.load_place(&target, &place.ty, place.span)?;
                            self.store(&place.ty, temp, 0, &current, place.span)?;
                        }
                        regs.push(temp);
                        copy_backs.push((target, place, temp));
                    }
                },
            }
        }
        self.at(span);
        let result = match lanes_of(ty) {
            None if self.types.layout_of(ty).is_some() => {
                let tmp = self.temp(ty, span)?;
                regs.push(tmp);
                Some(tmp)
            }
            _ => None,
        };
        let (callee, signature) = self.callee_of(id);
        self.subgraph_markers(func.subgraph, true);
        let results = self.b.call(callee, &signature, &regs);
        self.subgraph_markers(func.subgraph, false);
        for (target, place, temp) in copy_backs {
            let value = self.load(&place.ty, temp, 0);
            self.store_place(&target, &place.ty, &value, place.span)?;
        }
        Ok(match result {
            Some(tmp) => Val::Mem(tmp),
            None => Val::Lanes(results),
        })
    }

    /// How a resource created for `place` is named: `g.albedo`, `tmp[2]`, `tmp[..]` (an index
    /// known only at run time).
    fn place_name(&self, place: &hir::Place) -> String {
        let local = &self.func.locals[place.local.index()];
        let mut name = local.name.clone();
        let mut ty = &local.ty;
        for step in &place.path {
            match step {
                hir::Projection::Field(field) => {
                    let Type::Struct(id) = ty else { break };
                    let Some(def) = self.types.struct_def(*id) else {
                        break;
                    };
                    let Some(field) = def.fields.get(*field as usize) else {
                        break;
                    };
                    name.push('.');
                    name.push_str(&field.name);
                    ty = &field.ty;
                }
                hir::Projection::Index { index, .. } => {
                    let Type::Array(element, _) = ty else { break };
                    match &index.kind {
                        ExprKind::Const(hir::ConstValue::Uint(n)) => {
                            name.push_str(&format!("[{n}]"))
                        }
                        ExprKind::Const(hir::ConstValue::Int(n)) => {
                            name.push_str(&format!("[{n}]"))
                        }
                        _ => name.push_str("[..]"),
                    }
                    ty = element;
                }
                hir::Projection::ViewField(_) | hir::Projection::Swizzle(_) => break,
            }
        }
        name
    }

    /// The function a call of `id` reaches and its signature: the function itself, or for an
    /// entry point its helper copy (see `lower_module`).
    fn callee_of(&self, id: hir::FuncId) -> (VmFuncId, crate::Signature) {
        let func = self.hir.function(id);
        if func.kind != hir::FunctionKind::Entry {
            return (
                VmFuncId::from_u32(id.0),
                self.signatures[id.index()].clone(),
            );
        }
        let mut called = self.called_entries.borrow_mut();
        let position = match called.iter().position(|&index| index == id.index()) {
            Some(position) => position,
            None => {
                called.push(id.index());
                called.len() - 1
            }
        };
        let helper = (self.hir.functions.len() + position) as u32;
        (
            VmFuncId::from_u32(helper),
            super::helper_signature(self.types, func),
        )
    }

    fn call_node(
        &mut self,
        node: hir::NodeId,
        args: &[Arg],
        is_async: bool,
        span: Span,
    ) -> Result<Val, LowerError> {
        let decl = self.hir.node(node);
        // An unsized array parameter (`int4 rects[]`, always the last) takes the elements of its
        // fixed-size argument from its offset on: the block grows by the argument's size.
        let value_type = |param: &hir::NodeParam, arg: Option<&Arg>| match (&param.ty, arg) {
            (Type::Array(_, None), Some(Arg::In(expr))) => expr.ty.clone(),
            _ => param.ty.clone(),
        };
        let mut size = 0u32;
        for (index, param) in decl.params.iter().enumerate() {
            let ty = value_type(param, args.get(index));
            let (param_size, _) = self.layout(&ty, span).unwrap_or((0, 4));
            size = size.max(param.offset + param_size);
        }
        // The runtime's `args_size` rounds the block up to 8 bytes; pass the same.
        let size = size.next_multiple_of(8);
        let block = self.frame_slot(size.max(1), 8, span)?;
        let block = self.b.frame_addr(block);
        for (param, arg) in decl.params.iter().zip(args) {
            let Arg::In(expr) = arg else {
                return self.error(span, "node arguments are passed by value");
            };
            let ty = value_type(param, Some(arg));
            let val = self.lower_expr(expr)?;
            self.store(&ty, block, param.offset, &val, span)?;
        }
        self.at(span);
        let flags = if is_async { NODE_FLAG_ASYNC } else { 0 };
        Ok(Val::Lanes(vec![self.b.call_node(
            NodeDeclId::from_u32(node.0),
            block,
            size,
            flags,
        )]))
    }
}
