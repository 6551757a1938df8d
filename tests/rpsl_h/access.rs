//! Access attributes (every argument of rpsl.h), the shorthands, view-holding parameters,
//! semantics with their render-pass slots, and the viewport helpers.

use super::support::*;
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// Access attributes and shorthands.

/// `(access arguments, mode)` of every access of node `id`, in parameter order.
fn node_attributes(frame: &serde_json::Value, id: usize) -> Vec<(Vec<String>, String)> {
    accesses(frame, id).iter().map(attributes).collect()
}

/// `(["a", "b"], "mode")` as owned strings.
pub fn attrs(args: &[&str], mode: &str) -> (Vec<String>, String) {
    (
        args.iter().map(|a| a.to_string()).collect(),
        mode.to_string(),
    )
}

#[test]
fn every_access_attribute_argument_is_recorded() {
    let script = r#"
graphics node Stages([readonly(vs, ps, gs, hs, ds)] texture a, [readonly(ts, ms)] texture b,
    [readwrite(raytracing)] buffer c, [readonly(indirectargs, vb, ib, cb)] buffer d,
    [readonly(shadingrate)] texture e, [readonly(predication)] buffer f,
    [writeonly(streamout)] buffer g, [readonly(rtas)] buffer h, [readonly(cpu)] buffer i,
    [readonly(ps, cubemap)] texture j, [readwrite(cs)] texture k, [writeonly(vs, ps)] texture l);
export void main()
{
    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 6, 1, 1, 0, RPS_RESOURCE_FLAG_CUBEMAP_COMPATIBLE);
    buffer b = create_buffer(256);
    Stages(t, t, b, b, t, b, b, b, b, t.cubemap(), t, t);
}
"#;
    let frame = frame0(script, &[]);
    assert_eq!(
        node_attributes(&frame, 0),
        [
            attrs(&["vs", "ps", "gs", "hs", "ds"], "readonly"),
            attrs(&["ts", "ms"], "readonly"),
            attrs(&["raytracing"], "readwrite"),
            attrs(&["indirectargs", "vb", "ib", "cb"], "readonly"),
            attrs(&["shadingrate"], "readonly"),
            attrs(&["predication"], "readonly"),
            // A write-only access discards what was there before (rpsl.h: `writeonly`).
            attrs(&["streamout", "discard_before"], "writeonly"),
            attrs(&["rtas"], "readonly"),
            attrs(&["cpu"], "readonly"),
            attrs(&["ps", "cubemap"], "readonly"),
            attrs(&["cs"], "readwrite"),
            attrs(&["vs", "ps", "discard_before"], "writeonly"),
        ]
    );
    let buffer_access = access(&frame, 0, "c");
    assert_eq!(
        (&buffer_access["resource"], &buffer_access["bytes"]),
        (&json!(1), &json!([0, 256]))
    );
}

#[test]
fn shorthands_expand_to_their_rpsl_h_attributes() {
    let script = r#"
graphics node Shorts(rtv r : SV_Target0, dsv d : SV_DepthStencil, srv s, srv_buf sb, ps_srv p,
                     ps_srv_buf pb, uav u, uav_buf ub, discard_rtv dr : SV_Target1,
                     [relaxed] uav ru);
export void main()
{
    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8);
    texture t2 = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8);
    texture ds = create_tex2d(RPS_FORMAT_D24_UNORM_S8_UINT, 8, 8);
    texture other = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8);
    buffer b = create_buffer(256);
    Shorts(t, ds, other, b, other, b, other, b, t2, other);
}
"#;
    let frame = frame0(script, &[]);
    assert_eq!(
        node_attributes(&frame, 0),
        [
            attrs(&["rendertarget"], "readwrite"),
            attrs(&["depth", "stencil"], "readwrite"),
            attrs(&["ps", "cs"], "readonly"),
            attrs(&["ps", "cs"], "readonly"),
            attrs(&["ps"], "readonly"),
            attrs(&["ps"], "readonly"),
            attrs(&["ps", "cs"], "readwrite"),
            attrs(&["ps", "cs"], "readwrite"),
            attrs(&["rendertarget", "discard_before"], "writeonly"),
            attrs(&["ps", "cs", "relaxed"], "readwrite"),
        ]
    );
    let semantics: Vec<_> = accesses(&frame, 0)
        .iter()
        .map(|a| a.get("semantic").cloned())
        .collect();
    assert_eq!(semantics[0], Some(json!("SV_Target0")));
    assert_eq!(semantics[1], Some(json!("SV_DepthStencil")));
    assert_eq!(semantics[8], Some(json!("SV_Target1")));
    assert_eq!(semantics[2], None);
    // The depth-stencil view covers both planes of D24S8 (bit 0 depth, bit 1 stencil).
    assert_eq!(access(&frame, 0, "d")["planes"], 3);
}

#[test]
fn discard_relaxed_copy_and_resolve_arguments() {
    let script = r#"
compute node Scratch([readwrite(cs, discard_before, discard_after)] texture x);
compute node Relaxed([relaxed][readwrite(cs)] texture x, uint tag);
copy node Upload([writeonly(copy)] texture dst, [readonly(copy)] texture src);
graphics node ResolveLike([writeonly(resolve)] texture dst, [readonly(resolve)] texture src);
export void main(out [readonly(ps)] texture result)
{
    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8);
    Scratch(t);
    Relaxed(t, 1);
    Relaxed(t, 2);
    result = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8);
    Upload(result, t);
    texture ms = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 1, 1, 4);
    ResolveLike(result, ms);
}
"#;
    let frame = frame0(script, &[]);
    assert_eq!(
        node_attributes(&frame, 0),
        [attrs(
            &["cs", "discard_before", "discard_after"],
            "readwrite"
        )]
    );
    assert_eq!(
        node_attributes(&frame, 1),
        [attrs(&["cs", "relaxed"], "readwrite")]
    );
    assert_eq!(
        node_attributes(&frame, 3),
        [
            attrs(&["copy", "discard_before"], "writeonly"),
            attrs(&["copy"], "readonly")
        ]
    );
    assert_eq!(
        node_attributes(&frame, 4),
        [
            attrs(&["resolve", "discard_before"], "writeonly"),
            attrs(&["resolve"], "readonly")
        ]
    );
    assert_eq!(frame["schedule"]["order"], json!([0, 1, 2, 3, 4]));
}

#[test]
fn view_arrays_and_structs_give_one_access_per_view() {
    let script = r#"
struct GBuffer { texture albedo; texture normal; };
compute node Gather([readonly(cs)] texture srcs[3], [readonly(cs)] GBuffer gbuf, [readwrite(cs)] texture dst);
export void main([readonly(present)] texture backbuffer)
{
    texture a = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 2);
    texture b = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8);
    texture list[3] = { a.mips(1), null, b };
    GBuffer g;
    g.albedo = b;
    g.normal = a.mips(0);
    Gather(list, g, backbuffer);
}
"#;
    let frame = frame0(script, &[]);
    let flattened: Vec<_> = accesses(&frame, 0)
        .iter()
        .map(|a| {
            (
                a["param"].clone(),
                a["resource"].clone(),
                a["mips"].clone(),
                a["mode"].clone(),
            )
        })
        .collect();
    assert_eq!(
        flattened,
        [
            (json!("srcs[0]"), json!(1), json!([1, 1]), json!("readonly")),
            // srcs[1] is null: no access.
            (json!("srcs[2]"), json!(2), json!([0, 1]), json!("readonly")),
            (
                json!("gbuf.albedo"),
                json!(2),
                json!([0, 1]),
                json!("readonly")
            ),
            (
                json!("gbuf.normal"),
                json!(1),
                json!([0, 1]),
                json!("readonly")
            ),
            (json!("dst"), json!(0), json!([0, 1]), json!("readwrite")),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Semantics, render passes, viewports and entry parameters.

#[test]
fn semantics_bind_render_pass_slots_and_clear_values() {
    let script = r#"
graphics node Mrt(rtv t0 : SV_Target0, rtv t7 : SV_Target7, float4 c7 : SV_ClearColor7,
                  [readwrite(depth, stencil)] texture dd : SV_DepthStencil, float cd : SV_ClearDepth,
                  uint cs : SV_ClearStencil, RpsViewport vp : SV_Viewport0, uint4 sc : SV_ScissorRect0,
                  [writeonly(resolve)] texture rs : SV_ResolveTarget7);
export void main([readonly(present)] texture backbuffer, out [readonly(cs)] texture result)
{
    texture ms0 = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 1, 1, 4);
    texture ms7 = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 1, 1, 4);
    texture depth = create_tex2d(RPS_FORMAT_D24_UNORM_S8_UINT, 8, 8, 1, 1, 1, 4);
    result = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8);
    Mrt(ms0, ms7, float4(0.5, 0.25, 0, 1), depth, 1.0, 3, viewport(1, 2, 3, 4, 0.25, 0.75),
        uint4(1, 2, 5, 6), result);
}
"#;
    let frame = frame0(script, &["backbuffer=16x16"]);
    let semantics: Vec<_> = accesses(&frame, 0)
        .iter()
        .map(|a| (a["param"].clone(), a["semantic"].clone()))
        .collect();
    assert_eq!(
        semantics,
        [
            (json!("t0"), json!("SV_Target0")),
            (json!("t7"), json!("SV_Target7")),
            (json!("dd"), json!("SV_DepthStencil")),
            (json!("rs"), json!("SV_ResolveTarget7")),
        ]
    );
    assert_eq!(arg(&frame, 0, "c7"), &json!([0.5, 0.25, 0, 1]));
    assert_eq!(
        arg(&frame, 0, "vp"),
        &json!({"x": 1, "y": 2, "width": 3, "height": 4, "minZ": 0.25, "maxZ": 0.75})
    );
    assert_eq!(arg(&frame, 0, "sc"), &json!([1, 2, 5, 6]));
    assert_eq!(
        (arg(&frame, 0, "cd"), arg(&frame, 0, "cs")),
        (&json!(1), &json!(3))
    );
    // Entry textures are external; `out` ones too.
    assert_eq!(resource(&frame, 0)["external"], true);
    assert_eq!(
        (
            resource(&frame, 0)["width"].clone(),
            resource(&frame, 0)["height"].clone()
        ),
        (json!(16), json!(16))
    );
    assert_eq!(resource(&frame, 4)["external"], true);
    assert_eq!(resource(&frame, 1)["external"], false);

    let pass = &frame["schedule"]["render_passes"][0];
    assert_eq!(
        (&pass["node"], &pass["extent"], &pass["samples"]),
        (&json!(0), &json!([8, 8, 1]), &json!(4))
    );
    let colors: Vec<_> = pass["colors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["slot"].clone(), c["resource"].clone(), c["load"].clone()))
        .collect();
    assert_eq!(
        colors,
        [
            (json!(0), json!(1), json!("dont_care")),
            // SV_ClearColor7 clears target 7 only.
            (json!(7), json!(2), json!("clear")),
        ]
    );
    let depth = &pass["depth_stencil"];
    assert_eq!(
        (
            &depth["resource"],
            &depth["depth_load"],
            &depth["stencil_load"]
        ),
        (&json!(3), &json!("clear"), &json!("clear"))
    );
}

#[test]
fn viewport_helpers_fill_every_field() {
    let script = r#"
graphics node Draw(rtv rt : SV_Target0, RpsViewport vp : SV_Viewport0);
graphics node DrawTwo(rtv rt : SV_Target0, RpsViewport vps[2] : SV_Viewport0);
export void main([readonly(present)] texture backbuffer)
{
    Draw(backbuffer, viewport(320, 200));
    Draw(backbuffer, viewport(8, 16, 32, 64));
    RpsViewport pair[2] = { viewport(1, 2, 3, 4, 0.5, 0.625), viewport(5, 6) };
    DrawTwo(backbuffer, pair);
}
"#;
    let frame = frame0(script, &[]);
    // The dump writes whole floats as integers (shortest round-trip form).
    assert_eq!(
        arg(&frame, 0, "vp"),
        &json!({"x": 0, "y": 0, "width": 320, "height": 200, "minZ": 0, "maxZ": 1})
    );
    assert_eq!(
        arg(&frame, 1, "vp"),
        &json!({"x": 8, "y": 16, "width": 32, "height": 64, "minZ": 0, "maxZ": 1})
    );
    assert_eq!(
        arg(&frame, 2, "vps"),
        &json!([
            {"x": 1, "y": 2, "width": 3, "height": 4, "minZ": 0.5, "maxZ": 0.625},
            {"x": 0, "y": 0, "width": 5, "height": 6, "minZ": 0, "maxZ": 1}
        ])
    );
}

#[test]
fn entry_parameter_attributes_set_the_state_around_the_frame() {
    let script = r#"
graphics node Draw(rtv rt : SV_Target0, [readonly(ps)] texture srcs[2]);
compute node Fill([writeonly(cs)] buffer b, uint64_t n);
export void main([readonly(present)] texture backbuffer, [readonly(ps)] texture inputs[2],
                 out [readonly(cs)] buffer result)
{
    Draw(backbuffer, inputs);
    result = create_buffer(64);
    Fill(result, 0x100000000);
}
"#;
    let frame = frame0(script, &["backbuffer=32x16:R16G16B16A16_FLOAT"]);
    let resources: Vec<_> = (0..4)
        .map(|id| {
            let r = resource(&frame, id);
            (
                r["name"].clone(),
                r["kind"].clone(),
                r["width"].clone(),
                r["format"].clone(),
                r["external"].clone(),
            )
        })
        .collect();
    assert_eq!(
        resources,
        [
            (
                json!("backbuffer"),
                json!("tex2d"),
                json!(32),
                json!("R16G16B16A16_FLOAT"),
                json!(true)
            ),
            // View leaves of array parameters get the default description.
            (
                json!("inputs[0]"),
                json!("tex2d"),
                json!(1280),
                json!("R8G8B8A8_UNORM"),
                json!(true)
            ),
            (
                json!("inputs[1]"),
                json!("tex2d"),
                json!(1280),
                json!("R8G8B8A8_UNORM"),
                json!(true)
            ),
            (
                json!("result"),
                json!("buffer"),
                json!(64),
                json!("UNKNOWN"),
                json!(true)
            ),
        ]
    );
    assert_eq!(arg(&frame, 1, "n"), 4_294_967_296u64);
    let params: Vec<_> = accesses(&frame, 0)
        .iter()
        .map(|a| (a["param"].clone(), a["resource"].clone()))
        .collect();
    assert_eq!(
        params,
        [
            (json!("rt"), json!(0)),
            (json!("srcs[0]"), json!(1)),
            (json!("srcs[1]"), json!(2))
        ]
    );
    // The entry attributes are the state before and after the frame: the backbuffer comes from
    // and returns to PRESENT_SRC; the `out` buffer ends as a compute-shader read.
    let of = |resource: u32| -> Vec<(u64, serde_json::Value)> {
        barriers(&frame)
            .into_iter()
            .filter(|(_, b)| b["resource"] == resource)
            .map(|(position, b)| {
                let fields = json!([
                    b["src_stages"],
                    b["src_access"],
                    b["dst_stages"],
                    b["dst_access"],
                    b["old_layout"],
                    b["new_layout"]
                ]);
                (position, fields)
            })
            .collect()
    };
    assert_eq!(
        of(0),
        [
            (
                0,
                json!([0x1_0000, 0x1_0000, 0x400, 0x180, 1_000_001_002, 2])
            ),
            (2, json!([0x400, 0x100, 0x2000, 0, 2, 1_000_001_002])),
        ]
    );
    // SHADER_STORAGE_WRITE (0x4_0000_0000) by Fill, then SHADER_READ (0x20) in compute.
    assert_eq!(
        of(3).last().unwrap(),
        &(2, json!([0x800, 0x4_0000_0000u64, 0x800, 0x20, 0, 0]))
    );
}
