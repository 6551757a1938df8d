//! Lowering from the frontend's HIR to bytecode.
//!
//! # Mapping
//! - **Values**: scalars, vectors and matrices are lane registers ([`Val::Lanes`], matrices row by
//!   row); enums are `i32`, `node` handles `u32`. Structs, arrays, views and `ResourceDesc` are
//!   bytes in frame memory ([`Val::Mem`], an `addr` register), laid out as the frontend's
//!   `TypeTable::layout_of` says (views 40 bytes, rpsl.h layout).
//! - **Locals** of scalar, vector and matrix type live in registers, one per lane (the JIT makes
//!   them SSA values); the others, and locals that are indexed or passed as `out`/`inout`, own a
//!   frame slot (see [`locals`]). Reading a register local copies it, so a later assignment
//!   cannot change a value already computed.
//! - **Calls**: `in` arguments pass lanes or the address of the aggregate (the callee copies it
//!   into its own slot on entry, which gives value semantics); `out`/`inout` arguments pass the
//!   address of the caller's place; the callee copies its local back on every `return` (copy-out).
//!   Aggregate results are written through a hidden last `addr` parameter.
//! - **Entry points** take one `addr` parameter: the I/O block, where parameter `i` lies at
//!   [`EntryInfo::params`]`[i].offset` (parameters in order, each aligned). `out` parameters are
//!   copied back into it on return.
//! - **Control flow**: blocks are switched to in program order, so `jump`/`br` go forward and
//!   every loop's back-edge is a `jump.loop` (the verifier's cycle rule).
//! - **Node calls** store their arguments at the declaration's parameter offsets in a frame
//!   temporary and `call_node` with the declaration index as [`crate::NodeDeclId`] and
//!   [`crate::host::NODE_FLAG_ASYNC`] for `async`.
//! - **Locations**: every statement and expression sets the builder's location; the table of
//!   spans is returned in [`Lowered::locs`] (`LocId(i)` is `locs[i]`).
//!
//! Not supported yet (reported as [`LowerError`]s, never panics): indexing unsized array
//! parameters, swizzled `out`/`inout` arguments, `buffer.elements()` (needs format sizes), and
//! intrinsics on types the op tables lack (`length` of an integer vector, `firstbithigh` of a
//! 64-bit value).

mod builtins;
mod expr;
mod intrinsics;
mod locals;
mod matrix;
mod place;
mod shading;

use crate::builder::{FunctionBuilder, FunctionBuilderContext};
use crate::entities::{Block, FuncId as VmFuncId, LocId, Reg};
use crate::function::{Module, Signature};
use crate::ops::{MarkerKind, SUBGRAPH_ATOMIC, SUBGRAPH_SEQUENTIAL};
use crate::types::Type as VmType;
use rpsl_frontend::hir::{self, LocalId, ParamDirection, StmtKind, SubgraphFlags};
use rpsl_frontend::source::Span;
use rpsl_frontend::types::{align_up, ScalarKind, Type, TypeTable};
use std::cell::RefCell;
use std::fmt;

/// A construct the lowering cannot handle, at a source location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    /// What is not supported.
    pub message: String,
    /// Where.
    pub span: Span,
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LowerError {}

/// One parameter of an entry point inside its I/O block.
#[derive(Clone, Debug)]
pub struct EntryParam {
    /// Parameter name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Byte offset in the I/O block.
    pub offset: u32,
    /// `in`, `out` or `inout`.
    pub direction: ParamDirection,
}

/// How to call one entry point.
#[derive(Clone, Debug)]
pub struct EntryInfo {
    /// Its name.
    pub name: String,
    /// The bytecode function; call it with `Value::Addr(0)` and the I/O block.
    pub func: VmFuncId,
    /// Where each parameter lies in the I/O block.
    pub params: Vec<EntryParam>,
    /// Size of the I/O block.
    pub io_size: u32,
}

/// The result of lowering a HIR module.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// The bytecode; HIR function `i` is bytecode function `i`. Verify it before running.
    pub module: Module,
    /// Source span of each [`LocId`].
    pub locs: Vec<Span>,
    /// The entry points, in source order.
    pub entries: Vec<EntryInfo>,
    /// Resources named after the variable a declaration creates them for
    /// (`texture gbuffer = create_tex2d(..)`): the [`LocId`] index of the creating instruction
    /// and the variable's name.
    pub resource_names: Vec<(u32, String)>,
}

/// Lowers every function of a checked module.
pub fn lower_module(module: &hir::Module) -> Result<Lowered, Vec<LowerError>> {
    let mut signatures = Vec::with_capacity(module.functions.len());
    for func in &module.functions {
        signatures.push(signature_of(&module.types, func));
    }
    let mut lowered = Lowered {
        module: Module::new(),
        locs: Vec::new(),
        entries: Vec::new(),
        resource_names: Vec::new(),
    };
    let mut errors = Vec::new();
    let mut ctx = FunctionBuilderContext::new();
    let called_entries: RefCell<Vec<usize>> = RefCell::new(Vec::new());
    // Functions `0..count` are the module's. An entry point called from script code runs as a
    // helper there: its body is lowered a second time with the helper calling convention
    // (arguments in registers and addresses instead of the I/O block), as function `count + k`
    // for the k-th entry point called (found while lowering, so the list may grow).
    let count = module.functions.len();
    let mut index = 0;
    while index < count + called_entries.borrow().len() {
        let helper;
        let (func, name, signature) = if index < count {
            let func = &module.functions[index];
            (func, func.name.clone(), signatures[index].clone())
        } else {
            let mut copy = module.functions[called_entries.borrow()[index - count]].clone();
            copy.kind = hir::FunctionKind::Helper;
            helper = copy;
            let signature = helper_signature(&module.types, &helper);
            (&helper, format!("{}.as_helper", helper.name), signature)
        };
        let builder = FunctionBuilder::new(&mut ctx, &name, signature.clone());
        let mut lower = FnLower::new(
            module,
            func,
            builder,
            &signatures,
            &mut lowered.locs,
            &called_entries,
        );
        let result = lower.lower_body();
        lowered
            .resource_names
            .extend(std::mem::take(&mut lower.resource_names));
        match result {
            Ok(()) => {
                let entry = lower.entry.take();
                lowered.module.add_function(lower.b.finish());
                if let Some(mut entry) = entry {
                    entry.func = VmFuncId::from_u32(index as u32);
                    lowered.entries.push(entry);
                }
            }
            Err(error) => {
                errors.push(error);
                lowered.module.declare_function(&name, signature);
            }
        }
        index += 1;
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // Debug builds check the lowering's output right away (the interpreter verifies anyway).
    #[cfg(debug_assertions)]
    if let Err(findings) = crate::verifier::verify_module(&lowered.module) {
        let first = &findings.0[0];
        let span = module
            .functions
            .get(first.func.index())
            .map_or(Span::new(rpsl_frontend::source::FileId(0), 0, 0), |f| {
                f.span
            });
        return Err(vec![LowerError {
            message: format!("internal error: lowered bytecode fails verification: {first}"),
            span,
        }]);
    }
    Ok(lowered)
}

/// The register type of a scalar kind.
pub(crate) fn vm_type(kind: ScalarKind) -> VmType {
    match kind.concrete() {
        ScalarKind::Bool => VmType::Bool,
        ScalarKind::Int | ScalarKind::LiteralInt => VmType::I32,
        ScalarKind::Uint => VmType::U32,
        ScalarKind::Int64 => VmType::I64,
        ScalarKind::Uint64 => VmType::U64,
        ScalarKind::Double => VmType::F64,
        ScalarKind::Half | ScalarKind::Float | ScalarKind::LiteralFloat => VmType::F32,
    }
}

/// The lane kind and count of a type held in registers; `None` for memory types.
pub(crate) fn lanes_of(ty: &Type) -> Option<(ScalarKind, usize)> {
    match ty {
        Type::Scalar(k) => Some((k.concrete(), 1)),
        Type::Vector(k, n) => Some((k.concrete(), *n as usize)),
        Type::Matrix(k, r, c) => Some((k.concrete(), *r as usize * *c as usize)),
        Type::Enum(_) => Some((ScalarKind::Int, 1)),
        Type::Node => Some((ScalarKind::Uint, 1)),
        _ => None,
    }
}

fn signature_of(types: &TypeTable, func: &hir::Function) -> Signature {
    if func.kind == hir::FunctionKind::Entry {
        return Signature::new([VmType::Addr], []);
    }
    helper_signature(types, func)
}

/// The signature of `func` called from script code: `in` lanes in registers, aggregates,
/// `out`/`inout` parameters and an aggregate result by address.
pub(crate) fn helper_signature(types: &TypeTable, func: &hir::Function) -> Signature {
    let mut params = Vec::new();
    for param in &func.params {
        match (param.direction, lanes_of(&param.ty)) {
            (ParamDirection::In, Some((kind, n))) => {
                params.extend(std::iter::repeat_n(vm_type(kind), n))
            }
            _ => params.push(VmType::Addr),
        }
    }
    let mut returns = Vec::new();
    match lanes_of(&func.ret) {
        Some((kind, n)) => returns.extend(std::iter::repeat_n(vm_type(kind), n)),
        None if types.layout_of(&func.ret).is_some() => params.push(VmType::Addr),
        None => {}
    }
    Signature::new(params, returns)
}

/// A lowered value.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    /// Lane registers of a scalar, vector or matrix.
    Lanes(Vec<Reg>),
    /// The address of an aggregate's bytes.
    Mem(Reg),
}

/// Targets of `break` and `continue` in the innermost loop or switch.
struct Jumps {
    break_block: Block,
    continue_block: Option<Block>,
    subgraph_depth: usize,
}

/// A place resolved to an address (and the components of a final swizzle).
pub(crate) enum PlaceAddr {
    /// Bytes at an address, with the components of a final swizzle.
    Mem { addr: Reg, swizzle: Option<Vec<u8>> },
    /// The lane registers of a register local, in the place's component order.
    Regs(Vec<Reg>),
}

pub(crate) struct FnLower<'a> {
    pub(crate) hir: &'a hir::Module,
    pub(crate) types: &'a TypeTable,
    func: &'a hir::Function,
    pub(crate) b: FunctionBuilder<'a>,
    pub(crate) signatures: &'a [Signature],
    /// Entry points called from script code, in the order their helper copies get function ids
    /// (after the module's functions).
    pub(crate) called_entries: &'a RefCell<Vec<usize>>,
    locs: &'a mut Vec<Span>,
    last_span: Option<Span>,
    local_slots: Vec<u32>,
    /// Lane registers of the locals kept in registers (see [`locals`]).
    pub(crate) local_regs: Vec<Option<Vec<Reg>>>,
    /// `out`/`inout` parameters (and entry `out` parameters): local and destination address.
    copy_out: Vec<(LocalId, Reg)>,
    sret: Option<Reg>,
    jumps: Vec<Jumps>,
    subgraph_depth: usize,
    pub(crate) place_values: Vec<Val>,
    entry: Option<EntryInfo>,
    /// The variable a view-typed declaration being lowered initialises: the resource its
    /// initialiser creates is named after it.
    pub(crate) naming: Option<String>,
    /// Resource names by creating location (see [`Lowered::resource_names`]).
    pub(crate) resource_names: Vec<(u32, String)>,
}

impl<'a> FnLower<'a> {
    fn new(
        hir: &'a hir::Module,
        func: &'a hir::Function,
        b: FunctionBuilder<'a>,
        signatures: &'a [Signature],
        locs: &'a mut Vec<Span>,
        called_entries: &'a RefCell<Vec<usize>>,
    ) -> FnLower<'a> {
        FnLower {
            hir,
            types: &hir.types,
            func,
            b,
            signatures,
            called_entries,
            locs,
            last_span: None,
            local_slots: Vec::new(),
            local_regs: Vec::new(),
            copy_out: Vec::new(),
            sret: None,
            jumps: Vec::new(),
            subgraph_depth: 0,
            place_values: Vec::new(),
            entry: None,
            naming: None,
            resource_names: Vec::new(),
        }
    }

    pub(crate) fn error<T>(&self, span: Span, message: impl Into<String>) -> Result<T, LowerError> {
        Err(LowerError {
            message: message.into(),
            span,
        })
    }

    /// The location of the next instructions.
    pub(crate) fn current_loc(&self) -> u32 {
        self.locs.len().saturating_sub(1) as u32
    }

    /// Sets the location of the next instructions.
    pub(crate) fn at(&mut self, span: Span) {
        if self.last_span != Some(span) {
            self.last_span = Some(span);
            self.b.set_loc(LocId::from_u32(self.locs.len() as u32));
            self.locs.push(span);
        }
    }

    pub(crate) fn layout(&self, ty: &Type, span: Span) -> Result<(u32, u32), LowerError> {
        match self.types.layout_of(ty) {
            Some(layout) => Ok((layout.size, layout.align)),
            None => self.error(span, "type has no memory layout"),
        }
    }

    /// Reserves `size` bytes of frame memory for the value at `span`; an error there when the
    /// function's frame would pass the verifier's [`crate::verifier::MAX_FRAME_SIZE`].
    pub(crate) fn frame_slot(
        &mut self,
        size: u32,
        align: u32,
        span: Span,
    ) -> Result<u32, LowerError> {
        let offset = self.b.alloc_frame(size, align);
        let limit = crate::verifier::MAX_FRAME_SIZE;
        if self.b.frame_size() > limit {
            return self.error(
                span,
                format!(
                    "the locals and temporaries of `{}` need more than {limit} bytes (16 MiB); \
                     this value takes {size}",
                    self.func.name
                ),
            );
        }
        Ok(offset)
    }

    /// A zeroed frame temporary of `ty`'s size.
    pub(crate) fn temp(&mut self, ty: &Type, span: Span) -> Result<Reg, LowerError> {
        let (size, align) = self.layout(ty, span)?;
        let offset = self.frame_slot(size, align.max(4), span)?;
        let addr = self.b.frame_addr(offset);
        if size > 0 {
            self.b.ins(crate::Inst::MemZero { addr, size });
        }
        Ok(addr)
    }

    /// Reads a value of type `ty` stored at `addr + offset`.
    pub(crate) fn load(&mut self, ty: &Type, addr: Reg, offset: u32) -> Val {
        match lanes_of(ty) {
            Some((kind, n)) => {
                let size = kind.size();
                Val::Lanes(
                    (0..n as u32)
                        .map(|i| self.b.load(vm_type(kind), addr, offset + i * size))
                        .collect(),
                )
            }
            None if offset == 0 => Val::Mem(addr),
            None => Val::Mem(self.b.addr_add(addr, offset)),
        }
    }

    /// Writes `val` (of type `ty`) at `addr + offset`.
    pub(crate) fn store(
        &mut self,
        ty: &Type,
        addr: Reg,
        offset: u32,
        val: &Val,
        span: Span,
    ) -> Result<(), LowerError> {
        match val {
            Val::Lanes(lanes) => {
                let size = lanes_of(ty).map_or(4, |(kind, _)| kind.size());
                for (i, &lane) in lanes.iter().enumerate() {
                    self.b.store(addr, offset + i as u32 * size, lane);
                }
            }
            Val::Mem(src) => {
                let (size, _) = self.layout(ty, span)?;
                let dst = if offset == 0 {
                    addr
                } else {
                    self.b.addr_add(addr, offset)
                };
                self.b.mem_copy(dst, *src, size);
            }
        }
        Ok(())
    }

    /// Number of lane registers a promoted `in` parameter occupies.
    fn signatures_params_of(&self, param: &hir::Param) -> u32 {
        lanes_of(&param.ty).map_or(1, |(_, n)| n as u32)
    }

    pub(crate) fn local_addr(&mut self, local: LocalId) -> Reg {
        let offset = self.local_slots.get(local.index()).copied().unwrap_or(0);
        self.b.frame_addr(offset)
    }

    fn lower_body(&mut self) -> Result<(), LowerError> {
        let entry_block = self.b.create_block();
        self.b.switch_to_block(entry_block);
        self.at(self.func.span);
        let addressed = locals::addressed_locals(self.func);
        for (local, &in_memory) in self.func.locals.iter().zip(&addressed) {
            match lanes_of(&local.ty) {
                Some((kind, n)) if !in_memory => {
                    let regs = (0..n).map(|_| self.b.new_reg(vm_type(kind))).collect();
                    self.local_regs.push(Some(regs));
                    self.local_slots.push(0);
                    self.check_reg_limit(local.span)?;
                }
                _ => {
                    let (size, align) = self.layout(&local.ty, local.span).unwrap_or((0, 4));
                    let offset = self.frame_slot(size, align.max(4), local.span)?;
                    self.local_regs.push(None);
                    self.local_slots.push(offset);
                }
            }
        }
        if self.func.kind == hir::FunctionKind::Entry {
            self.bind_entry_params()?;
        } else {
            self.bind_params()?;
        }
        self.lower_block(&self.func.body)?;
        if !self.b.is_terminated() {
            self.emit_return(None, self.func.span)?;
        }
        self.check_reg_limit(self.func.span)
    }

    /// An error at `span` once the function has more registers than the verifier's
    /// [`crate::verifier::MAX_REGS`]: checked after every statement, so it points at the first
    /// statement (or local) that passes the limit.
    fn check_reg_limit(&self, span: Span) -> Result<(), LowerError> {
        let limit = crate::verifier::MAX_REGS;
        if self.b.reg_count() <= limit {
            return Ok(());
        }
        self.error(
            span,
            format!(
                "`{}` is too long to compile: its values need more than {limit} registers, \
                 the bytecode's limit for one function; split it into smaller functions",
                self.func.name
            ),
        )
    }

    fn bind_entry_params(&mut self) -> Result<(), LowerError> {
        let io = self.b.param(0);
        let mut offset = 0u32;
        let mut params = Vec::new();
        for param in &self.func.params {
            let (size, align) = self.layout(&param.ty, param.span)?;
            offset = align_up(offset, align);
            if let Some(regs) = self.local_regs[param.local.index()].clone() {
                // An `in` parameter kept in registers: read its lanes from the I/O block.
                if let Val::Lanes(lanes) = self.load(&param.ty, io, offset) {
                    for (&dst, &src) in regs.iter().zip(&lanes) {
                        self.b.assign(dst, src);
                    }
                }
                params.push(EntryParam {
                    name: param.name.clone(),
                    ty: param.ty.clone(),
                    offset,
                    direction: param.direction,
                });
                offset += size;
                continue;
            }
            let slot = self.local_addr(param.local);
            let src = if offset == 0 {
                io
            } else {
                self.b.addr_add(io, offset)
            };
            if param.direction != ParamDirection::Out {
                self.b.mem_copy(slot, src, size);
            }
            if param.direction != ParamDirection::In {
                self.copy_out.push((param.local, src));
            }
            params.push(EntryParam {
                name: param.name.clone(),
                ty: param.ty.clone(),
                offset,
                direction: param.direction,
            });
            offset += size;
        }
        let io_size = align_up(offset, 8);
        self.entry = Some(EntryInfo {
            name: self.func.name.clone(),
            func: VmFuncId::from_u32(0),
            params,
            io_size,
        });
        Ok(())
    }

    fn bind_params(&mut self) -> Result<(), LowerError> {
        let mut next = 0u32;
        for param in &self.func.params {
            if let Some(regs) = self.local_regs[param.local.index()].clone() {
                for (i, reg) in regs.into_iter().enumerate() {
                    self.b.assign(reg, crate::Reg::from_u32(next + i as u32));
                }
                next += self.signatures_params_of(param);
                continue;
            }
            let slot = self.local_addr(param.local);
            match (param.direction, lanes_of(&param.ty)) {
                (ParamDirection::In, Some((kind, n))) => {
                    for i in 0..n as u32 {
                        self.b
                            .store(slot, i * kind.size(), crate::Reg::from_u32(next + i));
                    }
                    next += n as u32;
                }
                (direction, _) => {
                    let src = crate::Reg::from_u32(next);
                    next += 1;
                    let (size, _) = self.layout(&param.ty, param.span)?;
                    if direction != ParamDirection::Out {
                        self.b.mem_copy(slot, src, size);
                    }
                    if direction != ParamDirection::In {
                        self.copy_out.push((param.local, src));
                    }
                }
            }
        }
        if lanes_of(&self.func.ret).is_none() && self.types.layout_of(&self.func.ret).is_some() {
            self.sret = Some(crate::Reg::from_u32(next));
        }
        Ok(())
    }

    fn lower_block(&mut self, block: &hir::Block) -> Result<(), LowerError> {
        for stmt in &block.stmts {
            if self.b.is_terminated() {
                // Code after `return`/`break`/`continue`: unreachable, but still well-formed.
                let dead = self.b.create_block();
                self.b.switch_to_block(dead);
            }
            self.lower_stmt(stmt)?;
            self.check_reg_limit(stmt.span)?;
        }
        Ok(())
    }

    fn lower_stmt(&mut self, stmt: &hir::Stmt) -> Result<(), LowerError> {
        self.at(stmt.span);
        match &stmt.kind {
            StmtKind::Expr(expr) => {
                self.lower_expr(expr)?;
            }
            StmtKind::Local { local, init } => {
                let ty = &self.func.locals[local.index()].ty;
                if let Some(regs) = self.local_regs[local.index()].clone() {
                    let lanes = match init {
                        Some(init) => match self.lower_expr(init)? {
                            Val::Lanes(lanes) => lanes,
                            Val::Mem(_) => {
                                return self.error(stmt.span, "expected a numeric value")
                            }
                        },
                        None => regs
                            .iter()
                            .map(|&r| {
                                let ty = self.b.reg_type(r).unwrap_or(VmType::I32);
                                self.b.constant(crate::Value::from_bits(ty, 0))
                            })
                            .collect(),
                    };
                    for (&dst, &src) in regs.iter().zip(&lanes) {
                        self.b.assign(dst, src);
                    }
                    return Ok(());
                }
                let slot = self.local_addr(*local);
                match init {
                    Some(init) => {
                        let declared = &self.func.locals[local.index()];
                        if matches!(declared.ty, Type::Texture | Type::Buffer) {
                            self.naming = Some(declared.name.clone());
                        }
                        let val = self.lower_expr(init);
                        self.naming = None;
                        let val = val?;
                        self.at(stmt.span);
                        self.store(ty, slot, 0, &val, stmt.span)?;
                    }
                    None => {
                        let (size, _) = self.layout(ty, stmt.span)?;
                        if size > 0 {
                            self.b.ins(crate::Inst::MemZero { addr: slot, size });
                        }
                        if matches!(ty, Type::Texture | Type::Buffer) {
                            let all_ones = self.b.iconst_u32(u32::MAX);
                            self.b.store(slot, 0, all_ones);
                        }
                    }
                }
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let cond = self.scalar(cond)?;
                let then_bb = self.b.create_block();
                let else_bb = self.b.create_block();
                let join = if else_block.is_some() {
                    self.b.create_block()
                } else {
                    else_bb
                };
                self.b.branch(cond, then_bb, else_bb);
                self.b.switch_to_block(then_bb);
                self.lower_block(then_block)?;
                if !self.b.is_terminated() {
                    self.b.jump(join);
                }
                if let Some(else_block) = else_block {
                    self.b.switch_to_block(else_bb);
                    self.lower_block(else_block)?;
                    if !self.b.is_terminated() {
                        self.b.jump(join);
                    }
                }
                self.b.switch_to_block(join);
            }
            StmtKind::Loop {
                cond,
                step,
                body,
                test_first,
            } => self.lower_loop(cond.as_ref(), step.as_ref(), body, *test_first)?,
            StmtKind::Switch { value, cases } => self.lower_switch(value, cases)?,
            StmtKind::Break | StmtKind::Continue => {
                let Some(jumps) = self.jumps.last() else {
                    return self.error(stmt.span, "`break` outside a loop");
                };
                let target = match stmt.kind {
                    StmtKind::Break => Some(jumps.break_block),
                    _ => jumps.continue_block,
                };
                let Some(target) = target else {
                    return self.error(stmt.span, "`continue` outside a loop");
                };
                for _ in jumps.subgraph_depth..self.subgraph_depth {
                    self.b.marker(MarkerKind::SubgraphEnd, 0);
                }
                self.b.jump(target);
            }
            StmtKind::Return(value) => self.emit_return(value.as_ref(), stmt.span)?,
            StmtKind::Block(block) => self.lower_block(block)?,
            StmtKind::Subgraph { flags, body } => {
                self.b
                    .marker(MarkerKind::SubgraphBegin, subgraph_bits(*flags));
                self.subgraph_depth += 1;
                self.lower_block(body)?;
                self.subgraph_depth -= 1;
                if !self.b.is_terminated() {
                    self.at(stmt.span);
                    self.b.marker(MarkerKind::SubgraphEnd, 0);
                }
            }
        }
        Ok(())
    }

    fn lower_loop(
        &mut self,
        cond: Option<&hir::Expr>,
        step: Option<&hir::Expr>,
        body: &hir::Block,
        test_first: bool,
    ) -> Result<(), LowerError> {
        let header = self.b.create_block();
        let body_bb = self.b.create_block();
        let step_bb = self.b.create_block();
        let latch = self.b.create_block();
        let exit = self.b.create_block();
        self.b.jump(header);
        self.b.switch_to_block(header);
        match (cond, test_first) {
            (Some(cond), true) => {
                let c = self.scalar(cond)?;
                self.b.branch(c, body_bb, exit);
            }
            _ => self.b.jump(body_bb),
        }
        self.b.switch_to_block(body_bb);
        self.jumps.push(Jumps {
            break_block: exit,
            continue_block: Some(step_bb),
            subgraph_depth: self.subgraph_depth,
        });
        self.lower_block(body)?;
        self.jumps.pop();
        if !self.b.is_terminated() {
            self.b.jump(step_bb);
        }
        self.b.switch_to_block(step_bb);
        if let Some(step) = step {
            self.lower_expr(step)?;
        }
        match (cond, test_first) {
            (Some(cond), false) => {
                let c = self.scalar(cond)?;
                self.b.branch(c, latch, exit);
            }
            _ => self.b.jump(latch),
        }
        self.b.switch_to_block(latch);
        self.b.loop_jump(header);
        self.b.switch_to_block(exit);
        Ok(())
    }

    fn lower_switch(
        &mut self,
        value: &hir::Expr,
        cases: &[hir::SwitchCase],
    ) -> Result<(), LowerError> {
        let scrutinee = self.scalar(value)?;
        let ty = self.b.reg_type(scrutinee).unwrap_or(VmType::I32);
        let bodies: Vec<Block> = cases.iter().map(|_| self.b.create_block()).collect();
        let exit = self.b.create_block();
        for (case, &body) in cases.iter().zip(&bodies) {
            let Some(label) = case.label else { continue };
            let constant = self
                .b
                .constant(crate::Value::from_bits(ty, label as u64 & mask_of(ty)));
            let eq = self.b.binary(
                expr::find_binary("eq", ty, value.span)?,
                scrutinee,
                constant,
            );
            let next = self.b.create_block();
            self.b.branch(eq, body, next);
            self.b.switch_to_block(next);
        }
        let default = cases
            .iter()
            .position(|c| c.label.is_none())
            .map_or(exit, |i| bodies[i]);
        self.b.jump(default);
        self.jumps.push(Jumps {
            break_block: exit,
            continue_block: self.jumps.last().and_then(|j| j.continue_block),
            subgraph_depth: self.subgraph_depth,
        });
        for (i, (case, &body)) in cases.iter().zip(&bodies).enumerate() {
            self.b.switch_to_block(body);
            self.lower_block(&case.body)?;
            if !self.b.is_terminated() {
                self.b.jump(bodies.get(i + 1).copied().unwrap_or(exit));
            }
        }
        self.jumps.pop();
        self.b.switch_to_block(exit);
        Ok(())
    }

    fn emit_return(&mut self, value: Option<&hir::Expr>, span: Span) -> Result<(), LowerError> {
        let val = match value {
            Some(value) => Some(self.lower_expr(value)?),
            None => None,
        };
        self.at(span);
        for _ in 0..self.subgraph_depth {
            self.b.marker(MarkerKind::SubgraphEnd, 0);
        }
        for (local, dst) in self.copy_out.clone() {
            let ty = self.func.locals[local.index()].ty.clone();
            let (size, _) = self.layout(&ty, span)?;
            let src = self.local_addr(local);
            self.b.mem_copy(dst, src, size);
        }
        let ret_ty = self.func.ret.clone();
        match (val, self.sret) {
            (Some(Val::Lanes(lanes)), _) => self.b.ret(&lanes),
            (Some(val @ Val::Mem(_)), Some(sret)) => {
                self.store(&ret_ty, sret, 0, &val, span)?;
                self.b.ret(&[]);
            }
            (None, _) => {
                // Falling off the end of a non-void function (sema rejects it) returns zeroes.
                let zeros: Vec<Reg> = match lanes_of(&ret_ty) {
                    Some((kind, n)) if ret_ty != Type::Void => (0..n)
                        .map(|_| self.b.constant(crate::Value::from_bits(vm_type(kind), 0)))
                        .collect(),
                    _ => Vec::new(),
                };
                self.b.ret(&zeros);
            }
            (Some(Val::Mem(_)), None) => {
                return self.error(span, "aggregate return without a result slot")
            }
        }
        Ok(())
    }

    /// Evaluates a scalar expression into one register.
    pub(crate) fn scalar(&mut self, expr: &hir::Expr) -> Result<Reg, LowerError> {
        match self.lower_expr(expr)? {
            Val::Lanes(lanes) if lanes.len() == 1 => Ok(lanes[0]),
            _ => self.error(expr.span, "expected a scalar value"),
        }
    }

    pub(crate) fn subgraph_markers(&mut self, flags: Option<SubgraphFlags>, begin: bool) {
        if let Some(flags) = flags {
            if begin {
                self.b
                    .marker(MarkerKind::SubgraphBegin, subgraph_bits(flags));
            } else {
                self.b.marker(MarkerKind::SubgraphEnd, 0);
            }
        }
    }
}

fn subgraph_bits(flags: SubgraphFlags) -> u32 {
    (flags.atomic as u32 * SUBGRAPH_ATOMIC) | (flags.sequential as u32 * SUBGRAPH_SEQUENTIAL)
}

fn mask_of(ty: VmType) -> u64 {
    if ty.is_32bit() {
        u32::MAX as u64
    } else {
        u64::MAX
    }
}
