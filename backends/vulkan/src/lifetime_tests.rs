//! Tests of resource lifetimes on a real device: slot-gated release and the memory the
//! backend's host transfers leave behind (none). They skip without a Vulkan driver unless
//! `RPSL_REQUIRE_VULKAN=1`.

use crate::context::Context;
use crate::resources::{create_with_own_memory, GpuObject};
use crate::slots::FrameSlot;
use crate::view_cache::ViewCache;
use crate::{VulkanBackend, VulkanOptions};
use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use rpsl_runtime::{BackendError, ResourceDesc};

/// Whether a missing device fails the test (CI) rather than skipping it.
fn device_required() -> bool {
    std::env::var("RPSL_REQUIRE_VULKAN").is_ok_and(|value| value == "1")
}

/// A context without validation, or `None` (with a note) when no Vulkan driver exists.
fn test_context() -> Option<Context> {
    match Context::new(false) {
        Ok(context) => Some(context),
        Err(BackendError::NoDevice(message)) if !device_required() => {
            eprintln!("skipping: no Vulkan driver on this machine ({message})");
            None
        }
        Err(error) => panic!("cannot create a Vulkan context: {error}"),
    }
}

fn test_allocator(context: &Context) -> Allocator {
    Allocator::new(&AllocatorCreateDesc {
        instance: context.instance.clone(),
        device: context.device.clone(),
        physical_device: context.physical,
        debug_settings: Default::default(),
        buffer_device_address: false,
        allocation_sizes: Default::default(),
    })
    .unwrap_or_else(|error| panic!("cannot create the allocator: {error}"))
}

/// The allocator's live allocations.
fn live_allocations(allocator: &Allocator) -> usize {
    allocator.generate_report().allocations.len()
}

#[test]
fn a_slot_frees_its_resources_only_once_idle() {
    let Some(context) = test_context() else {
        return;
    };
    let mut allocator = test_allocator(&context);
    let mut views = ViewCache::default();
    let mut slot = FrameSlot::new(&context, 0).unwrap_or_else(|e| panic!("{e}"));
    let scratch = |allocator: &mut Allocator, name: &str| {
        let desc = ResourceDesc::buffer(256);
        create_with_own_memory(
            &context,
            allocator,
            &desc,
            vk::ImageUsageFlags::empty(),
            name,
        )
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let made = scratch(&mut allocator, "scratch");
    assert!(matches!(made.object, GpuObject::Buffer(_)));
    slot.scratch.push(made);
    let transient = scratch(&mut allocator, "transient");
    slot.transients.push((0, transient));
    assert_eq!(live_allocations(&allocator), 2);

    // Submitted and not yet waited for: nothing is freed.
    slot.in_flight = true;
    assert!(!slot.free_scratch(&context, &mut allocator));
    assert!(!slot.release(&context, &mut allocator, &mut views));
    assert_eq!((slot.scratch.len(), slot.transients.len()), (1, 1));
    assert_eq!(live_allocations(&allocator), 2);

    // A wedged device keeps everything too, even with the slot's own frame complete.
    slot.in_flight = false;
    context.wedged.set(true);
    assert!(!slot.release(&context, &mut allocator, &mut views));
    assert_eq!(live_allocations(&allocator), 2);
    context.wedged.set(false);

    // Idle: scratch alone, then everything.
    assert!(slot.free_scratch(&context, &mut allocator));
    assert_eq!((slot.scratch.len(), slot.transients.len()), (0, 1));
    assert_eq!(live_allocations(&allocator), 1);
    assert!(slot.release(&context, &mut allocator, &mut views));
    assert_eq!(slot.transients.len(), 0);
    assert_eq!(live_allocations(&allocator), 0);
    // SAFETY: nothing was submitted with the slot's fence; its resources were released.
    unsafe { slot.destroy(&context) };
}

#[test]
fn transfers_to_and_from_the_host_leave_no_memory_behind() {
    let options = VulkanOptions {
        validate: device_required(),
        ..VulkanOptions::default()
    };
    let mut backend = match VulkanBackend::new(options) {
        Ok(backend) => backend,
        Err(BackendError::NoDevice(message)) if !device_required() => {
            eprintln!("skipping: no Vulkan driver on this machine ({message})");
            return;
        }
        Err(error) => panic!("cannot create the Vulkan backend: {error}"),
    };
    let live = |backend: &VulkanBackend| backend.allocator.as_ref().map(live_allocations);
    backend
        .create_external("data", &ResourceDesc::buffer(64))
        .unwrap_or_else(|e| panic!("{e}"));
    let before = live(&backend);
    let bytes: Vec<u8> = (0..64).collect();
    backend
        .write_external("data", &bytes)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(backend.read_external("data").as_deref(), Ok(&bytes[..]));
    assert_eq!(live(&backend), before);
    // A refused upload makes no staging buffer at all.
    assert_eq!(
        backend.write_external("data", &bytes[..3]),
        Err(BackendError::Api(
            "upload to `data` has 3 bytes, the resource holds 64".into()
        ))
    );
    assert_eq!(live(&backend), before);
}
