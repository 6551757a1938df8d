//! Views: rpsl.h's `texture` and `buffer` layouts and their ranges are `rpsl-types`' (re-exported
//! here); the runtime adds [`SubresourceBox`], the region a view covers in the frame compiler's
//! subresource space.

pub use rpsl_types::view::*;

/// A set of subresources as a box: `[lo, hi)` on three axes. Textures: mips x layers x planes,
/// with the temporal slice folded into the layer axis (`slice * array_layers + layer`). Buffers:
/// bytes on the first axis (the temporal slice folded in as `slice * size + offset`), the others
/// `[0, 1)`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct SubresourceBox {
    /// Inclusive lower corner.
    pub lo: [u64; 3],
    /// Exclusive upper corner.
    pub hi: [u64; 3],
}

impl SubresourceBox {
    /// The box is empty.
    pub fn is_empty(&self) -> bool {
        (0..3).any(|axis| self.lo[axis] >= self.hi[axis])
    }

    /// The two boxes share at least one subresource.
    pub fn overlaps(&self, other: &SubresourceBox) -> bool {
        (0..3).all(|axis| self.lo[axis] < other.hi[axis] && other.lo[axis] < self.hi[axis])
    }

    /// `other` lies entirely within `self`.
    pub fn contains(&self, other: &SubresourceBox) -> bool {
        (0..3).all(|axis| self.lo[axis] <= other.lo[axis] && other.hi[axis] <= self.hi[axis])
    }

    /// The common part of two boxes (may be empty).
    pub fn intersection(&self, other: &SubresourceBox) -> SubresourceBox {
        let mut out = *self;
        for axis in 0..3 {
            out.lo[axis] = self.lo[axis].max(other.lo[axis]);
            out.hi[axis] = self.hi[axis].min(other.hi[axis]);
        }
        out
    }

    /// Appends to `out` up to six disjoint boxes covering `self` minus `cut`.
    pub fn subtract_into(&self, cut: &SubresourceBox, out: &mut Vec<SubresourceBox>) {
        if !self.overlaps(cut) {
            out.push(*self);
            return;
        }
        let mut rest = *self;
        for axis in 0..3 {
            if rest.lo[axis] < cut.lo[axis] {
                let mut piece = rest;
                piece.hi[axis] = cut.lo[axis];
                out.push(piece);
                rest.lo[axis] = cut.lo[axis];
            }
            if rest.hi[axis] > cut.hi[axis] {
                let mut piece = rest;
                piece.lo[axis] = cut.hi[axis];
                out.push(piece);
                rest.hi[axis] = cut.hi[axis];
            }
        }
    }

    /// The number of subresources (or bytes) in the box.
    pub fn volume(&self) -> u64 {
        if self.is_empty() {
            return 0;
        }
        (0..3).map(|axis| self.hi[axis] - self.lo[axis]).product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_subtraction_covers_the_rest() {
        let whole = SubresourceBox {
            lo: [0, 0, 0],
            hi: [4, 4, 1],
        };
        let cut = SubresourceBox {
            lo: [1, 1, 0],
            hi: [2, 3, 1],
        };
        let mut pieces = Vec::new();
        whole.subtract_into(&cut, &mut pieces);
        assert_eq!(
            pieces.iter().map(SubresourceBox::volume).sum::<u64>(),
            16 - 2
        );
        assert!(pieces.iter().all(|piece| !piece.overlaps(&cut)));
    }
}
