//! The graph explorer page (`rpsl graph --format html`, `rpsl run --dump-html`) in a real
//! headless browser: the page, opened with `#selftest`, writes what it drew and what a selection
//! highlights into `<pre id="selftest">`, which `chromium --dump-dom` hands back. The tests
//! skip (with a message) only where no chromium binary exists; `RPSL_CHROMIUM` names one.
//! `RPSL_UPDATE_SCREENSHOT=1` rewrites docs/images/graph-explorer.png.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rpsl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args(args)
        .output()
        .expect("runs")
}

fn scratch_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("graph_page");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The chromium binary: `RPSL_CHROMIUM`, else the first of the usual names on `PATH`.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("RPSL_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let paths = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&paths).map(move |dir| dir.join(name)))
    .find(|path| path.is_file())
}

/// Runs headless chromium on `page` with `args` and the page's URL (with `#fragment`); its own
/// profile folder per call, so tests can run side by side.
fn browse(browser: &Path, page: &Path, fragment: &str, args: &[&str]) -> Output {
    let profile = page.with_extension(format!("profile-{}", fragment.len()));
    let url = format!("file://{}#{fragment}", page.display());
    Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            "--window-size=1400,900",
            // Page time, not wall time: the browser returns once the page went idle or this
            // much virtual time passed.
            "--virtual-time-budget=20000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .expect("chromium runs")
}

/// The page's self-test report (the `#selftest` fragment is added).
fn selftest(browser: &Path, page: &Path, params: &str) -> String {
    let out = browse(
        browser,
        page,
        &format!("selftest&{params}"),
        &["--dump-dom"],
    );
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom.find("<pre id=\"selftest\">").unwrap_or_else(|| {
        panic!(
            "no self-test report in the page; stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let body = &dom[start + "<pre id=\"selftest\">".len()..];
    let end = body.find("</pre>").expect("report ends");
    body[..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// The lines of `report` that start with `prefix`.
fn lines<'r>(report: &'r str, prefix: &str) -> Vec<&'r str> {
    report
        .lines()
        .filter(|line| line.starts_with(prefix))
        .collect()
}

fn corpus(file: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/rps-sdk")
        .join(file);
    path.is_file().then_some(path)
}

/// Writes `rpsl graph FILE --format html` of an entry into the scratch folder.
fn graph_page(script: &Path, entry: &str, args: &[&str], name: &str) -> PathBuf {
    let page = scratch_dir().join(name);
    let mut command = vec![
        "graph",
        script.to_str().unwrap(),
        "--entry",
        entry,
        "--format",
        "html",
        "-o",
        page.to_str().unwrap(),
    ];
    for arg in args {
        command.extend(["--arg", arg]);
    }
    let out = rpsl(&command);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    page
}

macro_rules! browser_or_skip {
    () => {
        match chromium() {
            Some(browser) => browser,
            None => {
                eprintln!(
                    "skipping: no chromium binary (apt-get install chromium, or set RPSL_CHROMIUM)"
                );
                return;
            }
        }
    };
}

/// `subres_data_lifetime` of the RPS SDK scheduler tests: labels, dependency edges with the
/// subresources behind them, barriers with layouts, stages, accesses and ranges, lifetimes per
/// mip and layer, culling reasons, and what selecting a node and a resource highlights.
#[test]
fn corpus_frame_shows_edges_barriers_and_subresource_lifetimes() {
    let browser = browser_or_skip!();
    let Some(script) = corpus("tests_console_test_scheduler.rpsl") else {
        eprintln!("skipping: the RPS SDK corpus is missing");
        return;
    };
    let page = graph_page(&script, "subres_data_lifetime", &[], "subres.html");
    let report = selftest(&browser, &page, "node=3&resource=3");
    assert_eq!(
        lines(&report, "summary: "),
        [
            "summary: frame 0: 27 nodes scheduled, 4 culled, 5 resources, 1 queue, 48 edges, \
          16 barrier batches, 59 transitions, 0 cross-queue waits, 26 render passes, \
          heap 61.47 MB (unaliased 61.47 MB)"
        ],
        "{report}"
    );
    assert_eq!(lines(&report, "lanes: "), ["lanes: graphics"]);
    // At the window's width every one of the 27 nodes gets a (shortened) label.
    assert_eq!(lines(&report, "labels drawn: "), ["labels drawn: 27"]);
    assert_eq!(
        lines(&report, "edge"),
        [
            "edges: 48 (data 42, order 6)",
            "edge 0 -> 1 data: t0 [mips 0..1, layers 0..1]",
            "edge 2 -> 3 order: t0 [mips 0..1, layers 2..3]",
            "edge 1 -> 4 data: t0 [mips 0..1, layers 1..2]; t0 [mips 0..1, layers 0..1]",
            "edge 3 -> 4 data: t0 [mips 0..1, layers 2..3]; t0 [mips 0..1, layers 3..4]",
            "edge 4 -> 5 data: t0 [mips 0..1, layers 0..2]; t0 [mips 0..1, layers 3..4]",
            "edge 4 -> 6 data: t0 [mips 0..1, layers 0..3]",
            "edge 5 -> 6 data: t0 [mips 0..1, layers 0..2]",
            "edge 5 -> 7 order: t0 [mips 0..1, layers 1..2]; t0 [mips 0..1, layers 3..4]",
        ]
    );
    let barriers = lines(&report, "barrier before #6: ");
    assert_eq!(barriers.len(), 9, "{report}");
    assert_eq!(
        barriers[..3],
        [
            "barrier before #6: t0 [mips 0..1, layers 0..1] | COLOR_ATTACHMENT_OPTIMAL → \
             COLOR_ATTACHMENT_OPTIMAL | src COLOR_ATTACHMENT_OUTPUT / COLOR_ATTACHMENT_WRITE | \
             dst COLOR_ATTACHMENT_OUTPUT / COLOR_ATTACHMENT_READ|COLOR_ATTACHMENT_WRITE",
            "barrier before #6: t2 [mips 0..1, layers 0..1] | COLOR_ATTACHMENT_OPTIMAL → \
             SHADER_READ_ONLY_OPTIMAL | src COLOR_ATTACHMENT_OUTPUT / COLOR_ATTACHMENT_WRITE | \
             dst COMPUTE_SHADER / SHADER_SAMPLED_READ",
            "barrier before #6: t2 [mips 2..3, layers 0..1] | UNDEFINED → GENERAL | \
             src NONE / NONE | dst COMPUTE_SHADER / SHADER_STORAGE_READ|SHADER_STORAGE_WRITE",
        ]
    );
    assert_eq!(
        barriers[8],
        "barrier before #6: d0 [mips 0..1, layers 0..1, stencil] | UNDEFINED → \
         STENCIL_ATTACHMENT_OPTIMAL | src NONE / NONE | dst EARLY_FRAGMENT_TESTS|\
         LATE_FRAGMENT_TESTS / DEPTH_STENCIL_ATTACHMENT_READ|DEPTH_STENCIL_ATTACHMENT_WRITE"
    );
    // One row per resource, then one per mip x layer: t0 has 5 x 10, t1 1 x 1 in 3 temporal
    // slices, t2 5 x 1 (the "t2, t2, t2...").
    assert_eq!(lines(&report, "lifetime rows: "), ["lifetime rows: 63"]);
    assert_eq!(
        lines(&report, "  t0 mip 0 "),
        [
            "  t0 mip 0 layer 0: 4..17 touches 4,6,9,11,13,17",
            "  t0 mip 0 layer 1: 6..17 touches 6,9,11,13,15,17",
            "  t0 mip 0 layer 2: 5..17 touches 5,9,13,15,17",
            "  t0 mip 0 layer 3: 5..17 touches 5,9,11,15,17",
            "  t0 mip 0 layer 4: 17..17 touches 17",
            "  t0 mip 0 layer 5: 15..17 touches 15,17",
            "  t0 mip 0 layer 6: 17..17 touches 17",
            "  t0 mip 0 layer 7: 17..17 touches 17",
            "  t0 mip 0 layer 8: 17..17 touches 17",
            "  t0 mip 0 layer 9: 17..17 touches 17",
        ]
    );
    assert_eq!(lines(&report, "  t0 mip 4 ").len(), 10);
    assert_eq!(
        lines(&report, "  t1 "),
        [
            "  t1 mip 0 layer 0 slice 0: 0..20 touches 0,8,10,12,14,16,18,19,20",
            "  t1 mip 0 layer 0 slice 1: - touches ",
            "  t1 mip 0 layer 0 slice 2: - touches ",
        ]
    );
    assert_eq!(
        lines(&report, "  t2 "),
        [
            "  t2 mip 0 layer 0: 1..26 touches 1,7,26",
            "  t2 mip 1 layer 0: 2..26 touches 2,7,21,25,26",
            "  t2 mip 2 layer 0: 7..26 touches 7,22,24,26",
            "  t2 mip 3 layer 0: 3..26 touches 3,7,26",
            "  t2 mip 4 layer 0: 7..26 touches 7,23,26",
        ]
    );
    assert_eq!(
        lines(&report, "culled "),
        [
            "culled 2 draw: no effect: it writes only frame-local t0 and no node reads it",
            "culled 20 draw: no effect: it writes only frame-local t2 and no node reads it",
            "culled 22 draw_with_overlapped_views: no effect: it writes only frame-local t2 \
             and no node reads it",
            "culled 27 draw_with_overlapped_views2: no effect: it writes nothing and has no \
             CPU access",
        ]
    );
    // Selecting node 3 highlights its neighbours (the culled writer before it too) and t0;
    // selecting t2 highlights its users, its barrier batches and the edges it causes.
    assert_eq!(
        lines(&report, "select "),
        [
            "select node 3: nodes [draw, draw_mrt_wo_rt0, draw] resources [t0] batches [] edges 2",
            "select resource 3: nodes [draw, draw, draw, draw, draw_with_overlapped_views, \
             draw_with_overlapped_views, blt, blt, blt, draw_with_overlapped_views2, blt, blt, \
             blt] resources [t2] batches [#0, #6, #21, #22, #23, #26] edges 20",
        ],
        "{report}"
    );
    let details = lines(&report, "details node: ");
    assert!(
        details[0].starts_with(
            "details node: draw_mrt_wo_rt0 node 3position #5 on graphicsAccessesrt: t0 mips \
             0+1, layers 2+1 — rendertarget, discard_before (writeonly)"
        ),
        "{report}"
    );
    assert_eq!(lines(&report, "rendered: "), ["rendered: yes"]);
}

/// Zoomed to 8 positions across, the labels fit whole (or cut with an ellipsis).
#[test]
fn zoomed_timeline_labels_nodes_by_name() {
    let browser = browser_or_skip!();
    let Some(script) = corpus("tests_console_test_scheduler.rpsl") else {
        eprintln!("skipping: the RPS SDK corpus is missing");
        return;
    };
    let page = graph_page(&script, "subres_data_lifetime", &[], "subres_zoom.html");
    let report = selftest(&browser, &page, "zoom=8&at=0");
    assert_eq!(
        lines(&report, "labels"),
        [
            "labels drawn: 11",
            "labels: draw | draw | draw | draw | draw | draw_mrt_wo_rt0 | draw_mrt_wo_rt0 | \
             draw_with_over… | draw_with_ds_c… | draw | draw_with_ds_w…",
        ],
        "{report}"
    );
}

/// A 10,000-node chain (`rps_shapes.rpsl`'s `chain`) renders: the browser finishes the page,
/// its self-test and a selection within its time budget (no wall-clock assertion).
#[test]
fn ten_thousand_node_chain_renders() {
    let browser = browser_or_skip!();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/bench/rps_shapes.rpsl");
    let page = graph_page(&script, "chain", &["N=10000"], "chain.html");
    let report = selftest(&browser, &page, "node=5000");
    assert_eq!(
        lines(&report, "summary: "),
        [
            "summary: frame 0: 10000 nodes scheduled, 0 culled, 10000 resources, 1 queue, \
          19994 edges, 10001 barrier batches, 25831 transitions, 0 cross-queue waits, \
          6667 render passes, heap 71.30 MB (unaliased 74170.17 MB)"
        ],
        "{report}"
    );
    assert_eq!(
        lines(&report, "heap resources reusing memory: "),
        ["heap resources reusing memory: 9992 of 9999"]
    );
    // Fitted to the window, 10,000 boxes are far too narrow for labels.
    assert_eq!(lines(&report, "labels drawn: "), ["labels drawn: 0"]);
    assert_eq!(
        lines(&report, "select node "),
        [
            "select node 5000: nodes [Raster, Compute, Raster, Raster, Compute, Raster] \
          resources [resource 4999, resource 5000, resource 5001] batches [#5000] edges 5"
        ]
    );
    assert_eq!(lines(&report, "rendered: "), ["rendered: yes"]);
}

/// A frame whose graph changes with `frameIndex`: frame 1 adds a compute pass.
const TWO_FRAMES: &str = "graphics node Fill(rtv rt);\n\
compute node Blur([readonly(cs)] texture src, [writeonly(cs)] texture dst);\n\
graphics node Blend(srv a, rtv rt);\n\
export void main([readonly(present)] texture bb, uint frameIndex)\n\
{\n\
    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64);\n\
    texture u = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64, 64);\n\
    Fill(t);\n\
    if (frameIndex > 0)\n\
    {\n\
        Blur(t, u);\n\
        Blend(u, bb);\n\
    }\n\
    else\n\
        Blend(t, bb);\n\
}\n";

/// `rpsl run --dump-html` puts every frame in one page; the comparison lists what changed.
#[test]
fn run_dump_html_compares_frames() {
    let browser = browser_or_skip!();
    let dir = scratch_dir();
    let script = dir.join("two_frames.rpsl");
    std::fs::write(&script, TWO_FRAMES).unwrap();
    let page = dir.join("two_frames.html");
    let out = rpsl(&[
        "run",
        script.to_str().unwrap(),
        "--backend",
        "null",
        "--frames",
        "2",
        "--dump-html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = selftest(&browser, &page, "frame=0&compare=1");
    assert_eq!(lines(&report, "frames: "), ["frames: 2"]);
    assert_eq!(
        lines(&report, "frame selector: "),
        ["frame selector: frame 0, compare: frame 1"]
    );
    assert_eq!(lines(&report, "labels: "), ["labels: Fill | Blend"]);
    assert_eq!(
        lines(&report, "compare "),
        [
            "compare nodes scheduled: 2 -> 3",
            "compare edges: 1 -> 2",
            "compare barrier batches: 3 -> 4",
            "compare transitions: 4 -> 6",
            "compare transient bytes: 65536 -> 131072",
            "compare added: Blur ×1",
            "compare removed: ",
            "compare positions differing: 2",
        ],
        "{report}"
    );
    let report = selftest(&browser, &page, "frame=1&resource=1");
    assert_eq!(
        lines(&report, "frame selector: "),
        ["frame selector: frame 1, compare: none"]
    );
    assert_eq!(lines(&report, "labels: "), ["labels: Fill | Blur | Blend"]);
    assert_eq!(
        lines(&report, "edge "),
        [
            "edge 0 -> 1 data: t [mips 0..1, layers 0..1]",
            "edge 1 -> 2 data: u [mips 0..1, layers 0..1]",
        ]
    );
    assert_eq!(
        lines(&report, "select "),
        ["select resource 1: nodes [Fill, Blur] resources [t] batches [#0, #1] edges 1"]
    );
}

/// Two queues (`async_overlap.rpsl`): a lane per queue, the cross-queue wait, transient
/// resources of one name told apart by id, and the heap's reuse.
#[test]
fn async_frame_shows_queues_and_waits() {
    let browser = browser_or_skip!();
    let page = graph_page(&async_overlap(), "main", ASYNC_ARGS, "async.html");
    let report = selftest(&browser, &page, "node=6");
    assert_eq!(
        lines(&report, "lanes: "),
        ["lanes: graphics, compute"],
        "{report}"
    );
    assert_eq!(
        lines(&report, "queue waits: "),
        ["queue waits: graphics waits for compute #12 before #13"]
    );
    assert_eq!(
        lines(&report, "select node "),
        [
            "select node 6: nodes [copy_texture, copy_texture, copy_texture] \
          resources [next #6, next #7] batches [] edges 2"
        ]
    );
    // Each transient of the copy chains takes over the memory of one two passes back.
    assert_eq!(
        lines(&report, "heap reuses: "),
        [
            "heap reuses: next #3 <- onGraphics, next #4 <- next #2, next #7 <- onCompute, \
          next #8 <- next #6, next #9 <- next #7, next #10 <- next #8, next #11 <- next #9, \
          next #12 <- next #10"
        ]
    );
    assert_eq!(
        lines(&report, "tooltip node: "),
        [
            "tooltip node: copy_texture (node 6, #5 on compute) | after copy_texture (node 5), \
          data: next #6 [mips 0..1, layers 0..1]"
        ]
    );
    assert_eq!(
        lines(&report, "edge 5 -> 6 "),
        ["edge 5 -> 6 data: next #6 [mips 0..1, layers 0..1]"]
    );
    // Keys, wheel and mouse (synthetic events): zoom about the centre and about the pointer,
    // pan, fit, select by clicking a node, clear.
    let report = selftest(&browser, &page, "input");
    assert_eq!(
        lines(&report, "input "),
        [
            "input +: zoom ×1.250",
            "input ArrowRight: pans 10% of the view",
            "input wheel: zoom ×2.061, position under the pointer stays",
            "input 0: fitted",
            "input click: node 0 selected",
            "input Escape: nothing selected",
        ],
        "{report}"
    );
    // The last graphics copy waits for the compute chain's last copy, which signals it.
    let report = selftest(&browser, &page, "node=13");
    assert_eq!(
        lines(&report, "waits node: "),
        ["waits node: waits for compute after copy_texture (node 11)"],
        "{report}"
    );
    let report = selftest(&browser, &page, "node=11");
    assert_eq!(
        lines(&report, "waits node: "),
        ["waits node: signals graphics, which waits before copy_texture (node 13)"]
    );
}

const ASYNC_ARGS: &[&str] = &["GraphicsPasses=4", "ComputePasses=8"];

fn async_overlap() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/bench/async_overlap.rpsl")
}

/// The screenshot of the docs: `async_overlap.rpsl` (two queues, aliasing) with a node
/// selected. The test checks a PNG of the window's size came back; with
/// `RPSL_UPDATE_SCREENSHOT=1` it also writes docs/images/graph-explorer.png.
#[test]
fn screenshot_of_the_explorer() {
    let browser = browser_or_skip!();
    let page = graph_page(&async_overlap(), "main", ASYNC_ARGS, "screenshot.html");
    let png = scratch_dir().join("graph-explorer.png");
    let _ = std::fs::remove_file(&png);
    let out = browse(
        &browser,
        &page,
        "node=6",
        &[&format!("--screenshot={}", png.display())],
    );
    let bytes = std::fs::read(&png).unwrap_or_else(|error| {
        panic!(
            "no screenshot ({error}); stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    // IHDR: the window's size.
    assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 1400);
    assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), 900);
    if std::env::var_os("RPSL_UPDATE_SCREENSHOT").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/images/graph-explorer.png");
        std::fs::create_dir_all(docs.parent().unwrap()).unwrap();
        std::fs::copy(&png, docs).unwrap();
    }
}

/// A page path that cannot be written fails before any frame runs (exit 3), as `--dump` does.
#[test]
fn dump_html_to_an_unwritable_path_fails_first() {
    let dir = scratch_dir();
    let script = dir.join("two_frames_unwritable.rpsl");
    std::fs::write(&script, TWO_FRAMES).unwrap();
    let page = dir.join("missing-folder/page.html");
    let out = rpsl(&[
        "run",
        script.to_str().unwrap(),
        "--backend",
        "null",
        "--dump-html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: cannot write the explorer page to `{}`: No such file or directory (os error 2)\n",
            page.display()
        )
    );
    assert!(out.stdout.is_empty());
}
