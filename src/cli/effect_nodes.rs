//! Script nodes bound to MagpieFX effects: a node `Upscale` of the script with `Upscale.hlsl`
//! in the shader directory, whose first lines hold `//!MAGPIE EFFECT`, runs that effect
//! (docs/shaders.md, "MagpieFX effects in a frame"). Here the CLI finds those files, parses
//! them, checks each node's declaration against its effect ([`rpsl_effects::EffectNode`]),
//! loads the effect's `//!SOURCE` images and reports what does not fit or load at the
//! declaration (exit 1); the session then records the node's calls as the effect's passes, and
//! on Vulkan each pass is bound to its compiled shader and each source texture's upload node to
//! its texels. [`HotEffects`] does all of this again for every session a [`HotScript`] builds
//! (`--watch`, `--window`), and watches the effect files and their includes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};

use rpsl::frontend::diagnostic::Diagnostic;
use rpsl::vulkan::VulkanBackend;
use rpsl::{HotScript, Program, Session, SessionSetup};
use rpsl_effects::{compile_effect, parse_effect_file, CompiledPass, EffectNode, PassVariant};

use super::frames::EXIT_SCRIPT;

/// The effect file of node `name` in `shader_dir`: `NAME.hlsl` whose first lines hold
/// `//!MAGPIE EFFECT` (the rule `rpsl graph` uses to tell effects from scripts).
pub fn effect_file_of(shader_dir: &Path, name: &str) -> Option<PathBuf> {
    let path = shader_dir.join(format!("{name}.hlsl"));
    super::effect::is_effect_file(&path).then_some(path)
}

/// The script's nodes bound to effects, checked.
pub struct EffectNodes {
    nodes: Vec<EffectNode>,
}

/// Why a script's effect nodes cannot run: the rendered diagnostics (the effect's, then one at
/// the node's declaration), and the effect files read, whose next edit may fix it.
pub struct EffectNodesError {
    /// The diagnostics, rendered.
    pub rendered: String,
    /// The effect files read.
    pub files: Vec<PathBuf>,
}

/// Every bound effect's compiled passes, ready to bind on a backend.
pub struct CompiledEffects {
    nodes: Vec<(EffectNode, Vec<CompiledPass>)>,
}

impl CompiledEffects {
    /// Binds every effect node's passes on `backend` (replacing what an earlier binding of the
    /// same nodes left).
    pub fn bind(&self, backend: &mut VulkanBackend) {
        for (node, passes) in &self.nodes {
            rpsl_effects::bind_effect_node(backend, node, passes);
        }
    }
}

/// A located error at node `name`'s declaration (or at parameter `param` of it), with `note`,
/// rendered.
fn at_declaration(
    program: &Program,
    name: &str,
    param: Option<usize>,
    message: String,
    note: Option<String>,
) -> String {
    let decl = program
        .hir()
        .nodes
        .iter()
        .find(|node| node.name == name && !node.is_builtin);
    let Some(decl) = decl else {
        return format!("error: {message}\n");
    };
    let span = param
        .and_then(|index| decl.params.get(index))
        .map_or(decl.span, |param| param.span);
    let mut diagnostic = Diagnostic::error(span, message);
    if let Some(note) = note {
        diagnostic = diagnostic.with_note(note);
    }
    diagnostic.render(program.files())
}

impl EffectNodes {
    /// Finds the effect of every node of `program` in `shader_dir`, parses it and checks the
    /// node's declaration. An effect with errors, or a declaration that does not fit, is an
    /// [`EffectNodesError`] with located diagnostics.
    pub fn find(program: &Program, shader_dir: &Path) -> Result<EffectNodes, EffectNodesError> {
        let mut nodes = Vec::new();
        let mut files = Vec::new();
        for decl in program.node_declarations() {
            if decl.is_builtin() {
                continue;
            }
            let Some(path) = effect_file_of(shader_dir, &decl.name) else {
                continue;
            };
            let bound = format!(
                "node `{}` is bound to the MagpieFX effect {}",
                decl.name,
                path.display()
            );
            let effect = match parse_effect_file(&path) {
                Ok(effect) => effect,
                Err(errors) => {
                    files.extend(
                        (0..errors.files.len() as u32)
                            .map(|id| errors.files.get(rpsl::frontend::source::FileId(id)))
                            .map(|file| file.path.clone()),
                    );
                    let message = format!("{bound}, which has errors");
                    let rendered = format!(
                        "{errors}\n\n{}",
                        at_declaration(program, &decl.name, None, message, None)
                    );
                    return Err(EffectNodesError { rendered, files });
                }
            };
            files.extend(effect.files.iter().cloned());
            // A lookup table's image is watched like the effect: an edit uploads it again.
            files.extend(
                effect
                    .textures
                    .iter()
                    .filter_map(|texture| texture.source.clone()),
            );
            let node = match EffectNode::new(decl, effect) {
                Ok(node) => node,
                Err(mismatch) => {
                    let rendered = at_declaration(
                        program,
                        &decl.name,
                        mismatch.param,
                        mismatch.message,
                        Some(bound),
                    );
                    return Err(EffectNodesError { rendered, files });
                }
            };
            // The source images are loaded here, once per program (run or reload).
            match node.load_sources() {
                Ok(node) => nodes.push(node),
                Err(errors) => {
                    let message = format!("{bound}, whose //!SOURCE image cannot be loaded");
                    let rendered = format!(
                        "{errors}\n\n{}",
                        at_declaration(program, &decl.name, None, message, None)
                    );
                    return Err(EffectNodesError { rendered, files });
                }
            }
        }
        Ok(EffectNodes { nodes })
    }

    /// [`EffectNodes::find`] that prints the diagnostics and gives exit code 1 on failure.
    pub fn load(program: &Program, shader_dir: &Path) -> Result<EffectNodes, ExitCode> {
        EffectNodes::find(program, shader_dir).map_err(|error| {
            diag!("{}", error.rendered);
            ExitCode::from(EXIT_SCRIPT)
        })
    }

    /// The files the bound effects were read from (each effect file, its includes and its
    /// `//!SOURCE` images).
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.nodes.iter().flat_map(|node| {
            let effect = node.effect();
            let sources = effect.textures.iter().filter_map(|t| t.source.as_deref());
            effect.files.iter().map(PathBuf::as_path).chain(sources)
        })
    }

    /// Makes `session` record each bound node's calls as its effect's passes.
    pub fn install(&self, session: &mut Session<'_>) {
        for node in &self.nodes {
            session.expand_node(node.node(), Arc::new(node.clone()));
        }
    }

    /// Compiles every bound effect's passes; an effect that does not compile is the compiler's
    /// error, located in the effect file, then an error at the node's declaration (rendered).
    pub fn compile(&self, program: &Program) -> Result<CompiledEffects, String> {
        let mut compiled = Vec::with_capacity(self.nodes.len());
        if self.nodes.is_empty() {
            return Ok(CompiledEffects { nodes: compiled });
        }
        let compiler = super::effect::effect_compiler_or_message()?;
        let variant = PassVariant {
            fp16: false,
            inline_params: None,
            debug: false,
        };
        for node in &self.nodes {
            match compile_effect(node.effect(), &variant, &compiler) {
                Ok(passes) => compiled.push((node.clone(), passes)),
                Err(error) => {
                    let message = format!(
                        "node `{}` is bound to the MagpieFX effect {}, which does not compile",
                        node.node(),
                        node.effect().path.display()
                    );
                    return Err(format!(
                        "error: {error}\n{}",
                        at_declaration(program, node.node(), None, message, None)
                    ));
                }
            }
        }
        Ok(CompiledEffects { nodes: compiled })
    }

    /// Compiles every bound effect's passes and binds them on `backend`; an effect that does not
    /// compile prints [`EffectNodes::compile`]'s error and gives exit code 1.
    pub fn bind(&self, program: &Program, backend: &mut VulkanBackend) -> Result<(), ExitCode> {
        let compiled = self.compile(program).map_err(|rendered| {
            diag!("{rendered}");
            ExitCode::from(EXIT_SCRIPT)
        })?;
        compiled.bind(backend);
        Ok(())
    }
}

/// The effect nodes of a [`HotScript`] (`--watch`, `--window`): its session setup finds, checks
/// and (for Vulkan) compiles them for every session the script builds, installs them, and
/// watches the effect files and their includes, so an effect edit reloads the script; a broken
/// effect is a failed reload (its diagnostic printed, the last good frame kept).
pub struct HotEffects {
    /// The passes the last setup compiled, until they are bound.
    unbound: Arc<Mutex<Option<CompiledEffects>>>,
}

impl HotEffects {
    /// Sets `script`'s session setup for the effect files of `shader_dir`; `compile`: compile
    /// the passes too (for a Vulkan backend, see [`HotEffects::bind_new`]). A failure on the
    /// running program prints its diagnostics: exit 1.
    pub fn install(
        script: &mut HotScript,
        shader_dir: PathBuf,
        compile: bool,
    ) -> Result<HotEffects, ExitCode> {
        let unbound = Arc::new(Mutex::new(None));
        let compiled_slot = Arc::clone(&unbound);
        let setup = move |setup: &mut SessionSetup<'_>| -> Result<(), String> {
            let nodes = match EffectNodes::find(setup.program(), &shader_dir) {
                Ok(nodes) => nodes,
                Err(error) => {
                    for file in error.files {
                        setup.watch_file(file);
                    }
                    return Err(error.rendered);
                }
            };
            for file in nodes.files() {
                setup.watch_file(file);
            }
            let compiled = if compile {
                Some(nodes.compile(setup.program())?)
            } else {
                None
            };
            for node in nodes.nodes {
                let name = node.node().to_string();
                setup.expand_node(&name, Arc::new(node));
            }
            *compiled_slot.lock().unwrap_or_else(PoisonError::into_inner) = compiled;
            Ok(())
        };
        script.set_session_setup(Box::new(setup)).map_err(|error| {
            match error {
                rpsl::ReloadError::Setup(rendered) => diag!("{rendered}"),
                other => diagln!("{other}"),
            }
            ExitCode::from(EXIT_SCRIPT)
        })?;
        Ok(HotEffects { unbound })
    }

    /// Binds on `backend` the passes the last session setup compiled, once (after the first
    /// build and after each reload).
    pub fn bind_new(&self, backend: &mut VulkanBackend) {
        let compiled = self
            .unbound
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(compiled) = compiled {
            compiled.bind(backend);
        }
    }
}
