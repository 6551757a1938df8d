//! The binary form of modules (for caches and untrusted input): [`encode_module`] and the checked
//! [`decode_module`], which rejects any malformed byte without panicking and without allocating
//! more than the input's length justifies. Decoded modules still go through the verifier before
//! they can run.
//!
//! Layout (all integers little-endian `u32` unless noted): magic `RPSLBC01`; function count; per
//! function: name (length + UTF-8), parameter types, return types, register types (count + one
//! byte each), frame size, register-list pool, block count, and per block its instruction count
//! followed by each instruction (opcode byte, fields; see [`Inst::encode`]) and its `u32` location.

use crate::entities::{Block, FuncId, LocId, NodeDeclId, Reg, RegList};
use crate::function::{BlockData, Function, Module, Signature};
use crate::inst::{ConstBits, Inst, VectorShape};
use crate::ops::{BinaryOp, MarkerKind, TernaryOp, UnaryOp, VectorOp};
use crate::types::Type;
use std::fmt;

const MAGIC: &[u8; 8] = b"RPSLBC01";

/// Why bytes could not be decoded.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DecodeError {
    /// The input does not start with the magic bytes.
    BadMagic,
    /// The input ended inside an item.
    UnexpectedEnd,
    /// An opcode byte names no instruction.
    BadOpcode(u8),
    /// An enum field (type, op, marker) is out of range.
    BadEnum(u8),
    /// A function name is not UTF-8.
    BadName,
    /// A count is larger than the remaining input could hold.
    BadLength,
    /// Bytes are left after the last function.
    TrailingBytes,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::BadMagic => write!(f, "not rpsl bytecode (bad magic)"),
            DecodeError::UnexpectedEnd => write!(f, "bytecode ends unexpectedly"),
            DecodeError::BadOpcode(byte) => write!(f, "invalid opcode {byte}"),
            DecodeError::BadEnum(byte) => write!(f, "invalid operand byte {byte}"),
            DecodeError::BadName => write!(f, "function name is not UTF-8"),
            DecodeError::BadLength => write!(f, "count exceeds the input size"),
            DecodeError::TrailingBytes => write!(f, "trailing bytes after the module"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// A cursor over untrusted bytes.
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Starts reading `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    /// Reads one byte.
    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        let (&first, rest) = self.bytes.split_first().ok_or(DecodeError::UnexpectedEnd)?;
        self.bytes = rest;
        Ok(first)
    }

    /// Reads a little-endian `u32`.
    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        let (head, rest) = self
            .bytes
            .split_first_chunk::<4>()
            .ok_or(DecodeError::UnexpectedEnd)?;
        self.bytes = rest;
        Ok(u32::from_le_bytes(*head))
    }

    /// Reads a count of items that take at least `min_item_size` bytes each, rejecting counts the
    /// remaining input cannot hold.
    pub fn count(&mut self, min_item_size: usize) -> Result<usize, DecodeError> {
        let count = self.u32()? as usize;
        if count.saturating_mul(min_item_size.max(1)) > self.bytes.len() {
            return Err(DecodeError::BadLength);
        }
        Ok(count)
    }

    fn bytes(&mut self, len: usize) -> Result<&'a [u8], DecodeError> {
        if len > self.bytes.len() {
            return Err(DecodeError::UnexpectedEnd);
        }
        let (head, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        Ok(head)
    }
}

/// A field of an instruction: how it is encoded and decoded.
pub trait Field: Sized {
    /// Appends the encoding.
    fn encode(&self, out: &mut Vec<u8>);
    /// Reads and checks the encoding.
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError>;
}

impl Field for u32 {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        reader.u32()
    }
}

macro_rules! id_field {
    ($($ty:ty),*) => {$(
        impl Field for $ty {
            fn encode(&self, out: &mut Vec<u8>) {
                self.as_u32().encode(out);
            }
            fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
                reader.u32().map(<$ty>::from_u32)
            }
        }
    )*};
}
id_field!(Reg, Block, FuncId, NodeDeclId);

macro_rules! byte_enum_field {
    ($($ty:ty),*) => {$(
        impl Field for $ty {
            fn encode(&self, out: &mut Vec<u8>) {
                out.push(*self as u8);
            }
            fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
                let byte = reader.u8()?;
                <$ty>::from_u8(byte).ok_or(DecodeError::BadEnum(byte))
            }
        }
    )*};
}
byte_enum_field!(Type, UnaryOp, BinaryOp, TernaryOp, MarkerKind, VectorOp);

impl Field for RegList {
    fn encode(&self, out: &mut Vec<u8>) {
        self.start.encode(out);
        self.len.encode(out);
    }
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(RegList {
            start: reader.u32()?,
            len: reader.u32()?,
        })
    }
}

impl Field for ConstBits {
    fn encode(&self, out: &mut Vec<u8>) {
        self.lo.encode(out);
        self.hi.encode(out);
    }
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(ConstBits {
            lo: reader.u32()?,
            hi: reader.u32()?,
        })
    }
}

impl Field for VectorShape {
    fn encode(&self, out: &mut Vec<u8>) {
        self.op.encode(out);
        self.ty.encode(out);
        out.push(self.width);
    }
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(VectorShape {
            op: VectorOp::decode(reader)?,
            ty: Type::decode(reader)?,
            width: reader.u8()?,
        })
    }
}

fn encode_types(types: &[Type], out: &mut Vec<u8>) {
    (types.len() as u32).encode(out);
    for ty in types {
        ty.encode(out);
    }
}

fn decode_types(reader: &mut Reader<'_>) -> Result<Vec<Type>, DecodeError> {
    let count = reader.count(1)?;
    (0..count).map(|_| Type::decode(reader)).collect()
}

/// Encodes a module.
pub fn encode_module(module: &Module) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    (module.functions.len() as u32).encode(&mut out);
    for function in &module.functions {
        (function.name.len() as u32).encode(&mut out);
        out.extend_from_slice(function.name.as_bytes());
        encode_types(&function.signature.params, &mut out);
        encode_types(&function.signature.returns, &mut out);
        encode_types(&function.reg_types, &mut out);
        function.frame_size.encode(&mut out);
        (function.reg_lists.len() as u32).encode(&mut out);
        for reg in &function.reg_lists {
            reg.encode(&mut out);
        }
        (function.blocks.len() as u32).encode(&mut out);
        for block_index in 0..function.blocks.len() {
            let range = function
                .block_range(Block::from_u32(block_index as u32))
                .unwrap_or(0..0);
            (range.len() as u32).encode(&mut out);
            for index in range {
                function.insts[index].encode(&mut out);
                function
                    .locs
                    .get(index)
                    .map_or(0, |loc| loc.as_u32())
                    .encode(&mut out);
            }
        }
    }
    out
}

/// Decodes a module, checking every byte; the result must still be verified before it runs.
pub fn decode_module(bytes: &[u8]) -> Result<Module, DecodeError> {
    let mut reader = Reader::new(bytes);
    if reader
        .bytes(MAGIC.len())
        .map_err(|_| DecodeError::BadMagic)?
        != MAGIC
    {
        return Err(DecodeError::BadMagic);
    }
    let n_functions = reader.count(16)?;
    let mut module = Module::new();
    for _ in 0..n_functions {
        let name_len = reader.count(1)?;
        let name =
            std::str::from_utf8(reader.bytes(name_len)?).map_err(|_| DecodeError::BadName)?;
        let params = decode_types(&mut reader)?;
        let returns = decode_types(&mut reader)?;
        let reg_types = decode_types(&mut reader)?;
        let frame_size = reader.u32()?;
        let n_lists = reader.count(4)?;
        let reg_lists = (0..n_lists)
            .map(|_| Reg::decode(&mut reader))
            .collect::<Result<Vec<_>, _>>()?;
        let n_blocks = reader.count(4)?;
        let mut function = Function {
            name: name.to_string(),
            signature: Signature { params, returns },
            reg_types,
            frame_size,
            reg_lists,
            ..Function::default()
        };
        for _ in 0..n_blocks {
            let n_insts = reader.count(5)?;
            function.blocks.push(BlockData {
                start: function.insts.len() as u32,
                len: n_insts as u32,
            });
            for _ in 0..n_insts {
                function.insts.push(Inst::decode(&mut reader)?);
                function.locs.push(LocId::from_u32(reader.u32()?));
            }
        }
        module.add_function(function);
    }
    if !reader.bytes.is_empty() {
        return Err(DecodeError::TrailingBytes);
    }
    Ok(module)
}
