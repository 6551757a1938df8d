//! The on-disk SPIR-V cache through `ShaderCompiler`: hits, invalidation by includes, defines and
//! options, recovery from corrupt entries, and no caching of failures.

use std::path::Path;

use rpsl_shaders::*;

fn compiler(cache: &Path, optimize: bool) -> ShaderCompiler {
    ShaderCompiler::new(CompilerOptions {
        cache_dir: Some(cache.to_path_buf()),
        optimize,
        ..CompilerOptions::default()
    })
}

fn entries(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = match std::fs::read_dir(cache) {
        Ok(dir) => dir
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}

#[test]
fn second_compile_hits_and_include_changes_miss() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let shader_path = dir.path().join("src/fill.comp");
    std::fs::create_dir_all(shader_path.parent().unwrap()).unwrap();
    std::fs::write(dir.path().join("src/size.glsl"), "#define SIZE 8\n").unwrap();
    let source =
        "#version 450\n#include \"size.glsl\"\nlayout(local_size_x = SIZE) in;\nvoid main() {}\n";
    let request = ShaderRequest::new(
        source,
        &shader_path,
        ShaderLanguage::Glsl,
        ShaderStage::Compute,
    );
    let compiler = compiler(&cache, true);

    let first = compiler.compile(&request).unwrap();
    assert!(!first.from_cache);
    assert_eq!(entries(&cache).len(), 1);
    assert!(entries(&cache)[0].ends_with(".spv"));
    assert_eq!(
        entries(&cache)[0],
        format!("{}.spv", compiler.cache_key(&request).to_hex())
    );
    let second = compiler.compile(&request).unwrap();
    assert!(second.from_cache);
    assert_eq!(
        (
            second.spirv.clone(),
            second.reflection.clone(),
            second.includes.clone()
        ),
        (
            first.spirv.clone(),
            first.reflection.clone(),
            first.includes.clone()
        )
    );

    std::fs::write(dir.path().join("src/size.glsl"), "#define SIZE 16\n").unwrap();
    let third = compiler.compile(&request).unwrap();
    assert!(!third.from_cache, "an include change is a miss");
    assert_eq!(
        third.reflection.entry_points[0].local_size,
        Some([16, 1, 1])
    );
    assert_eq!(entries(&cache).len(), 2);
}

#[test]
fn keys_cover_defines_options_and_entry_point() {
    let dir = tempfile::tempdir().unwrap();
    let request = ShaderRequest::new(
        "#version 450\nvoid main() {}\n",
        "k.comp",
        ShaderLanguage::Glsl,
        ShaderStage::Compute,
    );
    let optimised = compiler(dir.path(), true);
    let plain = compiler(dir.path(), false);
    let base = optimised.cache_key(&request);
    assert_eq!(base, optimised.cache_key(&request.clone()));
    assert_ne!(base, plain.cache_key(&request));
    assert_ne!(
        base,
        optimised.cache_key(&request.clone().with_define("A", "1"))
    );
    assert_ne!(
        base,
        optimised.cache_key(&request.clone().with_entry_point("other"))
    );
    let mut moved = request.clone();
    moved.source.push(' ');
    assert_ne!(base, optimised.cache_key(&moved));
}

#[test]
fn corrupt_entries_are_recompiled_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("c");
    let compiler = compiler(&cache, false);
    let request = ShaderRequest::new(
        "#version 450\nlayout(local_size_x = 2) in;\nvoid main() {}\n",
        "c.comp",
        ShaderLanguage::Glsl,
        ShaderStage::Compute,
    );
    let good = compiler.compile(&request).unwrap();
    let entry = cache.join(format!("{}.spv", compiler.cache_key(&request).to_hex()));
    for damage in [
        b"garbage".to_vec(),
        Vec::new(),
        std::fs::read(&entry).unwrap()[..40].to_vec(),
    ] {
        std::fs::write(&entry, damage).unwrap();
        let again = compiler.compile(&request).unwrap();
        assert!(!again.from_cache);
        assert_eq!(again.spirv, good.spirv);
        assert!(
            compiler.compile(&request).unwrap().from_cache,
            "the entry was rewritten"
        );
    }
}

#[test]
fn failures_are_not_cached_and_an_unwritable_cache_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("c");
    let bad = ShaderRequest::new(
        "#version 450\nvoid main() { nope; }\n",
        "bad.comp",
        ShaderLanguage::Glsl,
        ShaderStage::Compute,
    );
    assert!(compiler(&cache, false).compile(&bad).is_err());
    assert_eq!(entries(&cache), Vec::<String>::new());

    let blocked = dir.path().join("file");
    std::fs::write(&blocked, "not a dir").unwrap();
    let good = ShaderRequest::new(
        "#version 450\nvoid main() {}\n",
        "g.comp",
        ShaderLanguage::Glsl,
        ShaderStage::Compute,
    );
    let compiled = compiler(&blocked.join("sub"), false)
        .compile(&good)
        .unwrap();
    assert!(!compiled.from_cache);
}
