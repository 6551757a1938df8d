//! `tests_console_test_hlsl_intrinsics.rpsl`: the exact `ia[]` / `fa[]` the `Foo` node receives,
//! against values computed by hand from HLSL's definitions (integers exact; floats within 1e-5
//! relative, or both NaN / both the same infinity). Then a script of matrix math (`mul`, matrix
//! members, `transpose`, `determinant`) and the intrinsics added with them, whose node arguments
//! must be identical under both engines and exact.

mod run_support;

use run_support::{arg, corpus, load, nodes, run_dump};
use serde_json::Value;

/// A float as the dump writes it: a number, or "NaN" / "inf" / "-inf".
fn float(value: &Value) -> f64 {
    match value {
        Value::String(text) if text == "NaN" => f64::NAN,
        Value::String(text) if text == "inf" => f64::INFINITY,
        Value::String(text) if text == "-inf" => f64::NEG_INFINITY,
        other => other
            .as_f64()
            .unwrap_or_else(|| panic!("not a float: {other}")),
    }
}

fn check(args: &[&str], ia: [u64; 10], fa: [f64; 16]) {
    let Some(path) = corpus("tests_console_test_hlsl_intrinsics.rpsl") else {
        return;
    };
    let program = load(&path);
    let dump = run_dump(&program, "rps_main", args, 1, false);
    let nodes = nodes(&dump, 0);
    assert_eq!(nodes.len(), 1);
    assert_eq!(nodes[0]["name"], "Foo");
    let got_ia: Vec<u64> = arg(&nodes[0], "ia")
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(got_ia, ia, "ia for {args:?}");
    let got_fa: Vec<f64> = arg(&nodes[0], "fa")
        .as_array()
        .unwrap()
        .iter()
        .map(float)
        .collect();
    for (i, (&got, &want)) in got_fa.iter().zip(&fa).enumerate() {
        let ok = if want.is_nan() {
            got.is_nan()
        } else if want.is_infinite() {
            got == want
        } else {
            (got - want).abs() <= 1e-5 * want.abs().max(1.0)
        };
        assert!(ok, "fa[{i}] for {args:?}: got {got}, want {want}");
    }
}

#[test]
fn small_values_with_a_negative_int() {
    check(
        &[
            "i1=-7",
            "u1=3",
            "i2=1,2",
            "u3=5,6,7",
            "f1=0.5",
            "f4=1,2,3,4",
        ],
        [
            7,           // abs(-7)
            255,         // (-7 >> 3) = -1 (arithmetic), & 0xff
            0x4080_0000, // asuint(4.0)
            37,          // 5 * 6 + 7
            2,           // countbits(0b110)
            0,           // 5 / 17
            5,           // 5 % 17
            1840700270,  // ((3 << 32) | 5) / 7 = 12884901893 / 7
            2,           // firstbithigh(6)
            12,          // -6 - 4096 = -4102 = ~4101; 4101 = 2^12 + 5: bit 12 is the highest 0
        ],
        [
            0.6435011087932844,  // atan2(1 + 0.5, 2) = atan(0.75)
            4.2e-45,             // asfloat(3): the denormal 3 * 2^-149
            3.0,                 // all(f4 > 0) && any(u3 < 1000): float(u1)
            1.0,                 // i1 != 0: f4.x
            2.0,                 // max(1, 2)
            4.0,                 // lerp(1, 2, 3) = 1 + 3 * (2 - 1)
            1.0,                 // floor(1)
            2.0,                 // ceil(2)
            3.0,                 // round(3)
            4.0,                 // trunc(4)
            2.0,                 // nothing is inf or NaN
            7.0,                 // mad(2, 3, 1)
            0.5403023058681398,  // cos(1)
            0.7070891041799028,  // 1 / sqrt(2 + 0.0001)
            1.0,                 // saturate(3)
            std::f64::consts::E, // exp(min(3, 1))
        ],
    );
}

#[test]
fn extremes_nan_and_infinities() {
    check(
        &[
            "i1=-2147483648",
            "u1=0xffffffff",
            "i2=0,0",
            "u3=4294967295,0x80000001,3",
            "f1=-1.5",
            "f4=inf,nan,-inf,-0.5",
        ],
        [
            2147483648,  // abs(INT_MIN) wraps to INT_MIN; as uint 2^31
            0,           // INT_MIN >> 3 = -2^28: low byte 0
            0xBF00_0000, // asuint(-0.5)
            2147483650,  // 0xffffffff * 0x80000001 = 0x7fffffff (mod 2^32), + 3
            2,           // countbits(0x80000001)
            252645135,   // 0xffffffff / 17 (exact)
            0,           // 0xffffffff % 17
            4294967288,  // u64::MAX / 0x80000002 = 8589934584, low 32 bits
            31,          // firstbithigh(0x80000001)
            30,          // -(int)0x80000001 - 4096 = 2147483647 - 4096 = 0x7fffefff
        ],
        [
            f64::NAN,          // atan2(inf, NaN)
            f64::NAN,          // asfloat(0xffffffff)
            -2147483648.0,     // NaN > 0 is false: float(i1)
            f64::INFINITY,     // i1 != 0: f4.x
            f64::INFINITY,     // max(inf, NaN) returns the number
            f64::NAN,          // lerp with NaN
            f64::INFINITY,     // floor(inf)
            f64::NAN,          // ceil(NaN)
            f64::NEG_INFINITY, // round(-inf)
            0.0,               // trunc(-0.5) = -0
            1.0,               // isinf(f4.x)
            f64::NAN,          // mad(NaN, -inf, inf)
            f64::NAN,          // cos(inf)
            f64::NAN,          // rsqrt(|NaN| + 0.0001)
            0.0,               // saturate(-inf)
            0.0,               // exp(min(-inf, 1)) = exp(-inf)
        ],
    );
}

#[test]
fn zeros_and_mixed_signs() {
    check(
        &[
            "i1=100",
            "u1=0",
            "i2=-1,-2",
            "u3=1000,0,0",
            "f1=0",
            "f4=-1.25,0.75,0.3,7.9",
        ],
        [
            100,        // abs(100)
            12,         // 100 >> 3
            1090309325, // asuint(7.9f)
            0,          // 1000 * 0 + 0
            0,          // countbits(0)
            58,         // 1000 / 17
            14,         // 1000 - 58 * 17
            1000,       // (0 << 32 | 1000) / (0 + 1)
            4294967295, // firstbithigh(0) = -1
            11,         // -4096 = ...1111 0000 0000 0000: bit 11 is the highest 0
        ],
        [
            -1.0303768265243125, // atan2(-1.25, 0.75)
            0.0,                 // asfloat(0)
            100.0,               // f4.x < 0: float(i1)
            -1.25,               // i1 != 0: f4.x
            0.75,                // max(-1.25, 0.75)
            -0.65,               // lerp(-1.25, 0.75, 0.3) = -1.25 + 0.3 * 2
            -2.0,                // floor(-1.25)
            1.0,                 // ceil(0.75)
            0.0,                 // round(0.3)
            7.0,                 // trunc(7.9)
            2.0,                 // all finite
            -1.025,              // mad(0.75, 0.3, -1.25)
            0.3153223623952687,  // cos(-1.25)
            1.154623566040508,   // 1 / sqrt(0.75 + 0.0001)
            0.3,                 // saturate(0.3)
            1.3498588075760032,  // exp(0.3)
        ],
    );
}

/// Matrix math and the intrinsics added for issue 22 through the embedding API: the values a
/// node receives, identical under the interpreter and the JIT, and exact.
const MATRIX_SCRIPT: &str = r#"
compute node Out(float fa[12], uint ua[8]);

export void main(float angle, float4x4 m)
{
    float3x3 r = float3x3(cos(angle), -sin(angle), 0, sin(angle), cos(angle), 0, 0, 0, 1);
    float3 p = mul(r, float3(1, 0, 0));
    float3 q = mul(float3(1, 0, 0), r);
    float4x4 mt = transpose(m);
    m._m03_m13 = float2(7, 8);
    float fa[12] = {
        p.y, q.y, determinant(r), determinant(m), mt._m10, m._14, m._24,
        degrees(angle), radians(90.0f), log10(1e-3f), mul(m, float4(1, 1, 1, 1)).w,
        reflect(float2(1, -1), float2(0, 1)).y };
    float ip;
    float fraction = modf(-2.25f, ip);
    uint ua[8] = { f32tof16(-1.5f), asuint(f16tof32(0x3555u)), msad4(0x00000101u, uint2(0x03020100u, 0u), uint4(0, 0, 0, 0)).x,
                   asuint(fraction), asuint(ip), (uint)mul(int3(1, 2, 3), int3x3(1, 0, 0, 0, 1, 0, 0, 0, 1)).z,
                   (uint)D3DCOLORtoUBYTE4(float4(1, 0, 0, 1)).z, asuint(lit(0.5f, 0.5f, 2).z) };
    Out(fa, ua);
}
"#;

/// Runs [`MATRIX_SCRIPT`] under one engine and returns its dump.
fn run_matrix_script(mode: rpsl::Mode, args: &[&str]) -> Value {
    let program = rpsl::Program::from_source("matrix.rpsl", MATRIX_SCRIPT)
        .unwrap_or_else(|e| panic!("{}", e.rendered));
    let options = rpsl::SessionOptions {
        mode,
        ..run_support::options(false)
    };
    let mut session = rpsl::Session::new(&program, Some("main"), options).expect("entry");
    let parsed = rpsl::EntryArgs::parse(&program, session.entry(), args).expect("arguments");
    let mut dump = rpsl::runtime::DumpWriter::new("main");
    let frame = session
        .run_frame(&parsed)
        .unwrap_or_else(|e| panic!("{}", e.render()));
    dump.add_frame(frame.graph, Some(frame.compiled));
    serde_json::from_str(&dump.finish()).expect("dump is JSON")
}

#[test]
fn matrix_math_and_new_intrinsics_on_both_engines() {
    let args = ["angle=0.5", "m=2,0,1,3,1,3,2,0,1,1,2,5,0,4,1,9"];
    let jit = run_matrix_script(rpsl::Mode::Jit, &args);
    let interp = run_matrix_script(rpsl::Mode::Interp, &args);
    assert_eq!(jit, interp);
    let nodes = nodes(&jit, 0);
    let fa: Vec<f32> = arg(&nodes[0], "fa")
        .as_array()
        .unwrap()
        .iter()
        .map(|v| float(v) as f32)
        .collect();
    let (s, c) = (0.5f32.sin(), 0.5f32.cos());
    // mul(r, e0) is r's first column summed as ((r00*1 + r01*0) + r02*0): lane y is sin.
    let p_y = (s * 1.0 + c * 0.0) + 0.0 * 0.0;
    // mul(e0, r) is r's first row: lane y is -sin.
    let q_y = (1.0 * -s + 0.0 * c) + 0.0 * 0.0;
    // The cofactor expansion along the first row, left to right.
    let det_r =
        (c * (c * 1.0 - 0.0 * 0.0) - -s * (s * 1.0 - 0.0 * 0.0)) + 0.0 * (s * 0.0 - c * 0.0);
    assert_eq!(
        fa,
        [
            p_y,
            q_y,
            det_r,
            // m after `m._m03_m13 = (7, 8)`: rows (2 0 1 7) (1 3 2 8) (1 1 2 5) (0 4 1 9).
            18.0,
            0.0, // transpose(m)._m10 is the original m._m01
            7.0, // m._14 is m._m03 after the write
            8.0, // m._24 is m._m13
            0.5 * (180.0 / std::f32::consts::PI),
            90.0 * (std::f32::consts::PI / 180.0),
            1e-3f32.log10(),
            14.0, // ((0 + 4) + 1) + 9
            1.0,  // reflect((1, -1), (0, 1)) = (1, -1) - 2 * -1 * (0, 1)
        ]
    );
    let ua: Vec<u64> = arg(&nodes[0], "ua")
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(
        ua,
        [
            0xBE00,      // f32tof16(-1.5)
            0x3EAA_A000, // f16tof32(0x3555) = 1.3330078125 / 4
            1,           // reference bytes (1, 1, 0, 0) against source bytes (0, 1, 2, 3)
            0xBE80_0000, // modf(-2.25) = -0.25
            0xC000_0000, // its integer part -2
            3,           // mul(int3(1, 2, 3), identity).z
            255,         // D3DCOLORtoUBYTE4: lane z is x * 255.001953
            0x3E80_0000, // lit(0.5, 0.5, 2).z = pow(0.5, 2)
        ]
    );
}
