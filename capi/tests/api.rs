//! The C functions called from Rust, for what the C examples do not show: include directories,
//! introspection, option checks, re-entry, streamed results, and typed checks.

use std::ffi::{c_char, c_void, CStr};
use std::ptr::{null, null_mut};

use rpsl_capi::*;

fn last_error() -> String {
    // SAFETY: the thread's last error is a NUL-terminated string.
    unsafe { CStr::from_ptr(rpsl_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn ok(status: RpslStatus) {
    assert_eq!(status, RpslStatus::Ok, "{}", last_error());
}

fn program(text: &CStr) -> *mut RpslProgram {
    let mut program = null_mut();
    // SAFETY: NUL-terminated strings and a valid out pointer.
    ok(unsafe {
        rpsl_program_from_source(c"t.rpsl".as_ptr(), text.as_ptr(), null(), &mut program)
    });
    program
}

fn session(program: *mut RpslProgram) -> *mut RpslSession {
    let mut session = null_mut();
    // SAFETY: a live program and a valid out pointer.
    ok(unsafe { rpsl_session_create(program, null(), null(), &mut session) });
    session
}

#[test]
fn includes_come_from_the_include_directories_given() {
    let dir = std::env::temp_dir().join(format!("rpsl-capi-include-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("common")).unwrap();
    std::fs::create_dir_all(dir.join("scenes")).unwrap();
    std::fs::write(
        dir.join("common/nodes.rpsli"),
        "graphics node Draw(rtv rt);\n",
    )
    .unwrap();
    let script = dir.join("scenes/main.rpsl");
    std::fs::write(
        &script,
        "#include <nodes.rpsli>\nexport void main(texture bb) { Draw(bb); }\n",
    )
    .unwrap();
    let script = std::ffi::CString::new(script.to_str().unwrap()).unwrap();
    let common = std::ffi::CString::new(dir.join("common").to_str().unwrap()).unwrap();
    let dirs = [common.as_ptr()];
    let options = RpslIncludeOptions {
        include_dirs: dirs.as_ptr(),
        include_dir_count: 1,
        max_file_bytes: 0,
        max_preprocessed_bytes: 0,
        max_inclusions: 0,
        max_include_depth: 0,
    };
    let mut program = null_mut();
    // SAFETY: valid strings, options and out pointer.
    let status = unsafe { rpsl_program_from_file(script.as_ptr(), null(), &mut program) };
    assert_eq!(status, RpslStatus::Program);
    assert!(program.is_null());
    let expected = format!(
        "{}:1:10: error: cannot find included file `nodes.rpsli`\n",
        script.to_str().unwrap()
    );
    assert!(last_error().starts_with(&expected), "{}", last_error());
    // SAFETY: as above.
    ok(unsafe { rpsl_program_from_file(script.as_ptr(), &options, &mut program) });
    let (mut count, mut name) = (0usize, null());
    // SAFETY: a live program, valid out pointers.
    unsafe {
        ok(rpsl_program_entry_count(program, &mut count));
        ok(rpsl_program_entry_name(program, 0, &mut name));
        assert_eq!((count, CStr::from_ptr(name)), (1, c"main"));
        assert_eq!(
            rpsl_program_entry_name(program, 1, &mut name),
            RpslStatus::NotFound
        );
        assert_eq!(
            last_error(),
            "entry point 1 does not exist (the script exports 1)"
        );
        ok(rpsl_program_destroy(program));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn parameters_are_described_by_name_type_and_value_count() {
    let program = program(
        c"struct Light { float3 dir; uint count; };\n\
          export void main(texture bb, Light light, inout float4x4 m, buffer data) {}\n",
    );
    let mut infos = Vec::new();
    for index in 0..4 {
        let mut info = std::mem::MaybeUninit::<RpslParamInfo>::uninit();
        // SAFETY: a live program, a valid out pointer.
        ok(unsafe { rpsl_program_param_info(program, null(), index, info.as_mut_ptr()) });
        // SAFETY: filled above; its strings live as long as the program.
        let info = unsafe { info.assume_init() };
        // SAFETY: as above.
        let (name, type_name) = unsafe {
            (
                CStr::from_ptr(info.name).to_str().unwrap().to_string(),
                CStr::from_ptr(info.type_name).to_str().unwrap().to_string(),
            )
        };
        infos.push((
            name,
            type_name,
            info.kind,
            info.scalar,
            info.value_count,
            info.direction,
        ));
    }
    use RpslParamDirection::{In, InOut};
    use RpslParamKind as K;
    use RpslScalarKind as S;
    assert_eq!(
        infos,
        [
            ("bb".into(), "texture".into(), K::Texture, S::Mixed, 0, In),
            ("light".into(), "Light".into(), K::Struct, S::Mixed, 4, In),
            (
                "m".into(),
                "float4x4".into(),
                K::Matrix,
                S::Float,
                16,
                InOut
            ),
            ("data".into(), "buffer".into(), K::Buffer, S::Mixed, 0, In),
        ]
    );
    let mut info = std::mem::MaybeUninit::<RpslParamInfo>::uninit();
    // SAFETY: as above.
    let status =
        unsafe { rpsl_program_param_info(program, c"other".as_ptr(), 0, info.as_mut_ptr()) };
    assert_eq!(status, RpslStatus::Entry);
    assert_eq!(
        last_error(),
        "no exported entry point `other` (exported: `main`)"
    );
    // SAFETY: a live program.
    ok(unsafe { rpsl_program_destroy(program) });
}

#[test]
fn options_out_of_range_are_errors() {
    let program = program(c"export void main() {}\n");
    let mut options = std::mem::MaybeUninit::<RpslSessionOptions>::uninit();
    // SAFETY: a valid out pointer.
    ok(unsafe { rpsl_session_options_default(options.as_mut_ptr()) });
    // SAFETY: filled above.
    let mut options = unsafe { options.assume_init() };
    assert_eq!(
        (options.mode, options.jit_tier_up),
        (RpslMode::Jit as u32, true)
    );
    options.mode = 7;
    let mut session = null_mut();
    // SAFETY: valid pointers.
    let status = unsafe { rpsl_session_create(program, null(), &options, &mut session) };
    assert_eq!(status, RpslStatus::InvalidArgument);
    assert_eq!(
        last_error(),
        "`options->mode` is 7, not an RpslMode (0 JIT, 1 interpreter)"
    );
    options.mode = RpslMode::Jit as u32;
    assert_eq!(
        (
            options.memory_refinement,
            options.memory_refinement_after_frames
        ),
        (RpslMemoryRefinement::Background as u32, 30)
    );
    options.memory_refinement = 3;
    // SAFETY: valid pointers.
    let status = unsafe { rpsl_session_create(program, null(), &options, &mut session) };
    assert_eq!(status, RpslStatus::InvalidArgument);
    assert_eq!(
        last_error(),
        "`options->memory_refinement` is 3, not an RpslMemoryRefinement (0 off, 1 background, \
         2 blocking)"
    );
    let mut vulkan_options = std::mem::MaybeUninit::<RpslVulkanOptions>::uninit();
    // SAFETY: a valid out pointer.
    ok(unsafe { rpsl_vulkan_options_default(vulkan_options.as_mut_ptr()) });
    // SAFETY: filled above.
    let mut vulkan_options = unsafe { vulkan_options.assume_init() };
    vulkan_options.frames_in_flight = 0;
    let mut vulkan = null_mut();
    // SAFETY: valid pointers.
    let status = unsafe { rpsl_vulkan_create(&vulkan_options, &mut vulkan) };
    assert_eq!(status, RpslStatus::InvalidArgument);
    assert_eq!(
        last_error(),
        "`options->frames_in_flight` is 0; it must be 1 to 4"
    );
    // SAFETY: a live program.
    ok(unsafe { rpsl_program_destroy(program) });
}

#[test]
fn texture_and_buffer_arguments_are_checked() {
    let program = program(c"export void main(texture bb, uint n, buffer data) {}\n");
    let session = session(program);
    let bad_format = RpslTextureDesc {
        format: 100_000,
        width: 4,
        height: 4,
    };
    let good = RpslTextureDesc {
        format: 28,
        width: 4,
        height: 4,
    };
    // SAFETY: a live session, NUL-terminated names, valid descriptions.
    unsafe {
        let status = rpsl_session_set_arg_texture(session, c"bb".as_ptr(), &bad_format);
        assert_eq!(status, RpslStatus::InvalidArgument);
        assert_eq!(last_error(), "`desc->format` is 100000, not an RPS_FORMAT");
        let status = rpsl_session_set_arg_texture(session, c"n".as_ptr(), &good);
        assert_eq!(status, RpslStatus::Argument);
        assert_eq!(last_error(), "parameter `n` is a uint, not a texture");
        let one = 1.0f32;
        let status = rpsl_session_set_arg_floats(session, c"bb.x".as_ptr(), &one, 1);
        assert_eq!(status, RpslStatus::Argument);
        assert_eq!(
            last_error(),
            "`bb.x` is a part of a parameter: the typed setters take whole parameters; set \
             parts with rpsl_session_set_arg"
        );
        let status = rpsl_session_set_arg_buffer(session, c"bb".as_ptr(), 64);
        assert_eq!(status, RpslStatus::Argument);
        assert_eq!(last_error(), "parameter `bb` is a texture, not a buffer");
        ok(rpsl_session_set_arg_texture(session, c"bb".as_ptr(), &good));
        ok(rpsl_session_set_arg_buffer(session, c"data".as_ptr(), 256));
        let mut info = RpslFrameInfo::default();
        ok(rpsl_session_run_frame(session, &mut info));
        assert_eq!((info.frame_index, info.resource_count), (0, 2));
        ok(rpsl_session_destroy(session));
        ok(rpsl_program_destroy(program));
    }
}

/// What the JSON write callback saw.
struct Sink {
    session: *mut RpslSession,
    bytes: Vec<u8>,
    reentry: Option<(RpslStatus, String)>,
    stop_after: usize,
}

unsafe extern "C" fn write_json(bytes: *const c_char, length: usize, user: *mut c_void) -> i32 {
    // SAFETY: the test passes its `Sink`.
    let sink = unsafe { &mut *user.cast::<Sink>() };
    if sink.reentry.is_none() {
        // Calling back into the session that is streaming: refused, not a data race.
        // SAFETY: a registered session handle.
        let status = unsafe { rpsl_session_run_frame(sink.session, null_mut()) };
        sink.reentry = Some((status, last_error()));
    }
    // SAFETY: `length` bytes at `bytes`, by the contract of the callback.
    sink.bytes
        .extend_from_slice(unsafe { std::slice::from_raw_parts(bytes.cast::<u8>(), length) });
    i32::from(sink.bytes.len() >= sink.stop_after)
}

#[test]
fn the_json_dump_streams_through_a_callback_that_cannot_reenter_the_session() {
    let program =
        program(c"graphics node Draw(rtv rt);\nexport void main(texture bb) { Draw(bb); }\n");
    let session = session(program);
    // SAFETY: live handles, valid pointers; `sink` outlives the calls.
    unsafe {
        ok(rpsl_session_run_frame(session, null_mut()));
        let mut needed = 0usize;
        ok(rpsl_session_frame_json(session, null_mut(), 0, &mut needed));
        let mut whole = vec![0u8; needed];
        ok(rpsl_session_frame_json(
            session,
            whole.as_mut_ptr().cast(),
            needed,
            null_mut(),
        ));
        assert_eq!(whole.pop(), Some(0));

        let mut sink = Sink {
            session,
            bytes: Vec::new(),
            reentry: None,
            stop_after: usize::MAX,
        };
        let user = (&mut sink as *mut Sink).cast::<c_void>();
        ok(rpsl_session_write_frame_json(
            session,
            Some(write_json),
            user,
        ));
        assert_eq!(sink.bytes, whole);
        assert_eq!(
            sink.reentry,
            Some((
                RpslStatus::Busy,
                "`session` is in use by another call right now".to_string()
            ))
        );

        sink.bytes.clear();
        sink.stop_after = 1;
        let status = rpsl_session_write_frame_json(session, Some(write_json), user);
        assert_eq!(status, RpslStatus::Callback);
        assert_eq!(last_error(), "the write callback returned 1");
        assert_eq!(
            rpsl_session_write_frame_json(session, None, user),
            RpslStatus::NullPointer
        );

        let mut order = [0u32; 1];
        let mut count = 0usize;
        ok(rpsl_session_frame_order(
            session,
            order.as_mut_ptr(),
            1,
            &mut count,
        ));
        assert_eq!((count, order), (1, [0]));
        let status = rpsl_session_frame_order(session, order.as_mut_ptr(), 0, &mut count);
        assert_eq!(status, RpslStatus::BufferTooSmall);
        ok(rpsl_session_destroy(session));
        ok(rpsl_program_destroy(program));
    }
}
