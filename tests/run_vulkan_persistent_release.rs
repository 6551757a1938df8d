//! Persistent resources that a frame no longer names are destroyed on the Vulkan backend
//! (lavapipe here) instead of piling up: the graph builder gives a resource new storage after a
//! frame without it (or after its declaration changed, as in a hot reload), so the old storage
//! can never be read again. Validation and synchronization validation are on.

use rpsl::runtime::{Backend, BackendError};
use rpsl::vulkan::{VulkanBackend, VulkanOptions};
use rpsl::{EntryArgs, Program, Session, SessionOptions};

/// Even frames make a persistent texture and write it; odd frames do not make it.
const SCRIPT: &str = "\
compute node Touch([readwrite(cs)] texture t);
export void main(uint frameIndex, uint size)
{
    if (frameIndex % 2 == 0) {
        texture history = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, size, size, 1, 1, 1, 1, 0,
                                       RPS_RESOURCE_FLAG_PERSISTENT);
        clear(history, float4(0, 0, 0, 1));
        Touch(history);
    }
}
";

fn backend() -> Option<VulkanBackend> {
    let options = VulkanOptions {
        validate: true,
        allow_unbound: true,
        ..VulkanOptions::default()
    };
    match VulkanBackend::new(options) {
        Ok(backend) => Some(backend),
        Err(BackendError::NoDevice(message))
            if std::env::var("RPSL_REQUIRE_VULKAN").as_deref() != Ok("1") =>
        {
            eprintln!("skipping: no Vulkan device here ({message})");
            None
        }
        Err(error) => panic!("the Vulkan backend cannot run: {error}"),
    }
}

#[test]
fn persistent_resources_a_frame_no_longer_names_are_destroyed() {
    let Some(mut backend) = backend() else {
        return;
    };
    let program = Program::from_source("history.rpsl", SCRIPT).unwrap();
    let mut session = Session::new(&program, None, SessionOptions::default()).unwrap();
    let mut held = Vec::new();
    for size in [8, 8, 8, 8, 16, 16] {
        let args = EntryArgs::parse(&program, session.entry(), [format!("size={size}")]).unwrap();
        let frame = session.run_frame(&args).unwrap();
        backend.execute_frame(frame.graph, frame.compiled).unwrap();
        held.push(backend.stats().persistent_resources);
    }
    backend.wait_idle().unwrap();
    // Frames 0, 2 and 4 hold their texture (new storage each time: frames 1 and 3 broke its
    // history, frame 4 also changed its size); frames 1, 3 and 5 hold nothing.
    assert_eq!(held, [1, 0, 1, 0, 1, 0]);
}
