//! [`rpsl::HotScript`]: edits of a script and of the files it includes are picked up between
//! frames; broken edits are reported once and leave the last good program running.

use std::path::PathBuf;

use rpsl::{HotScript, Mode, ReloadError, SessionOptions};

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rpsl-hot-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const MAIN: &str = "#include \"passes.rpsli\"\n\
export void main(texture bb, uint count, uint frameIndex)\n\
{\n\
    for (uint i = 0; i < count; i++) { Pass(bb, i + frameIndex * 100); }\n\
}\n";

fn pass_values(script: &mut HotScript) -> Vec<String> {
    let frame = script.run_frame().expect("frame runs");
    let json = rpsl::runtime::dump_frame_json("main", frame.graph, Some(frame.compiled));
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    value["frames"][0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| {
            format!(
                "{}:{}",
                node["name"].as_str().unwrap(),
                node["args"][1]["value"]
            )
        })
        .collect()
}

#[test]
fn edits_of_the_script_and_its_includes_are_picked_up_between_frames() {
    for mode in [Mode::Jit, Mode::Interp] {
        let dir = scratch_dir(mode.name());
        let main = dir.join("frame.rpsl");
        let include = dir.join("passes.rpsli");
        std::fs::write(&include, "graphics node Pass(rtv rt, uint v);\n").unwrap();
        std::fs::write(&main, MAIN).unwrap();
        let options = SessionOptions {
            mode,
            ..SessionOptions::default()
        };
        let mut script = HotScript::open(&main, None, options, &["count=2"]).unwrap();
        assert_eq!(script.mode(), mode);
        let watched: Vec<_> = script.watched_files().map(|p| p.to_path_buf()).collect();
        assert_eq!(watched, vec![main.clone(), include.clone()]);
        assert_eq!(pass_values(&mut script), ["Pass:0", "Pass:1"]);
        assert_eq!(script.reload_if_changed(), Ok(false));

        // The include changes: the node is renamed; frame numbering continues (frame 1).
        std::fs::write(&include, "graphics node Pass(rtv rt, uint v);\ngraphics node Other(rtv rt, uint v);\n#define Pass Other\n").unwrap();
        assert_eq!(script.reload_if_changed(), Ok(true));
        assert_eq!(script.reloads(), 1);
        assert_eq!(pass_values(&mut script), ["Other:100", "Other:101"]);

        // A broken edit: reported once, the last good program keeps running, and it is not
        // recompiled again until a file changes once more.
        std::fs::write(
            &main,
            "export void main(texture bb, uint count) { Pass(bb) }\n",
        )
        .unwrap();
        match script.reload_if_changed() {
            Err(ReloadError::Program(error)) => {
                let first = error.rendered.lines().next().unwrap().to_string();
                assert!(
                    first.starts_with(&format!("{}:1:", main.display())),
                    "{first}"
                );
                assert!(first.contains("error:"), "{first}");
            }
            other => panic!("expected a program error, got {other:?}"),
        }
        assert_eq!(script.reload_if_changed(), Ok(false));
        assert_eq!(pass_values(&mut script), ["Other:200", "Other:201"]);

        // The stored arguments no longer fit the new entry point.
        std::fs::write(
            &main,
            "#include \"passes.rpsli\"\nexport void main(texture bb) { Pass(bb, 7); }\n",
        )
        .unwrap();
        assert!(matches!(
            script.reload_if_changed(),
            Err(ReloadError::Args(_))
        ));
        script.set_args::<&str>(&[]).unwrap();
        assert_eq!(script.reload_if_changed(), Ok(true));
        assert_eq!(pass_values(&mut script), ["Other:7"]);
        assert_eq!(script.reloads(), 2);
        assert!(script.program().warnings().is_empty());
    }
}

#[test]
fn an_include_policy_names_include_directories_that_are_watched_too() {
    let dir = scratch_dir("policy");
    let shared = dir.join("shared");
    let scripts = dir.join("scripts");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::create_dir_all(&scripts).unwrap();
    let main = scripts.join("frame.rpsl");
    let include = shared.join("passes.rpsli");
    std::fs::write(&include, "graphics node Pass(rtv rt, uint v);\n").unwrap();
    std::fs::write(&main, MAIN).unwrap();
    // Without the include directory the include is not found.
    assert!(matches!(
        HotScript::open(&main, None, SessionOptions::default(), &["count=1"]),
        Err(ReloadError::Program(_))
    ));
    let policy = rpsl::frontend::preprocess::IncludePolicy::default().with_include_dir(&shared);
    let mut script =
        HotScript::open_with(&main, None, SessionOptions::default(), &["count=1"], policy).unwrap();
    let watched: Vec<_> = script.watched_files().map(|p| p.to_path_buf()).collect();
    assert_eq!(watched, vec![main.clone(), include.clone()]);
    assert_eq!(pass_values(&mut script), ["Pass:0"]);
    // An edit of the included file reloads under the same policy.
    std::fs::write(
        &include,
        "graphics node Other(rtv rt, uint v);\n#define Pass Other\n",
    )
    .unwrap();
    assert_eq!(script.reload_if_changed(), Ok(true));
    assert_eq!(pass_values(&mut script), ["Other:100"]);
}

/// The slot and age of the temporal resource named `history` in the next frame.
fn history_storage(script: &mut HotScript) -> (u32, u64) {
    let frame = script.run_frame().expect("frame runs");
    let graph = frame.graph;
    let index = (0..graph.resources.len())
        .find(|&index| {
            graph.resource_name(rpsl::runtime::ResourceId::from_index(index)) == Some("history")
        })
        .expect("a resource named history");
    let record = &graph.resources[index];
    (
        record.storage.expect("temporal storage").0,
        record.frames_alive,
    )
}

#[test]
fn temporal_history_survives_a_reload_unless_its_declaration_changed() {
    let dir = scratch_dir("history");
    let path = dir.join("frame.rpsl");
    let script_with = |extra: &str, layers: u32| {
        format!(
            "graphics node Draw(rtv t, srv prev);\n\
             export void main(texture bb)\n{{\n{extra}\
             \x20   texture history = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 1, {layers});\n\
             \x20   Draw(history, create_texture_view(history, 0, 1, 0, 1, 1));\n\
             \x20   copy_texture(bb, history);\n}}\n"
        )
    };
    std::fs::write(&path, script_with("", 2)).unwrap();
    let mut script = HotScript::open(&path, None, SessionOptions::default(), &["bb=8x8"]).unwrap();
    assert_eq!(history_storage(&mut script), (1, 0));
    assert_eq!(history_storage(&mut script), (1, 1));

    // Something unrelated before it: every location moves; the history continues.
    let unrelated = "    texture scratch = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 2, 2);\n\
                     \x20   clear(scratch, float4(1, 1, 1, 1));\n";
    std::fs::write(&path, script_with(unrelated, 2)).unwrap();
    assert_eq!(script.reload_if_changed(), Ok(true));
    assert_eq!(history_storage(&mut script), (1, 2));
    assert_eq!(history_storage(&mut script), (1, 3));

    // Three temporal layers: a new declaration, new storage (past every slot given so far).
    std::fs::write(&path, script_with(unrelated, 3)).unwrap();
    assert_eq!(script.reload_if_changed(), Ok(true));
    assert_eq!(history_storage(&mut script), (2, 0));
}

#[test]
fn host_arguments_apply_only_to_parameters_the_entry_has() {
    let dir = scratch_dir("host-args");
    let path = dir.join("frame.rpsl");
    let size_of = |script: &mut HotScript, name: &str| {
        let frame = script.run_frame().expect("frame runs");
        let record = frame
            .graph
            .resources
            .iter()
            .find(|record| record.name.as_deref() == Some(name))
            .expect("the parameter's resource");
        (record.desc.width, record.desc.height)
    };
    std::fs::write(
        &path,
        "export void main(texture bb) { clear(bb, float4(0, 0, 0, 1)); }\n",
    )
    .unwrap();
    let mut script = HotScript::open(&path, None, SessionOptions::default(), &["bb=8x8"]).unwrap();
    script.set_host_args(&["bb=32x16"]).unwrap();
    // The host's argument comes after the script's own.
    assert_eq!(size_of(&mut script, "bb"), (32, 16));

    // The parameter is renamed: `bb=...` no longer fits, yet the reload succeeds.
    std::fs::write(
        &path,
        "export void main(texture out0) { clear(out0, float4(0, 0, 0, 1)); }\n",
    )
    .unwrap();
    assert_eq!(
        script
            .reload_if_changed()
            .map_err(|error| error.to_string()),
        Err("entry point `main` has no parameter `bb` (parameters: `out0`)".to_string())
    );
    script.set_args::<&str>(&[]).unwrap();
    assert_eq!(script.reload_if_changed(), Ok(true));
    assert_eq!(size_of(&mut script, "out0"), (1280, 720));
    script.set_host_args(&["out0=4x2"]).unwrap();
    assert_eq!(size_of(&mut script, "out0"), (4, 2));
}

/// Records each call of the node it expands as `Half`, twice.
#[derive(Debug)]
struct Twice;

impl rpsl::runtime::NodeExpansion for Twice {
    fn declarations(&self) -> Vec<rpsl::runtime::NodeDeclDesc> {
        vec![rpsl::runtime::NodeDeclDesc::new(
            "Half",
            rpsl::runtime::QueueClass::Graphics,
            Vec::new(),
        )]
    }

    fn expand(
        &self,
        builder: &mut rpsl::runtime::GraphBuilder,
        call: &rpsl::runtime::ExpansionCall<'_>,
    ) -> Result<rpsl::runtime::NodeId, rpsl::runtime::BuildError> {
        builder.call_node(call.decls[0], &[], call.flags, call.identity_key)?;
        builder.call_node(call.decls[0], &[], call.flags, call.identity_key ^ 1)
    }
}

fn node_names(script: &mut HotScript) -> Vec<String> {
    let frame = script.run_frame().expect("frame runs");
    let graph = frame.graph;
    graph
        .nodes
        .iter()
        .map(|node| graph.decls[node.decl.index()].name.clone())
        .collect()
}

#[test]
fn the_session_setup_runs_for_every_reload_and_a_file_it_read_retries_a_failure() {
    let dir = scratch_dir("setup");
    let path = dir.join("frame.rpsl");
    let settings = dir.join("Step.txt");
    std::fs::write(&path, "node Other();\nexport void main() { Other(); }\n").unwrap();
    let mut script =
        HotScript::open(&path, None, SessionOptions::default(), &[] as &[&str]).unwrap();
    // A node `Step` is expanded when `Step.txt` says `twice`; the file is read (and watched)
    // only while the program declares `Step`.
    let settings_path = settings.clone();
    script
        .set_session_setup(Box::new(move |setup: &mut rpsl::SessionSetup<'_>| {
            let declares_step = setup
                .program()
                .node_declarations()
                .iter()
                .any(|decl| decl.name == "Step");
            if !declares_step {
                return Ok(());
            }
            setup.watch_file(&settings_path);
            match std::fs::read_to_string(&settings_path).as_deref() {
                Ok("twice") => {
                    setup.expand_node("Step", std::sync::Arc::new(Twice));
                    Ok(())
                }
                _ => Err("error: Step.txt does not say `twice`\n".to_string()),
            }
        }))
        .unwrap();
    assert_eq!(node_names(&mut script), ["Other"]);
    assert_eq!(script.watched_files().count(), 1);

    // The script now declares `Step`, whose settings do not exist yet: the setup fails, the
    // last good program runs on, and the file the failed setup read is to be retried.
    std::fs::write(
        &path,
        "node Other();\nnode Step();\nexport void main() { Other(); Step(); }\n",
    )
    .unwrap();
    assert_eq!(
        script.reload_if_changed(),
        Err(ReloadError::Setup(
            "error: Step.txt does not say `twice`\n".to_string()
        ))
    );
    assert_eq!(node_names(&mut script), ["Other"]);
    assert_eq!(
        script.retry_files().collect::<Vec<_>>(),
        [path.as_path(), settings.as_path()]
    );
    assert_eq!(script.reload_if_changed(), Ok(false));

    // Only the setup's file changes: the reload is tried again, and succeeds.
    std::fs::write(&settings, "twice").unwrap();
    assert_eq!(script.reload_if_changed(), Ok(true));
    assert_eq!(node_names(&mut script), ["Other", "Half", "Half"]);
    assert_eq!(script.retry_files().count(), 0);
    assert_eq!(
        script.watched_files().collect::<Vec<_>>(),
        [path.as_path(), settings.as_path()]
    );
}
