//! The disassembler: a stable, readable text form of functions and modules (`rpsl check --emit
//! bytecode`).
//!
//! ```text
//! fn0 "count"(v0: i32) -> (i32)  frame 16
//! block0:
//!     v1 = const.i32 0                      ; loc3
//!     jump block1                           ; loc3
//! ```
//! Lines inside a block are `DEFS = MNEMONIC OPERANDS`, followed by `; locN`. Register types are
//! listed once, in the `regs` line after the header.

use crate::entities::FuncId;
use crate::function::{Function, Module};
use crate::inst::{Inst, Operand};
use crate::types::Value;
use std::fmt::{self, Write};

/// Formats one instruction of `function` (`v3 = add.i32 v1, v2`).
pub fn write_inst(out: &mut impl Write, function: &Function, inst: &Inst) -> fmt::Result {
    if let Inst::Const { ty, dst, bits } = *inst {
        return write!(
            out,
            "{dst} = const.{ty} {}",
            Value::from_bits(ty, bits.to_u64())
        );
    }
    let mut defs = Vec::new();
    inst.for_each_operand(|operand| match operand {
        Operand::Def(reg) => defs.push(reg),
        Operand::DefList(list) => defs.extend_from_slice(function.list(list)),
        _ => {}
    });
    for (i, reg) in defs.iter().enumerate() {
        write!(out, "{}{reg}", if i == 0 { "" } else { ", " })?;
    }
    if !defs.is_empty() {
        out.write_str(" = ")?;
    }
    let mnemonic = inst.opcode().mnemonic();
    out.write_str(mnemonic)?;
    let mut first_suffix = mnemonic.is_empty();
    let mut result = Ok(());
    inst.for_each_operand(|operand| {
        if let Operand::Suffix(suffix) = operand {
            let dot = if first_suffix { "" } else { "." };
            first_suffix = false;
            result = result.and_then(|_| write!(out, "{dot}{suffix}"));
        }
    });
    result?;
    let mut n_operands = 0usize;
    let mut result = Ok(());
    let mut separator = |out: &mut dyn Write| {
        let sep = if n_operands == 0 { " " } else { ", " };
        n_operands += 1;
        out.write_str(sep)
    };
    inst.for_each_operand(|operand| {
        result = result.and_then(|_| match operand {
            Operand::Use(reg) => separator(out).and_then(|_| write!(out, "{reg}")),
            Operand::UseList(list) => function
                .list(list)
                .iter()
                .try_for_each(|reg| separator(out).and_then(|_| write!(out, "{reg}"))),
            Operand::Target(block) => separator(out).and_then(|_| write!(out, "{block}")),
            Operand::Imm(None, value) => separator(out).and_then(|_| write!(out, "{value}")),
            Operand::Imm(Some(label), value) => {
                separator(out).and_then(|_| write!(out, "{label} {value}"))
            }
            Operand::Def(_) | Operand::DefList(_) | Operand::Suffix(_) => Ok(()),
        });
    });
    result
}

/// Writes a whole function: header, register types, then each block.
pub fn write_function(out: &mut impl Write, id: FuncId, function: &Function) -> fmt::Result {
    write!(out, "{id} \"{}\"(", function.name.escape_default())?;
    for (i, (reg, ty)) in function
        .params()
        .zip(&function.signature.params)
        .enumerate()
    {
        write!(out, "{}{reg}: {ty}", if i == 0 { "" } else { ", " })?;
    }
    out.write_str(") -> (")?;
    for (i, ty) in function.signature.returns.iter().enumerate() {
        write!(out, "{}{ty}", if i == 0 { "" } else { ", " })?;
    }
    writeln!(out, ")  frame {}", function.frame_size)?;
    let n_params = function.signature.params.len();
    if function.reg_types.len() > n_params {
        out.write_str("    regs")?;
        for (index, ty) in function.reg_types.iter().enumerate().skip(n_params) {
            write!(out, " v{index}:{ty}")?;
        }
        out.write_char('\n')?;
    }
    for block_index in 0..function.blocks.len() {
        let block = crate::Block::from_u32(block_index as u32);
        writeln!(out, "{block}:")?;
        let Some(range) = function.block_range(block) else {
            continue;
        };
        for index in range {
            let mut line = String::new();
            write_inst(&mut line, function, &function.insts[index])?;
            match function.locs.get(index) {
                Some(loc) => writeln!(out, "    {line:<40} ; {loc}")?,
                None => writeln!(out, "    {line}")?,
            }
        }
    }
    Ok(())
}

/// A displayable function, with its id.
pub struct DisplayFunction<'a>(pub FuncId, pub &'a Function);

impl fmt::Display for DisplayFunction<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_function(f, self.0, self.1)
    }
}

impl fmt::Display for Module {
    /// The disassembly of every function, separated by blank lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, function) in self.functions.iter().enumerate() {
            if index > 0 {
                f.write_char('\n')?;
            }
            write_function(f, FuncId::from_u32(index as u32), function)?;
        }
        Ok(())
    }
}

/// Disassembles one instruction (for error messages and debugging).
pub fn inst_to_string(function: &Function, inst: &Inst) -> String {
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = write_inst(&mut text, function, inst);
    text
}
