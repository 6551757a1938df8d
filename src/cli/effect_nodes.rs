//! Script nodes bound to MagpieFX effects: a node `Upscale` of the script with `Upscale.hlsl`
//! in the shader directory, whose first lines hold `//!MAGPIE EFFECT`, runs that effect
//! (docs/shaders.md, "MagpieFX effects in a frame"). Here the CLI finds those files, parses
//! them, checks each node's declaration against its effect ([`rpsl_effects::EffectNode`]),
//! loads the effect's `//!SOURCE` images (once per run) and reports what does not fit or load
//! at the declaration (exit 1); the session then records the node's calls as the effect's
//! passes, and on Vulkan each pass is bound to its compiled shader and each source texture's
//! upload node to its texels.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use rpsl::frontend::diagnostic::Diagnostic;
use rpsl::{Program, Session};
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
    /// node's declaration; an effect with errors, or a declaration that does not fit, prints
    /// located diagnostics and gives exit code 1.
    pub fn load(program: &Program, shader_dir: &Path) -> Result<EffectNodes, ExitCode> {
        let mut nodes = Vec::new();
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
                    diagln!("{errors}\n");
                    let message = format!("{bound}, which has errors");
                    diag!(
                        "{}",
                        at_declaration(program, &decl.name, None, message, None)
                    );
                    return Err(ExitCode::from(EXIT_SCRIPT));
                }
            };
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
                    diag!("{rendered}");
                    return Err(ExitCode::from(EXIT_SCRIPT));
                }
            };
            // The source images are loaded here, once for the whole run.
            match node.load_sources() {
                Ok(node) => nodes.push(node),
                Err(errors) => {
                    diagln!("{errors}\n");
                    let message = format!("{bound}, whose //!SOURCE image cannot be loaded");
                    diag!(
                        "{}",
                        at_declaration(program, &decl.name, None, message, None)
                    );
                    return Err(ExitCode::from(EXIT_SCRIPT));
                }
            }
        }
        Ok(EffectNodes { nodes })
    }

    /// Makes `session` record each bound node's calls as its effect's passes.
    pub fn install(&self, session: &mut Session<'_>) {
        for node in &self.nodes {
            session.expand_node(node.node(), Arc::new(node.clone()));
        }
    }

    /// Compiles every bound effect's passes (an effect that does not compile prints the
    /// compiler's error, located in the effect file, then the node's declaration, and gives
    /// exit code 1) and binds them on `backend`.
    pub fn bind(
        &self,
        program: &Program,
        backend: &mut rpsl::vulkan::VulkanBackend,
    ) -> Result<(), ExitCode> {
        if self.nodes.is_empty() {
            return Ok(());
        }
        let compiler = super::effect::effect_compiler()?;
        let variant = PassVariant {
            fp16: false,
            inline_params: None,
            debug: false,
        };
        for node in &self.nodes {
            let passes: Vec<CompiledPass> = match compile_effect(node.effect(), &variant, &compiler)
            {
                Ok(passes) => passes,
                Err(error) => {
                    diagln!("error: {error}");
                    let message = format!(
                        "node `{}` is bound to the MagpieFX effect {}, which does not compile",
                        node.node(),
                        node.effect().path.display()
                    );
                    diag!(
                        "{}",
                        at_declaration(program, node.node(), None, message, None)
                    );
                    return Err(ExitCode::from(EXIT_SCRIPT));
                }
            };
            rpsl_effects::bind_effect_node(backend, node, &passes);
        }
        Ok(())
    }
}
