//! The run context the generated code works on, and the `extern "C"` helpers it calls: faults,
//! frame entry, memory block ops, host calls and the shared evaluators of [`crate::eval`].
//!
//! Generated code reads four fields of [`RunContext`] at fixed offsets (memory pointer, steps
//! left, call-depth limit, memory length); everything else is only touched by the helpers here. No helper may
//! unwind: the ones that run embedder code or index memory catch panics and record them as a
//! host fault.

use crate::entities::{LocId, NodeDeclId};
use crate::eval;
use crate::host::{
    CallSite, Host, HostError, RpslResourceDesc, ViewBytes, RESOURCE_DESC_SIZE, VIEW_SIZE,
};
use crate::inst::VectorShape;
use crate::interp::{Limits, RuntimeError, RuntimeErrorKind};
use crate::ops::{BinaryOp, MarkerKind, TernaryOp, UnaryOp, VectorOp};
use crate::types::Type;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Fault kinds and sites as generated code passes them to [`jit_fault`].
pub(crate) mod fault_kind {
    /// `IndexOutOfBounds { index: a, len: b }`.
    pub const INDEX_OUT_OF_BOUNDS: i32 = 0;
    /// `DivisionByZero`.
    pub const DIVISION_BY_ZERO: i32 = 1;
    /// `StepBudgetExhausted`.
    pub const STEP_BUDGET: i32 = 2;
    /// `CallDepthExceeded`.
    pub const CALL_DEPTH: i32 = 3;
    /// `MemoryOutOfBounds { addr: a, size: b }`.
    pub const MEMORY_OUT_OF_BOUNDS: i32 = 5;
    /// `Abort { code: a }`.
    pub const ABORT: i32 = 6;

    /// Bit where the kind starts in a fault site.
    const KIND_SHIFT: u32 = 40;

    /// A fault site: the kind and the loc (`-1` for none) in one `i64`, as generated code
    /// passes them to [`super::jit_fault`].
    pub const fn site(kind: i32, loc: i64) -> i64 {
        ((kind as i64) << KIND_SHIFT) | (loc + 1)
    }

    /// The kind and loc of a fault site.
    pub const fn unpack(site: i64) -> (i32, i64) {
        (
            (site >> KIND_SHIFT) as i32,
            (site & ((1 << KIND_SHIFT) - 1)) - 1,
        )
    }
}

/// The state of one run, shared by generated code and helpers.
#[repr(C)]
pub(crate) struct RunContext<'h> {
    /// Base of VM memory (read by generated code; reloaded after every call).
    pub mem_ptr: *mut u8,
    /// Steps left (read before and written after calls and returns by generated code).
    pub steps_left: u64,
    /// The call-depth limit, widened.
    pub max_call_depth: u64,
    /// `memory.len()`, kept up to date wherever memory grows (read by generated code: a callee
    /// frame that ends within it is zeroed inline, without [`jit_enter_frame`]). Never more than
    /// the memory limit.
    pub mem_len: u64,
    /// VM memory: the I/O block then the frames.
    pub memory: Vec<u8>,
    /// The limits of the run.
    pub limits: Limits,
    /// The first fault of the run.
    pub fault: Option<RuntimeError>,
    /// The embedder: the address of the run's `&mut H` (see [`host`]), for the host-call
    /// helpers of [`Self::host_fns`].
    pub host: *mut (),
    /// The host-call helpers instantiated for the run's host type (generated code calls them
    /// through these addresses, so each calls the host's methods directly).
    pub host_fns: HostFns,
    /// Host calls so far per location (for [`CallSite::key`]).
    pub site_counts: SiteCounts,
    /// The host borrowed for the run.
    pub borrow: std::marker::PhantomData<&'h mut ()>,
}

/// The addresses of the host-call helpers of one host type `H` ([`HostFns::of`]).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct HostFns {
    /// [`jit_create_resource`]`::<H>`.
    pub create_resource: usize,
    /// [`jit_describe_resource`]`::<H>`.
    pub describe_resource: usize,
    /// [`jit_call_node`]`::<H>`.
    pub call_node: usize,
    /// [`jit_marker`]`::<H>`.
    pub marker: usize,
}

type Ctx = *mut RunContext<'static>;

impl HostFns {
    /// The helpers for host type `H`.
    pub(crate) fn of<H: Host + ?Sized>() -> HostFns {
        HostFns {
            create_resource: jit_create_resource::<H>
                as extern "C" fn(Ctx, i64, i64, i64, i64) -> i32
                as usize,
            describe_resource: jit_describe_resource::<H>
                as extern "C" fn(Ctx, i64, i64, i64, i64) -> i32
                as usize,
            call_node: jit_call_node::<H> as extern "C" fn(Ctx, i64, i64, i64, i64, i64, i64) -> i64
                as usize,
            marker: jit_marker::<H> as extern "C" fn(Ctx, i64, i64, i64) -> i32 as usize,
        }
    }
}

/// The run's host, from [`RunContext::host`].
///
/// # Safety
/// `host` must be the address of a live `&mut H` (the runner sets it for the `H` whose
/// [`HostFns`] the run's code calls), and no other reference to that host may be in use while the
/// result is.
unsafe fn host<'a, H: Host + ?Sized>(host: *mut ()) -> &'a mut H {
    // SAFETY: as the caller guarantees.
    unsafe { &mut **host.cast::<&mut H>() }
}

/// Host calls so far per location in the current run, for [`CallSite::key`]: one count per
/// [`LocId`], all zeroed when a run starts (the table is kept across runs; it is sized up front
/// for the module's locations and grows beyond them only if a call comes from another).
#[derive(Clone, Debug, Default)]
pub(crate) struct SiteCounts {
    /// Count per loc index.
    counts: Vec<u32>,
}

impl SiteCounts {
    /// Starts a new run: every count reads as zero again, and the table covers `locs`
    /// locations.
    pub(crate) fn start_run(&mut self, locs: usize) {
        self.counts.fill(0);
        if self.counts.len() < locs {
            self.counts.resize(locs, 0);
        }
    }

    /// The number of earlier calls at `loc` this run, counting this one for the next call.
    #[inline(always)]
    pub(crate) fn next(&mut self, loc: LocId) -> u32 {
        let index = loc.as_u32() as usize;
        match self.counts.get_mut(index) {
            Some(count) => {
                let earlier = *count;
                *count = earlier.wrapping_add(1);
                earlier
            }
            None => self.next_after_growing(index),
        }
    }

    /// [`Self::next`] for a location past the table.
    #[cold]
    fn next_after_growing(&mut self, index: usize) -> u32 {
        self.counts.resize(index + 1, 0);
        self.counts[index] = 1;
        0
    }
}

impl RunContext<'_> {
    fn record(&mut self, kind: RuntimeErrorKind, loc: i64) {
        if self.fault.is_none() {
            self.fault = Some(RuntimeError {
                kind,
                loc: loc_of(loc),
            });
        }
    }

    #[inline(always)]
    fn next_site(&mut self, loc: i64) -> CallSite {
        let loc = loc_of(loc).unwrap_or(LocId::from_u32(0));
        CallSite::new(loc, self.site_counts.next(loc))
    }

    /// The range `addr..addr + size` when it lies below `mem_top`, else records the interpreter's
    /// `MemoryOutOfBounds` fault. `mem_top` (the running frame's top) never passes the end of
    /// memory (entering a frame grows memory to its top), so the range indexes memory; were it
    /// ever not so, indexing would panic, which [`guarded`] turns into a located fault.
    #[inline(always)]
    fn range(
        &mut self,
        addr: i64,
        size: u32,
        mem_top: i64,
        loc: i64,
    ) -> Option<std::ops::Range<usize>> {
        let addr = addr as u64;
        let end = addr + size as u64;
        if end > mem_top as u64 {
            self.record(RuntimeErrorKind::MemoryOutOfBounds { addr, size }, loc);
            return None;
        }
        Some(addr as usize..end as usize)
    }
}

fn loc_of(loc: i64) -> Option<LocId> {
    (loc >= 0).then(|| LocId::from_u32(loc as u32))
}

/// Runs a helper body, turning a panic into a recorded host fault; `failed` is returned then.
fn guarded<T>(
    ctx: *mut RunContext<'_>,
    loc: i64,
    failed: T,
    body: impl FnOnce(&mut RunContext<'_>) -> T,
) -> T {
    // SAFETY: generated code passes the context pointer the runner gave it; it is live and not
    // aliased for the duration of the run (the runner does not touch it while code runs).
    let ctx = unsafe { &mut *ctx };
    match catch_unwind(AssertUnwindSafe(|| body(&mut *ctx))) {
        Ok(value) => value,
        Err(_) => {
            ctx.record(
                RuntimeErrorKind::Host(HostError::new("host call panicked")),
                loc,
            );
            failed
        }
    }
}

/// Records a fault raised by generated code.
pub(crate) extern "C" fn jit_fault(ctx: *mut RunContext<'_>, site: i64, a: i64, b: i64) {
    // SAFETY: see `guarded`.
    let ctx = unsafe { &mut *ctx };
    let (kind, loc) = fault_kind::unpack(site);
    let limits = ctx.limits;
    let kind = match kind {
        fault_kind::INDEX_OUT_OF_BOUNDS => RuntimeErrorKind::IndexOutOfBounds {
            index: a,
            len: b as u32,
        },
        fault_kind::DIVISION_BY_ZERO => RuntimeErrorKind::DivisionByZero,
        fault_kind::STEP_BUDGET => RuntimeErrorKind::StepBudgetExhausted {
            budget: limits.step_budget,
        },
        fault_kind::CALL_DEPTH => RuntimeErrorKind::CallDepthExceeded {
            limit: limits.max_call_depth,
        },
        fault_kind::MEMORY_OUT_OF_BOUNDS => RuntimeErrorKind::MemoryOutOfBounds {
            addr: a as u64,
            size: b as u32,
        },
        _ => RuntimeErrorKind::Abort { code: a as i32 },
    };
    ctx.record(kind, loc);
}

/// Enters a callee frame at `base` of `size` bytes: checks the memory limit, grows and zeroes
/// memory. Returns the (possibly moved) memory pointer, or null after recording `OutOfMemory`.
pub(crate) extern "C" fn jit_enter_frame(
    ctx: *mut RunContext<'_>,
    base: i64,
    size: i64,
    loc: i64,
) -> *mut u8 {
    guarded(ctx, loc, std::ptr::null_mut(), |ctx| {
        let base = base as usize;
        let top = base + size as usize;
        if top > ctx.limits.max_memory as usize {
            let limit = ctx.limits.max_memory;
            ctx.record(RuntimeErrorKind::OutOfMemory { limit }, loc);
            return std::ptr::null_mut();
        }
        if ctx.memory.len() < top {
            ctx.memory.resize(top, 0);
            ctx.mem_len = top as u64;
        }
        ctx.memory[base..top].fill(0);
        ctx.mem_ptr = ctx.memory.as_mut_ptr();
        ctx.mem_ptr
    })
}

/// `mem_copy`; returns 0, or 1 after recording a fault.
pub(crate) extern "C" fn jit_mem_copy(
    ctx: *mut RunContext<'_>,
    dst: i64,
    src: i64,
    size: i64,
    mem_top: i64,
    loc: i64,
) -> i32 {
    guarded(ctx, loc, 1, |ctx| {
        let Some(dst) = ctx.range(dst, size as u32, mem_top, loc) else {
            return 1;
        };
        let Some(src) = ctx.range(src, size as u32, mem_top, loc) else {
            return 1;
        };
        ctx.memory.copy_within(src, dst.start);
        0
    })
}

/// `mem_zero`; returns 0, or 1 after recording a fault.
pub(crate) extern "C" fn jit_mem_zero(
    ctx: *mut RunContext<'_>,
    addr: i64,
    size: i64,
    mem_top: i64,
    loc: i64,
) -> i32 {
    guarded(ctx, loc, 1, |ctx| {
        let Some(range) = ctx.range(addr, size as u32, mem_top, loc) else {
            return 1;
        };
        ctx.memory[range].fill(0);
        0
    })
}

/// `mem_eq`; returns 0 or 1, or 2 after recording a fault.
pub(crate) extern "C" fn jit_mem_eq(
    ctx: *mut RunContext<'_>,
    a: i64,
    b: i64,
    size: i64,
    mem_top: i64,
    loc: i64,
) -> i32 {
    guarded(ctx, loc, 2, |ctx| {
        let Some(a) = ctx.range(a, size as u32, mem_top, loc) else {
            return 2;
        };
        let Some(b) = ctx.range(b, size as u32, mem_top, loc) else {
            return 2;
        };
        (ctx.memory[a] == ctx.memory[b]) as i32
    })
}

/// `create_resource`; returns 0, or 1 after recording a fault.
pub(crate) extern "C" fn jit_create_resource<H: Host + ?Sized>(
    ctx: *mut RunContext<'_>,
    desc: i64,
    view_out: i64,
    mem_top: i64,
    loc: i64,
) -> i32 {
    guarded(ctx, loc, 1, |ctx| {
        let Some(desc_range) = ctx.range(desc, RESOURCE_DESC_SIZE, mem_top, loc) else {
            return 1;
        };
        let Some(view_range) = ctx.range(view_out, VIEW_SIZE, mem_top, loc) else {
            return 1;
        };
        let desc = match ctx.memory[desc_range].try_into() {
            Ok(bytes) => RpslResourceDesc::from_bytes(bytes),
            Err(_) => return 1,
        };
        let site = ctx.next_site(loc);
        // SAFETY: the runner set `ctx.host` for this `H`; the host is used only here.
        match unsafe { host::<H>(ctx.host) }.create_resource(site, &desc) {
            Ok(view) => {
                ctx.memory[view_range].copy_from_slice(&view);
                0
            }
            Err(error) => {
                ctx.record(RuntimeErrorKind::Host(error), loc);
                1
            }
        }
    })
}

/// `describe_resource`; returns 0, or 1 after recording a fault.
pub(crate) extern "C" fn jit_describe_resource<H: Host + ?Sized>(
    ctx: *mut RunContext<'_>,
    view: i64,
    desc_out: i64,
    mem_top: i64,
    loc: i64,
) -> i32 {
    guarded(ctx, loc, 1, |ctx| {
        let Some(view_range) = ctx.range(view, VIEW_SIZE, mem_top, loc) else {
            return 1;
        };
        let Some(desc_range) = ctx.range(desc_out, RESOURCE_DESC_SIZE, mem_top, loc) else {
            return 1;
        };
        let mut view_bytes: ViewBytes = [0u8; VIEW_SIZE as usize];
        view_bytes.copy_from_slice(&ctx.memory[view_range]);
        let site = ctx.next_site(loc);
        // SAFETY: as in `jit_create_resource`.
        match unsafe { host::<H>(ctx.host) }.describe_resource(site, &view_bytes) {
            Ok(desc) => {
                ctx.memory[desc_range].copy_from_slice(&desc.to_bytes());
                0
            }
            Err(error) => {
                ctx.record(RuntimeErrorKind::Host(error), loc);
                1
            }
        }
    })
}

/// `call_node`; returns the node id, or -1 after recording a fault.
pub(crate) extern "C" fn jit_call_node<H: Host + ?Sized>(
    ctx: *mut RunContext<'_>,
    decl: i64,
    args: i64,
    size: i64,
    flags: i64,
    mem_top: i64,
    loc: i64,
) -> i64 {
    guarded(ctx, loc, -1, |ctx| {
        let Some(range) = ctx.range(args, size as u32, mem_top, loc) else {
            return -1;
        };
        let site = ctx.next_site(loc);
        let decl = NodeDeclId::from_u32(decl as u32);
        // SAFETY: as in `jit_create_resource`.
        let host = unsafe { host::<H>(ctx.host) };
        match host.call_node(site, decl, &ctx.memory[range], flags as u32) {
            Ok(node) => node as i64,
            Err(error) => {
                ctx.record(RuntimeErrorKind::Host(error), loc);
                -1
            }
        }
    })
}

/// A scheduler marker; returns 0, or 1 after recording a fault.
pub(crate) extern "C" fn jit_marker<H: Host + ?Sized>(
    ctx: *mut RunContext<'_>,
    kind: i64,
    arg: i64,
    loc: i64,
) -> i32 {
    guarded(ctx, loc, 1, |ctx| {
        let Some(kind) = MarkerKind::from_u8(kind as u8) else {
            ctx.record(
                RuntimeErrorKind::Host(HostError::new("bad marker kind")),
                loc,
            );
            return 1;
        };
        let site = ctx.next_site(loc);
        // SAFETY: as in `jit_create_resource`.
        match unsafe { host::<H>(ctx.host) }.marker(site, kind, arg as u32) {
            Ok(()) => 0,
            Err(error) => {
                ctx.record(RuntimeErrorKind::Host(error), loc);
                1
            }
        }
    })
}

/// [`eval::unary`] on register bits (`op` is the encoding byte).
pub(crate) extern "C" fn jit_unary(op: i32, x: i64) -> i64 {
    match UnaryOp::from_u8(op as u8) {
        Some(op) => eval::unary(op, x as u64) as i64,
        None => 0,
    }
}

/// [`eval::binary`] on register bits, for ops that cannot fault.
pub(crate) extern "C" fn jit_binary(op: i32, a: i64, b: i64) -> i64 {
    match BinaryOp::from_u8(op as u8).map(|op| eval::binary(op, a as u64, b as u64)) {
        Some(Ok(bits)) => bits as i64,
        _ => 0,
    }
}

/// [`eval::ternary`] on register bits.
pub(crate) extern "C" fn jit_ternary(op: i32, a: i64, b: i64, c: i64) -> i64 {
    match TernaryOp::from_u8(op as u8) {
        Some(op) => eval::ternary(op, a as u64, b as u64, c as u64) as i64,
        None => 0,
    }
}

/// [`jit_unary`] on an `f32` op (operand and result `f32`), without the bit conversions.
pub(crate) extern "C" fn jit_unary_f32(op: i32, x: f32) -> f32 {
    f32::from_bits(jit_unary(op, x.to_bits() as i64) as u32)
}

/// [`jit_unary`] on an `f64` op (operand and result `f64`).
pub(crate) extern "C" fn jit_unary_f64(op: i32, x: f64) -> f64 {
    f64::from_bits(jit_unary(op, x.to_bits() as i64) as u64)
}

/// [`jit_binary`] on an `f32` op (operands and result `f32`).
pub(crate) extern "C" fn jit_binary_f32(op: i32, a: f32, b: f32) -> f32 {
    f32::from_bits(jit_binary(op, a.to_bits() as i64, b.to_bits() as i64) as u32)
}

/// [`jit_binary`] on an `f64` op (operands and result `f64`).
pub(crate) extern "C" fn jit_binary_f64(op: i32, a: f64, b: f64) -> f64 {
    f64::from_bits(jit_binary(op, a.to_bits() as i64, b.to_bits() as i64) as u64)
}

/// [`jit_ternary`] on an `f32` op (operands and result `f32`).
pub(crate) extern "C" fn jit_ternary_f32(op: i32, a: f32, b: f32, c: f32) -> f32 {
    let bits = jit_ternary(
        op,
        a.to_bits() as i64,
        b.to_bits() as i64,
        c.to_bits() as i64,
    );
    f32::from_bits(bits as u32)
}

/// [`jit_ternary`] on an `f64` op (operands and result `f64`).
pub(crate) extern "C" fn jit_ternary_f64(op: i32, a: f64, b: f64, c: f64) -> f64 {
    let bits = jit_ternary(
        op,
        a.to_bits() as i64,
        b.to_bits() as i64,
        c.to_bits() as i64,
    );
    f64::from_bits(bits as u64)
}

/// [`eval::vector`]: reads 8 source lanes at `srcs`, writes 4 result lanes at `dsts`.
pub(crate) extern "C" fn jit_vector(
    op: i32,
    ty: i32,
    width: i32,
    n_srcs: i32,
    srcs: *const u64,
    dsts: *mut u64,
) {
    let (Some(op), Some(ty)) = (VectorOp::from_u8(op as u8), Type::from_u8(ty as u8)) else {
        return;
    };
    let shape = VectorShape {
        op,
        ty,
        width: width as u8,
    };
    // SAFETY: generated code passes two stack slots of 8 and 4 lanes.
    let (srcs, dsts) = unsafe {
        (
            std::slice::from_raw_parts(srcs, 8),
            std::slice::from_raw_parts_mut(dsts, 4),
        )
    };
    eval::vector(shape, &srcs[..(n_srcs as usize).min(8)], dsts);
}

#[cfg(test)]
mod tests {
    use super::fault_kind::{site, unpack, ABORT, INDEX_OUT_OF_BOUNDS};
    use super::SiteCounts;
    use crate::entities::LocId;

    #[test]
    fn site_counts_restart_at_zero_every_run() {
        let mut counts = SiteCounts::default();
        let (a, b) = (LocId::from_u32(3), LocId::from_u32(70));
        // The table covers locs 0..10: loc 70 grows it.
        counts.start_run(10);
        assert_eq!(counts.next(a), 0);
        assert_eq!(counts.next(a), 1);
        assert_eq!(counts.next(b), 0);
        assert_eq!(counts.next(a), 2);
        assert_eq!(counts.next(b), 1);
        counts.start_run(10);
        assert_eq!(counts.next(b), 0);
        assert_eq!(counts.next(a), 0);
        assert_eq!(counts.next(b), 1);
    }

    #[test]
    fn fault_sites_keep_kind_and_loc() {
        assert_eq!(unpack(site(ABORT, -1)), (ABORT, -1));
        assert_eq!(unpack(site(ABORT, 0)), (ABORT, 0));
        let last = u32::MAX as i64;
        assert_eq!(
            unpack(site(INDEX_OUT_OF_BOUNDS, last)),
            (INDEX_OUT_OF_BOUNDS, last)
        );
    }
}
