//! Lowering of the matrix intrinsics — `mul`, `transpose`, `determinant` — onto scalar ops.
//!
//! Matrices are lanes in row-major order (`m[i][j]` is lane `i * cols + j`). Every product is a
//! chain of `mul` and `add` ops summed left to right (`((a0*b0 + a1*b1) + a2*b2) + a3*b3`, as
//! `dot`), and the determinant a fixed cofactor expansion, so both engines execute the same IEEE
//! operations in the same order and agree bit for bit.

use super::expr::find_binary;
use super::{FnLower, LowerError};
use crate::entities::Reg;
use crate::types::Type as VmType;
use rpsl_frontend::source::Span;
use rpsl_frontend::types::Type;

/// The (rows, columns) of a `mul` operand: a vector on the left is a row, on the right a column.
fn mul_shape(ty: &Type, left: bool) -> (usize, usize) {
    match ty {
        Type::Vector(_, n) if left => (1, *n as usize),
        Type::Vector(_, n) => (*n as usize, 1),
        Type::Matrix(_, rows, cols) => (*rows as usize, *cols as usize),
        _ => (1, 1),
    }
}

impl FnLower<'_> {
    /// `mul(a, b)` on lanes of the (already converted) operand types `a_ty`, `b_ty`, computing in
    /// register type `ty`. A scalar operand scales each lane of the other (`a * x` or `x * b`);
    /// otherwise result element (i, j) is `sum over k of a[i][k] * b[k][j]`, from k = 0 up.
    pub(super) fn lower_mul(
        &mut self,
        (a, a_ty): (&[Reg], &Type),
        (b, b_ty): (&[Reg], &Type),
        ty: VmType,
        span: Span,
    ) -> Result<Vec<Reg>, LowerError> {
        let mul = find_binary("mul", ty, span)?;
        let add = find_binary("add", ty, span)?;
        if a_ty.is_scalar() {
            return Ok(b.iter().map(|&x| self.b.binary(mul, a[0], x)).collect());
        }
        if b_ty.is_scalar() {
            return Ok(a.iter().map(|&x| self.b.binary(mul, x, b[0])).collect());
        }
        let (rows, inner) = mul_shape(a_ty, true);
        let (inner2, cols) = mul_shape(b_ty, false);
        if inner != inner2 || a.len() != rows * inner || b.len() != inner * cols {
            return self.error(span, "`mul` operands of mismatched dimensions");
        }
        let mut out = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            for j in 0..cols {
                let mut sum = self.b.binary(mul, a[i * inner], b[j]);
                for k in 1..inner {
                    let product = self.b.binary(mul, a[i * inner + k], b[k * cols + j]);
                    sum = self.b.binary(add, sum, product);
                }
                out.push(sum);
            }
        }
        Ok(out)
    }

    /// `transpose(m)` of a `rows x cols` matrix: lane `j * rows + i` of the result is lane
    /// `i * cols + j` of `m`.
    pub(super) fn lower_transpose(&mut self, m: &[Reg], ty: &Type) -> Vec<Reg> {
        let (rows, cols) = mul_shape(ty, true);
        let mut out = Vec::with_capacity(m.len());
        for j in 0..cols {
            for i in 0..rows {
                out.push(m[i * cols + j]);
            }
        }
        out
    }

    /// `determinant(m)` of an `n x n` float matrix by cofactor expansion along the first row,
    /// recursively: `det = m00*det(M00) - m01*det(M01) + m02*det(M02) - ...`, accumulated left to
    /// right; a 2x2 minor is `a*d - b*c`; a 1x1 matrix is its element.
    pub(super) fn lower_determinant(
        &mut self,
        m: &[Reg],
        n: usize,
        ty: VmType,
        span: Span,
    ) -> Result<Reg, LowerError> {
        if n == 0 || m.len() != n * n {
            return self.error(span, "`determinant` of a non-square matrix");
        }
        let cols: Vec<usize> = (0..n).collect();
        self.minor_determinant(m, n, 0, &cols, ty, span)
    }

    /// The determinant of the square submatrix of rows `row..` and columns `cols`.
    fn minor_determinant(
        &mut self,
        m: &[Reg],
        n: usize,
        row: usize,
        cols: &[usize],
        ty: VmType,
        span: Span,
    ) -> Result<Reg, LowerError> {
        let (mul, add, sub) = (
            find_binary("mul", ty, span)?,
            find_binary("add", ty, span)?,
            find_binary("sub", ty, span)?,
        );
        let at = |r: usize, c: usize| m[r * n + c];
        match cols {
            [c] => Ok(at(row, *c)),
            [c0, c1] => {
                let left = self.b.binary(mul, at(row, *c0), at(row + 1, *c1));
                let right = self.b.binary(mul, at(row, *c1), at(row + 1, *c0));
                Ok(self.b.binary(sub, left, right))
            }
            _ => {
                let mut sum: Option<Reg> = None;
                for (index, &col) in cols.iter().enumerate() {
                    let rest: Vec<usize> = cols.iter().copied().filter(|&c| c != col).collect();
                    let minor = self.minor_determinant(m, n, row + 1, &rest, ty, span)?;
                    let term = self.b.binary(mul, at(row, col), minor);
                    sum = Some(match sum {
                        None => term,
                        Some(prev) if index % 2 == 1 => self.b.binary(sub, prev, term),
                        Some(prev) => self.b.binary(add, prev, term),
                    });
                }
                Ok(sum.expect("at least three columns"))
            }
        }
    }
}
