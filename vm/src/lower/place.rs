//! Lowering of places (`local.field[i].xy`): addresses, reads and writes.

use super::{lanes_of, vm_type, FnLower, LowerError, PlaceAddr, Val};
use rpsl_frontend::hir::{self, Projection};
use rpsl_frontend::source::Span;
use rpsl_frontend::types::Type;

impl FnLower<'_> {
    /// Resolves a place to an address, evaluating its index expressions once.
    pub(crate) fn place_addr(&mut self, place: &hir::Place) -> Result<PlaceAddr, LowerError> {
        if let Some(regs) = self.local_regs[place.local.index()].clone() {
            // Register locals are never indexed (see `locals`): only swizzles remain.
            let mut selected = regs;
            for projection in &place.path {
                match projection {
                    Projection::Swizzle(components) => {
                        selected = components
                            .iter()
                            .filter_map(|&c| selected.get(c as usize).copied())
                            .collect();
                    }
                    _ => return self.error(place.span, "projection of a register local"),
                }
            }
            return Ok(PlaceAddr::Regs(selected));
        }
        let mut addr = self.local_addr(place.local);
        let mut ty = self.func.locals[place.local.index()].ty.clone();
        let mut swizzle: Option<Vec<u8>> = None;
        for projection in &place.path {
            match projection {
                Projection::Field(n) => {
                    let Type::Struct(id) = ty else {
                        return self.error(place.span, "field of a non-struct");
                    };
                    let Some(field) = self
                        .types
                        .struct_def(id)
                        .and_then(|s| s.fields.get(*n as usize))
                    else {
                        return self.error(place.span, "unknown field");
                    };
                    addr = self.b.addr_add(addr, field.offset);
                    ty = field.ty.clone();
                }
                Projection::ViewField(offset) => {
                    addr = self.b.addr_add(addr, *offset);
                    ty = Type::UINT;
                }
                Projection::Index { index, len } => {
                    let (elem, stride) = self.element_of(&ty, place.span)?;
                    if *len == 0 {
                        return self.error(
                            place.span,
                            "indexing an unsized array parameter is not supported yet",
                        );
                    }
                    let index = self.scalar(index)?;
                    self.at(place.span);
                    addr = self.b.index_addr(addr, index, stride, *len);
                    ty = elem;
                }
                // A swizzle of a swizzle (`v.zyx.xy`, `m._m00_m11.y`) picks from the first one.
                Projection::Swizzle(components) => {
                    swizzle = Some(match swizzle {
                        None => components.clone(),
                        Some(outer) => components
                            .iter()
                            .map(|&c| outer.get(c as usize).copied().unwrap_or(outer[0]))
                            .collect(),
                    })
                }
            }
        }
        Ok(PlaceAddr::Mem { addr, swizzle })
    }

    /// The element type and stride of an array, vector or matrix.
    pub(crate) fn element_of(&self, ty: &Type, span: Span) -> Result<(Type, u32), LowerError> {
        let elem = match ty {
            Type::Array(elem, _) => (**elem).clone(),
            Type::Vector(kind, _) => Type::Scalar(*kind),
            Type::Matrix(kind, _, cols) => Type::Vector(*kind, *cols),
            _ => {
                return self.error(
                    span,
                    "indexing a value that is not an array, vector or matrix",
                )
            }
        };
        let (size, _) = self.layout(&elem, span)?;
        Ok((elem, size))
    }

    /// Reads a place's current value.
    pub(crate) fn load_place(
        &mut self,
        place: &PlaceAddr,
        ty: &Type,
        span: Span,
    ) -> Result<Val, LowerError> {
        let (addr, swizzle) = match place {
            PlaceAddr::Regs(regs) => {
                // Copy: the value must not change when the local is assigned later.
                let lanes = regs
                    .iter()
                    .map(|&r| {
                        let copy = self
                            .b
                            .new_reg(self.b.reg_type(r).unwrap_or(crate::Type::I32));
                        self.b.assign(copy, r);
                        copy
                    })
                    .collect();
                return Ok(Val::Lanes(lanes));
            }
            PlaceAddr::Mem { addr, swizzle } => (*addr, swizzle),
        };
        match swizzle {
            None => Ok(self.load(ty, addr, 0)),
            Some(components) => {
                let Some((kind, _)) = lanes_of(ty) else {
                    return self.error(span, "swizzle of a non-vector");
                };
                let lanes = components
                    .iter()
                    .map(|&c| self.b.load(vm_type(kind), addr, c as u32 * kind.size()))
                    .collect();
                Ok(Val::Lanes(lanes))
            }
        }
    }

    /// Writes a value to a place.
    pub(crate) fn store_place(
        &mut self,
        place: &PlaceAddr,
        ty: &Type,
        val: &Val,
        span: Span,
    ) -> Result<(), LowerError> {
        let (addr, swizzle) = match (place, val) {
            (PlaceAddr::Regs(regs), Val::Lanes(lanes)) => {
                for (&dst, &src) in regs.iter().zip(lanes) {
                    self.b.assign(dst, src);
                }
                return Ok(());
            }
            (PlaceAddr::Regs(_), Val::Mem(_)) => {
                return self.error(span, "aggregate stored to a register local")
            }
            (PlaceAddr::Mem { addr, swizzle }, _) => (*addr, swizzle),
        };
        match (swizzle, val) {
            (None, _) => self.store(ty, addr, 0, val, span),
            (Some(components), Val::Lanes(lanes)) => {
                let size = lanes_of(ty).map_or(4, |(kind, _)| kind.size());
                for (&c, &lane) in components.iter().zip(lanes) {
                    self.b.store(addr, c as u32 * size, lane);
                }
                Ok(())
            }
            (Some(_), Val::Mem(_)) => self.error(span, "swizzle store of an aggregate"),
        }
    }
}
