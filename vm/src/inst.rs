//! The instruction set: one opcode-list macro that documents every instruction and generates the
//! [`Inst`] enum, the [`Opcode`] enum, operand visiting (used by the verifier and the
//! disassembler) and the binary encoding and checked decoding (used by [`crate::codec`]).
//!
//! # Naming rules
//! - Text form: `DEFS = MNEMONIC.SUFFIXES USES, IMMEDIATES`, e.g. `v3 = add.i32 v1, v2`,
//!   `v4 = load.f32 v2, offset 8`, `br v1, block2, block3`.
//! - Ops whose behaviour depends on a type carry it in the mnemonic (`div.u32`, `load.f64`,
//!   `convert.f32.i32` = to `f32` from `i32`).
//! - Fields are listed in encoding order; defs come first in the text form whatever their position.
//!
//! # Memory model
//! Aggregates (structs, arrays, views, `ResourceDesc`) live in VM memory: one byte array per run,
//! holding the caller-provided I/O block at address 0 followed by one zero-initialised frame per
//! active call. `addr` registers hold byte addresses into it. `load`/`store`/`mem_*` check at run
//! time that the accessed bytes lie below the top of the current frame (a verified lowering never
//! fails that check; `index_addr` is where array bounds are checked against the array length).

use crate::entities::{Block, FuncId, NodeDeclId, Reg, RegList};
use crate::ops::{BinaryOp, MarkerKind, TernaryOp, UnaryOp, VectorOp};
use crate::types::Type;
use std::fmt;

/// The register bits of a constant, split so that [`Inst`] stays 4-byte aligned.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ConstBits {
    /// Low 32 bits.
    pub lo: u32,
    /// High 32 bits (zero for 32-bit types).
    pub hi: u32,
}

impl ConstBits {
    /// Splits 64 register bits.
    pub fn from_u64(bits: u64) -> ConstBits {
        ConstBits {
            lo: bits as u32,
            hi: (bits >> 32) as u32,
        }
    }

    /// Joins the 64 register bits.
    pub fn to_u64(self) -> u64 {
        (self.hi as u64) << 32 | self.lo as u64
    }
}

impl fmt::Display for ConstBits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:x}", self.to_u64())
    }
}

/// What a [`Inst::Vector`] computes: op, element type and lane count (`dot.f32x3`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct VectorShape {
    /// The operation.
    pub op: VectorOp,
    /// `f32` or `f64`.
    pub ty: Type,
    /// Lanes per vector operand (2 to 4).
    pub width: u8,
}

impl fmt::Display for VectorShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}x{}", self.op.name(), self.ty, self.width)
    }
}

/// One operand of an instruction, as seen by [`Inst::for_each_operand`].
#[derive(Clone, Copy)]
pub enum Operand<'a> {
    /// A register the instruction writes.
    Def(Reg),
    /// A register the instruction reads.
    Use(Reg),
    /// Registers the instruction writes (call results, vector results).
    DefList(RegList),
    /// Registers the instruction reads (call arguments, return values, vector sources).
    UseList(RegList),
    /// A branch target.
    Target(Block),
    /// A part of the mnemonic (`i32` in `load.i32`, or the whole name for table ops).
    Suffix(&'a dyn fmt::Display),
    /// An immediate, with the label the text form puts before it (`offset 8`).
    Imm(Option<&'static str>, &'a dyn fmt::Display),
}

/// The opcode list. Each entry: doc, variant, mnemonic (`""` when the first suffix names the op),
/// fields with their roles: `def`, `use`, `defs`, `uses`, `block`, `suffix`, `imm`, or
/// `imm "label"`.
macro_rules! for_each_inst {
    ($m:ident) => {
        $m! {
            /// `v1 = const.T VALUE`: sets a register to a constant; `bits` are register bits that
            /// must be canonical for `ty` (0/1 for `bool`, high half zero for 32-bit types).
            Const "const" { ty: Type [suffix], dst: Reg [def], bits: ConstBits [imm] },
            /// `v1 = move v2`: copies a register to one of the same type.
            Move "move" { dst: Reg [def], src: Reg [use] },
            /// `v2 = OP v1`: a [`UnaryOp`]; the table gives operand and result types.
            Unary "" { op: UnaryOp [suffix], dst: Reg [def], src: Reg [use] },
            /// `v3 = OP v1, v2`: a [`BinaryOp`]. Integer `div`/`rem` fault on a zero divisor.
            Binary "" { op: BinaryOp [suffix], dst: Reg [def], a: Reg [use], b: Reg [use] },
            /// `v4 = OP v1, v2, v3`: a [`TernaryOp`].
            Ternary "" { op: TernaryOp [suffix], dst: Reg [def], a: Reg [use], b: Reg [use], c: Reg [use] },
            /// `v2 = convert.TO.FROM v1`: numeric conversion between any two non-`addr` types
            /// (float to int saturates, NaN gives 0; to `bool` is `!= 0`; from `bool` is 0 or 1).
            Convert "convert" { to: Type [suffix], from: Type [suffix], dst: Reg [def], src: Reg [use] },
            /// `v2 = bitcast.TO.FROM v1`: reinterprets the bits between types of equal size
            /// (`asuint`, `asint`, `asfloat`, and `i32`/`u32` signedness changes).
            Bitcast "bitcast" { to: Type [suffix], from: Type [suffix], dst: Reg [def], src: Reg [use] },
            /// `v4 = select v1, v2, v3`: `v1 ? v2 : v3` with both sides already evaluated.
            Select "select" { dst: Reg [def], cond: Reg [use], a: Reg [use], b: Reg [use] },
            /// `v9 = dot.f32x3 v1, .., v6`: a [`VectorOp`] over lane registers.
            Vector "" { shape: VectorShape [suffix], dsts: RegList [defs], srcs: RegList [uses] },
            /// `v1 = frame_addr OFFSET`: the address of a byte of the current frame.
            FrameAddr "frame_addr" { dst: Reg [def], offset: u32 [imm] },
            /// `v2 = addr_add v1, OFFSET`: an address plus a constant (a struct field).
            AddrAdd "addr_add" { dst: Reg [def], base: Reg [use], offset: u32 [imm] },
            /// `v3 = index_addr v1, v2, stride S, len N`: `v1 + v2 * S` after checking `v2 < N`
            /// (unsigned; a negative `i32` index is out of bounds). Faults with `IndexOutOfBounds`.
            IndexAddr "index_addr" { dst: Reg [def], base: Reg [use], index: Reg [use], stride: u32 [imm "stride"], len: u32 [imm "len"] },
            /// `v2 = load.T v1, offset K`: reads a value of type `T` at `v1 + K`.
            Load "load" { ty: Type [suffix], dst: Reg [def], addr: Reg [use], offset: u32 [imm "offset"] },
            /// `store.T v1, offset K, v2`: writes `v2` at `v1 + K`.
            Store "store" { ty: Type [suffix], addr: Reg [use], offset: u32 [imm "offset"], src: Reg [use] },
            /// `mem_copy v1, v2, size N`: copies N bytes from `v2` to `v1` (value semantics of
            /// structs and arrays; the ranges may overlap).
            MemCopy "mem_copy" { dst_addr: Reg [use], src_addr: Reg [use], size: u32 [imm "size"] },
            /// `mem_zero v1, size N`: zeroes N bytes.
            MemZero "mem_zero" { addr: Reg [use], size: u32 [imm "size"] },
            /// `v3 = mem_eq v1, v2, size N`: whether N bytes are equal (view `==`).
            MemEq "mem_eq" { dst: Reg [def], a: Reg [use], b: Reg [use], size: u32 [imm "size"] },
            /// `create_resource v1, v2`: host call; reads a `ResourceDesc` at `v1`, writes the new
            /// resource's default view (40 bytes) at `v2`.
            CreateResource "create_resource" { desc: Reg [use], view_out: Reg [use] },
            /// `describe_resource v1, v2`: host call; reads a view at `v1`, writes its resource's
            /// `ResourceDesc` (36 bytes) at `v2`.
            DescribeResource "describe_resource" { view: Reg [use], desc_out: Reg [use] },
            /// `v2 = call_node decl3, v1, size N, flags F`: host call; records a node call with the
            /// N-byte flattened argument block at `v1`; `v2` (`u32`) is the node id.
            CallNode "call_node" { dst: Reg [def], decl: NodeDeclId [imm], args: Reg [use], size: u32 [imm "size"], flags: u32 [imm "flags"] },
            /// `sch_barrier 0`, `subgraph_begin FLAGS`, `subgraph_end 0`: host call; a scheduler marker.
            Marker "" { kind: MarkerKind [suffix], arg: u32 [imm] },
            /// `v3, v4 = call fn1, v1, v2`: calls a bytecode function; charges the step budget
            /// 1 plus the cost of the callee's body ([`crate::step_cost`]) and takes one level of
            /// call depth.
            Call "call" { callee: FuncId [imm], args: RegList [uses], results: RegList [defs] },
            /// `jump block2`: terminator; continues at the target.
            Jump "jump" { target: Block [block] },
            /// `jump.loop block1`: terminator; a loop back-edge: charges the step budget the cost
            /// of the blocks from the target to this one ([`crate::step_cost`]).
            LoopJump "jump.loop" { target: Block [block] },
            /// `br v1, block2, block3`: terminator; to the first target when `v1` (`bool`) is true.
            Branch "br" { cond: Reg [use], then_block: Block [block], else_block: Block [block] },
            /// `ret v1, v2`: terminator; returns the function's results.
            Return "ret" { values: RegList [uses] },
            /// `abort v1`: terminator; ends the run with `Abort(code)` (`v1` is `i32`).
            Abort "abort" { code: Reg [use] },
        }
    };
}

macro_rules! role_operand {
    (def, $f:expr) => {
        Operand::Def(*$f)
    };
    (use, $f:expr) => {
        Operand::Use(*$f)
    };
    (defs, $f:expr) => {
        Operand::DefList(*$f)
    };
    (uses, $f:expr) => {
        Operand::UseList(*$f)
    };
    (block, $f:expr) => {
        Operand::Target(*$f)
    };
    (suffix, $f:expr) => {
        Operand::Suffix($f)
    };
    (imm, $f:expr) => {
        Operand::Imm(None, $f)
    };
    (imm $label:literal, $f:expr) => {
        Operand::Imm(Some($label), $f)
    };
}

macro_rules! define_insts {
    ($( $(#[$doc:meta])* $name:ident $mnemonic:literal { $( $field:ident : $fty:ty [ $($role:tt)+ ] ),* $(,)? }, )*) => {
        /// One bytecode instruction, in the compact form the interpreter dispatches on.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum Inst {
            $( $(#[$doc])* $name { $( #[allow(missing_docs, reason = "the variant doc describes the fields")] $field: $fty, )* }, )*
        }

        /// The opcode of an [`Inst`]: its encoding byte and mnemonic.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        #[repr(u8)]
        pub enum Opcode {
            $( #[allow(missing_docs, reason = "documented on Inst")] $name, )*
        }

        impl Opcode {
            /// Every opcode, in encoding order.
            pub const ALL: &'static [Opcode] = &[ $( Opcode::$name, )* ];

            /// The mnemonic (empty when the first suffix operand names the op).
            pub fn mnemonic(self) -> &'static str {
                match self { $( Opcode::$name => $mnemonic, )* }
            }

            /// The opcode with this encoding byte.
            pub fn from_u8(byte: u8) -> Option<Opcode> {
                Opcode::ALL.get(byte as usize).copied()
            }
        }

        impl Inst {
            /// The opcode of this instruction.
            pub fn opcode(&self) -> Opcode {
                match self { $( Inst::$name { .. } => Opcode::$name, )* }
            }

            /// Calls `f` with every operand, in encoding order.
            pub fn for_each_operand<'a>(&'a self, mut f: impl FnMut(Operand<'a>)) {
                match self {
                    $( Inst::$name { $( $field, )* } => { $( f(role_operand!($($role)+, $field)); )* } )*
                }
            }

            /// Appends the binary encoding: the opcode byte, then each field.
            pub fn encode(&self, out: &mut Vec<u8>) {
                out.push(self.opcode() as u8);
                match self {
                    $( Inst::$name { $( $field, )* } => { $( crate::codec::Field::encode($field, out); )* } )*
                }
            }

            /// Decodes one instruction, checking every byte (opcode and enum fields in range).
            pub fn decode(reader: &mut crate::codec::Reader<'_>) -> Result<Inst, crate::codec::DecodeError> {
                let byte = reader.u8()?;
                let opcode = Opcode::from_u8(byte).ok_or(crate::codec::DecodeError::BadOpcode(byte))?;
                Ok(match opcode {
                    $( Opcode::$name => Inst::$name { $( $field: <$fty as crate::codec::Field>::decode(reader)?, )* }, )*
                })
            }
        }
    };
}

for_each_inst!(define_insts);

impl Inst {
    /// Whether this instruction ends a block (`jump`, `jump.loop`, `br`, `ret`, `abort`).
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            Inst::Jump { .. }
                | Inst::LoopJump { .. }
                | Inst::Branch { .. }
                | Inst::Return { .. }
                | Inst::Abort { .. }
        )
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mnemonic())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_struct_sizes_are_pinned() {
        // The interpreter copies one `Inst` per dispatch; keep it at 24 bytes.
        assert_eq!(std::mem::size_of::<Inst>(), 24);
        assert_eq!(std::mem::align_of::<Inst>(), 4);
    }

    #[test]
    fn opcode_bytes_round_trip() {
        for (index, &opcode) in Opcode::ALL.iter().enumerate() {
            assert_eq!(opcode as usize, index);
            assert_eq!(Opcode::from_u8(index as u8), Some(opcode));
        }
        assert_eq!(Opcode::from_u8(Opcode::ALL.len() as u8), None);
    }
}
