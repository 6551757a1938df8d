//! Pins everything the frame compiler produces: the hash of `examples/compile_digest.rs`'s lines
//! over its 7,236 cases (random and shaped graphs under every option set). A change that alters
//! any compiled output, a barrier, a schedule, a placement or a dependency edge, fails here; a
//! change meant to alter outputs updates the pinned value and says why in its commit. (The
//! digest hashes the outputs' debug form, so renaming a field of a compiled type changes it too.)

#[allow(dead_code)]
#[path = "../examples/compile_digest.rs"]
mod compile_digest;

use std::hash::{Hash, Hasher};

#[test]
fn the_compile_digest_over_every_case_is_pinned() {
    let mut hasher = compile_digest::Fnv64::default();
    let mut lines = 0;
    compile_digest::digest_lines(400, |line| {
        line.hash(&mut hasher);
        lines += 1;
    });
    assert_eq!(lines, 7_236);
    assert_eq!(format!("{:016x}", hasher.finish()), "83a76f5ca9015be0");
}
