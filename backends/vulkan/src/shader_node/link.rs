//! Linking a graphics node's stages: each HLSL stage's inputs take the locations where the
//! stage before it writes the same semantics (`rpsl_shaders::link_by_semantic`), so that stages
//! may declare their interfaces in any order, as in D3D. The built-in full-screen vertex shader
//! writes `TEXCOORD0` (its `uv`). Runs on the compiled (possibly cached) SPIR-V of each build,
//! never on what the cache stores.

use rpsl_shaders::{link_by_semantic, InterfaceVariable, LocationSlot, ScalarType, StageInterface};

use super::plan::{line_of, Mismatch};
use super::program::CompiledStage;

/// How errors name the built-in vertex shader of nodes without one.
pub(crate) const FULLSCREEN_NAME: &str = "the built-in full-screen vertex shader";

/// The interface of the built-in full-screen vertex shader: `uv` at location 0 as `TEXCOORD0`.
fn fullscreen_interface() -> StageInterface {
    StageInterface {
        entry_point: "main".to_string(),
        outputs: vec![InterfaceVariable {
            id: 0,
            name: "uv".to_string(),
            location: Some(0),
            built_in: None,
            semantic: Some("TEXCOORD0".to_string()),
            patch: false,
            vertices: None,
            slots: vec![LocationSlot {
                scalar: ScalarType::Float(32),
                components: 2,
            }],
        }],
        ..StageInterface::default()
    }
}

/// The 1-based line of the first whole-word occurrence of `name` in `source`, ignoring ASCII
/// case (HLSL semantics are case-insensitive; glslang records them in upper case).
fn line_ignoring_case(source: &str, name: &str) -> Option<u32> {
    line_of(&source.to_ascii_lowercase(), &name.to_ascii_lowercase())
}

/// Links the graphics `stages` (in pipeline order) by semantic, rewriting input locations in
/// each stage's SPIR-V and reflection.
pub(crate) fn link_stages(stages: &mut [CompiledStage]) -> Result<(), Mismatch> {
    let fullscreen = fullscreen_interface();
    for index in 0..stages.len() {
        let (before, rest) = stages.split_at_mut(index);
        let stage = &mut rest[0];
        let (upstream, upstream_file, upstream_source) = match before.last() {
            Some(previous) => match previous.shader.reflection.interface("main") {
                Some(interface) => (interface, previous.file.as_str(), previous.source.as_str()),
                None => continue,
            },
            None if stage.stage == rpsl_shaders::ShaderStage::Fragment => {
                (&fullscreen, FULLSCREEN_NAME, "")
            }
            None => continue,
        };
        let shader = &mut stage.shader;
        let Some(downstream) = shader
            .reflection
            .interfaces
            .iter_mut()
            .find(|interface| interface.entry_point == "main")
        else {
            continue;
        };
        match link_by_semantic(upstream, downstream, &mut shader.spirv) {
            Ok(_) => {}
            Err(error) => {
                let (file, source) = if error.in_upstream() {
                    (upstream_file.to_string(), upstream_source)
                } else {
                    (stage.file.clone(), stage.source.as_str())
                };
                let line = match error.locating_word() {
                    (word, true) => line_ignoring_case(source, word),
                    (word, false) => line_of(source, word),
                };
                return Err(Mismatch {
                    line,
                    file,
                    message: error.message(upstream_file),
                });
            }
        }
    }
    Ok(())
}
