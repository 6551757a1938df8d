//! The checked-in header `include/rpsl.h` is exactly what cbindgen makes of the crate, so it
//! can never drift from the Rust declarations. `BLESS=1 cargo test -p rpsl-capi --test header`
//! rewrites it.

use std::path::Path;

#[test]
fn the_header_is_what_cbindgen_makes_of_the_crate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).unwrap();
    let bindings = cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .unwrap_or_else(|error| panic!("cbindgen: {error}"));
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    let path = dir.join("include/rpsl.h");
    if std::env::var("BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "capi/include/rpsl.h differs from what cbindgen makes of capi/src: \
         run `BLESS=1 cargo test -p rpsl-capi --test header` and review the diff"
    );
}
