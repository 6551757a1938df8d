//! Helpers of the rpsl.h feature sweep (`tests/rpsl_h_features.rs`): run a script's frame 0
//! on the null backend under both engines, check that the JIT and the interpreter dump the same
//! frame, and look things up in that dump.

use rpsl::{EntryArgs, Mode, Program, Session, SessionOptions};
use serde_json::Value;

/// The JSON dump of frame 0 of `script`'s entry point `main` (`args` as `NAME=VALUE`), the same
/// under the JIT and the interpreter (asserted); returns `frames[0]`.
pub fn frame0(script: &str, args: &[&str]) -> Value {
    let program = Program::from_source("features.rpsl", script).unwrap_or_else(|e| panic!("{e}"));
    let mut dumps = Vec::new();
    for mode in [Mode::Jit, Mode::Interp] {
        let options = SessionOptions {
            mode,
            jit_tier_up: false,
            ..SessionOptions::default()
        };
        let mut session = Session::new(&program, None, options).unwrap();
        let entry_args = EntryArgs::parse(&program, session.entry(), args.iter().copied())
            .unwrap_or_else(|e| panic!("{e:?}"));
        let frame = session
            .run_frame(&entry_args)
            .unwrap_or_else(|e| panic!("{mode:?}: {}", e.render()));
        dumps.push(rpsl::runtime::dump_frame_json(
            "main",
            frame.graph,
            Some(frame.compiled),
        ));
    }
    assert_eq!(dumps[0], dumps[1], "the JIT and the interpreter differ");
    let dump: Value = serde_json::from_str(&dumps[0]).expect("the dump is JSON");
    dump["frames"][0].clone()
}

/// The error a frame of `script` fails with, rendered; the same under both engines (asserted).
pub fn frame0_error(script: &str) -> String {
    let program = Program::from_source("features.rpsl", script).unwrap_or_else(|e| panic!("{e}"));
    let mut errors = Vec::new();
    for mode in [Mode::Jit, Mode::Interp] {
        let options = SessionOptions {
            mode,
            jit_tier_up: false,
            ..SessionOptions::default()
        };
        let mut session = Session::new(&program, None, options).unwrap();
        let entry_args = EntryArgs::parse(&program, session.entry(), [""; 0]).unwrap();
        match session.run_frame(&entry_args) {
            Ok(_) => panic!("{mode:?}: the frame ran"),
            Err(error) => errors.push(error.render()),
        }
    }
    assert_eq!(errors[0], errors[1], "the JIT and the interpreter differ");
    errors.remove(0)
}

/// Node `id` of a frame dump.
pub fn node(frame: &Value, id: usize) -> &Value {
    &frame["nodes"][id]
}

/// The value of argument `param` of node `id`.
pub fn arg<'f>(frame: &'f Value, id: usize, param: &str) -> &'f Value {
    node(frame, id)["args"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["param"] == param)
        .map(|a| &a["value"])
        .unwrap_or_else(|| panic!("node {id} has no argument {param}"))
}

/// The view fields of argument `param` of node `id` (`{"view": {...}}` unwrapped).
pub fn view<'f>(frame: &'f Value, id: usize, param: &str) -> &'f Value {
    &arg(frame, id, param)["view"]
}

/// The accesses of node `id`, in parameter order.
pub fn accesses(frame: &Value, id: usize) -> &Vec<Value> {
    node(frame, id)["accesses"].as_array().unwrap()
}

/// The access of node `id` through parameter `param`.
pub fn access<'f>(frame: &'f Value, id: usize, param: &str) -> &'f Value {
    accesses(frame, id)
        .iter()
        .find(|a| a["param"] == param)
        .unwrap_or_else(|| panic!("node {id} has no access {param}"))
}

/// `(access arguments, mode)` of an access, the part rpsl.h's attributes decide.
pub fn attributes(access: &Value) -> (Vec<String>, String) {
    let args = access["access"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    (args, access["mode"].as_str().unwrap().to_string())
}

/// Resource `id` of a frame dump without its memory placement (which the aliasing decides).
pub fn resource(frame: &Value, id: usize) -> Value {
    let mut resource = frame["resources"][id].clone();
    resource.as_object_mut().unwrap().remove("placement");
    resource
}

/// The barriers of a frame: `(position, barrier)` in the order the dump lists them.
pub fn barriers(frame: &Value) -> Vec<(u64, Value)> {
    frame["schedule"]["barrier_batches"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|batch| {
            let position = batch["position"].as_u64().unwrap();
            batch["barriers"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |b| (position, b.clone()))
        })
        .collect()
}
