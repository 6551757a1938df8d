//! [`ArgsWriter`]: a node's argument block written by hand (tests, benches, hand-built graphs).

use crate::decl::{NodeDeclDesc, ValueType};
use crate::ids::NodeId;
use crate::view::{BufferView, TextureView, VIEW_BYTES};

/// Writes an argument block for a declaration (handy for tests, benches and hand-built graphs).
#[derive(Clone, Debug)]
pub struct ArgsWriter {
    param_offsets: Vec<u32>,
    bytes: Vec<u8>,
}

impl ArgsWriter {
    /// A zeroed block with every view parameter null.
    pub fn new(decl: &NodeDeclDesc) -> ArgsWriter {
        let mut bytes = vec![0u8; decl.args_size as usize];
        for param in &decl.params {
            for slot in &param.view_slots {
                let at = (param.offset + slot.offset) as usize;
                bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
            }
            if param.value_type == ValueType::NodeHandle {
                let at = param.offset as usize;
                bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
            }
        }
        ArgsWriter {
            param_offsets: decl.params.iter().map(|param| param.offset).collect(),
            bytes,
        }
    }

    /// Writes raw bytes at an offset within parameter `param`'s value.
    pub fn write_raw(&mut self, param: usize, offset: u32, data: &[u8]) -> &mut Self {
        let at = (self.param_offsets[param] + offset) as usize;
        self.bytes[at..at + data.len()].copy_from_slice(data);
        self
    }

    /// Writes a `u32` parameter.
    pub fn write_u32(&mut self, param: usize, value: u32) -> &mut Self {
        self.write_raw(param, 0, &value.to_le_bytes())
    }

    /// Writes an `f32` at an offset within a parameter.
    pub fn write_f32(&mut self, param: usize, offset: u32, value: f32) -> &mut Self {
        self.write_raw(param, offset, &value.to_le_bytes())
    }

    /// Writes a texture view parameter.
    pub fn write_texture(&mut self, param: usize, view: &TextureView) -> &mut Self {
        self.write_raw(param, 0, &view.to_bytes())
    }

    /// Writes the `index`-th texture of an array parameter.
    pub fn write_texture_at(&mut self, param: usize, index: u32, view: &TextureView) -> &mut Self {
        self.write_raw(param, index * VIEW_BYTES as u32, &view.to_bytes())
    }

    /// Writes a buffer view parameter.
    pub fn write_buffer(&mut self, param: usize, view: &BufferView) -> &mut Self {
        self.write_raw(param, 0, &view.to_bytes())
    }

    /// Writes a node handle parameter.
    pub fn write_node(&mut self, param: usize, node: NodeId) -> &mut Self {
        self.write_u32(param, node.0)
    }

    /// The block.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}
