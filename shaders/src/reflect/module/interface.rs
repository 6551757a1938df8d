//! Entry-point interfaces: each `Input` and `Output` variable of an entry point with its
//! location, built-in, HLSL semantic, `Patch` flag, per-vertex array and the types of the
//! locations it occupies.

use super::{storage, Module, RawEntryPoint, Type, MAX_TYPE_DEPTH};
use crate::error::ReflectError;
use crate::reflect::{ExecutionModel, InterfaceVariable, LocationSlot, StageInterface};

/// Array lengths beyond this are not expanded into slots (no stage has that many locations).
const MAX_SLOTS: u32 = 4096;

impl Module {
    /// The interface of `entry`, whose stage is `model`.
    pub(super) fn stage_interface(
        &self,
        entry: &RawEntryPoint,
        model: ExecutionModel,
    ) -> Result<StageInterface, ReflectError> {
        let mut interface = StageInterface {
            entry_point: entry.name.clone(),
            output_vertices: self.output_vertices.get(&entry.id).copied(),
            execution_modes: self
                .execution_modes
                .get(&entry.id)
                .cloned()
                .unwrap_or_default(),
            ..StageInterface::default()
        };
        for variable in &self.variables {
            let input = match variable.storage {
                storage::INPUT => true,
                storage::OUTPUT => false,
                _ => continue,
            };
            if !entry.interface.contains(&variable.id) {
                continue;
            }
            let decorations = self
                .decorations
                .get(&variable.id)
                .cloned()
                .unwrap_or_default();
            let per_vertex = !decorations.patch
                && match model {
                    ExecutionModel::Geometry | ExecutionModel::TessellationEvaluation => input,
                    ExecutionModel::TessellationControl => true,
                    _ => false,
                };
            let mut ty = self.pointee(variable.pointer_type)?;
            let mut vertices = None;
            if per_vertex {
                if let Type::Array { element, length } = self.ty(ty)? {
                    vertices = Some(self.constant(*length)?);
                    ty = *element;
                }
            }
            let mut slots = Vec::new();
            self.location_slots(ty, 0, &mut slots)?;
            let found = InterfaceVariable {
                id: variable.id,
                name: self.name_of(variable.id),
                location: decorations.location,
                built_in: decorations.built_in,
                semantic: decorations.user_semantic.clone(),
                patch: decorations.patch,
                vertices,
                slots,
            };
            if input {
                interface.inputs.push(found);
            } else {
                interface.outputs.push(found);
            }
        }
        for list in [&mut interface.inputs, &mut interface.outputs] {
            list.sort_by_key(|v| (v.location.is_none(), v.location.unwrap_or(0)));
        }
        Ok(interface)
    }

    /// Appends the location types of `id`: arrays, matrices and structs flattened in order;
    /// types that take no location (opaque types) add nothing.
    fn location_slots(
        &self,
        id: u32,
        depth: u32,
        out: &mut Vec<LocationSlot>,
    ) -> Result<(), ReflectError> {
        if depth > MAX_TYPE_DEPTH {
            return Err(ReflectError::TooDeep);
        }
        match self.ty(id)? {
            Type::Bool | Type::Int { .. } | Type::Float { .. } => out.push(LocationSlot {
                scalar: self.scalar(id)?,
                components: 1,
            }),
            Type::Vector { component, count } => out.push(LocationSlot {
                scalar: self.scalar(*component)?,
                components: *count,
            }),
            Type::Matrix { column, columns } => {
                for _ in 0..*columns {
                    self.location_slots(*column, depth + 1, out)?;
                }
            }
            Type::Array { element, length } => {
                let length = self.constant(*length)?.min(MAX_SLOTS);
                let mut element_slots = Vec::new();
                self.location_slots(*element, depth + 1, &mut element_slots)?;
                for _ in 0..length {
                    if out.len() >= MAX_SLOTS as usize {
                        break;
                    }
                    out.extend_from_slice(&element_slots);
                }
            }
            Type::Struct { members } => {
                for member in members {
                    self.location_slots(*member, depth + 1, out)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}
