//! Helpers shared by the `run_*` integration tests: locating the corpus, running entry points
//! through the embedding API and reading the JSON dump.
#![allow(dead_code)]

use std::path::PathBuf;

use rpsl::runtime::{CompileOptions, DumpWriter};
use rpsl::{EntryArgs, Program, Session, SessionOptions};
use serde_json::Value;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/corpus/rps-sdk`, or `None` (with a message) when the shared folder is missing.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = root().join("../shared/corpus/rps-sdk");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: {} is missing", dir.display());
        None
    }
}

/// A corpus script, or `None` when the corpus is missing.
pub fn corpus(name: &str) -> Option<PathBuf> {
    corpus_dir().map(|dir| dir.join(name))
}

/// Loads a program, panicking with its diagnostics.
pub fn load(path: &PathBuf) -> Program {
    match Program::from_file(path) {
        Ok(program) => program,
        Err(error) => panic!("{}", error.rendered),
    }
}

/// Session options with culling switched off or on.
pub fn options(cull: bool) -> SessionOptions {
    SessionOptions {
        compile: CompileOptions {
            cull,
            ..CompileOptions::default()
        },
        ..SessionOptions::default()
    }
}

/// Runs `frames` frames of `entry` with `args` and returns the parsed dump.
pub fn run_dump(program: &Program, entry: &str, args: &[&str], frames: u64, cull: bool) -> Value {
    let mut session = Session::new(program, Some(entry), options(cull)).expect("entry");
    let parsed = EntryArgs::parse(program, session.entry(), args).expect("arguments");
    let mut dump = DumpWriter::new(entry);
    for _ in 0..frames {
        match session.run_frame(&parsed) {
            Ok(frame) => dump.add_frame(frame.graph, Some(frame.compiled)),
            Err(error) => panic!("{entry} {args:?}: {}", error.render()),
        }
    }
    serde_json::from_str(&dump.finish()).expect("dump is JSON")
}

/// The nodes of frame `index` of a dump.
pub fn nodes(dump: &Value, frame: usize) -> &Vec<Value> {
    dump["frames"][frame]["nodes"].as_array().expect("nodes")
}

/// The value of argument `param` of a dumped node.
pub fn arg<'a>(node: &'a Value, param: &str) -> &'a Value {
    node["args"]
        .as_array()
        .expect("args")
        .iter()
        .find(|a| a["param"] == param)
        .map(|a| &a["value"])
        .unwrap_or_else(|| panic!("no argument {param} in {node}"))
}

/// `(param, resource, mips, layers)` of every access of a dumped node.
pub fn accesses(node: &Value) -> Vec<(String, u64, Value, Value)> {
    node["accesses"]
        .as_array()
        .expect("accesses")
        .iter()
        .map(|a| {
            (
                a["param"].as_str().unwrap().to_string(),
                a["resource"].as_u64().unwrap(),
                a["mips"].clone(),
                a["layers"].clone(),
            )
        })
        .collect()
}
