//! Links Debian 12's static glslang and SPIRV-Tools archives next to shaderc's static
//! `libshaderc_combined.a` (see docs/shaders.md, "Building"): Debian's `libshaderc.so.1` cannot be
//! linked on its own, and mixing it with the static glslang crashes.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RPSL_GLSLANG_LIB_DIR");
    let lib_dir = std::env::var("RPSL_GLSLANG_LIB_DIR")
        .unwrap_or_else(|_| "/usr/lib/x86_64-linux-gnu".to_string());
    println!("cargo:rustc-link-search=native={lib_dir}");
    for lib in [
        "glslang",
        "MachineIndependent",
        "GenericCodeGen",
        "OSDependent",
        "HLSL",
        "OGLCompiler",
        "SPIRV",
        "glslang-default-resource-limits",
        "SPIRV-Tools-opt",
        "SPIRV-Tools",
    ] {
        println!("cargo:rustc-link-lib=static={lib}");
    }
}
