//! Linking adjacent HLSL stages by semantic, as D3D does: each input of the downstream stage
//! takes the location where the upstream stage writes the same semantic (its `Location`
//! decorations are rewritten in the SPIR-V words), or the link fails with a [`LinkError`]
//! naming the semantic.
//!
//! Semantics are compared without regard to case, with a missing index read as 0 (`COLOR` is
//! `COLOR0`). A variable over several locations (an array, a matrix) takes consecutive indices
//! from its semantic on: `float3 extra[2] : EXTRA` is `EXTRA0` and `EXTRA1`. glslang flattens
//! interface structs (nested ones and arrays of them too) into one variable per member, each
//! with the member's semantic; members of a flattened array repeat the semantic, and they take
//! the next indices in location order, so both sides of a link see the same `EXTRA0`, `EXTRA1`.
//! Built-in variables (`SV_Position`, ...) have no location and are not linked here; a stage
//! without semantics (GLSL) links by location, as Vulkan does.
//!
//! ```
//! use rpsl_shaders::{CompilerOptions, ShaderCompiler, ShaderLanguage, ShaderRequest, ShaderStage};
//! let compiler = ShaderCompiler::new(CompilerOptions::default());
//! let vs = compiler.compile(&ShaderRequest::new(
//!     "struct O { float4 p : SV_Position; float4 c : COLOR0; float2 t : TEXCOORD0; };\n\
//!      O main() { O o; o.p = 0; o.c = 1; o.t = 0.5; return o; }",
//!     "v.vert.hlsl", ShaderLanguage::Hlsl, ShaderStage::Vertex)).unwrap();
//! let mut ps = compiler.compile(&ShaderRequest::new(
//!     "float4 main(float2 t : TEXCOORD0, float4 c : COLOR0) : SV_Target0 { return c * t.x; }",
//!     "p.frag.hlsl", ShaderLanguage::Hlsl, ShaderStage::Fragment)).unwrap();
//! let upstream = vs.reflection.interface("main").unwrap();
//! let downstream = &mut ps.reflection.interfaces[0];
//! let moved = rpsl_shaders::link_by_semantic(upstream, downstream, &mut ps.spirv).unwrap();
//! assert_eq!(moved, 2); // TEXCOORD0 moves to location 1, COLOR0 to location 0
//! let linked = rpsl_shaders::reflect(&ps.spirv).unwrap();
//! let locations: Vec<_> = linked.interfaces[0].inputs.iter().map(|i| i.location).collect();
//! assert_eq!(locations, [Some(0), Some(1)]);
//! let semantics: Vec<_> = downstream.inputs.iter().map(|i| i.semantic.as_deref()).collect();
//! assert_eq!(semantics, [Some("COLOR0"), Some("TEXCOORD0")]);
//! ```

use std::collections::HashMap;
use std::fmt;

use crate::reflect::{InterfaceVariable, LocationSlot, ScalarType, StageInterface};

const OP_DECORATE: u32 = 71;
const DECORATION_LOCATION: u32 = 30;

/// An HLSL semantic with its index (`TEXCOORD` 1); shown as `TEXCOORD1`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Semantic {
    /// The name in upper case, without its index digits.
    pub name: String,
    /// The index (0 when the source gives none).
    pub index: u32,
}

impl Semantic {
    /// Parses a semantic as written (`color1`, `TEXCOORD`): upper case, trailing digits as
    /// the index.
    ///
    /// ```
    /// use rpsl_shaders::Semantic;
    /// assert_eq!(Semantic::parse("texCoord12").to_string(), "TEXCOORD12");
    /// assert_eq!(Semantic::parse("COLOR").to_string(), "COLOR0");
    /// ```
    pub fn parse(text: &str) -> Semantic {
        let upper = text.to_ascii_uppercase();
        let digits = upper.len() - upper.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (name, index) = upper.split_at(upper.len() - digits);
        Semantic {
            name: name.to_string(),
            index: index.parse().unwrap_or(0),
        }
    }

    fn offset(&self, by: u32) -> Semantic {
        Semantic {
            name: self.name.clone(),
            index: self.index.saturating_add(by),
        }
    }
}

impl fmt::Display for Semantic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.name, self.index)
    }
}

/// The HLSL name of a location's type: `float4`, `uint`, `half2`, `int64_t3`.
pub fn hlsl_type_name(slot: &LocationSlot) -> String {
    let scalar = match slot.scalar {
        ScalarType::Float(16) => "half".to_string(),
        ScalarType::Float(32) => "float".to_string(),
        ScalarType::Float(64) => "double".to_string(),
        ScalarType::Float(width) => format!("float{width}_t"),
        ScalarType::Int(32) => "int".to_string(),
        ScalarType::Uint(32) => "uint".to_string(),
        ScalarType::Int(width) => format!("int{width}_t"),
        ScalarType::Uint(width) => format!("uint{width}_t"),
        ScalarType::Bool => "bool".to_string(),
    };
    if slot.components > 1 {
        format!("{scalar}{}", slot.components)
    } else {
        scalar
    }
}

/// Why two stages do not link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// The downstream stage reads `semantic`, which the upstream stage does not write.
    NotWritten {
        /// The semantic.
        semantic: Semantic,
        /// The input's semantic as the source writes it (to find its line).
        written_as: String,
    },
    /// Both stages have `semantic`, with different types: the input must have the output's
    /// component type and width, and at most its components.
    TypeMismatch {
        /// The semantic.
        semantic: Semantic,
        /// The input's semantic as the source writes it.
        written_as: String,
        /// The input's type.
        input: LocationSlot,
        /// The output's type.
        output: LocationSlot,
    },
    /// One side has `semantic` per patch (a patch constant), the other per vertex.
    PatchMismatch {
        /// The semantic.
        semantic: Semantic,
        /// The input's semantic as the source writes it.
        written_as: String,
        /// Whether the input is the per-patch one.
        input_is_patch: bool,
    },
    /// An input over several locations whose semantics the upstream stage writes at locations
    /// that are not consecutive (a location decoration can only move the whole variable).
    Scattered {
        /// The input's first semantic.
        semantic: Semantic,
        /// The input's semantic as the source writes it.
        written_as: String,
        /// Its locations.
        locations: u32,
    },
    /// An array member of a struct that is arrayed per vertex (a geometry shader's input, a
    /// hull shader's `InputPatch` or output, a domain shader's `OutputPatch`): glslang 12 sizes
    /// the flattened variable by the member's array instead of the vertices, which no stage can
    /// link to.
    ArrayInPerVertexStruct {
        /// The flattened variable's name (`input.shade.weights[0]`), or its semantic.
        variable: String,
        /// Its semantic as the source writes it.
        written_as: String,
        /// Whether it is the upstream stage's output (else the downstream's input).
        output: bool,
    },
    /// A hull shader's per-control-point output inside a nested struct: glslang 12 indexes its
    /// flattened variable by the member's index instead of the control point, so it reaches the
    /// wrong control point.
    NestedStructInHullOutput {
        /// The flattened variable's name (`@entryPointOutput.inner.color`).
        variable: String,
        /// Its semantic as the source writes it.
        written_as: String,
    },
    /// A stage declares `semantic` twice among its inputs (`output: false`) or outputs.
    Duplicate {
        /// The semantic.
        semantic: Semantic,
        /// The semantic as the source writes it.
        written_as: String,
        /// Whether it is the upstream stage's output (else the downstream's input).
        output: bool,
    },
}

impl LinkError {
    /// The semantic as the source of the stage at fault writes it (for finding its line).
    pub fn written_as(&self) -> &str {
        match self {
            LinkError::NotWritten { written_as, .. }
            | LinkError::TypeMismatch { written_as, .. }
            | LinkError::PatchMismatch { written_as, .. }
            | LinkError::Scattered { written_as, .. }
            | LinkError::ArrayInPerVertexStruct { written_as, .. }
            | LinkError::NestedStructInHullOutput { written_as, .. }
            | LinkError::Duplicate { written_as, .. } => written_as,
        }
    }

    /// The word whose first line in the source at fault locates the error, and whether to
    /// ignore case finding it: the nested struct member of
    /// [`LinkError::NestedStructInHullOutput`] (`inner` of `@entryPointOutput.inner.color`,
    /// case-sensitive), else the semantic as written (HLSL semantics ignore case).
    pub fn locating_word(&self) -> (&str, bool) {
        match self {
            LinkError::NestedStructInHullOutput { variable, .. } => {
                let mut parts = variable.rsplit('.');
                parts.next();
                (parts.next().unwrap_or(variable), false)
            }
            _ => (self.written_as(), true),
        }
    }

    /// Whether the fault is in the upstream stage's outputs (else in the downstream's inputs).
    pub fn in_upstream(&self) -> bool {
        matches!(
            self,
            LinkError::Duplicate { output: true, .. }
                | LinkError::ArrayInPerVertexStruct { output: true, .. }
                | LinkError::NestedStructInHullOutput { .. }
        )
    }

    /// The message, naming the upstream stage as `upstream` (a file name).
    pub fn message(&self, upstream: &str) -> String {
        match self {
            LinkError::NotWritten { semantic, .. } => {
                format!("input `{semantic}` is not written by {upstream}")
            }
            LinkError::TypeMismatch {
                semantic,
                input,
                output,
                ..
            } => format!(
                "input `{semantic}` is {} but {upstream} writes it as {}",
                hlsl_type_name(input),
                hlsl_type_name(output)
            ),
            LinkError::PatchMismatch {
                semantic,
                input_is_patch: true,
                ..
            } => format!(
                "input `{semantic}` is a patch constant but {upstream} writes it per control point"
            ),
            LinkError::PatchMismatch { semantic, .. } => format!(
                "input `{semantic}` is read per control point but {upstream} writes it as a patch constant"
            ),
            LinkError::Scattered {
                semantic,
                locations,
                ..
            } => format!(
                "input `{semantic}` spans {locations} locations but {upstream} does not write `{semantic}` to `{}` at consecutive locations: declare them together in the same order",
                semantic.offset(locations - 1)
            ),
            LinkError::ArrayInPerVertexStruct {
                variable,
                written_as,
                ..
            } => format!(
                "`{variable}` (`{written_as}`) is an array member of a struct passed per vertex, which glslang 12 compiles with the wrong array size: declare the elements as members of their own (`{written_as}0`, `{written_as}1`, ...)"
            ),
            LinkError::NestedStructInHullOutput {
                variable,
                written_as,
            } => format!(
                "hull shader output `{variable}` (`{written_as}`) is in a nested struct, which glslang 12 writes to the wrong control point: declare it directly in the output struct"
            ),
            LinkError::Duplicate {
                semantic,
                output: true,
                ..
            } => format!("output `{semantic}` is written twice"),
            LinkError::Duplicate { semantic, .. } => format!("input `{semantic}` is read twice"),
        }
    }
}

/// One location of a stage's interface named by a semantic.
#[derive(Clone, Debug)]
struct SemanticSlot {
    location: u32,
    slot: LocationSlot,
    patch: bool,
}

/// The user (non-built-in) variables of `variables` with a location and a semantic, each with
/// the semantics of its locations; `Err` on a semantic that appears twice.
fn semantic_slots(
    variables: &[InterfaceVariable],
    output: bool,
) -> Result<Vec<(&InterfaceVariable, Semantic)>, LinkError> {
    let mut next_index: HashMap<&str, u32> = HashMap::new();
    let mut seen: HashMap<Semantic, ()> = HashMap::new();
    let mut found = Vec::new();
    for variable in variables {
        let (Some(raw), Some(_), None) = (&variable.semantic, variable.location, variable.built_in)
        else {
            continue;
        };
        let parsed = Semantic::parse(raw);
        let key = raw.as_str();
        let first = *next_index.entry(key).or_insert(parsed.index);
        let first = parsed.offset(first - parsed.index);
        let count = variable.slots.len() as u32;
        next_index.insert(key, first.index.saturating_add(count));
        for offset in 0..count {
            let semantic = first.offset(offset);
            if seen.insert(semantic.clone(), ()).is_some() {
                return Err(LinkError::Duplicate {
                    semantic,
                    written_as: raw.clone(),
                    output,
                });
            }
        }
        found.push((variable, first));
    }
    Ok(found)
}

/// Rejects HLSL variables arrayed per vertex that glslang flattened from an array member of a
/// struct (named `....name[i]`, or sized unlike the stage's other per-vertex variables).
fn check_per_vertex_arrays(variables: &[InterfaceVariable], output: bool) -> Result<(), LinkError> {
    let per_vertex: Vec<(&InterfaceVariable, u32)> = variables
        .iter()
        .filter(|v| v.semantic.is_some() && v.location.is_some())
        .filter_map(|v| Some((v, v.vertices?)))
        .collect();
    // Only a hull shader has outputs arrayed per vertex; glslang names a flattened member of a
    // nested struct `@entryPointOutput.outer.inner`.
    if output {
        if let Some((nested, _)) = per_vertex
            .iter()
            .find(|(v, _)| !v.patch && v.name.matches('.').count() > 1)
        {
            return Err(LinkError::NestedStructInHullOutput {
                variable: nested.name.clone(),
                written_as: nested.semantic.clone().unwrap_or_default(),
            });
        }
    }
    // Flattened array elements are named `...name[i]`; without names, their odd size shows them.
    let mut counts: HashMap<u32, usize> = HashMap::new();
    for (_, vertices) in &per_vertex {
        *counts.entry(*vertices).or_default() += 1;
    }
    let usual = counts
        .iter()
        .max_by_key(|(vertices, n)| (**n, **vertices))
        .map(|(vertices, _)| *vertices);
    let suspect = per_vertex
        .iter()
        .find(|(v, _)| v.name.ends_with(']'))
        .or_else(|| per_vertex.iter().find(|(_, n)| Some(*n) != usual));
    if let Some((variable, _)) = suspect {
        let written_as = variable.semantic.clone().unwrap_or_default();
        let name = if variable.name.is_empty() {
            written_as.clone()
        } else {
            variable.name.clone()
        };
        return Err(LinkError::ArrayInPerVertexStruct {
            variable: name,
            written_as,
            output,
        });
    }
    Ok(())
}

/// Links `downstream`'s inputs to `upstream`'s outputs by semantic and rewrites the
/// `Location` decorations of `downstream_spirv` (the module `downstream` was reflected from)
/// and the locations in `downstream` to match (semantics stay, so the next stage can link to
/// this one); returns how many input variables moved. Stages without semantics on either side
/// keep their locations. See the module documentation.
pub fn link_by_semantic(
    upstream: &StageInterface,
    downstream: &mut StageInterface,
    downstream_spirv: &mut [u32],
) -> Result<usize, LinkError> {
    check_per_vertex_arrays(&upstream.outputs, true)?;
    check_per_vertex_arrays(&downstream.inputs, false)?;
    let outputs = semantic_slots(&upstream.outputs, true)?;
    if outputs.is_empty() && upstream.outputs.iter().all(|o| o.semantic.is_none()) {
        return Ok(0);
    }
    let mut written: HashMap<Semantic, SemanticSlot> = HashMap::new();
    for (variable, first) in &outputs {
        let mut location = variable.location.unwrap_or(0);
        for (offset, slot) in variable.slots.iter().enumerate() {
            written.insert(
                first.offset(offset as u32),
                SemanticSlot {
                    location,
                    slot: *slot,
                    patch: variable.patch,
                },
            );
            location += slot.locations();
        }
    }
    let mut moves: HashMap<u32, u32> = HashMap::new();
    for (variable, first) in semantic_slots(&downstream.inputs, false)? {
        let written_as = variable.semantic.clone().unwrap_or_default();
        let mut start = None;
        let mut expected_location = 0;
        for (offset, slot) in variable.slots.iter().enumerate() {
            let semantic = first.offset(offset as u32);
            let Some(output) = written.get(&semantic) else {
                return Err(LinkError::NotWritten {
                    semantic,
                    written_as,
                });
            };
            if output.patch != variable.patch {
                return Err(LinkError::PatchMismatch {
                    semantic,
                    written_as,
                    input_is_patch: variable.patch,
                });
            }
            if output.slot.scalar != slot.scalar || output.slot.components < slot.components {
                return Err(LinkError::TypeMismatch {
                    semantic,
                    written_as,
                    input: *slot,
                    output: output.slot,
                });
            }
            match start {
                None => start = Some(output.location),
                Some(_) if output.location != expected_location => {
                    return Err(LinkError::Scattered {
                        semantic: first,
                        written_as,
                        locations: variable.slots.len() as u32,
                    })
                }
                Some(_) => {}
            }
            expected_location = output.location + output.slot.locations();
        }
        if let (Some(start), Some(location)) = (start, variable.location) {
            if start != location {
                moves.insert(variable.id, start);
            }
        }
    }
    rewrite_locations(downstream_spirv, &moves);
    for input in &mut downstream.inputs {
        if let Some(location) = moves.get(&input.id) {
            input.location = Some(*location);
        }
    }
    downstream
        .inputs
        .sort_by_key(|v| (v.location.is_none(), v.location.unwrap_or(0)));
    Ok(moves.len())
}

/// Sets the `Location` decoration of each variable id in `moves` to its new value.
fn rewrite_locations(words: &mut [u32], moves: &HashMap<u32, u32>) {
    if moves.is_empty() {
        return;
    }
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if count == 0 || at + count > words.len() {
            return;
        }
        if opcode == OP_DECORATE && count == 4 && words[at + 2] == DECORATION_LOCATION {
            if let Some(location) = moves.get(&words[at + 1]) {
                words[at + 3] = *location;
            }
        }
        at += count;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantics_parse_case_and_index() {
        assert_eq!(
            Semantic::parse("Color2"),
            Semantic {
                name: "COLOR".into(),
                index: 2
            }
        );
        assert_eq!(Semantic::parse("T").to_string(), "T0");
        assert_eq!(Semantic::parse("99").to_string(), "99");
    }
}
