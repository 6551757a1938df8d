//! `tests_gui_test_downsample.rpsl`: the exact node sequence (names, async flags, key arguments
//! and the mip/layer ranges of every access) for geos 0/1/2, async on/off, arrays on/off.

mod run_support;

use run_support::{accesses, arg, corpus, load, nodes, run_dump};
use serde_json::{json, Value};

/// One expected node: name, async, key arguments, accesses (param, resource, mips, layers).
type Expected = (
    &'static str,
    bool,
    Vec<(&'static str, Value)>,
    Vec<(String, u64, Value, Value)>,
);

fn access(param: &str, resource: u64, mip: u64, layer: u64) -> (String, u64, Value, Value) {
    (
        param.to_string(),
        resource,
        json!([mip, 1]),
        json!([layer, 1]),
    )
}

/// The sequence the script records with a 1280x720 back buffer (resource 0).
fn expected(geos: u64, use_async: bool, use_array: bool) -> Vec<Expected> {
    let mut out: Vec<Expected> = Vec::new();
    if geos == 0 {
        out.push(("clear", false, vec![], vec![access("dst", 0, 0, 0)]));
    }
    for g in 0..geos {
        // One array texture created before the loop, or one texture per iteration.
        let rt = if use_array { 1 } else { 1 + g };
        let layer = if use_array { g } else { 0 };
        out.push(("clear", false, vec![], vec![access("dst", rt, 0, layer)]));
        out.push((
            "Geo",
            false,
            vec![
                ("geoId", json!(g)),
                ("s", json!({"f": 1.5, "u": geos - 1 - g})),
                ("v", json!([12, 9, 6, 3])),
                ("a", json!([3, 3, 12, 12])),
            ],
            vec![access("dst", rt, 0, layer)],
        ));
        for d in 0..3u64 {
            // The source of step d is mip d of the 640x360 texture.
            let (w, h) = (640u64 >> d, 360u64 >> d);
            let mut args = vec![("invSize", json!([1.0f32 / w as f32, 1.0f32 / h as f32]))];
            if use_async {
                args.push(("dispatchGroups", json!([w.div_ceil(8), h.div_ceil(8)])));
            }
            out.push((
                if use_async {
                    "DownsampleCompute"
                } else {
                    "Downsample"
                },
                use_async,
                args,
                vec![access("dst", rt, d + 1, layer), access("src", rt, d, layer)],
            ));
        }
        out.push((
            "Quads",
            false,
            vec![("geoId", json!(g))],
            vec![access("Color", 0, 0, 0), access("src", rt, 3, layer)],
        ));
    }
    out
}

fn float_args_equal(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| float_args_equal(x, y))
        }
        (Value::Number(a), Value::Number(b)) => {
            a.as_f64().map(|v| v as f32) == b.as_f64().map(|v| v as f32)
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| float_args_equal(v, w)))
        }
        (a, b) => a == b,
    }
}

#[test]
fn node_sequences_for_every_combination() {
    let Some(path) = corpus("tests_gui_test_downsample.rpsl") else {
        return;
    };
    let program = load(&path);
    for geos in 0..3u64 {
        for use_async in [false, true] {
            for use_array in [false, true] {
                let args = [
                    format!("geos={geos}"),
                    format!("useAsyncCompute={use_async}"),
                    format!("use_array={use_array}"),
                ];
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let dump = run_dump(&program, "downsample", &args, 1, false);
                let got = nodes(&dump, 0);
                let want = expected(geos, use_async, use_array);
                let names: Vec<&str> = got.iter().map(|n| n["name"].as_str().unwrap()).collect();
                let want_names: Vec<&str> = want.iter().map(|w| w.0).collect();
                assert_eq!(names, want_names, "{args:?}");
                for (node, (name, is_async, key_args, want_accesses)) in got.iter().zip(&want) {
                    assert_eq!(node["async"], *is_async, "{name} {args:?}");
                    for (param, value) in key_args {
                        assert!(
                            float_args_equal(arg(node, param), value),
                            "{name}.{param} {args:?}: {} != {value}",
                            arg(node, param)
                        );
                    }
                    assert_eq!(&accesses(node), want_accesses, "{name} {args:?}");
                }
                // The render target: 4 mips, `geos` layers as an array, else one layer each.
                let resources = dump["frames"][0]["resources"].as_array().unwrap();
                let created = if geos == 0 {
                    0
                } else if use_array {
                    1
                } else {
                    geos
                };
                assert_eq!(resources.len() as u64, 1 + created, "{args:?}");
                for resource in &resources[1..] {
                    assert_eq!(resource["mips"], 4);
                    assert_eq!(
                        resource["depth_or_array_size"],
                        if use_array { geos } else { 1 }
                    );
                    assert_eq!(
                        (resource["width"].clone(), resource["height"].clone()),
                        (json!(640), json!(360))
                    );
                }
            }
        }
    }
}
