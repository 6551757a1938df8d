//! The interpreter: runs verified bytecode with the same results the JIT produces, and turns
//! every fault into a located [`RuntimeError`] instead of a crash.
//!
//! The hot loop dispatches on the compact [`Inst`] array of the current function and keeps no
//! per-instruction allocations: registers of all active calls live in one `u64` stack, frame
//! memory in one byte stack, both reused across runs. It relies on verification (through
//! [`VerifiedModule`]) for register types and indices, block targets and call signatures; memory
//! addresses are still checked at run time against the top of the current frame.

use crate::entities::{FuncId, LocId, RegList};
use crate::eval::{self, ArithFault};
use crate::function::{Function, VerifiedModule};
use crate::host::{
    CallSite, Host, HostError, RpslResourceDesc, ViewBytes, RESOURCE_DESC_SIZE, VIEW_SIZE,
};
use crate::inst::Inst;
use crate::types::{Type, Value};
use std::collections::HashMap;
use std::fmt;

/// Resource limits of one run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Limits {
    /// Steps allowed per run, weighted by work: each loop back-edge (`jump.loop`) charges the
    /// cost of the loop's instructions and each call the cost of the callee's body (about one
    /// step per bytecode instruction, more for host calls and large memory copies; see
    /// [`crate::step_cost`]). A run that needs more ends with
    /// [`RuntimeErrorKind::StepBudgetExhausted`] at the charging instruction, in both engines.
    pub step_budget: u64,
    /// Deepest allowed call nesting (the entry function is depth 1).
    pub max_call_depth: u32,
    /// Bytes of VM memory (I/O block plus all active frames).
    pub max_memory: u32,
}

impl Limits {
    /// The default step budget: a runaway script stops after about a second in the interpreter
    /// (less in the JIT), while real scripts use a small fraction of it.
    pub const DEFAULT_STEP_BUDGET: u64 = 400_000_000;
}

impl Default for Limits {
    /// [`Limits::DEFAULT_STEP_BUDGET`] steps, 64 nested calls, 64 MiB of memory.
    fn default() -> Limits {
        Limits {
            step_budget: Limits::DEFAULT_STEP_BUDGET,
            max_call_depth: 64,
            max_memory: 64 << 20,
        }
    }
}

/// What ended a run early.
#[derive(Clone, PartialEq, Debug)]
pub enum RuntimeErrorKind {
    /// `index_addr` with an index outside `0..len`.
    IndexOutOfBounds {
        /// The index (negative for negative `int` indices).
        index: i64,
        /// The array length.
        len: u32,
    },
    /// Integer division or remainder by zero.
    DivisionByZero,
    /// The step budget ran out (probably an endless loop).
    StepBudgetExhausted {
        /// The budget of the run.
        budget: u64,
    },
    /// Calls nested deeper than the limit.
    CallDepthExceeded {
        /// The limit.
        limit: u32,
    },
    /// Frames need more memory than the limit.
    OutOfMemory {
        /// The limit in bytes.
        limit: u32,
    },
    /// A memory access outside the live memory (not produced by a correct lowering).
    MemoryOutOfBounds {
        /// Address of the access.
        addr: u64,
        /// Bytes accessed.
        size: u32,
    },
    /// `abort(code)`.
    Abort {
        /// The script's code.
        code: i32,
    },
    /// A host call failed.
    Host(HostError),
    /// The entry function or its arguments do not fit (no location).
    BadEntry(String),
}

impl fmt::Display for RuntimeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeErrorKind::IndexOutOfBounds { index, len } => {
                write!(f, "array index {index} is out of bounds for length {len}")
            }
            RuntimeErrorKind::DivisionByZero => write!(f, "integer division by zero"),
            RuntimeErrorKind::StepBudgetExhausted { budget } => {
                write!(f, "step budget of {budget} steps exhausted (endless loop?)")
            }
            RuntimeErrorKind::CallDepthExceeded { limit } => {
                write!(f, "calls nested deeper than {limit}")
            }
            RuntimeErrorKind::OutOfMemory { limit } => {
                write!(f, "script memory exceeds {limit} bytes")
            }
            RuntimeErrorKind::MemoryOutOfBounds { addr, size } => {
                write!(
                    f,
                    "memory access of {size} bytes at address {addr} is out of bounds"
                )
            }
            RuntimeErrorKind::Abort { code } => write!(f, "script aborted with code {code}"),
            RuntimeErrorKind::Host(error) => write!(f, "{error}"),
            RuntimeErrorKind::BadEntry(message) => f.write_str(message),
        }
    }
}

/// A fault that ended a run, with the location of the faulting instruction. The embedder renders
/// it as `PATH:LINE:COL: error: MESSAGE` through the lowering's location table.
#[derive(Clone, PartialEq, Debug)]
pub struct RuntimeError {
    /// What happened.
    pub kind: RuntimeErrorKind,
    /// Where; `None` only for [`RuntimeErrorKind::BadEntry`].
    pub loc: Option<LocId>,
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl std::error::Error for RuntimeError {}

/// A call waiting for its callee to return.
struct Frame {
    func: FuncId,
    return_pc: usize,
    reg_base: usize,
    mem_base: usize,
    mem_top: usize,
    results: RegList,
}

/// Runs bytecode. Keep one per thread and reuse it: its register and memory stacks keep their
/// capacity between runs. A fault leaves it ready for the next run.
pub struct Interpreter {
    limits: Limits,
    regs: Vec<u64>,
    memory: Vec<u8>,
    frames: Vec<Frame>,
    site_counts: HashMap<LocId, u32>,
    results: Vec<u64>,
}

impl Interpreter {
    /// An interpreter with these limits.
    pub fn new(limits: Limits) -> Interpreter {
        Interpreter {
            limits,
            regs: Vec::new(),
            memory: Vec::new(),
            frames: Vec::new(),
            site_counts: HashMap::new(),
            results: Vec::new(),
        }
    }

    /// The limits of each run.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Changes the limits of later runs.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// Runs `func` with `args`. `io` is placed at VM address 0 (so `Value::Addr(0)` arguments
    /// point into it: entry parameters and `out` parameters) and copied back after a successful
    /// run. Returns the function's results.
    pub fn run<H: Host + ?Sized>(
        &mut self,
        module: &VerifiedModule,
        func: FuncId,
        args: &[Value],
        io: &mut [u8],
        host: &mut H,
    ) -> Result<Vec<Value>, RuntimeError> {
        let bad_entry = |message: String| RuntimeError {
            kind: RuntimeErrorKind::BadEntry(message),
            loc: None,
        };
        let function = module
            .function(func)
            .ok_or_else(|| bad_entry(format!("no function {func}")))?;
        let params = &function.signature.params;
        if args.len() != params.len() || args.iter().zip(params).any(|(arg, &ty)| arg.ty() != ty) {
            return Err(bad_entry(format!(
                "arguments do not match the signature of `{}`",
                function.name
            )));
        }
        if io.len() > self.limits.max_memory as usize {
            return Err(bad_entry(format!(
                "I/O block exceeds {} bytes",
                self.limits.max_memory
            )));
        }
        self.memory.clear();
        self.memory.extend_from_slice(io);
        self.frames.clear();
        self.site_counts.clear();
        self.results.clear();
        self.regs.clear();
        self.regs.resize(function.reg_types.len(), 0);
        for (slot, arg) in self.regs.iter_mut().zip(args) {
            *slot = arg.to_bits();
        }
        let mem_base = align16(io.len());
        let mem_top = mem_base + function.frame_size as usize;
        if mem_top > self.limits.max_memory as usize {
            let loc = function.locs.first().copied();
            return Err(RuntimeError {
                kind: RuntimeErrorKind::OutOfMemory {
                    limit: self.limits.max_memory,
                },
                loc,
            });
        }
        self.memory.resize(mem_top, 0);
        self.execute(module, func, mem_base, mem_top, host)?;
        io.copy_from_slice(&self.memory[..io.len()]);
        Ok(self
            .results
            .iter()
            .zip(&function.signature.returns)
            .map(|(&bits, &ty)| Value::from_bits(ty, bits))
            .collect())
    }

    fn next_site(&mut self, loc: LocId) -> CallSite {
        let count = self.site_counts.entry(loc).or_insert(0);
        let site = CallSite::new(loc, *count);
        *count = count.wrapping_add(1);
        site
    }

    /// The hot loop.
    fn execute<H: Host + ?Sized>(
        &mut self,
        module: &VerifiedModule,
        entry: FuncId,
        mut mem_base: usize,
        mut mem_top: usize,
        host: &mut H,
    ) -> Result<(), RuntimeError> {
        let mut func_id = entry;
        let mut function: &Function = &module.functions[entry.index()];
        let mut charges: &[u64] = module.step_charges(entry);
        let mut pc = function.blocks[0].start as usize;
        let mut rb = 0usize;
        let mut steps_left = self.limits.step_budget;

        macro_rules! fault {
            ($kind:expr) => {
                return Err(RuntimeError {
                    kind: $kind,
                    loc: function.locs.get(pc - 1).copied(),
                })
            };
        }
        macro_rules! reg {
            ($r:expr) => {
                self.regs[rb + $r.index()]
            };
        }
        macro_rules! mem_range {
            ($addr:expr, $size:expr) => {{
                let addr = $addr as u64;
                let size = $size as u32;
                let end = addr + size as u64;
                if end > mem_top as u64 {
                    fault!(RuntimeErrorKind::MemoryOutOfBounds { addr, size });
                }
                addr as usize..end as usize
            }};
        }
        // Charges the step cost of the instruction just fetched, or faults when it is over the
        // budget.
        macro_rules! charge_steps {
            () => {{
                let charge = charges[pc - 1];
                if steps_left < charge {
                    fault!(RuntimeErrorKind::StepBudgetExhausted {
                        budget: self.limits.step_budget
                    });
                }
                steps_left -= charge;
            }};
        }
        macro_rules! jump_to {
            ($block:expr) => {
                pc = function.blocks[$block.index()].start as usize
            };
        }

        loop {
            let inst = function.insts[pc];
            pc += 1;
            match inst {
                Inst::Const { dst, bits, .. } => reg!(dst) = bits.to_u64(),
                Inst::Move { dst, src } => reg!(dst) = reg!(src),
                Inst::Unary { op, dst, src } => reg!(dst) = eval::unary(op, reg!(src)),
                Inst::Binary { op, dst, a, b } => match eval::binary(op, reg!(a), reg!(b)) {
                    Ok(value) => reg!(dst) = value,
                    Err(ArithFault::DivisionByZero) => fault!(RuntimeErrorKind::DivisionByZero),
                },
                Inst::Ternary { op, dst, a, b, c } => {
                    reg!(dst) = eval::ternary(op, reg!(a), reg!(b), reg!(c))
                }
                Inst::Convert { to, from, dst, src } => {
                    reg!(dst) = eval::convert(to, from, reg!(src))
                }
                Inst::Bitcast { dst, src, .. } => reg!(dst) = reg!(src),
                Inst::Select { dst, cond, a, b } => {
                    reg!(dst) = if reg!(cond) != 0 { reg!(a) } else { reg!(b) }
                }
                Inst::Vector { shape, dsts, srcs } => {
                    let mut src_bits = [0u64; 8];
                    for (bits, &reg) in src_bits.iter_mut().zip(function.list(srcs)) {
                        *bits = reg!(reg);
                    }
                    let mut dst_bits = [0u64; 4];
                    eval::vector(
                        shape,
                        &src_bits[..(srcs.len as usize).min(8)],
                        &mut dst_bits,
                    );
                    for (&reg, &bits) in function.list(dsts).iter().zip(&dst_bits) {
                        reg!(reg) = bits;
                    }
                }
                Inst::FrameAddr { dst, offset } => {
                    reg!(dst) = (mem_base as u64 + offset as u64) & 0xFFFF_FFFF
                }
                Inst::AddrAdd { dst, base, offset } => {
                    reg!(dst) = (reg!(base) as u32).wrapping_add(offset) as u64
                }
                Inst::IndexAddr {
                    dst,
                    base,
                    index,
                    stride,
                    len,
                } => {
                    let idx = reg!(index) as u32;
                    if idx >= len {
                        let shown = match function.reg_type(index) {
                            Some(Type::I32) => idx as i32 as i64,
                            _ => idx as i64,
                        };
                        fault!(RuntimeErrorKind::IndexOutOfBounds { index: shown, len });
                    }
                    reg!(dst) = (reg!(base) as u32).wrapping_add(idx * stride) as u64;
                }
                Inst::Load {
                    ty,
                    dst,
                    addr,
                    offset,
                } => {
                    let at = reg!(addr) + offset as u64;
                    reg!(dst) = match ty {
                        Type::I64 | Type::U64 | Type::F64 => {
                            let range = mem_range!(at, 8);
                            let mut bytes = [0u8; 8];
                            bytes.copy_from_slice(&self.memory[range]);
                            u64::from_le_bytes(bytes)
                        }
                        _ => {
                            let range = mem_range!(at, 4);
                            let mut bytes = [0u8; 4];
                            bytes.copy_from_slice(&self.memory[range]);
                            let word = u32::from_le_bytes(bytes) as u64;
                            if ty == Type::Bool {
                                (word != 0) as u64
                            } else {
                                word
                            }
                        }
                    };
                }
                Inst::Store {
                    ty,
                    addr,
                    offset,
                    src,
                } => {
                    let at = reg!(addr) + offset as u64;
                    let value = reg!(src);
                    if ty.is_32bit() {
                        let range = mem_range!(at, 4);
                        self.memory[range].copy_from_slice(&(value as u32).to_le_bytes());
                    } else {
                        let range = mem_range!(at, 8);
                        self.memory[range].copy_from_slice(&value.to_le_bytes());
                    }
                }
                Inst::MemCopy {
                    dst_addr,
                    src_addr,
                    size,
                } => {
                    let dst = mem_range!(reg!(dst_addr), size);
                    let src = mem_range!(reg!(src_addr), size);
                    self.memory.copy_within(src, dst.start);
                }
                Inst::MemZero { addr, size } => {
                    let range = mem_range!(reg!(addr), size);
                    self.memory[range].fill(0);
                }
                Inst::MemEq { dst, a, b, size } => {
                    let a = mem_range!(reg!(a), size);
                    let b = mem_range!(reg!(b), size);
                    reg!(dst) = (self.memory[a] == self.memory[b]) as u64;
                }
                Inst::CreateResource { desc, view_out } => {
                    let desc_range = mem_range!(reg!(desc), RESOURCE_DESC_SIZE);
                    let view_range = mem_range!(reg!(view_out), VIEW_SIZE);
                    let mut desc_bytes = [0u8; RESOURCE_DESC_SIZE as usize];
                    desc_bytes.copy_from_slice(&self.memory[desc_range]);
                    let site = self.next_site(function.locs[pc - 1]);
                    match host.create_resource(site, &RpslResourceDesc::from_bytes(&desc_bytes)) {
                        Ok(view) => self.memory[view_range].copy_from_slice(&view),
                        Err(error) => fault!(RuntimeErrorKind::Host(error)),
                    }
                }
                Inst::DescribeResource { view, desc_out } => {
                    let view_range = mem_range!(reg!(view), VIEW_SIZE);
                    let desc_range = mem_range!(reg!(desc_out), RESOURCE_DESC_SIZE);
                    let mut view_bytes: ViewBytes = [0u8; VIEW_SIZE as usize];
                    view_bytes.copy_from_slice(&self.memory[view_range]);
                    let site = self.next_site(function.locs[pc - 1]);
                    match host.describe_resource(site, &view_bytes) {
                        Ok(desc) => self.memory[desc_range].copy_from_slice(&desc.to_bytes()),
                        Err(error) => fault!(RuntimeErrorKind::Host(error)),
                    }
                }
                Inst::CallNode {
                    dst,
                    decl,
                    args,
                    size,
                    flags,
                } => {
                    let range = mem_range!(reg!(args), size);
                    let site = self.next_site(function.locs[pc - 1]);
                    match host.call_node(site, decl, &self.memory[range], flags) {
                        Ok(node) => reg!(dst) = node as u64,
                        Err(error) => fault!(RuntimeErrorKind::Host(error)),
                    }
                }
                Inst::Marker { kind, arg } => {
                    let site = self.next_site(function.locs[pc - 1]);
                    if let Err(error) = host.marker(site, kind, arg) {
                        fault!(RuntimeErrorKind::Host(error));
                    }
                }
                Inst::Call {
                    callee,
                    args,
                    results,
                } => {
                    charge_steps!();
                    if self.frames.len() + 1 >= self.limits.max_call_depth as usize {
                        fault!(RuntimeErrorKind::CallDepthExceeded {
                            limit: self.limits.max_call_depth
                        });
                    }
                    let callee_fn = &module.functions[callee.index()];
                    let new_mem_base = align16(mem_top);
                    let new_mem_top = new_mem_base + callee_fn.frame_size as usize;
                    if new_mem_top > self.limits.max_memory as usize {
                        fault!(RuntimeErrorKind::OutOfMemory {
                            limit: self.limits.max_memory
                        });
                    }
                    let new_rb = rb + function.reg_types.len();
                    let needed = new_rb + callee_fn.reg_types.len();
                    if self.regs.len() < needed {
                        self.regs.resize(needed, 0);
                    }
                    for (i, &arg) in function.list(args).iter().enumerate() {
                        self.regs[new_rb + i] = reg!(arg);
                    }
                    if self.memory.len() < new_mem_top {
                        self.memory.resize(new_mem_top, 0);
                    }
                    self.memory[new_mem_base..new_mem_top].fill(0);
                    self.frames.push(Frame {
                        func: func_id,
                        return_pc: pc,
                        reg_base: rb,
                        mem_base,
                        mem_top,
                        results,
                    });
                    func_id = callee;
                    function = callee_fn;
                    charges = module.step_charges(callee);
                    rb = new_rb;
                    mem_base = new_mem_base;
                    mem_top = new_mem_top;
                    pc = function.blocks[0].start as usize;
                }
                Inst::Jump { target } => jump_to!(target),
                Inst::LoopJump { target } => {
                    charge_steps!();
                    jump_to!(target);
                }
                Inst::Branch {
                    cond,
                    then_block,
                    else_block,
                } => {
                    if reg!(cond) != 0 {
                        jump_to!(then_block)
                    } else {
                        jump_to!(else_block)
                    }
                }
                Inst::Return { values } => {
                    let Some(frame) = self.frames.pop() else {
                        for &reg in function.list(values) {
                            let bits = reg!(reg);
                            self.results.push(bits);
                        }
                        return Ok(());
                    };
                    let caller = &module.functions[frame.func.index()];
                    for (&src, &dst) in function.list(values).iter().zip(caller.list(frame.results))
                    {
                        self.regs[frame.reg_base + dst.index()] = self.regs[rb + src.index()];
                    }
                    func_id = frame.func;
                    function = caller;
                    charges = module.step_charges(frame.func);
                    rb = frame.reg_base;
                    mem_base = frame.mem_base;
                    mem_top = frame.mem_top;
                    pc = frame.return_pc;
                }
                Inst::Abort { code } => fault!(RuntimeErrorKind::Abort {
                    code: reg!(code) as u32 as i32
                }),
            }
        }
    }
}

impl Default for Interpreter {
    fn default() -> Interpreter {
        Interpreter::new(Limits::default())
    }
}

fn align16(offset: usize) -> usize {
    offset.div_ceil(16) * 16
}
