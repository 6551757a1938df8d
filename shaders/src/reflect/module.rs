//! The SPIR-V word-stream parser behind [`super::reflect`]: collects names, decorations, types,
//! integer constants, variables and entry points, then derives the reflection from them.

mod interface;

use std::collections::HashMap;

use super::{
    BlockMember, DescriptorBinding, DescriptorKind, EntryPoint, ExecutionModel, FragmentOutput,
    ImageInfo, PushConstantBlock, Reflection, ScalarType,
};
use crate::error::ReflectError;

const MAGIC: u32 = 0x0723_0203;
const MAX_TYPE_DEPTH: u32 = 32;

mod op {
    pub const NAME: u16 = 5;
    pub const MEMBER_NAME: u16 = 6;
    pub const ENTRY_POINT: u16 = 15;
    pub const EXECUTION_MODE: u16 = 16;
    pub const TYPE_VOID: u16 = 19;
    pub const TYPE_BOOL: u16 = 20;
    pub const TYPE_INT: u16 = 21;
    pub const TYPE_FLOAT: u16 = 22;
    pub const TYPE_VECTOR: u16 = 23;
    pub const TYPE_MATRIX: u16 = 24;
    pub const TYPE_IMAGE: u16 = 25;
    pub const TYPE_SAMPLER: u16 = 26;
    pub const TYPE_SAMPLED_IMAGE: u16 = 27;
    pub const TYPE_ARRAY: u16 = 28;
    pub const TYPE_RUNTIME_ARRAY: u16 = 29;
    pub const TYPE_STRUCT: u16 = 30;
    pub const TYPE_POINTER: u16 = 32;
    pub const CONSTANT: u16 = 43;
    pub const SPEC_CONSTANT: u16 = 50;
    pub const VARIABLE: u16 = 59;
    pub const DECORATE: u16 = 71;
    pub const MEMBER_DECORATE: u16 = 72;
    pub const DECORATE_STRING: u16 = 5632;
    pub const EXECUTION_MODE_ID: u16 = 331;
    pub const TYPE_ACCELERATION_STRUCTURE: u16 = 5341;
}

mod decoration {
    pub const BLOCK: u32 = 2;
    pub const BUFFER_BLOCK: u32 = 3;
    pub const ROW_MAJOR: u32 = 4;
    pub const ARRAY_STRIDE: u32 = 6;
    pub const MATRIX_STRIDE: u32 = 7;
    pub const BUILT_IN: u32 = 11;
    pub const PATCH: u32 = 15;
    pub const NON_WRITABLE: u32 = 24;
    pub const LOCATION: u32 = 30;
    pub const BINDING: u32 = 33;
    pub const DESCRIPTOR_SET: u32 = 34;
    pub const OFFSET: u32 = 35;
    pub const USER_SEMANTIC: u32 = 5635;
}

mod storage {
    pub const UNIFORM_CONSTANT: u32 = 0;
    pub const INPUT: u32 = 1;
    pub const UNIFORM: u32 = 2;
    pub const OUTPUT: u32 = 3;
    pub const PUSH_CONSTANT: u32 = 9;
    pub const STORAGE_BUFFER: u32 = 12;
}

const BUILT_IN_FRAG_DEPTH: u32 = 22;
const MODE_OUTPUT_VERTICES: u32 = 26;
const MODE_LOCAL_SIZE: u32 = 17;
const MODE_LOCAL_SIZE_ID: u32 = 38;

#[derive(Clone, Debug)]
enum Type {
    Void,
    Bool,
    Int { width: u32, signed: bool },
    Float { width: u32 },
    Vector { component: u32, count: u32 },
    Matrix { column: u32, columns: u32 },
    Image(ImageInfo, u32),
    Sampler,
    SampledImage { image: u32 },
    Array { element: u32, length: u32 },
    RuntimeArray { element: u32 },
    Struct { members: Vec<u32> },
    Pointer { pointee: u32 },
    AccelerationStructure,
}

#[derive(Clone, Debug, Default)]
struct Decorations {
    set: Option<u32>,
    binding: Option<u32>,
    location: Option<u32>,
    built_in: Option<u32>,
    block: bool,
    buffer_block: bool,
    non_writable: bool,
    array_stride: Option<u32>,
    patch: bool,
    user_semantic: Option<String>,
}

#[derive(Clone, Debug, Default)]
struct MemberDecorations {
    offset: Option<u32>,
    matrix_stride: Option<u32>,
    row_major: bool,
    non_writable: bool,
}

struct Variable {
    id: u32,
    pointer_type: u32,
    storage: u32,
}

struct RawEntryPoint {
    model: u32,
    id: u32,
    name: String,
    interface: Vec<u32>,
}

/// The parsed facts of a module.
#[derive(Default)]
pub(super) struct Module {
    names: HashMap<u32, String>,
    member_names: HashMap<(u32, u32), String>,
    decorations: HashMap<u32, Decorations>,
    member_decorations: HashMap<(u32, u32), MemberDecorations>,
    types: HashMap<u32, Type>,
    constants: HashMap<u32, u32>,
    variables: Vec<Variable>,
    entry_points: Vec<RawEntryPoint>,
    local_sizes: HashMap<u32, [u32; 3]>,
    local_size_ids: HashMap<u32, [u32; 3]>,
    output_vertices: HashMap<u32, u32>,
    execution_modes: HashMap<u32, Vec<u32>>,
}

/// Reads a nul-terminated UTF-8 literal string; returns it and the words it took.
fn literal_string(words: &[u32]) -> (String, usize) {
    let mut bytes = Vec::new();
    for (index, word) in words.iter().enumerate() {
        for byte in word.to_le_bytes() {
            if byte == 0 {
                return (String::from_utf8_lossy(&bytes).into_owned(), index + 1);
            }
            bytes.push(byte);
        }
    }
    (String::from_utf8_lossy(&bytes).into_owned(), words.len())
}

fn operand(operands: &[u32], index: usize, offset: usize) -> Result<u32, ReflectError> {
    operands
        .get(index)
        .copied()
        .ok_or(ReflectError::BadInstruction { offset })
}

impl Module {
    pub(super) fn parse(words: &[u32]) -> Result<Module, ReflectError> {
        if words.len() < 5 {
            return Err(ReflectError::TooShort);
        }
        if words[0] != MAGIC {
            return Err(ReflectError::BadMagic(words[0]));
        }
        let mut module = Module::default();
        let mut offset = 5;
        while offset < words.len() {
            let word_count = (words[offset] >> 16) as usize;
            let opcode = (words[offset] & 0xffff) as u16;
            if word_count == 0 || offset + word_count > words.len() {
                return Err(ReflectError::BadInstruction { offset });
            }
            module.instruction(opcode, &words[offset + 1..offset + word_count], offset)?;
            offset += word_count;
        }
        Ok(module)
    }

    fn instruction(&mut self, opcode: u16, ops: &[u32], at: usize) -> Result<(), ReflectError> {
        let arg = |index| operand(ops, index, at);
        if opcode == op::EXECUTION_MODE {
            let modes = self.execution_modes.entry(arg(0)?).or_default();
            modes.push(arg(1)?);
        }
        match opcode {
            op::NAME => {
                let (name, _) = literal_string(ops.get(1..).unwrap_or(&[]));
                self.names.insert(arg(0)?, name);
            }
            op::MEMBER_NAME => {
                let (name, _) = literal_string(ops.get(2..).unwrap_or(&[]));
                self.member_names.insert((arg(0)?, arg(1)?), name);
            }
            op::ENTRY_POINT => {
                let (name, used) = literal_string(ops.get(2..).unwrap_or(&[]));
                let interface = ops.get(2 + used..).unwrap_or(&[]).to_vec();
                self.entry_points.push(RawEntryPoint {
                    model: arg(0)?,
                    id: arg(1)?,
                    name,
                    interface,
                });
            }
            op::EXECUTION_MODE if arg(1)? == MODE_LOCAL_SIZE => {
                self.local_sizes
                    .insert(arg(0)?, [arg(2)?, arg(3)?, arg(4)?]);
            }
            op::EXECUTION_MODE if arg(1)? == MODE_OUTPUT_VERTICES => {
                self.output_vertices.insert(arg(0)?, arg(2)?);
            }
            op::EXECUTION_MODE_ID if arg(1)? == MODE_LOCAL_SIZE_ID => {
                self.local_size_ids
                    .insert(arg(0)?, [arg(2)?, arg(3)?, arg(4)?]);
            }
            op::TYPE_VOID => self.add_type(arg(0)?, Type::Void),
            op::TYPE_BOOL => self.add_type(arg(0)?, Type::Bool),
            op::TYPE_INT => self.add_type(
                arg(0)?,
                Type::Int {
                    width: arg(1)?,
                    signed: arg(2)? != 0,
                },
            ),
            op::TYPE_FLOAT => self.add_type(arg(0)?, Type::Float { width: arg(1)? }),
            op::TYPE_VECTOR => self.add_type(
                arg(0)?,
                Type::Vector {
                    component: arg(1)?,
                    count: arg(2)?,
                },
            ),
            op::TYPE_MATRIX => self.add_type(
                arg(0)?,
                Type::Matrix {
                    column: arg(1)?,
                    columns: arg(2)?,
                },
            ),
            op::TYPE_IMAGE => {
                let info = ImageInfo {
                    dim: arg(2)?,
                    arrayed: arg(4)? != 0,
                    multisampled: arg(5)? != 0,
                    format: arg(7)?,
                };
                self.add_type(arg(0)?, Type::Image(info, arg(6)?));
            }
            op::TYPE_SAMPLER => self.add_type(arg(0)?, Type::Sampler),
            op::TYPE_SAMPLED_IMAGE => self.add_type(arg(0)?, Type::SampledImage { image: arg(1)? }),
            op::TYPE_ARRAY => self.add_type(
                arg(0)?,
                Type::Array {
                    element: arg(1)?,
                    length: arg(2)?,
                },
            ),
            op::TYPE_RUNTIME_ARRAY => {
                self.add_type(arg(0)?, Type::RuntimeArray { element: arg(1)? })
            }
            op::TYPE_STRUCT => self.add_type(
                arg(0)?,
                Type::Struct {
                    members: ops[1..].to_vec(),
                },
            ),
            op::TYPE_POINTER => self.add_type(arg(0)?, Type::Pointer { pointee: arg(2)? }),
            op::TYPE_ACCELERATION_STRUCTURE => self.add_type(arg(0)?, Type::AccelerationStructure),
            op::CONSTANT | op::SPEC_CONSTANT => {
                self.constants.insert(arg(1)?, arg(2)?);
            }
            op::VARIABLE => self.variables.push(Variable {
                pointer_type: arg(0)?,
                id: arg(1)?,
                storage: arg(2)?,
            }),
            op::DECORATE => {
                let entry = self.decorations.entry(arg(0)?).or_default();
                let value = ops.get(2).copied();
                match arg(1)? {
                    decoration::DESCRIPTOR_SET => entry.set = value,
                    decoration::BINDING => entry.binding = value,
                    decoration::LOCATION => entry.location = value,
                    decoration::BUILT_IN => entry.built_in = value,
                    decoration::BLOCK => entry.block = true,
                    decoration::BUFFER_BLOCK => entry.buffer_block = true,
                    decoration::NON_WRITABLE => entry.non_writable = true,
                    decoration::ARRAY_STRIDE => entry.array_stride = value,
                    decoration::PATCH => entry.patch = true,
                    _ => {}
                }
            }
            op::DECORATE_STRING if arg(1)? == decoration::USER_SEMANTIC => {
                let (semantic, _) = literal_string(ops.get(2..).unwrap_or(&[]));
                self.decorations.entry(arg(0)?).or_default().user_semantic = Some(semantic);
            }
            op::MEMBER_DECORATE => {
                let entry = self
                    .member_decorations
                    .entry((arg(0)?, arg(1)?))
                    .or_default();
                let value = ops.get(3).copied();
                match arg(2)? {
                    decoration::OFFSET => entry.offset = value,
                    decoration::MATRIX_STRIDE => entry.matrix_stride = value,
                    decoration::ROW_MAJOR => entry.row_major = true,
                    decoration::NON_WRITABLE => entry.non_writable = true,
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn add_type(&mut self, id: u32, ty: Type) {
        self.types.insert(id, ty);
    }

    fn ty(&self, id: u32) -> Result<&Type, ReflectError> {
        self.types.get(&id).ok_or(ReflectError::BadReference {
            id,
            expected: "a type",
        })
    }

    fn constant(&self, id: u32) -> Result<u32, ReflectError> {
        self.constants
            .get(&id)
            .copied()
            .ok_or(ReflectError::BadReference {
                id,
                expected: "an integer constant",
            })
    }

    fn pointee(&self, pointer_type: u32) -> Result<u32, ReflectError> {
        match self.ty(pointer_type)? {
            Type::Pointer { pointee } => Ok(*pointee),
            _ => Err(ReflectError::BadReference {
                id: pointer_type,
                expected: "a pointer type",
            }),
        }
    }

    fn name_of(&self, id: u32) -> String {
        self.names.get(&id).cloned().unwrap_or_default()
    }

    /// Builds the reflection from the parsed facts.
    pub(super) fn reflect(&self) -> Result<Reflection, ReflectError> {
        let mut reflection = Reflection::default();
        for entry in &self.entry_points {
            let local_size = match (
                self.local_sizes.get(&entry.id),
                self.local_size_ids.get(&entry.id),
            ) {
                (Some(size), _) => Some(*size),
                (None, Some(ids)) => Some([
                    self.constant(ids[0])?,
                    self.constant(ids[1])?,
                    self.constant(ids[2])?,
                ]),
                (None, None) => None,
            };
            let model = match entry.model {
                0 => ExecutionModel::Vertex,
                4 => ExecutionModel::Fragment,
                5 => ExecutionModel::GlCompute,
                1 => ExecutionModel::TessellationControl,
                2 => ExecutionModel::TessellationEvaluation,
                3 => ExecutionModel::Geometry,
                other => ExecutionModel::Other(other),
            };
            reflection.entry_points.push(EntryPoint {
                name: entry.name.clone(),
                model,
                local_size,
            });
            if model == ExecutionModel::Fragment {
                self.fragment_outputs(entry, &mut reflection)?;
            }
            let interface = self.stage_interface(entry, model)?;
            reflection.interfaces.push(interface);
        }
        reflection
            .fragment_outputs
            .sort_by_key(|output| output.location);
        reflection.fragment_outputs.dedup();
        for variable in &self.variables {
            match variable.storage {
                storage::UNIFORM_CONSTANT | storage::UNIFORM | storage::STORAGE_BUFFER => {
                    if let Some(binding) = self.descriptor(variable)? {
                        reflection.descriptors.push(binding);
                    }
                }
                storage::PUSH_CONSTANT => {
                    let block = self.push_constant_block(variable)?;
                    let bigger =
                        !matches!(&reflection.push_constants, Some(old) if old.size >= block.size);
                    if bigger {
                        reflection.push_constants = Some(block);
                    }
                }
                _ => {}
            }
        }
        reflection.descriptors.sort_by_key(|d| (d.set, d.binding));
        Ok(reflection)
    }

    fn fragment_outputs(
        &self,
        entry: &RawEntryPoint,
        out: &mut Reflection,
    ) -> Result<(), ReflectError> {
        for variable in self
            .variables
            .iter()
            .filter(|v| v.storage == storage::OUTPUT)
        {
            if !entry.interface.contains(&variable.id) {
                continue;
            }
            let decorations = self
                .decorations
                .get(&variable.id)
                .cloned()
                .unwrap_or_default();
            if decorations.built_in == Some(BUILT_IN_FRAG_DEPTH) {
                out.writes_frag_depth = true;
                continue;
            }
            let Some(location) = decorations.location else {
                continue;
            };
            let pointee = self.pointee(variable.pointer_type)?;
            let (scalar, components) = match self.ty(pointee)? {
                Type::Vector { component, count } => (self.scalar(*component)?, *count),
                _ => (self.scalar(pointee)?, 1),
            };
            out.fragment_outputs.push(FragmentOutput {
                location,
                name: self.name_of(variable.id),
                components,
                scalar,
            });
        }
        Ok(())
    }

    fn scalar(&self, id: u32) -> Result<ScalarType, ReflectError> {
        match self.ty(id)? {
            Type::Float { width } => Ok(ScalarType::Float(*width)),
            Type::Int {
                width,
                signed: true,
            } => Ok(ScalarType::Int(*width)),
            Type::Int {
                width,
                signed: false,
            } => Ok(ScalarType::Uint(*width)),
            Type::Bool => Ok(ScalarType::Bool),
            _ => Err(ReflectError::BadReference {
                id,
                expected: "a scalar type",
            }),
        }
    }

    fn descriptor(&self, variable: &Variable) -> Result<Option<DescriptorBinding>, ReflectError> {
        let decorations = self
            .decorations
            .get(&variable.id)
            .cloned()
            .unwrap_or_default();
        let mut ty_id = self.pointee(variable.pointer_type)?;
        let count = match self.ty(ty_id)? {
            Type::Array { element, length } => {
                let count = self.constant(*length)?;
                ty_id = *element;
                count
            }
            Type::RuntimeArray { element } => {
                ty_id = *element;
                0
            }
            _ => 1,
        };
        let type_decorations = self.decorations.get(&ty_id).cloned().unwrap_or_default();
        let mut image = None;
        let mut block_size = None;
        let mut writable = false;
        let kind = match (variable.storage, self.ty(ty_id)?) {
            (storage::UNIFORM_CONSTANT, Type::Image(info, sampled)) => {
                image = Some(*info);
                let storage_image = *sampled == 2;
                writable = storage_image && !decorations.non_writable;
                match (info.dim, storage_image) {
                    (5, true) => DescriptorKind::StorageTexelBuffer,
                    (5, false) => DescriptorKind::UniformTexelBuffer,
                    (6, _) => DescriptorKind::InputAttachment,
                    (_, true) => DescriptorKind::StorageImage,
                    (_, false) => DescriptorKind::SampledImage,
                }
            }
            (storage::UNIFORM_CONSTANT, Type::Sampler) => DescriptorKind::Sampler,
            (storage::UNIFORM_CONSTANT, Type::SampledImage { image: image_ty }) => {
                if let Ok(Type::Image(info, _)) = self.ty(*image_ty) {
                    image = Some(*info);
                }
                DescriptorKind::CombinedImageSampler
            }
            (storage::UNIFORM_CONSTANT, Type::AccelerationStructure) => {
                DescriptorKind::AccelerationStructure
            }
            (storage::UNIFORM | storage::STORAGE_BUFFER, Type::Struct { members }) => {
                block_size = Some(self.size_of(ty_id, None, 0)?);
                let storage_buffer =
                    variable.storage == storage::STORAGE_BUFFER || type_decorations.buffer_block;
                if storage_buffer {
                    let all_read_only = (0..members.len() as u32).all(|index| {
                        self.member_decorations
                            .get(&(ty_id, index))
                            .is_some_and(|m| m.non_writable)
                    });
                    writable = !decorations.non_writable && !all_read_only;
                    DescriptorKind::StorageBuffer
                } else {
                    DescriptorKind::UniformBuffer
                }
            }
            _ => return Ok(None),
        };
        let mut name = self.name_of(variable.id);
        if name.is_empty() {
            name = self.name_of(ty_id);
        }
        Ok(Some(DescriptorBinding {
            set: decorations.set.unwrap_or(0),
            binding: decorations.binding.unwrap_or(0),
            name,
            kind,
            count,
            writable,
            image,
            block_size,
        }))
    }

    fn push_constant_block(&self, variable: &Variable) -> Result<PushConstantBlock, ReflectError> {
        let struct_id = self.pointee(variable.pointer_type)?;
        let Type::Struct { members } = self.ty(struct_id)? else {
            return Err(ReflectError::BadReference {
                id: struct_id,
                expected: "a struct type",
            });
        };
        let mut block_members = Vec::new();
        for (index, member_ty) in members.iter().enumerate() {
            let key = (struct_id, index as u32);
            let member = self.member_decorations.get(&key);
            block_members.push(BlockMember {
                name: self.member_names.get(&key).cloned().unwrap_or_default(),
                offset: member.and_then(|m| m.offset).unwrap_or(0),
                size: self.size_of(*member_ty, member, 0)?,
            });
        }
        let size = block_members
            .iter()
            .map(|m| m.offset + m.size)
            .max()
            .unwrap_or(0);
        let mut name = self.name_of(struct_id);
        if name.is_empty() {
            name = self.name_of(variable.id);
        }
        Ok(PushConstantBlock {
            name,
            size,
            members: block_members,
        })
    }

    /// The byte size of `id` laid out with explicit offsets and strides; `member` carries the
    /// matrix stride and majorness when `id` is a struct member.
    fn size_of(
        &self,
        id: u32,
        member: Option<&MemberDecorations>,
        depth: u32,
    ) -> Result<u32, ReflectError> {
        if depth > MAX_TYPE_DEPTH {
            return Err(ReflectError::TooDeep);
        }
        let size = match self.ty(id)? {
            Type::Bool => 4,
            Type::Int { width, .. } | Type::Float { width } => width / 8,
            Type::Vector { component, count } => self.size_of(*component, None, depth + 1)? * count,
            Type::Matrix { column, columns } => {
                let Type::Vector { count: rows, .. } = self.ty(*column)? else {
                    return Err(ReflectError::BadReference {
                        id: *column,
                        expected: "a vector type",
                    });
                };
                let column_size = self.size_of(*column, None, depth + 1)?;
                match member {
                    Some(MemberDecorations {
                        matrix_stride: Some(stride),
                        row_major: true,
                        ..
                    }) => stride * rows,
                    Some(MemberDecorations {
                        matrix_stride: Some(stride),
                        ..
                    }) => stride * columns,
                    _ => column_size * columns,
                }
            }
            Type::Array { element, length } => {
                let length = self.constant(*length)?;
                let stride = match self.decorations.get(&id).and_then(|d| d.array_stride) {
                    Some(stride) => stride,
                    None => self.size_of(*element, member, depth + 1)?,
                };
                stride.saturating_mul(length)
            }
            Type::RuntimeArray { .. } => 0,
            Type::Struct { members } => {
                let mut end = 0u32;
                for (index, member_ty) in members.iter().enumerate() {
                    let decorations = self.member_decorations.get(&(id, index as u32));
                    let offset = decorations.and_then(|m| m.offset).unwrap_or(end);
                    let size = self.size_of(*member_ty, decorations, depth + 1)?;
                    end = end.max(offset.saturating_add(size));
                }
                end
            }
            Type::Void
            | Type::Image(..)
            | Type::Sampler
            | Type::SampledImage { .. }
            | Type::Pointer { .. }
            | Type::AccelerationStructure => 0,
        };
        Ok(size)
    }
}
