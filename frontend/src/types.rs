//! RPSL and HLSL types: scalars, vectors, matrices, structs, arrays, views; sizes and conversions.
