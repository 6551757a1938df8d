use super::*;
use crate::types::parse_builtin_type_name;

fn ty(name: &str) -> Type {
    match name {
        "lit" => Type::LITERAL_INT,
        "litf" => Type::LITERAL_FLOAT,
        _ => parse_builtin_type_name(name).unwrap(),
    }
}

/// Resolves `name(args)` and shows `(params) -> result` or the error message.
fn check(name: &str, args: &[&str]) -> String {
    let args: Vec<Type> = args.iter().map(|a| ty(a)).collect();
    match resolve_intrinsic_by_name(name, &args).expect("an intrinsic") {
        Ok(call) => {
            let params: Vec<String> = call.params.iter().map(Type::to_string).collect();
            let warn = if call.warning.is_some() {
                " (truncation)"
            } else {
                ""
            };
            format!("({}) -> {}{warn}", params.join(", "), call.result)
        }
        Err(e) => e.message(&TypeTable::new()),
    }
}

#[test]
fn names_round_trip() {
    assert_eq!(Intrinsic::ALL.len(), 76);
    for &i in Intrinsic::ALL {
        let by_name = resolve_intrinsic_by_name(i.name(), &vec![Type::Error; i.arity()]);
        assert_eq!(by_name.map(|call| call.unwrap().intrinsic), Some(i));
    }
    assert_eq!(Intrinsic::from_name("asuint"), Some(Intrinsic::Asuint));
    assert_eq!(Intrinsic::from_name("create_tex2d"), None);
    assert!(resolve_intrinsic_by_name("foo", &[]).is_none());
}

#[test]
fn corpus_hlsl_intrinsics_test() {
    // Every intrinsic use of tests_console_test_hlsl_intrinsics.rpsl
    // (i1: int, u1: uint, u3.x: uint, f4.x: float, f1: float).
    assert_eq!(check("abs", &["int"]), "(int) -> int");
    assert_eq!(check("asuint", &["float"]), "(float) -> uint");
    assert_eq!(
        check("mad", &["uint", "uint", "uint"]),
        "(uint, uint, uint) -> uint"
    );
    assert_eq!(check("countbits", &["uint"]), "(uint) -> uint");
    assert_eq!(check("firstbithigh", &["uint"]), "(uint) -> uint");
    assert_eq!(check("firstbithigh", &["int"]), "(int) -> uint");
    assert_eq!(
        check("atan2", &["float", "float"]),
        "(float, float) -> float"
    );
    assert_eq!(check("asfloat", &["uint"]), "(uint) -> float");
    assert_eq!(check("all", &["bool4"]), "(bool4) -> bool");
    assert_eq!(check("any", &["bool3"]), "(bool3) -> bool");
    assert_eq!(check("max", &["float", "float"]), "(float, float) -> float");
    assert_eq!(
        check("lerp", &["float", "float", "float"]),
        "(float, float, float) -> float"
    );
    for f in ["floor", "ceil", "round", "trunc", "cos", "saturate"] {
        assert_eq!(check(f, &["float"]), "(float) -> float", "{f}");
    }
    for f in ["isinf", "isnan", "isfinite"] {
        assert_eq!(check(f, &["float"]), "(float) -> bool", "{f}");
    }
    assert_eq!(
        check("mad", &["float", "float", "float"]),
        "(float, float, float) -> float"
    );
    assert_eq!(check("rsqrt", &["float"]), "(float) -> float");
    assert_eq!(check("abs", &["float"]), "(float) -> float");
    assert_eq!(check("min", &["float", "lit"]), "(float, float) -> float");
    assert_eq!(check("exp", &["float"]), "(float) -> float");
}

#[test]
fn generic_signatures() {
    assert_eq!(check("abs", &["float3"]), "(float3) -> float3");
    assert_eq!(check("abs", &["bool"]), "(int) -> int");
    assert_eq!(check("abs", &["lit"]), "(int) -> int");
    assert_eq!(check("sign", &["float2"]), "(float2) -> int2");
    assert_eq!(check("min", &["int", "uint"]), "(uint, uint) -> uint");
    assert_eq!(
        check("min", &["float4", "lit"]),
        "(float4, float4) -> float4"
    );
    assert_eq!(
        check("max", &["float4", "float3"]),
        "(float3, float3) -> float3 (truncation)"
    );
    assert_eq!(
        check("clamp", &["int", "lit", "lit"]),
        "(int, int, int) -> int"
    );
    assert_eq!(
        check("clamp", &["float4x4", "litf", "litf"]),
        "(float4x4, float4x4, float4x4) -> float4x4"
    );
    assert_eq!(check("sqrt", &["int"]), "(float) -> float");
    assert_eq!(check("sqrt", &["uint2"]), "(float2) -> float2");
    assert_eq!(check("sqrt", &["double"]), "(double) -> double");
    assert_eq!(check("sqrt", &["half"]), "(half) -> half");
    assert_eq!(check("pow", &["litf", "lit"]), "(float, float) -> float");
    assert_eq!(check("fmod", &["float", "int"]), "(float, float) -> float");
    assert_eq!(
        check("dot", &["float3", "float3"]),
        "(float3, float3) -> float"
    );
    assert_eq!(check("dot", &["int2", "int2"]), "(int2, int2) -> int");
    assert_eq!(check("dot", &["float", "float"]), "(float, float) -> float");
    assert_eq!(check("length", &["float3"]), "(float3) -> float");
    assert_eq!(check("length", &["int2"]), "(float2) -> float");
    assert_eq!(
        check("distance", &["float2", "float2"]),
        "(float2, float2) -> float"
    );
    assert_eq!(check("normalize", &["float3"]), "(float3) -> float3");
    assert_eq!(
        check("cross", &["float3", "float3"]),
        "(float3, float3) -> float3"
    );
    assert_eq!(
        check("cross", &["float4", "float3"]),
        "(float3, float3) -> float3 (truncation)"
    );
    assert_eq!(
        check("step", &["float", "float4"]),
        "(float4, float4) -> float4"
    );
    assert_eq!(
        check("smoothstep", &["litf", "litf", "float2"]),
        "(float2, float2, float2) -> float2"
    );
    assert_eq!(check("all", &["float4"]), "(float4) -> bool");
    assert_eq!(check("any", &["lit"]), "(int) -> bool");
    assert_eq!(check("countbits", &["uint64_t"]), "(uint64_t) -> uint");
    assert_eq!(check("countbits", &["int3"]), "(int3) -> uint3");
    assert_eq!(check("reversebits", &["int"]), "(uint) -> uint");
    assert_eq!(check("firstbitlow", &["uint2"]), "(uint2) -> uint2");
    assert_eq!(check("asuint", &["float2"]), "(float2) -> uint2");
    assert_eq!(check("asint", &["uint"]), "(uint) -> int");
    assert_eq!(check("asfloat", &["lit"]), "(uint) -> float");
    assert_eq!(check("asfloat", &["int4"]), "(int4) -> float4");
    assert_eq!(check("isnan", &["float3"]), "(float3) -> bool3");
    assert_eq!(check("isinf", &["lit"]), "(float) -> bool");
    assert_eq!(check("frac", &["float1"]), "(float1) -> float1");
}

#[test]
fn mul_forms_and_dimensions() {
    assert_eq!(check("mul", &["float", "float"]), "(float, float) -> float");
    assert_eq!(check("mul", &["lit", "lit"]), "(int, int) -> int");
    assert_eq!(
        check("mul", &["float", "float3"]),
        "(float, float3) -> float3"
    );
    assert_eq!(check("mul", &["int3", "litf"]), "(float3, float) -> float3");
    assert_eq!(
        check("mul", &["float2x3", "lit"]),
        "(float2x3, float) -> float2x3"
    );
    assert_eq!(
        check("mul", &["float3", "float3"]),
        "(float3, float3) -> float"
    );
    assert_eq!(
        check("mul", &["float3", "float3x4"]),
        "(float3, float3x4) -> float4"
    );
    assert_eq!(
        check("mul", &["float4x3", "float3"]),
        "(float4x3, float3) -> float4"
    );
    assert_eq!(
        check("mul", &["float2x3", "float3x4"]),
        "(float2x3, float3x4) -> float2x4"
    );
    assert_eq!(
        check("mul", &["int2", "uint2x2"]),
        "(uint2, uint2x2) -> uint2"
    );
    assert_eq!(
        check("mul", &["bool2", "bool2x2"]),
        "(int2, int2x2) -> int2"
    );
    assert_eq!(
        check("mul", &["double2x2", "float2x2"]),
        "(double2x2, double2x2) -> double2x2"
    );
    assert_eq!(
        check("mul", &["float3", "float4"]),
        "`mul` cannot multiply `float3` by `float4`: the inner dimensions 3 and 4 differ"
    );
    assert_eq!(
        check("mul", &["float3", "float4x4"]),
        "`mul` cannot multiply `float3` by `float4x4`: the inner dimensions 3 and 4 differ"
    );
    assert_eq!(
        check("mul", &["float4x4", "float3"]),
        "`mul` cannot multiply `float4x4` by `float3`: the inner dimensions 4 and 3 differ"
    );
    assert_eq!(
        check("mul", &["float2x3", "float2x3"]),
        "`mul` cannot multiply `float2x3` by `float2x3`: the inner dimensions 3 and 2 differ"
    );
    assert_eq!(check("mul", &["float"]), "`mul` takes 2 arguments, 1 given");
}

#[test]
fn matrix_and_new_intrinsics() {
    assert_eq!(check("transpose", &["float2x3"]), "(float2x3) -> float3x2");
    assert_eq!(check("transpose", &["bool4x1"]), "(bool4x1) -> bool1x4");
    assert_eq!(
        check("transpose", &["float3"]),
        "`transpose` expects a matrix argument, found `float3`"
    );
    assert_eq!(check("determinant", &["float3x3"]), "(float3x3) -> float");
    assert_eq!(check("determinant", &["int2x2"]), "(float2x2) -> float");
    assert_eq!(
        check("determinant", &["double4x4"]),
        "(double4x4) -> double"
    );
    assert_eq!(
        check("determinant", &["float2x3"]),
        "`determinant` expects a square matrix argument, found `float2x3`"
    );
    assert_eq!(
        check("determinant", &["float"]),
        "`determinant` expects a square matrix argument, found `float`"
    );
    for f in ["degrees", "radians", "log10"] {
        assert_eq!(check(f, &["float3"]), "(float3) -> float3", "{f}");
        assert_eq!(check(f, &["int"]), "(float) -> float", "{f}");
    }
    assert_eq!(
        check("dst", &["float4", "float4"]),
        "(float4, float4) -> float4"
    );
    assert_eq!(
        check("dst", &["float3", "float4"]),
        "`dst` expects a `float4` argument, found `float3`"
    );
    assert_eq!(
        check("lit", &["float", "float", "lit"]),
        "(float, float, float) -> float4"
    );
    assert_eq!(
        check("lit", &["float2", "float", "float"]),
        "`lit` expects a scalar argument, found `float2`"
    );
    assert_eq!(
        check("faceforward", &["float3", "float3", "float3"]),
        "(float3, float3, float3) -> float3"
    );
    assert_eq!(
        check("reflect", &["float2", "float2"]),
        "(float2, float2) -> float2"
    );
    assert_eq!(
        check("refract", &["float3", "float3", "float"]),
        "(float3, float3, float) -> float3"
    );
    assert_eq!(
        check("refract", &["float3", "float3", "float3"]),
        "`refract` expects a scalar argument, found `float3`"
    );
    assert_eq!(
        check("fma", &["double", "double", "double"]),
        "(double, double, double) -> double"
    );
    assert_eq!(
        check("fma", &["double2", "litf", "double2"]),
        "(double2, double2, double2) -> double2"
    );
    assert_eq!(
        check("fma", &["float", "float", "float"]),
        "`fma` expects a `double` argument, found `float`"
    );
    assert_eq!(
        check("ldexp", &["float3", "int"]),
        "(float3, float3) -> float3"
    );
    assert_eq!(check("f16tof32", &["uint2"]), "(uint2) -> float2");
    assert_eq!(
        check("f16tof32", &["float"]),
        "`f16tof32` expects an integer argument, found `float`"
    );
    assert_eq!(check("f32tof16", &["float4"]), "(float4) -> uint4");
    assert_eq!(
        check("asdouble", &["uint", "uint"]),
        "(uint, uint) -> double"
    );
    assert_eq!(
        check("asdouble", &["uint2", "uint2"]),
        "(uint2, uint2) -> double2"
    );
    assert_eq!(
        check("asdouble", &["uint3", "uint3"]),
        "`asdouble` expects a `uint` or `uint2` argument, found `uint3`"
    );
    assert_eq!(
        check("msad4", &["uint", "uint2", "uint4"]),
        "(uint, uint2, uint4) -> uint4"
    );
    assert_eq!(
        check("msad4", &["uint", "uint3", "uint4"]),
        "`msad4` expects a `uint2` argument, found `uint3`"
    );
    assert_eq!(
        check("modf", &["float2", "float2"]),
        "(float2, float2) -> float2"
    );
    assert_eq!(
        check("frexp", &["double", "double"]),
        "(double, double) -> double"
    );
    assert_eq!(
        check("sincos", &["float3", "float3", "float3"]),
        "(float3, float3, float3) -> void"
    );
    assert_eq!(
        check("select", &["bool2", "float2", "lit"]),
        "(bool2, float2, float2) -> float2"
    );
    assert_eq!(
        check("select", &["bool", "int3", "uint3"]),
        "(bool3, uint3, uint3) -> uint3"
    );
    assert_eq!(check("and", &["bool3", "bool"]), "(bool3, bool3) -> bool3");
    assert_eq!(check("or", &["int2", "float2"]), "(bool2, bool2) -> bool2");
    assert_eq!(check("D3DCOLORtoUBYTE4", &["float4"]), "(float4) -> int4");
    assert_eq!(
        check("asuint", &["double2", "uint2", "uint2"]),
        "(double2, uint2, uint2) -> void"
    );
    assert_eq!(
        check("asuint", &["float", "uint", "uint"]),
        "`asuint` expects a `double` scalar or vector argument, found `float`"
    );
    assert_eq!(
        check("asuint", &["float", "uint"]),
        "`asuint` takes 1 argument, 2 given"
    );
    assert_eq!(
        check("D3DCOLORtoUBYTE4", &["float3"]),
        "`D3DCOLORtoUBYTE4` expects a `float4` argument, found `float3`"
    );
}

#[test]
fn errors() {
    assert_eq!(
        check("clamp", &["float", "float"]),
        "`clamp` takes 3 arguments, 2 given"
    );
    assert_eq!(check("abs", &[]), "`abs` takes 1 argument, 0 given");
    assert_eq!(
        check("countbits", &["float"]),
        "`countbits` expects an integer argument, found `float`"
    );
    assert_eq!(
        check("firstbithigh", &["bool"]),
        "`firstbithigh` expects an integer argument, found `bool`"
    );
    assert_eq!(
        check("abs", &["texture"]),
        "`abs` expects a numeric argument, found `texture`"
    );
    assert_eq!(
        check("min", &["float4x4", "float3"]),
        "`min` cannot combine arguments of type `float4x4` and `float3`"
    );
    assert_eq!(
        check("dot", &["float4x4", "float4x4"]),
        "`dot` expects a scalar or vector argument, found `float4x4`"
    );
    assert_eq!(
        check("cross", &["float2", "float3"]),
        "`cross` expects a `float3` argument, found `float2`"
    );
    assert_eq!(
        check("asuint", &["double"]),
        "`asuint` expects a 32-bit argument, found `double`"
    );
    let call = resolve_intrinsic(Intrinsic::Sqrt, &[Type::Error]).unwrap();
    assert_eq!(call.result, Type::Error);
}
