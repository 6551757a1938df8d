//! Compiling a module to native code: target setup, choosing the functions to compile,
//! translating and compiling them with Cranelift on worker threads (one `Context` and one
//! `FunctionBuilderContext` per worker, reused across its functions), then placing the machine
//! code of every function in one `JITModule` and linking it.

use super::codegen::{FrameEntry, ModuleInfo, Translator, INLINE_FRAME_ZERO_MAX};
use super::facts::register_facts;
use super::frame_init::{bytes_read_before_written, reads_only_its_frame};
use super::promote::param_extents;
use super::JitError;
use crate::entities::FuncId;
use crate::function::{Function, VerifiedModule};
use crate::inst::Inst;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{self, types, AbiParam, UserFuncName};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module as _, ModuleReloc};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How [`super::JitModule::compile_with`] compiles.
///
/// # Example
/// ```
/// use rpsl_vm::jit::JitOptions;
/// let options = JitOptions { threads: 1, ..JitOptions::default() };
/// assert!(!options.optimize);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JitOptions {
    /// Let Cranelift optimise (`opt_level = speed` and the backtracking register allocator):
    /// compiles about 1.8x as slowly for generated code of about half the instructions. Off by
    /// default so that source to native code stays fast; the root crate's sessions recompile
    /// with it on a background thread once a frame has run (tier-up).
    pub optimize: bool,
    /// Most threads compiling functions, the calling thread included; `0` means one per
    /// available core. Small modules use fewer (about one per 400 bytecode instructions).
    pub threads: usize,
    /// When set, only these functions and the functions they call (directly or not) are
    /// compiled; running any other function fails with `BadEntry`. `None` compiles them all.
    pub entries: Option<Vec<FuncId>>,
}

/// Bytecode instructions per extra compile thread: below this a thread costs more than it saves.
const INSTS_PER_THREAD: usize = 400;

/// The environment variable that makes every compile print each function's optimised Cranelift
/// IR and its machine code (register-allocated, as text) on stderr: a development aid for
/// reading what the JIT generates, e.g.
/// `RPSL_JIT_DUMP=1 rpsl run scripts/bench/rps_shapes.rpsl --entry chain --backend null`.
pub const DUMP_ENV: &str = "RPSL_JIT_DUMP";

/// Whether [`DUMP_ENV`] is set to something other than empty or `0`.
fn dump_requested() -> bool {
    std::env::var_os(DUMP_ENV).is_some_and(|value| !value.is_empty() && value != "0")
}

/// A linked module: the `JITModule` owning the code and each function's entry (`None` when it
/// was not compiled).
pub(crate) struct Linked {
    pub module: JITModule,
    pub code: Vec<Option<*const u8>>,
}

/// Machine code of one function, ready to be placed.
struct MachineCode {
    bytes: Vec<u8>,
    alignment: u64,
    relocs: Vec<ModuleReloc>,
}

/// The host target with our flags.
fn target_isa(optimize: bool) -> Result<OwnedTargetIsa, JitError> {
    let target = |error: String| JitError::Target(error);
    let mut flags = settings::builder();
    let verifier = if cfg!(debug_assertions) {
        "true"
    } else {
        "false"
    };
    let (opt_level, regalloc) = if optimize {
        ("speed", "backtracking")
    } else {
        ("none", "single_pass")
    };
    for (name, value) in [
        ("opt_level", opt_level),
        ("regalloc_algorithm", regalloc),
        ("enable_verifier", verifier),
        // NaNs are canonicalised where they can be seen (`super::nan`), not after every op.
        ("enable_nan_canonicalization", "false"),
        // As `JITBuilder::with_flags`: long-range relocations, absolute addresses.
        ("use_colocated_libcalls", "false"),
        ("is_pic", "false"),
    ] {
        flags
            .set(name, value)
            .map_err(|error| target(format!("flag `{name}`: {error}")))?;
    }
    let isa = cranelift_native::builder().map_err(|error| target(error.to_string()))?;
    isa.finish(settings::Flags::new(flags))
        .map_err(|error| target(error.to_string()))
}

/// Which functions to compile: all, or those reachable through calls from `entries`.
fn selected(module: &VerifiedModule, entries: Option<&[FuncId]>) -> Vec<bool> {
    let functions = &module.module().functions;
    let Some(entries) = entries else {
        return vec![true; functions.len()];
    };
    let mut chosen = vec![false; functions.len()];
    let mut stack: Vec<usize> = entries
        .iter()
        .map(|f| f.index())
        .filter(|&i| i < functions.len())
        .collect();
    while let Some(index) = stack.pop() {
        if std::mem::replace(&mut chosen[index], true) {
            continue;
        }
        for inst in &functions[index].insts {
            if let Inst::Call { callee, .. } = *inst {
                if callee.index() < functions.len() && !chosen[callee.index()] {
                    stack.push(callee.index());
                }
            }
        }
    }
    chosen
}

/// Compiles the chosen functions of `module` and links them.
pub(crate) fn compile_module(
    module: &VerifiedModule,
    options: &JitOptions,
) -> Result<Linked, JitError> {
    let isa = target_isa(options.optimize)?;
    let mut jit = JITModule::new(JITBuilder::with_isa(isa.clone(), default_libcall_names()));
    let functions = &module.module().functions;
    let chosen = selected(module, options.entries.as_deref());
    let mut signature = ir::Signature::new(isa.default_call_conv());
    let ptr_ty = isa.pointer_type();
    for ty in [ptr_ty, types::I64, types::I64, ptr_ty, ptr_ty] {
        signature.params.push(AbiParam::new(ty));
    }
    signature.returns.push(AbiParam::new(types::I32));
    let mut ids = vec![None; functions.len()];
    for (index, _) in chosen.iter().enumerate().filter(|(_, &c)| c) {
        let id = jit
            .declare_function(&format!("rpsl_fn{index}"), Linkage::Local, &signature)
            .map_err(|error| JitError::Target(error.to_string()))?;
        ids[index] = Some(id);
    }
    // Largest first, so the last function a worker picks up is a small one.
    let mut order: Vec<usize> = (0..functions.len()).filter(|&i| chosen[i]).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(functions[i].insts.len()));
    let total_insts: usize = order.iter().map(|&i| functions[i].insts.len()).sum();
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .min(total_insts / INSTS_PER_THREAD + 1)
    .min(order.len())
    .max(1);
    let own_frame_readers: Vec<bool> = functions
        .iter()
        .zip(&chosen)
        .map(|(function, &chosen)| chosen && reads_only_its_frame(function))
        .collect();
    let shared = Shared {
        functions,
        ids: &ids,
        frames: functions
            .iter()
            .zip(&chosen)
            .map(|(function, &chosen)| FrameEntry {
                size: function.frame_size,
                zero_on_entry: if chosen && function.frame_size <= INLINE_FRAME_ZERO_MAX {
                    bytes_read_before_written(
                        function,
                        &register_facts(function),
                        &own_frame_readers,
                    )
                } else {
                    Vec::new()
                },
            })
            .collect(),
        step_charges: (0..functions.len())
            .map(|index| module.step_charges(FuncId::from_u32(index as u32)))
            .collect(),
        own_frame_readers,
        callee_extents: functions
            .iter()
            .map(|function| {
                // Only the optimised tier promotes frame slots.
                options
                    .optimize
                    .then(|| param_extents(function, &register_facts(function)))
                    .flatten()
            })
            .collect(),
        signature,
        isa: &isa,
        optimize: options.optimize,
        dump: dump_requested(),
        order: &order,
        next: AtomicUsize::new(0),
        results: Mutex::new((0..functions.len()).map(|_| None).collect()),
    };
    if threads == 1 {
        shared.work();
    } else {
        std::thread::scope(|scope| {
            for _ in 1..threads {
                // A thread the system refuses only means fewer workers.
                let spawned = std::thread::Builder::new()
                    .name("rpsl-jit".into())
                    .spawn_scoped(scope, || shared.work());
                if spawned.is_err() {
                    break;
                }
            }
            shared.work();
        });
    }
    let results = shared
        .results
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    for (index, result) in results.into_iter().enumerate() {
        let (Some(id), Some(result)) = (ids[index], result) else {
            continue;
        };
        let code = result?;
        jit.define_function_bytes(id, code.alignment, &code.bytes, &code.relocs)
            .map_err(|error| JitError::Codegen {
                function: functions[index].name.clone(),
                message: error.to_string(),
            })?;
    }
    jit.finalize_definitions()
        .map_err(|error| JitError::Target(error.to_string()))?;
    let code = ids
        .iter()
        .map(|id| id.map(|id| jit.get_finalized_function(id)))
        .collect();
    Ok(Linked { module: jit, code })
}

/// What the compile workers share.
struct Shared<'a> {
    functions: &'a [Function],
    ids: &'a [Option<cranelift_module::FuncId>],
    /// Per function, its frame size and the bytes an inline entry zeroes.
    frames: Vec<FrameEntry>,
    /// Per function, the step charge of each instruction.
    step_charges: Vec<&'a [u64]>,
    /// Per function, whether it reads only its own frame.
    own_frame_readers: Vec<bool>,
    /// Per function, [`super::promote::param_extents`].
    callee_extents: Vec<Option<Vec<super::promote::ParamReach>>>,
    signature: ir::Signature,
    isa: &'a OwnedTargetIsa,
    /// Compiling with the optimiser (shown in dumps).
    optimize: bool,
    /// Print each function's IR and machine code ([`DUMP_ENV`]).
    dump: bool,
    order: &'a [usize],
    next: AtomicUsize,
    results: Mutex<Vec<Option<Result<MachineCode, JitError>>>>,
}

impl Shared<'_> {
    /// Takes functions off `order` until none is left, compiling each.
    fn work(&self) {
        let mut ctx = cranelift_codegen::Context::new();
        let mut fctx = cranelift_frontend::FunctionBuilderContext::new();
        let mut ctrl_plane = ControlPlane::default();
        loop {
            let at = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(&index) = self.order.get(at) else {
                return;
            };
            let result = self.compile_one(index, &mut ctx, &mut fctx, &mut ctrl_plane);
            ctx.clear();
            if let Ok(mut results) = self.results.lock() {
                results[index] = Some(result);
            }
        }
    }

    /// Translates and compiles function `index`.
    fn compile_one(
        &self,
        index: usize,
        ctx: &mut cranelift_codegen::Context,
        fctx: &mut cranelift_frontend::FunctionBuilderContext,
        ctrl_plane: &mut ControlPlane,
    ) -> Result<MachineCode, JitError> {
        let function = &self.functions[index];
        let error = |message: String| JitError::Codegen {
            function: function.name.clone(),
            message,
        };
        let id = self.ids[index].ok_or_else(|| error("function was not declared".into()))?;
        ctx.func.signature = self.signature.clone();
        ctx.func.name = UserFuncName::user(0, index as u32);
        let mut callee_refs = HashMap::new();
        let mut callee_sig = None;
        for inst in &function.insts {
            let Inst::Call { callee, .. } = *inst else {
                continue;
            };
            if callee_refs.contains_key(&callee) {
                continue;
            }
            let Some(Some(callee_id)) = self.ids.get(callee.index()) else {
                return Err(error(format!("callee {callee} was not declared")));
            };
            // As `Module::declare_func_in_func`, without needing the module on this thread.
            let sig = *callee_sig
                .get_or_insert_with(|| ctx.func.import_signature(self.signature.clone()));
            let name = ctx
                .func
                .declare_imported_user_function(ir::UserExternalName {
                    namespace: 0,
                    index: callee_id.as_u32(),
                });
            let func_ref = ctx.func.import_function(ir::ExtFuncData {
                name: ir::ExternalName::user(name),
                signature: sig,
                colocated: true,
                patchable: false,
            });
            callee_refs.insert(callee, func_ref);
        }
        let builder = cranelift_frontend::FunctionBuilder::new(&mut ctx.func, fctx);
        let module = ModuleInfo {
            functions: self.functions,
            step_charges: &self.step_charges,
            frames: &self.frames,
            inline_calls: self.optimize,
            own_frame_readers: &self.own_frame_readers,
            promote_slots: self.optimize,
            callee_extents: &self.callee_extents,
        };
        Translator::new(
            builder,
            index,
            self.isa.pointer_type(),
            self.isa.default_call_conv(),
            &callee_refs,
            &module,
        )
        .translate(self.isa.frontend_config());
        ctx.set_disasm(self.dump);
        ctx.compile(self.isa.as_ref(), ctrl_plane)
            .map_err(|failure| error(format!("{:?}", failure.inner)))?;
        let compiled = ctx
            .compiled_code()
            .ok_or_else(|| error("no compiled code".into()))?;
        if self.dump {
            // One write per function, so that dumps of parallel workers do not interleave.
            eprint!(
                "; JIT `{}` (fn{index}, {}, {} bytes of code)\n{}\n; machine code\n{}\n",
                function.name,
                if self.optimize { "optimised" } else { "quick" },
                compiled.code_buffer().len(),
                ctx.func.display(),
                compiled.vcode.as_deref().unwrap_or("(none)\n"),
            );
        }
        let alignment = compiled.buffer.alignment as u64;
        let bytes = compiled.code_buffer().to_vec();
        let relocs = compiled
            .buffer
            .relocs()
            .iter()
            .map(|reloc| ModuleReloc::from_mach_reloc(reloc, &ctx.func, id))
            .collect();
        Ok(MachineCode {
            bytes,
            alignment,
            relocs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_optimisation_levels_build_a_target() {
        assert!(target_isa(false).is_ok());
        assert!(target_isa(true).is_ok());
    }
}
