//! In-process compilation with shaderc (glslang): options for a Vulkan 1.3 target (SPIR-V 1.6
//! from GLSL, 1.3 from HLSL),
//! the include callback, and turning the compiler's error text into located [`Diagnostic`]s.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::error::{Diagnostic, ShaderError};
use crate::include::resolve_include;
use crate::request::{HlslBindingShifts, ShaderLanguage, ShaderRequest, ShaderStage};

/// The settings of one compile that change its output (and so are part of the cache key).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CompileSettings {
    /// Directories searched by `#include`.
    pub include_dirs: Vec<PathBuf>,
    /// Optimise for performance.
    pub optimize: bool,
    /// HLSL register shifts.
    pub hlsl_shifts: HlslBindingShifts,
    /// Keep names and line info.
    pub debug_info: bool,
}

/// SPIR-V and the files the compiler actually included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledWords {
    /// The module.
    pub spirv: Vec<u32>,
    /// The include files, in the order the compiler opened them.
    pub includes: Vec<PathBuf>,
}

/// The process-wide compiler (creating one initialises glslang, which is not free).
fn shared_compiler() -> Result<&'static shaderc::Compiler, ShaderError> {
    static COMPILER: OnceLock<Result<shaderc::Compiler, String>> = OnceLock::new();
    COMPILER
        .get_or_init(|| shaderc::Compiler::new().map_err(|error| error.to_string()))
        .as_ref()
        .map_err(|message| ShaderError::CompilerInit {
            message: message.clone(),
        })
}

fn shaderc_kind(stage: ShaderStage) -> shaderc::ShaderKind {
    match stage {
        ShaderStage::Vertex => shaderc::ShaderKind::Vertex,
        ShaderStage::Fragment => shaderc::ShaderKind::Fragment,
        ShaderStage::Compute => shaderc::ShaderKind::Compute,
        ShaderStage::Geometry => shaderc::ShaderKind::Geometry,
        ShaderStage::TessControl => shaderc::ShaderKind::TessControl,
        ShaderStage::TessEvaluation => shaderc::ShaderKind::TessEvaluation,
    }
}

/// Compiles `request` in this process.
pub fn compile_in_process(
    request: &ShaderRequest,
    settings: &CompileSettings,
) -> Result<CompiledWords, ShaderError> {
    let path = request.display_path();
    if request.source.contains('\0') || path.contains('\0') || request.entry_point.contains('\0') {
        return Err(ShaderError::NulInSource { path });
    }
    if request
        .defines
        .iter()
        .any(|(name, value)| name.contains('\0') || value.contains('\0'))
    {
        return Err(ShaderError::NulInSource { path });
    }
    let compiler = shared_compiler()?;
    let included = RefCell::new(Vec::new());
    let artifact = {
        let mut options =
            shaderc::CompileOptions::new().map_err(|error| ShaderError::CompilerInit {
                message: error.to_string(),
            })?;
        options.set_target_env(
            shaderc::TargetEnv::Vulkan,
            shaderc::EnvVersion::Vulkan1_3 as u32,
        );
        // glslang 12's HLSL front end still decorates structured buffers `BufferBlock`, which
        // SPIR-V 1.4 removed: HLSL targets SPIR-V 1.3, GLSL SPIR-V 1.6 (both run on Vulkan 1.3).
        options.set_target_spirv(match request.language {
            ShaderLanguage::Glsl => shaderc::SpirvVersion::V1_6,
            ShaderLanguage::Hlsl => shaderc::SpirvVersion::V1_3,
        });
        options.set_optimization_level(if settings.optimize {
            shaderc::OptimizationLevel::Performance
        } else {
            shaderc::OptimizationLevel::Zero
        });
        if settings.debug_info {
            options.set_generate_debug_info();
        }
        options.set_auto_bind_uniforms(true);
        options.set_auto_map_locations(true);
        match request.language {
            ShaderLanguage::Glsl => options.set_source_language(shaderc::SourceLanguage::GLSL),
            ShaderLanguage::Hlsl => {
                options.set_source_language(shaderc::SourceLanguage::HLSL);
                options.set_hlsl_io_mapping(true);
                options.set_hlsl_offsets(true);
                // `UserSemantic` decorations on interface variables: adjacent stages are linked
                // by semantic (`reflect::StageInterface`), as D3D does, not by location.
                options.set_hlsl_functionality1(true);
                let shifts = settings.hlsl_shifts;
                options.set_binding_base(shaderc::ResourceKind::Texture, shifts.texture);
                options.set_binding_base(shaderc::ResourceKind::Sampler, shifts.sampler);
                options.set_binding_base(
                    shaderc::ResourceKind::UnorderedAccessView,
                    shifts.unordered_access,
                );
                options.set_binding_base(shaderc::ResourceKind::Buffer, shifts.constant_buffer);
            }
        }
        for (name, value) in &request.defines {
            options.add_macro_definition(name, Some(value));
        }
        let include_dirs = settings.include_dirs.clone();
        let included_ref = &included;
        options.set_include_callback(move |requested, kind, requesting, _depth| {
            let relative = kind == shaderc::IncludeType::Relative;
            let file = resolve_include(requested, relative, requesting, &include_dirs)?;
            let resolved_name = file.path.display().to_string();
            if resolved_name.is_empty() || resolved_name.contains('\0') {
                return Err(format!("cannot use include file name '{requested}'"));
            }
            included_ref.borrow_mut().push(file.path.clone());
            Ok(shaderc::ResolvedInclude {
                resolved_name,
                content: file.content,
            })
        });
        compiler.compile_into_spirv(
            &request.source,
            shaderc_kind(request.stage),
            &path,
            &request.entry_point,
            Some(&options),
        )
    };
    match artifact {
        Ok(artifact) => {
            let mut includes = included.into_inner();
            includes.dedup();
            Ok(CompiledWords {
                spirv: artifact.as_binary().to_vec(),
                includes,
            })
        }
        Err(shaderc::Error::CompilationError(_, text)) => Err(ShaderError::Compile {
            diagnostics: parse_diagnostics(&text, &path),
            path,
        }),
        Err(other) => Err(ShaderError::Compile {
            diagnostics: vec![Diagnostic {
                file: path.clone(),
                line: None,
                message: other.to_string(),
            }],
            path,
        }),
    }
}

/// Splits glslang's error text (`file:line: error: message` lines, then `N errors generated.`)
/// into diagnostics; lines without a location are attributed to `default_file`.
pub fn parse_diagnostics(text: &str, default_file: &str) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let mut fallback = Vec::new();
    for raw_line in text.lines() {
        let line = raw_line.trim_end();
        if line.is_empty() || is_summary_line(line) {
            continue;
        }
        match split_location(line) {
            Some((file, line_number, rest)) => {
                if let Some(message) = rest.strip_prefix("error: ") {
                    diagnostics.push(Diagnostic {
                        file: file.to_string(),
                        line: line_number,
                        message: message.trim().to_string(),
                    });
                } else if !rest.starts_with("warning: ") {
                    fallback.push(Diagnostic {
                        file: file.to_string(),
                        line: line_number,
                        message: rest.trim().to_string(),
                    });
                }
            }
            None => fallback.push(Diagnostic {
                file: default_file.to_string(),
                line: None,
                message: line.trim().to_string(),
            }),
        }
    }
    if diagnostics.is_empty() {
        diagnostics = fallback;
    }
    if diagnostics.is_empty() {
        diagnostics.push(Diagnostic {
            file: default_file.to_string(),
            line: None,
            message: "compile failed".to_string(),
        });
    }
    diagnostics
}

/// `N error(s) generated.` / `N warning(s) ... generated.`
fn is_summary_line(line: &str) -> bool {
    line.ends_with(" generated.")
        && line
            .split_whitespace()
            .next()
            .is_some_and(|word| word.parse::<u32>().is_ok())
}

/// `file:123: rest` or `file: error: rest`, where the file name may itself contain colons.
fn split_location(line: &str) -> Option<(&str, Option<u32>, &str)> {
    let mut search_from = 0;
    while let Some(found) = line[search_from..].find(": ") {
        let colon = search_from + found;
        let head = &line[..colon];
        let rest = &line[colon + 2..];
        if let Some((file, number)) = head.rsplit_once(':') {
            if !file.is_empty() && !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
            {
                return Some((file, number.parse().ok(), rest));
            }
        }
        if !head.is_empty() && (rest.starts_with("error: ") || rest.starts_with("warning: ")) {
            return Some((head, None, rest));
        }
        search_from = colon + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_glslang_error_text() {
        let text = "shaders/a b.comp:12: error: 'x' : undeclared identifier\n\
                    shaders/inc.glsl:3: warning: something\n\
                    C:/odd:path.hlsl:7: error: 'f' : no matching overloaded function found\n\
                    2 errors generated.\n";
        let found = parse_diagnostics(text, "main");
        let rendered: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(
            rendered,
            vec![
                "shaders/a b.comp:12: 'x' : undeclared identifier",
                "C:/odd:path.hlsl:7: 'f' : no matching overloaded function found",
            ]
        );
    }

    #[test]
    fn unlocated_text_falls_back_to_the_shader() {
        let found = parse_diagnostics("something odd happened\n", "x.comp");
        assert_eq!(found[0].to_string(), "x.comp: something odd happened");
        let found = parse_diagnostics("x.frag: error: no main\n", "y");
        assert_eq!(found[0].to_string(), "x.frag: no main");
    }
}
