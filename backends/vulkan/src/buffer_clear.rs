//! Buffer clears (`clear(buffer, float4 | uint4)`, `clear_buffer`): the value packed in the
//! view's format ([`rpsl_runtime::buffer_clear_pattern`]) repeats over the cleared range.
//! A pattern whose bytes repeat every 4 bytes over a range of 4-byte-aligned offset and size is
//! one `vkCmdFillBuffer`; any other (a 16-byte raw pattern, 8-byte halves, the 12 bytes of
//! `R32G32B32_FLOAT`, odd sizes) is copied with `vkCmdCopyBuffer` from a host-written scratch
//! buffer holding the pattern repeated, created before recording and freed with the frame slot.
//! Both commands run in [`rpsl_runtime::vk::Stages::BUFFER_CLEAR`], the stages the barrier
//! planner gives a buffer `clear` access.

use ash::vk;
use gpu_allocator::vulkan::{AllocationCreateDesc, AllocationScheme, Allocator};
use gpu_allocator::MemoryLocation;
use rpsl_runtime::{
    buffer_clear_pattern, BackendError, BuiltinCall, BuiltinNode, ClearBuffer, CompiledFrame,
    NodeId, RecordedGraph, ResourceDesc, ResourceKind,
};

use crate::record::{access_region, FrameRecorder, ResourceHandle};
use crate::resources::{create_unbound, map_alloc_error, GpuObject, GpuResource};

/// The most bytes of one scratch buffer (the pattern repeated; larger ranges copy it several
/// times).
pub(crate) const SCRATCH_BYTES: u64 = 1 << 20;

/// The scratch buffer of one pattern clear node.
#[derive(Copy, Clone, Debug)]
pub struct BufferClearScratch {
    /// The node.
    pub node: NodeId,
    /// The buffer holding the pattern repeated.
    pub buffer: vk::Buffer,
    /// Its byte size (a multiple of the pattern's length).
    pub size: u64,
}

/// The pattern of built-in buffer clear `node`, or `None` for other nodes (and null views).
/// `Err`: the view's format cannot be cleared.
pub(crate) fn clear_pattern_of(
    graph: &RecordedGraph,
    node: NodeId,
) -> Option<Result<Vec<u8>, String>> {
    if !matches!(
        graph.decl_of(node).builtin,
        Some(
            BuiltinNode::ClearBuffer | BuiltinNode::ClearBufferFloat | BuiltinNode::ClearBufferUint
        )
    ) {
        return None;
    }
    match BuiltinCall::of_node(graph, node)? {
        Ok(BuiltinCall::ClearBuffer(call)) => clear_pattern(graph, &call),
        _ => None,
    }
}

/// The pattern of buffer clear `call`: its value packed in the view's format (`None` for a
/// null view). `Err`: the view's format cannot be cleared.
fn clear_pattern(graph: &RecordedGraph, call: &ClearBuffer) -> Option<Result<Vec<u8>, String>> {
    let access = call.target?.access;
    let resource = graph.resources.get(access.resource.index())?;
    if resource.desc.kind != ResourceKind::Buffer {
        return None;
    }
    let format = if access.view_format == rpsl_runtime::Format::UNKNOWN {
        resource.desc.format
    } else {
        access.view_format
    };
    Some(buffer_clear_pattern(format, call.value.for_format(format)))
}

/// The 4-byte word a fill writes for `pattern`, when the pattern repeats every 4 bytes.
fn fill_word(pattern: &[u8]) -> Option<u32> {
    if pattern.is_empty() || 4 % pattern.len() != 0 && !pattern.len().is_multiple_of(4) {
        return None;
    }
    let byte = |i: usize| pattern[i % pattern.len()];
    let word = [byte(0), byte(1), byte(2), byte(3)];
    (0..pattern.len().max(4))
        .all(|i| pattern[i % pattern.len()] == word[i % 4])
        .then(|| u32::from_le_bytes(word))
}

/// How a range of a buffer is cleared to `pattern`.
enum ClearPlan {
    /// One fill with this word.
    Fill(u32),
    /// Copies from a scratch buffer of this many bytes.
    Copy(u64),
}

fn plan(pattern: &[u8], offset: u64, size: u64) -> ClearPlan {
    match fill_word(pattern) {
        Some(word) if offset.is_multiple_of(4) && size.is_multiple_of(4) => ClearPlan::Fill(word),
        _ => {
            let period = pattern.len() as u64;
            let repeats = size.min(SCRATCH_BYTES).div_ceil(period).max(1);
            ClearPlan::Copy(repeats * period)
        }
    }
}

/// Creates (with host-visible memory, written here) the scratch buffers of the frame's buffer
/// clears that copy their pattern. The resources go to the frame's slot and are freed when it
/// is retired.
pub(crate) fn create_buffer_clear_scratch(
    context: &crate::context::Context,
    allocator: &mut Allocator,
    graph: &RecordedGraph,
    frame: &CompiledFrame,
    handles: &[Option<ResourceHandle>],
    scratch: &mut Vec<GpuResource>,
) -> Result<Vec<BufferClearScratch>, BackendError> {
    let mut buffers = Vec::new();
    for &node in &frame.order {
        let Some(Ok(pattern)) = clear_pattern_of(graph, node) else {
            continue;
        };
        let Some(access) = graph.node_accesses(node).iter().find(|a| a.param == 0) else {
            continue;
        };
        let Some(Some(target)) = handles.get(access.resource.index()) else {
            continue;
        };
        let region = access_region(access, &target.desc);
        let ClearPlan::Copy(size) = plan(&pattern, region.offset, region.size) else {
            continue;
        };
        let label = format!("buffer clear pattern of node {}", node.0);
        let (resource, buffer) = create_pattern_buffer(context, allocator, &label, size, &pattern)?;
        buffers.push(BufferClearScratch { node, buffer, size });
        scratch.push(resource);
    }
    Ok(buffers)
}

/// A host-written buffer of `size` bytes holding `pattern` repeated (the last repeat cut at
/// `size`), with its own memory: the source of the pattern copies of buffer clears and of
/// texel clears of textures (`texture_clear.rs`). Returns the resource and its buffer.
pub(crate) fn create_pattern_buffer(
    context: &crate::context::Context,
    allocator: &mut Allocator,
    label: &str,
    size: u64,
    pattern: &[u8],
) -> Result<(GpuResource, vk::Buffer), BackendError> {
    let mut resource = create_unbound(
        context,
        &ResourceDesc::buffer(size),
        vk::ImageUsageFlags::empty(),
        label,
    )?;
    let requirements = resource.requirements(context);
    let allocation = allocator.allocate(&AllocationCreateDesc {
        name: label,
        requirements,
        location: MemoryLocation::CpuToGpu,
        linear: true,
        allocation_scheme: AllocationScheme::GpuAllocatorManaged,
    });
    let mut allocation = match allocation {
        Ok(allocation) => allocation,
        Err(error) => {
            // SAFETY: created here and never recorded; no views were made of it.
            unsafe { resource.destroy(context, allocator) };
            return Err(map_alloc_error(label, error));
        }
    };
    let Some(bytes) = allocation.mapped_slice_mut() else {
        let _ = allocator.free(allocation);
        // SAFETY: created here and never recorded; no views were made of it.
        unsafe { resource.destroy(context, allocator) };
        return Err(BackendError::Api(format!("{label}: memory not mapped")));
    };
    for (i, byte) in bytes.iter_mut().take(size as usize).enumerate() {
        *byte = pattern[i % pattern.len()];
    }
    // SAFETY: the allocation is live and was made for this buffer's requirements.
    let bound = resource.bind(context, unsafe { allocation.memory() }, allocation.offset());
    resource.allocation = Some(allocation);
    if let Err(error) = bound {
        // SAFETY: created here and never recorded; no views were made of it.
        unsafe { resource.destroy(context, allocator) };
        return Err(error);
    }
    let GpuObject::Buffer(buffer) = resource.object else {
        unreachable!("a buffer description makes a buffer")
    };
    Ok((resource, buffer))
}

impl FrameRecorder<'_> {
    /// Records the buffer clear `node` of `target` over `offset..offset + size` (in the
    /// planned state of a buffer `clear` access).
    pub(crate) fn record_buffer_clear(
        &self,
        node: NodeId,
        name: &str,
        call: &ClearBuffer,
        target: &ResourceHandle,
        offset: u64,
        size: u64,
    ) -> Result<(), BackendError> {
        let failed = |message: String| BackendError::Node {
            node,
            name: name.to_string(),
            message,
        };
        let pattern = clear_pattern(self.graph, call)
            .ok_or_else(|| failed("not a buffer clear".into()))?
            .map_err(failed)?;
        if size == 0 {
            return Ok(());
        }
        let buffer = target.buffer()?;
        match plan(&pattern, offset, size) {
            ClearPlan::Fill(word) => {
                // SAFETY: `cb` is the node's recording command buffer, outside any render
                // pass; the buffer lives until the frame completes and its range is in the
                // planned transfer state; `plan` fills only 4-byte aligned ranges.
                unsafe { self.encoder().fill_buffer(buffer, offset, size, word) };
            }
            ClearPlan::Copy(_) => {
                let scratch = self
                    .buffer_clears
                    .iter()
                    .find(|s| s.node == node)
                    .ok_or_else(|| failed("no pattern scratch buffer".into()))?;
                let regions: Vec<vk::BufferCopy> = (0..size.div_ceil(scratch.size))
                    .map(|i| {
                        let at = i * scratch.size;
                        vk::BufferCopy {
                            src_offset: 0,
                            dst_offset: offset + at,
                            size: scratch.size.min(size - at),
                        }
                    })
                    .collect();
                // SAFETY: `cb` is the node's recording command buffer, outside any render
                // pass; both buffers live until the frame completes (the scratch in the frame
                // slot); the scratch was written by the host before the submission (a host
                // write is visible to the queue's later commands); the target range is in the
                // planned state and the regions stay inside it and the scratch.
                unsafe { self.encoder().copy_buffer(scratch.buffer, buffer, &regions) };
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_where_the_pattern_repeats_every_four_bytes() {
        assert_eq!(fill_word(&[7]), Some(0x0707_0707));
        assert_eq!(fill_word(&[1, 2]), Some(0x0201_0201));
        assert_eq!(fill_word(&[1, 2, 3, 4]), Some(0x0403_0201));
        assert_eq!(fill_word(&[5, 0, 0, 0, 5, 0, 0, 0]), Some(5));
        assert_eq!(fill_word(&[5, 0, 0, 0, 6, 0, 0, 0]), None);
        assert_eq!(fill_word(&[1, 2, 3]), None);
        assert!(matches!(
            plan(&[1, 2, 3, 4], 4, 8),
            ClearPlan::Fill(0x0403_0201)
        ));
        assert!(matches!(plan(&[1, 2, 3, 4], 4, 7), ClearPlan::Copy(8)));
        assert!(matches!(plan(&[1, 2, 3, 4], 2, 8), ClearPlan::Copy(8)));
        let twelve = [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0];
        assert!(matches!(plan(&twelve, 0, 100), ClearPlan::Copy(108)));
        assert!(matches!(
            plan(&twelve, 0, 10 << 20),
            ClearPlan::Copy(1_048_584)
        ));
    }
}
