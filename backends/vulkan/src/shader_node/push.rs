//! Packing a node's plain parameters into push-constant bytes: std430 layout (the layout of a
//! GLSL `push_constant` block), copied from the argument block's C layout as byte runs.

use rpsl_runtime::{ScalarType, ValueType};

/// std430 alignment of a value type (`None` for views and node handles, which never pack).
pub(crate) fn std430_align(ty: &ValueType) -> Option<u32> {
    Some(match ty {
        ValueType::Scalar(scalar) => scalar.size(),
        ValueType::Vector(scalar, count) => vector_align(*scalar, *count),
        ValueType::Matrix(scalar, _rows, columns) => vector_align(*scalar, *columns),
        ValueType::Array(element, _) => std430_align(element)?,
        ValueType::Struct(ty) => {
            let mut align = 4;
            for field in &ty.fields {
                align = align.max(std430_align(&field.value_type)?);
            }
            align
        }
        ValueType::Texture | ValueType::Buffer | ValueType::NodeHandle => return None,
    })
}

fn vector_align(scalar: ScalarType, count: u32) -> u32 {
    scalar.size() * if count == 3 { 4 } else { count.max(1) }
}

/// std430 size of a value type (arrays: element stride times length).
pub(crate) fn std430_size(ty: &ValueType) -> Option<u32> {
    Some(match ty {
        ValueType::Scalar(scalar) => scalar.size(),
        ValueType::Vector(scalar, count) => scalar.size() * count,
        ValueType::Matrix(scalar, rows, columns) => {
            // Row-major: each row is a `columns`-vector at the vector's alignment.
            let row_stride = vector_align(*scalar, *columns).max(scalar.size() * columns);
            row_stride * rows
        }
        ValueType::Array(element, count) => {
            let stride = std430_stride(element)?;
            stride * count
        }
        ValueType::Struct(struct_ty) => {
            let mut end = 0u32;
            for field in &struct_ty.fields {
                end = end.next_multiple_of(std430_align(&field.value_type)?)
                    + std430_size(&field.value_type)?;
            }
            end.next_multiple_of(std430_align(ty)?)
        }
        ValueType::Texture | ValueType::Buffer | ValueType::NodeHandle => return None,
    })
}

/// Distance between std430 array elements.
pub(crate) fn std430_stride(ty: &ValueType) -> Option<u32> {
    Some(std430_size(ty)?.next_multiple_of(std430_align(ty)?))
}

/// A byte run copied from the argument block to the push-constant bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct CopyRun {
    /// Offset in the argument block.
    pub source: u32,
    /// Offset in the push-constant bytes.
    pub dest: u32,
    /// Bytes.
    pub len: u32,
}

/// Appends the runs that copy a value of `ty` at C offset `source` to std430 offset `dest`.
pub(crate) fn copy_runs(ty: &ValueType, source: u32, dest: u32, runs: &mut Vec<CopyRun>) {
    match ty {
        ValueType::Scalar(scalar) => push_run(runs, source, dest, scalar.size()),
        ValueType::Vector(scalar, count) => push_run(runs, source, dest, scalar.size() * count),
        ValueType::Matrix(scalar, rows, columns) => {
            let row_bytes = scalar.size() * columns;
            let row_stride = vector_align(*scalar, *columns).max(row_bytes);
            for row in 0..*rows {
                push_run(
                    runs,
                    source + row * row_bytes,
                    dest + row * row_stride,
                    row_bytes,
                );
            }
        }
        ValueType::Array(element, count) => {
            let (Some(stride), c_stride) = (std430_stride(element), element.stride()) else {
                return;
            };
            for index in 0..*count {
                copy_runs(
                    element,
                    source + index * c_stride,
                    dest + index * stride,
                    runs,
                );
            }
        }
        ValueType::Struct(struct_ty) => {
            let mut end = 0u32;
            for field in &struct_ty.fields {
                let (Some(align), Some(size)) = (
                    std430_align(&field.value_type),
                    std430_size(&field.value_type),
                ) else {
                    continue;
                };
                let at = end.next_multiple_of(align);
                copy_runs(&field.value_type, source + field.offset, dest + at, runs);
                end = at + size;
            }
        }
        ValueType::Texture | ValueType::Buffer | ValueType::NodeHandle => {}
    }
}

fn push_run(runs: &mut Vec<CopyRun>, source: u32, dest: u32, len: u32) {
    if let Some(last) = runs.last_mut() {
        if last.source + last.len == source && last.dest + last.len == dest {
            last.len += len;
            return;
        }
    }
    runs.push(CopyRun { source, dest, len });
}

/// Copies `runs` from `args` into `out` (bytes beyond `args` or `out` are skipped).
pub(crate) fn apply_runs(runs: &[CopyRun], args: &[u8], out: &mut [u8]) {
    for run in runs {
        let (source, dest, len) = (run.source as usize, run.dest as usize, run.len as usize);
        if let (Some(from), Some(to)) = (
            args.get(source..source + len),
            out.get_mut(dest..dest + len),
        ) {
            to.copy_from_slice(from);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rpsl_runtime::StructType;
    use std::sync::Arc;

    fn f32v(count: u32) -> ValueType {
        ValueType::Vector(ScalarType::F32, count)
    }

    #[test]
    fn std430_sizes_and_alignments() {
        assert_eq!(
            (std430_align(&f32v(3)), std430_size(&f32v(3))),
            (Some(16), Some(12))
        );
        assert_eq!(
            (std430_align(&f32v(2)), std430_size(&f32v(2))),
            (Some(8), Some(8))
        );
        let matrix = ValueType::Matrix(ScalarType::F32, 3, 3);
        assert_eq!(
            (std430_align(&matrix), std430_size(&matrix)),
            (Some(16), Some(48))
        );
        let array = ValueType::Array(Box::new(ValueType::Scalar(ScalarType::F32)), 3);
        assert_eq!(
            (std430_align(&array), std430_size(&array)),
            (Some(4), Some(12))
        );
        let vec3_array = ValueType::Array(Box::new(f32v(3)), 2);
        assert_eq!(std430_size(&vec3_array), Some(32));
        assert_eq!(std430_align(&ValueType::Texture), None);
    }

    #[test]
    fn runs_repack_c_layout_to_std430() {
        // struct { float a; float3 b; } in C: a at 0, b at 4 (16 bytes); std430: a at 0, b at 16.
        let s = StructType::with_c_layout(
            "S",
            vec![
                ("a".into(), ValueType::Scalar(ScalarType::F32)),
                ("b".into(), f32v(3)),
            ],
        );
        let ty = ValueType::Struct(Arc::new(s));
        assert_eq!(std430_size(&ty), Some(32));
        let mut runs = Vec::new();
        copy_runs(&ty, 8, 0, &mut runs);
        assert_eq!(
            runs,
            vec![
                CopyRun {
                    source: 8,
                    dest: 0,
                    len: 4
                },
                CopyRun {
                    source: 12,
                    dest: 16,
                    len: 12
                }
            ]
        );
        let args: Vec<u8> = (0..24).collect();
        let mut out = [0u8; 32];
        apply_runs(&runs, &args, &mut out);
        assert_eq!(&out[0..4], &[8, 9, 10, 11]);
        assert_eq!(
            &out[16..28],
            &[12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]
        );
    }
}
