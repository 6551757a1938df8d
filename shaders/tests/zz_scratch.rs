//! scratch
use rpsl_shaders::*;
#[test]
fn dump() {
    let dir = std::env::var("SCRATCH_DIR").unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if stage_and_language_of(&path).is_none() {
            continue;
        }
        let c = ShaderCompiler::new(CompilerOptions::default());
        let s = c
            .compile(&ShaderRequest::from_file(&path).unwrap())
            .unwrap();
        let i = s.reflection.interface("main").unwrap();
        println!("== {}", path.display());
        for v in &i.inputs {
            println!(
                " in  {:?} {:?} {:?} {:?} patch={} v={:?} {}",
                v.location,
                v.built_in,
                v.semantic,
                v.name,
                v.patch,
                v.vertices,
                v.slots.len()
            );
        }
        for v in &i.outputs {
            println!(
                " out {:?} {:?} {:?} {:?} patch={} v={:?} {}",
                v.location,
                v.built_in,
                v.semantic,
                v.name,
                v.patch,
                v.vertices,
                v.slots.len()
            );
        }
    }
}
