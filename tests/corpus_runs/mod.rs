//! The corpus runs shared by the tests that run every exported entry of every corpus script
//! (`run_corpus`: JIT against interpreter on the null backend; `run_vulkan_corpus`: validated
//! frames on Vulkan): the script, the entry, and arguments that make it do real work, with both
//! values of the scripts' boolean switches.
#![allow(dead_code, reason = "each test binary uses what it needs")]

/// Corpus file (in `../shared/corpus/rps-sdk`), entry, arguments.
pub const CORPUS_RUNS: &[(&str, &str, &[&str])] = &[
    ("examples_hello_triangle.rpsl", "main", &[]),
    (
        "examples_hello_triangle.rpsl",
        "mainBreathing",
        &["timeInSeconds=1.5"],
    ),
    (
        "examples_rps_multithreading.rpsl",
        "main",
        &["timeInSeconds=0.25"],
    ),
    (
        "tests_console_test_hlsl_intrinsics.rpsl",
        "rps_main",
        &[
            "i1=-7",
            "u1=3",
            "i2=1,2",
            "u3=5,6,7",
            "f1=0.5",
            "f4=1,2,3,4",
        ],
    ),
    (
        "tests_console_test_scheduler.rpsl",
        "program_order",
        &["output=1920x1080"],
    ),
    (
        "tests_console_test_scheduler.rpsl",
        "memory_saving",
        &["output=1920x1080"],
    ),
    (
        "tests_console_test_scheduler.rpsl",
        "random_order",
        &["output=1920x1080"],
    ),
    (
        "tests_console_test_scheduler.rpsl",
        "dead_code_elimination",
        &["bBlt0=true", "bBlt1=false"],
    ),
    (
        "tests_console_test_scheduler.rpsl",
        "gfx_comp_batching",
        &[],
    ),
    (
        "tests_console_test_scheduler.rpsl",
        "subres_data_lifetime",
        &[],
    ),
    (
        "tests_console_test_scheduler_intrinsics.rpsl",
        "test_schedule_control",
        &["testCase=3", "useBarrier=true"],
    ),
    (
        "tests_console_test_scheduler_intrinsics.rpsl",
        "test_schedule_control_nested_atomic_subgraph",
        &[],
    ),
    (
        "tests_console_test_scheduler_intrinsics.rpsl",
        "test_abort",
        &["errorCode=0"],
    ),
    (
        "tests_console_test_scheduler_intrinsics.rpsl",
        "test_flatten_child",
        &["offset=2"],
    ),
    (
        "tests_console_test_scheduler_intrinsics.rpsl",
        "test_flatten_parent",
        &[],
    ),
    (
        "tests_gui_test_built_in_nodes.rpsl",
        "rps_main",
        &["bTestMinMax=true"],
    ),
    (
        "tests_gui_test_built_in_nodes.rpsl",
        "rps_main",
        &["bTestMinMax=false"],
    ),
    (
        "tests_gui_test_downsample.rpsl",
        "downsample",
        &["useAsyncCompute=true", "use_array=true", "geos=2"],
    ),
    (
        "tests_gui_test_downsample.rpsl",
        "downsample",
        &["useAsyncCompute=false", "use_array=false", "geos=1"],
    ),
    ("tests_gui_test_dynamic_graph.rpsl", "dynamic_graph", &[]),
    (
        "tests_gui_test_mrt_viewport_clear.rpsl",
        "rps_main",
        &["bBufferRTVSupported=true"],
    ),
    (
        "tests_gui_test_mrt_viewport_clear.rpsl",
        "rps_main",
        &["bBufferRTVSupported=false"],
    ),
    (
        "tests_gui_test_multi_queue.rpsl",
        "main",
        &[
            "numBoxes=16",
            "shadowMapDim=1024",
            "proceduralTextureDim=256",
        ],
    ),
    (
        "tests_gui_test_multithreading.rpsl",
        "mt_main",
        &["numPasses=4"],
    ),
    ("tests_gui_test_output_resource.rpsl", "render_colored", &[]),
    (
        "tests_gui_test_output_resource.rpsl",
        "render_tinted",
        &["offscreenBuffer=640x360"],
    ),
    (
        "tests_gui_test_render_to_texture.rpsl",
        "render_to_texture",
        &["useMultisampling=true"],
    ),
    (
        "tests_gui_test_render_to_texture.rpsl",
        "render_to_texture",
        &["useMultisampling=false"],
    ),
    (
        "tests_gui_test_subprogram.rpsl",
        "Main",
        &["viewport=0,0,1280,720,0,1"],
    ),
    (
        "tests_gui_test_subprogram.rpsl",
        "Scene",
        &["color=1,0,0,1", "viewport=0,0,640,360,0,1"],
    ),
    (
        "tests_gui_test_subprogram.rpsl",
        "GUI",
        &["viewport=0,0,640,360,0,1", "color=0,1,0,1"],
    ),
    ("tests_gui_test_temporal.rpsl", "main", &[]),
    ("tests_gui_test_triangle.rpsl", "main", &[]),
    (
        "tests_gui_test_visualizer.rpsl",
        "main",
        &["useMultisampling=true"],
    ),
    (
        "tests_gui_test_visualizer.rpsl",
        "main",
        &["useMultisampling=false"],
    ),
];
