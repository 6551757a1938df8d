//! HLSL math from RPSL source on every engine: `mul` in all its forms, matrix members,
//! `transpose`, `determinant`, `degrees`/`radians`/`log10` and the shading, bit and `out`
//! intrinsics. Every script runs under the interpreter and the JIT, which must leave the same
//! bytes in the I/O block; the tests then check those bytes against exact values.

mod common;

use common::engines;
use rpsl_vm::lower::{lower_module, EntryInfo};
use rpsl_vm::{Limits, RecordingHost, Value};

/// Compiles `source`, runs entry `main` on every engine with an I/O block filled by `fill`,
/// asserts the engines agree and the run succeeds, and returns the I/O block and the entry.
fn run(source: &str, fill: impl Fn(&mut [u8], &EntryInfo)) -> (Vec<u8>, EntryInfo) {
    let compilation = rpsl_frontend::check_source("math.rpsl", source);
    assert!(
        !compilation.has_errors(),
        "{}",
        compilation.render_diagnostics()
    );
    let module = compilation.module.expect("checked module");
    let lowered = lower_module(&module).unwrap_or_else(|e| panic!("lowering failed: {e:?}"));
    let entry = lowered
        .entries
        .iter()
        .find(|e| e.name == "main")
        .expect("main")
        .clone();
    let verified = lowered
        .module
        .verify()
        .unwrap_or_else(|e| panic!("verification failed:\n{e}"));
    let mut first: Option<Vec<u8>> = None;
    for mut engine in engines(Limits::default()) {
        let mut io = vec![0u8; entry.io_size as usize];
        fill(&mut io, &entry);
        let mut host = RecordingHost::new();
        let result = engine.run(&verified, entry.func, &[Value::Addr(0)], &mut io, &mut host);
        assert_eq!(result, Ok(vec![]), "{}", engine.name());
        match &first {
            None => first = Some(io),
            Some(expected) => assert_eq!(&io, expected, "{} I/O block disagrees", engine.name()),
        }
    }
    (first.expect("an engine"), entry)
}

/// `n` 32-bit words of parameter `param`.
fn words(io: &[u8], entry: &EntryInfo, param: usize, n: usize) -> Vec<u32> {
    let offset = entry.params[param].offset as usize;
    (0..n)
        .map(|i| {
            let at = offset + 4 * i;
            u32::from_le_bytes(io[at..at + 4].try_into().unwrap())
        })
        .collect()
}

/// `n` floats of parameter `param`.
fn floats(io: &[u8], entry: &EntryInfo, param: usize, n: usize) -> Vec<f32> {
    words(io, entry, param, n)
        .into_iter()
        .map(f32::from_bits)
        .collect()
}

/// `n` doubles of parameter `param`.
fn doubles(io: &[u8], entry: &EntryInfo, param: usize, n: usize) -> Vec<f64> {
    let offset = entry.params[param].offset as usize;
    (0..n)
        .map(|i| {
            let at = offset + 8 * i;
            f64::from_le_bytes(io[at..at + 8].try_into().unwrap())
        })
        .collect()
}

fn put_f32(io: &mut [u8], entry: &EntryInfo, param: usize, values: &[f32]) {
    let offset = entry.params[param].offset as usize;
    for (i, v) in values.iter().enumerate() {
        io[offset + 4 * i..offset + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
}

#[test]
fn mul_in_every_form() {
    let source = r#"
export void main(out float s, out float3 sv, out float3 vs, out float2x2 sm, out float d,
                 out float3 vm, out float2 mv, out float2x3 mm, out int2 ii, out uint2 uu,
                 out float1x1 inner, out float2x2 outer, out int lit)
{
    float2x3 a = float2x3(1, 2, 3, 4, 5, 6);
    float3x3 b = float3x3(1, 0, 2, 0, 1, 0, 3, 0, 1);
    s = mul(2.0f, 3.5f);
    sv = mul(2.0f, float3(1, 2, 3));
    vs = mul(float3(1, 2, 3), 0.5f);
    sm = mul(float2x2(1, 2, 3, 4), 3.0f);
    d = mul(float3(1, 2, 3), float3(4, 5, 6));
    vm = mul(float2(1, 2), a);
    mv = mul(a, float3(1, 0, -1));
    mm = mul(a, b);
    ii = mul(int2(3, -4), int2x2(1, 2, 3, 4));
    uu = mul(uint2x2(1, 2, 3, 4), uint2(5, 6));
    inner = mul(float1x3(1, 2, 3), float3x1(4, 5, 6));
    outer = mul(float2x1(1, 2), float1x2(3, 4));
    lit = mul(3, 4);
}
"#;
    let (io, e) = run(source, |_, _| {});
    assert_eq!(floats(&io, &e, 0, 1), [7.0]);
    assert_eq!(floats(&io, &e, 1, 3), [2.0, 4.0, 6.0]);
    assert_eq!(floats(&io, &e, 2, 3), [0.5, 1.0, 1.5]);
    assert_eq!(floats(&io, &e, 3, 4), [3.0, 6.0, 9.0, 12.0]);
    assert_eq!(floats(&io, &e, 4, 1), [32.0]);
    // Row vector times matrix: (1*1 + 2*4, 1*2 + 2*5, 1*3 + 2*6).
    assert_eq!(floats(&io, &e, 5, 3), [9.0, 12.0, 15.0]);
    // Matrix times column vector: (1 - 3, 4 - 6).
    assert_eq!(floats(&io, &e, 6, 2), [-2.0, -2.0]);
    assert_eq!(floats(&io, &e, 7, 6), [10.0, 2.0, 5.0, 22.0, 5.0, 14.0]);
    assert_eq!(words(&io, &e, 8, 2), [(-9i32) as u32, (-10i32) as u32]);
    assert_eq!(words(&io, &e, 9, 2), [17, 39]);
    assert_eq!(floats(&io, &e, 10, 1), [32.0]);
    assert_eq!(floats(&io, &e, 11, 4), [3.0, 4.0, 6.0, 8.0]);
    assert_eq!(words(&io, &e, 12, 1), [12]);
}

#[test]
fn mul_sums_left_to_right_without_fma() {
    let source = r#"
export void main(float3 a, float3x3 m, out float d, out float3 row, out float3 column)
{
    d = mul(a, a.zyx);
    row = mul(a, m);
    column = mul(m, a);
}
"#;
    let a = [0.1f32, 0.7, 1e-3];
    let m = [0.3f32, 1.1, 2.9, -0.6, 1e7, 0.25, 3.3, 1.0 / 3.0, -7.1];
    let (io, e) = run(source, |io, e| {
        put_f32(io, e, 0, &a);
        put_f32(io, e, 1, &m);
    });
    let sum3 = |x: [f32; 3], y: [f32; 3]| (x[0] * y[0] + x[1] * y[1]) + x[2] * y[2];
    assert_eq!(floats(&io, &e, 2, 1), [sum3(a, [a[2], a[1], a[0]])]);
    let col = |j: usize| [m[j], m[3 + j], m[6 + j]];
    let row = |i: usize| [m[3 * i], m[3 * i + 1], m[3 * i + 2]];
    let want_row: Vec<f32> = (0..3).map(|j| sum3(a, col(j))).collect();
    let want_column: Vec<f32> = (0..3).map(|i| sum3(row(i), a)).collect();
    assert_eq!(floats(&io, &e, 3, 3), want_row);
    assert_eq!(floats(&io, &e, 4, 3), want_column);
}

#[test]
fn matrix_members_read_and_write() {
    let source = r#"
struct Holder { float2x2 m; };

export void main(out float a, out float b, out float3 diag, out float2 corners, out float2 swapped,
                 out float3x3 written, out float2x2 in_memory, out float4 arr_row)
{
    float3x3 m = float3x3(1, 2, 3, 4, 5, 6, 7, 8, 9);
    a = m._m01;
    b = m._32;
    diag = m._m00_m11_m22;
    corners = m._13_31;
    swapped = m._m00_m11.yx;
    m._m10 = 40;
    m._m02_m20 = float2(30, 70);
    m._22_33 = float2(50, 90);
    m._m00_m11.y = -5;
    written = m;
    Holder h;
    h.m = float2x2(0, 0, 0, 0);
    h.m._m01 = 3;
    h.m._21_22 = float2(4, 5);
    in_memory = h.m;
    float2x2 list[2];
    list[1] = float2x2(1, 1, 1, 1);
    list[1]._11_12_21_22 = float4(6, 7, 8, 9);
    arr_row = float4(list[1]._m00, list[1]._m01, list[1]._m10, list[1]._m11);
}
"#;
    let (io, e) = run(source, |_, _| {});
    assert_eq!(floats(&io, &e, 0, 1), [2.0]);
    assert_eq!(floats(&io, &e, 1, 1), [8.0]);
    assert_eq!(floats(&io, &e, 2, 3), [1.0, 5.0, 9.0]);
    assert_eq!(floats(&io, &e, 3, 2), [3.0, 7.0]);
    assert_eq!(floats(&io, &e, 4, 2), [5.0, 1.0]);
    assert_eq!(
        floats(&io, &e, 5, 9),
        [1.0, 2.0, 30.0, 40.0, 50.0, 6.0, 70.0, 8.0, 90.0].map(|v| if v == 50.0 {
            -5.0
        } else {
            v
        })
    );
    assert_eq!(floats(&io, &e, 6, 4), [0.0, 3.0, 4.0, 5.0]);
    assert_eq!(floats(&io, &e, 7, 4), [6.0, 7.0, 8.0, 9.0]);
}

/// The documented cofactor expansion along the first row, in the same order as the lowering.
fn reference_determinant(m: &[f32], n: usize, row: usize, cols: &[usize]) -> f32 {
    let at = |r: usize, c: usize| m[r * n + c];
    match cols {
        [c] => at(row, *c),
        [c0, c1] => at(row, *c0) * at(row + 1, *c1) - at(row, *c1) * at(row + 1, *c0),
        _ => {
            let mut sum = 0.0;
            for (index, &col) in cols.iter().enumerate() {
                let rest: Vec<usize> = cols.iter().copied().filter(|&c| c != col).collect();
                let term = at(row, col) * reference_determinant(m, n, row + 1, &rest);
                sum = match index {
                    0 => term,
                    i if i % 2 == 1 => sum - term,
                    _ => sum + term,
                };
            }
            sum
        }
    }
}

#[test]
fn transpose_and_determinant() {
    let source = r#"
export void main(float4x4 free, out float3x2 t, out int2x2 ti, out float d1, out float d2,
                 out float d3, out float d4, out float di, out float dfree)
{
    t = transpose(float2x3(1, 2, 3, 4, 5, 6));
    ti = transpose(int2x2(1, -2, 3, -4));
    d1 = determinant(float1x1(5));
    d2 = determinant(float2x2(1, 2, 3, 4));
    d3 = determinant(float3x3(2, 0, 1, 1, 3, 2, 1, 1, 2));
    d4 = determinant(float4x4(1, 2, 0, 0, 0, 2, 0, 0, 0, 0, 3, 1, 0, 0, 0, 4));
    di = determinant(int2x2(7, 2, 3, 1));
    dfree = determinant(free);
}
"#;
    let free = [
        0.1f32,
        0.7,
        -1.3,
        2.2,
        3.1,
        1e-3,
        0.5,
        -0.25,
        1.0 / 3.0,
        9.9,
        4.4,
        -2.0,
        0.6,
        -0.8,
        1.7,
        5.5,
    ];
    let (io, e) = run(source, |io, e| put_f32(io, e, 0, &free));
    assert_eq!(floats(&io, &e, 1, 6), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    assert_eq!(words(&io, &e, 2, 4), [1, 3, (-2i32) as u32, (-4i32) as u32]);
    assert_eq!(floats(&io, &e, 3, 1), [5.0]);
    assert_eq!(floats(&io, &e, 4, 1), [-2.0]);
    // 2*(3*2 - 2*1) - 0*(1*2 - 2*1) + 1*(1*1 - 3*1) = 8 - 0 - 2.
    assert_eq!(floats(&io, &e, 5, 1), [6.0]);
    assert_eq!(floats(&io, &e, 6, 1), [24.0]);
    assert_eq!(floats(&io, &e, 7, 1), [1.0]);
    let want = reference_determinant(&free, 4, 0, &[0, 1, 2, 3]);
    assert_eq!(floats(&io, &e, 8, 1), [want]);
}

#[test]
fn degrees_radians_log10() {
    let source = r#"
export void main(out float deg, out float rad, out float2 logs, out double ddeg, out float3x1 mrad)
{
    deg = degrees(3.14159265358979f);
    rad = radians(180.0f);
    logs = log10(float2(1000.0f, 0.001f));
    ddeg = degrees(1.0l);
    mrad = radians(float3x1(90, 45, -360));
}
"#;
    let (io, e) = run(source, |_, _| {});
    assert_eq!(floats(&io, &e, 0, 1), [180.0]);
    assert_eq!(floats(&io, &e, 1, 1), [std::f32::consts::PI]);
    assert_eq!(floats(&io, &e, 2, 2), [3.0, 0.001f32.log10()]);
    assert_eq!(doubles(&io, &e, 3, 1), [180.0 / std::f64::consts::PI]);
    let r = std::f32::consts::PI / 180.0;
    assert_eq!(floats(&io, &e, 4, 3), [90.0 * r, 45.0 * r, -360.0 * r]);
}

#[test]
fn shading_intrinsics() {
    let source = r#"
export void main(out float4 d, out float4 lit_lit, out float4 lit_back, out float4 lit_away,
                 out float3 facing, out float3 away, out float3 reflected, out float3 bent,
                 out float3 total, out float2 scalar_reflect)
{
    d = dst(float4(9, 2, 3, 9), float4(9, 5, 9, 7));
    lit_lit = lit(0.5f, 0.25f, 2);
    lit_back = lit(-0.5f, 0.5f, 2);
    lit_away = lit(0.5f, -0.125f, 3);
    facing = faceforward(float3(1, 2, 3), float3(1, 0, 0), float3(-1, 0, 0));
    away = faceforward(float3(1, 2, 3), float3(1, 0, 0), float3(1, 0, 0));
    reflected = reflect(float3(1, -1, 0), float3(0, 1, 0));
    bent = refract(float3(0.6f, -0.8f, 0), float3(0, 1, 0), 0.75f);
    total = refract(float3(0.6f, -0.8f, 0), float3(0, 1, 0), 2.0f);
    scalar_reflect = float2(reflect(2.0f, 1.0f), reflect(-1.0f, 0.5f));
}
"#;
    let (io, e) = run(source, |_, _| {});
    assert_eq!(floats(&io, &e, 0, 4), [1.0, 10.0, 3.0, 7.0]);
    assert_eq!(floats(&io, &e, 1, 4), [1.0, 0.5, 0.0625, 1.0]);
    assert_eq!(floats(&io, &e, 2, 4), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(floats(&io, &e, 3, 4), [1.0, 0.5, 0.0, 1.0]);
    assert_eq!(floats(&io, &e, 4, 3), [1.0, 2.0, 3.0]);
    assert_eq!(floats(&io, &e, 5, 3), [-1.0, -2.0, -3.0]);
    assert_eq!(floats(&io, &e, 6, 3), [1.0, 1.0, 0.0]);
    // The documented refract sequence, in f32.
    let (i, n, eta) = ([0.6f32, -0.8, 0.0], [0.0f32, 1.0, 0.0], 0.75f32);
    let d = (n[0] * i[0] + n[1] * i[1]) + n[2] * i[2];
    let k = 1.0 - (eta * eta) * (1.0 - d * d);
    let factor = eta * d + k.sqrt();
    let want: Vec<f32> = (0..3).map(|l| eta * i[l] - factor * n[l]).collect();
    assert_eq!(floats(&io, &e, 7, 3), want);
    assert_eq!(floats(&io, &e, 8, 3), [0.0, 0.0, 0.0]);
    // reflect(2, 1) = 2 - (2 * 2) * 1; reflect(-1, 0.5) = -1 - (2 * -0.5) * 0.5.
    assert_eq!(floats(&io, &e, 9, 2), [-2.0, -0.5]);
}

#[test]
fn bit_and_precision_intrinsics() {
    let source = r#"
export void main(out double fused, out double unfused, out float2 scaled, out uint4 halves,
                 out uint2 more_halves, out float4 widened, out float high_bits_ignored,
                 out double one, out double2 pair, out uint4 sad)
{
    fused = fma(0.1l, 10.0l, -1.0l);
    unfused = mad(0.1l, 10.0l, -1.0l);
    scaled = ldexp(float2(1.5f, -3.0f), float2(3, -1));
    halves = f32tof16(float4(1.0f, -2.0f, 65504.0f, 1e-7f));
    more_halves = f32tof16(float2(0.1f, 70000.0f));
    widened = f16tof32(uint4(0x3C00, 0xC000, 0x0001, 0x7BFF));
    high_bits_ignored = f16tof32(0xFFFF3C00u);
    one = asdouble(0u, 0x3FF00000u);
    pair = asdouble(uint2(0x54442D18u, 0u), uint2(0x400921FBu, 0x40000000u));
    sad = msad4(0x01020300u, uint2(0x04030201u, 0x08070605u), uint4(0, 10, 20, 30));
}
"#;
    let (io, e) = run(source, |_, _| {});
    assert_eq!(doubles(&io, &e, 0, 1), [0.1f64.mul_add(10.0, -1.0)]);
    assert_eq!(doubles(&io, &e, 0, 1), [5.551115123125783e-17]);
    assert_eq!(doubles(&io, &e, 1, 1), [0.0]);
    assert_eq!(floats(&io, &e, 2, 2), [12.0, -1.5]);
    assert_eq!(words(&io, &e, 3, 4), [0x3C00, 0xC000, 0x7BFF, 0x0002]);
    assert_eq!(words(&io, &e, 4, 2), [0x2E66, 0x7C00]);
    assert_eq!(floats(&io, &e, 5, 4), [1.0, -2.0, 5.960_464_5e-8, 65504.0]);
    assert_eq!(floats(&io, &e, 6, 1), [1.0]);
    assert_eq!(doubles(&io, &e, 7, 1), [1.0]);
    assert_eq!(doubles(&io, &e, 8, 2), [std::f64::consts::PI, 2.0]);
    // Reference bytes (low first) 0, 3, 2, 1 (0 is masked); source bytes 1..8.
    assert_eq!(words(&io, &e, 9, 4), [5, 16, 29, 42]);
}

#[test]
fn intrinsics_with_out_arguments() {
    let source = r#"
struct Parts { float2 whole; float2 exponent; };

export void main(out float2 fraction, out float2 whole, out float3 mantissa, out float3 exponent,
                 out float s, out float c, out float inf_fraction, out float2 in_memory,
                 out float4 swizzled)
{
    fraction = modf(float2(-1.5f, 2.25f), whole);
    mantissa = frexp(float3(8.0f, -0.375f, 0.0f), exponent);
    sincos(0.5f, s, c);
    float inf_whole;
    inf_fraction = modf(1.0f / 0.0f, inf_whole);
    Parts parts;
    float2 m = frexp(float2(3.0f, 1024.0f), parts.exponent);
    in_memory = parts.exponent;
    float4 v = 0;
    v.wx = modf(float2(7.75f, -0.5f), v.yz);
    swizzled = v;
}
"#;
    let (io, e) = run(source, |_, _| {});
    assert_eq!(floats(&io, &e, 0, 2), [-0.5, 0.25]);
    assert_eq!(floats(&io, &e, 1, 2), [-1.0, 2.0]);
    assert_eq!(floats(&io, &e, 2, 3), [0.5, -0.75, 0.0]);
    assert_eq!(floats(&io, &e, 3, 3), [4.0, -1.0, 0.0]);
    assert_eq!(floats(&io, &e, 4, 1), [0.5f32.sin()]);
    assert_eq!(floats(&io, &e, 5, 1), [0.5f32.cos()]);
    assert_eq!(floats(&io, &e, 6, 1), [0.0]);
    assert_eq!(floats(&io, &e, 7, 2), [2.0, 11.0]);
    // v.yz = (7, -0), then v.wx = (0.75, -0.5).
    let got = floats(&io, &e, 8, 4);
    assert_eq!(got, [-0.5, 7.0, 0.0, 0.75]);
    assert_eq!(got[2].to_bits(), (-0.0f32).to_bits());
}

#[test]
fn hlsl_2021_select_and_or_and_color_bytes() {
    let source = r#"
export void main(out float3 picked, out int2 scalar_cond, out uint3 logic, out int4 bytes,
                 out int4 clamped)
{
    picked = select(bool3(true, false, true), float3(1, 2, 3), float3(-1, -2, -3));
    scalar_cond = select(false, int2(1, 2), int2(5, 6));
    bool3 a = and(bool3(true, true, false), bool3(true, false, false));
    bool3 o = or(bool3(true, false, false), float3(0, 0.5f, 0));
    logic = uint3(a) * 10 + uint3(o);
    bytes = D3DCOLORtoUBYTE4(float4(0.25f, 0.5f, 1.0f, 0.0f));
    clamped = D3DCOLORtoUBYTE4(float4(-1.0f, 1e10f, 0.999f, 0.5f));
}
"#;
    let (io, e) = run(source, |_, _| {});
    assert_eq!(floats(&io, &e, 0, 3), [1.0, -2.0, 3.0]);
    assert_eq!(words(&io, &e, 1, 2), [5, 6]);
    assert_eq!(words(&io, &e, 2, 3), [11, 1, 0]);
    // (z, y, x, w) * 255.001953, truncated: 255.001953 -> 255, 127.5009 -> 127, 63.75 -> 63.
    assert_eq!(words(&io, &e, 3, 4), [255, 127, 63, 0]);
    // 0.999 * 255.001953 = 254.75 -> 254; 1e10 saturates; -255.0 -> -255; 127.5 -> 127.
    assert_eq!(
        words(&io, &e, 4, 4),
        [254, i32::MAX as u32, (-255i32) as u32, 127]
    );
}

#[test]
fn asuint_splits_a_double() {
    let source = r#"
export void main(double2 d, out uint2 lo, out uint2 hi, out double2 back, out uint one_lo, out uint one_hi)
{
    asuint(d, lo, hi);
    back = asdouble(lo, hi);
    asuint(1.0l, one_lo, one_hi);
}
"#;
    let (io, e) = run(source, |io, e| {
        let offset = e.params[0].offset as usize;
        io[offset..offset + 8].copy_from_slice(&std::f64::consts::PI.to_le_bytes());
        io[offset + 8..offset + 16].copy_from_slice(&(-0.0f64).to_le_bytes());
    });
    assert_eq!(words(&io, &e, 1, 2), [0x5444_2D18, 0]);
    assert_eq!(words(&io, &e, 2, 2), [0x4009_21FB, 0x8000_0000]);
    let back = doubles(&io, &e, 3, 2);
    assert_eq!(back[0], std::f64::consts::PI);
    assert_eq!(back[1].to_bits(), (-0.0f64).to_bits());
    assert_eq!(words(&io, &e, 4, 1), [0]);
    assert_eq!(words(&io, &e, 5, 1), [0x3FF0_0000]);
}

#[test]
fn matrix_members_in_globals_parameters_and_compound_assignments() {
    let source = r#"
static const float2x2 SCALED = mul(float2x2(1, 2, 3, 4), 2.0f);
static const float CORNER = SCALED._m11 + determinant(SCALED);

float trace(float3x3 m) { return m._11 + m._22 + m._33; }

void bump(inout float3x3 m) { m._m00_m11 += float2(10, 20); m._33 *= 3; }

export void main(inout float3x3 p, out float corner, out float2 globals, out float t, out float3x3 q)
{
    corner = CORNER;
    globals = SCALED._12_21;
    bump(p);
    p._m01++;
    t = trace(p);
    float3x3 local = p;
    local._m20_m21_m22 = local._m00_m01_m02;
    q = transpose(local);
}
"#;
    let (io, e) = run(source, |io, e| {
        put_f32(io, e, 0, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    });
    // p after bump and ++: (11, 3, 3), (4, 25, 6), (7, 8, 27).
    assert_eq!(
        floats(&io, &e, 0, 9),
        [11.0, 3.0, 3.0, 4.0, 25.0, 6.0, 7.0, 8.0, 27.0]
    );
    // SCALED = (2, 4), (6, 8): 8 + (2*8 - 4*6).
    assert_eq!(floats(&io, &e, 1, 1), [0.0]);
    assert_eq!(floats(&io, &e, 2, 2), [4.0, 6.0]);
    assert_eq!(floats(&io, &e, 3, 1), [63.0]);
    // local rows (11, 3, 3), (4, 25, 6), (11, 3, 3), transposed.
    assert_eq!(
        floats(&io, &e, 4, 9),
        [11.0, 4.0, 11.0, 3.0, 25.0, 3.0, 3.0, 6.0, 3.0]
    );
}
