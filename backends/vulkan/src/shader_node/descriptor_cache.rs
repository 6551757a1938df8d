//! Descriptor sets of shader-bound nodes, kept across frames: a node call whose set layout and
//! contents (views and buffers by identity, ranges, image layouts, samplers) equal those of an
//! earlier call binds that call's set again, without `vkUpdateDescriptorSets`.
//!
//! A set unused for [`RING`] frames (more than the backend's frames in flight, so no pending
//! frame binds it) becomes a spare of its layout, rewritten for new contents; this is how sets
//! naming views or buffers that were destroyed (resources re-created for a new frame layout) are
//! recycled: their contents name [`crate::ObjectId`]s that never come back, so they are never
//! bound again, and they age out. Spares beyond [`SPARES_PER_LAYOUT`] are freed. Sets come from
//! pools that grow (each new pool twice the last, up to [`MAX_POOL_SETS`]) and are created with
//! `FREE_DESCRIPTOR_SET`, so sets are freed one by one, and all of a layout's sets when its
//! program is destroyed.

use std::collections::HashMap;

use ash::vk;

use super::descriptors::{write_set, BindingContents};
use super::ShaderNodeErrorKind;
use crate::view_cache::{ObjectCounter, ObjectCounts};

/// Frames a set must go unused before it is rewritten (more than the backend's most frames in
/// flight, 4).
pub(crate) const RING: u64 = 8;
/// Spare sets kept per layout; more are freed.
const SPARES_PER_LAYOUT: usize = 16;
/// Sets of the first pool.
const FIRST_POOL_SETS: u32 = 32;
/// Sets of the largest pool.
const MAX_POOL_SETS: u32 = 1024;
/// Descriptors of each type per set a pool makes room for.
const DESCRIPTORS_PER_SET: u32 = 16;

/// What makes two sets interchangeable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct SetKey {
    layout: vk::DescriptorSetLayout,
    contents: Vec<BindingContents>,
}

/// A set and its pool.
#[derive(Copy, Clone, Debug)]
struct PooledSet {
    set: vk::DescriptorSet,
    pool: vk::DescriptorPool,
}

/// A written set and the last frame that bound it.
struct CachedSet {
    pooled: PooledSet,
    last_used: u64,
}

/// The descriptor sets of all shader-bound nodes of one backend.
#[derive(Default)]
pub(crate) struct DescriptorCache {
    sets: HashMap<SetKey, CachedSet>,
    spares: HashMap<vk::DescriptorSetLayout, Vec<PooledSet>>,
    pools: Vec<vk::DescriptorPool>,
    next_pool_sets: u32,
}

fn add(counter: &ObjectCounter, change: impl FnOnce(&mut ObjectCounts)) {
    let mut counts = counter.get();
    change(&mut counts);
    counter.set(counts);
}

fn vulkan(call: &'static str) -> impl Fn(vk::Result) -> ShaderNodeErrorKind {
    move |result| ShaderNodeErrorKind::Vulkan { call, result }
}

impl DescriptorCache {
    /// The set for `contents` of `layout` in `frame`: the cached one, else a spare or a new set,
    /// written. `counter` gets what was made.
    pub fn set_for(
        &mut self,
        device: &ash::Device,
        layout: vk::DescriptorSetLayout,
        contents: Vec<BindingContents>,
        frame: u64,
        counter: &ObjectCounter,
    ) -> Result<vk::DescriptorSet, ShaderNodeErrorKind> {
        let key = SetKey { layout, contents };
        if let Some(cached) = self.sets.get_mut(&key) {
            cached.last_used = frame;
            return Ok(cached.pooled.set);
        }
        let spare = self.spares.get_mut(&layout).and_then(Vec::pop);
        let pooled = match spare {
            Some(pooled) => pooled,
            None => {
                let pooled = self.allocate(device, layout, counter)?;
                add(counter, |c| c.descriptor_sets_allocated += 1);
                pooled
            }
        };
        write_set(device, pooled.set, &key.contents);
        add(counter, |c| c.descriptor_sets_written += 1);
        self.sets.insert(
            key,
            CachedSet {
                pooled,
                last_used: frame,
            },
        );
        Ok(pooled.set)
    }

    /// Starts `frame`: sets unused for [`RING`] frames become spares of their layout (or are
    /// freed beyond [`SPARES_PER_LAYOUT`]).
    pub fn begin_frame(&mut self, device: &ash::Device, frame: u64, counter: &ObjectCounter) {
        let stale: Vec<SetKey> = self
            .sets
            .iter()
            .filter(|(_, cached)| cached.last_used + RING <= frame)
            .map(|(key, _)| key.clone())
            .collect();
        let mut surplus = Vec::new();
        for key in stale {
            let Some(cached) = self.sets.remove(&key) else {
                continue;
            };
            let spares = self.spares.entry(key.layout).or_default();
            if spares.len() < SPARES_PER_LAYOUT {
                spares.push(cached.pooled);
            } else {
                surplus.push(cached.pooled);
            }
        }
        self.free(device, &surplus, counter);
    }

    /// Frees every set of `layout` (its program is being destroyed; no pending frame uses
    /// them).
    pub fn forget_layout(
        &mut self,
        device: &ash::Device,
        layout: vk::DescriptorSetLayout,
        counter: &ObjectCounter,
    ) {
        let mut doomed = self.spares.remove(&layout).unwrap_or_default();
        let keys: Vec<SetKey> = self
            .sets
            .keys()
            .filter(|key| key.layout == layout)
            .cloned()
            .collect();
        for key in keys {
            if let Some(cached) = self.sets.remove(&key) {
                doomed.push(cached.pooled);
            }
        }
        self.free(device, &doomed, counter);
    }

    fn free(&mut self, device: &ash::Device, sets: &[PooledSet], counter: &ObjectCounter) {
        for pool in &self.pools {
            let in_pool: Vec<vk::DescriptorSet> = sets
                .iter()
                .filter(|pooled| pooled.pool == *pool)
                .map(|pooled| pooled.set)
                .collect();
            if in_pool.is_empty() {
                continue;
            }
            // SAFETY: the sets came from this pool (created with FREE_DESCRIPTOR_SET) and no
            // pending frame uses them. vkFreeDescriptorSets only returns VK_SUCCESS.
            let _ = unsafe { device.free_descriptor_sets(*pool, &in_pool) };
            let freed = in_pool.len() as u64;
            add(counter, |c| c.descriptor_sets_freed += freed);
        }
    }

    fn allocate(
        &mut self,
        device: &ash::Device,
        layout: vk::DescriptorSetLayout,
        counter: &ObjectCounter,
    ) -> Result<PooledSet, ShaderNodeErrorKind> {
        let layouts = [layout];
        for &pool in self.pools.iter().rev() {
            let info = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(pool)
                .set_layouts(&layouts);
            // SAFETY: valid allocate info; pool and layout are live.
            match unsafe { device.allocate_descriptor_sets(&info) } {
                Ok(sets) => return Ok(PooledSet { set: sets[0], pool }),
                Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY | vk::Result::ERROR_FRAGMENTED_POOL) => {}
                Err(result) => return Err(vulkan("vkAllocateDescriptorSets")(result)),
            }
        }
        let max_sets = self.next_pool_sets.clamp(FIRST_POOL_SETS, MAX_POOL_SETS);
        self.next_pool_sets = (max_sets * 2).min(MAX_POOL_SETS);
        let sizes: Vec<vk::DescriptorPoolSize> = [
            vk::DescriptorType::SAMPLER,
            vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            vk::DescriptorType::SAMPLED_IMAGE,
            vk::DescriptorType::STORAGE_IMAGE,
            vk::DescriptorType::UNIFORM_BUFFER,
            vk::DescriptorType::STORAGE_BUFFER,
        ]
        .into_iter()
        .map(|ty| vk::DescriptorPoolSize {
            ty,
            descriptor_count: max_sets * DESCRIPTORS_PER_SET,
        })
        .collect();
        let info = vk::DescriptorPoolCreateInfo::default()
            .flags(vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET)
            .max_sets(max_sets)
            .pool_sizes(&sizes);
        // SAFETY: valid create info on a live device.
        let pool = unsafe { device.create_descriptor_pool(&info, None) }
            .map_err(vulkan("vkCreateDescriptorPool"))?;
        self.pools.push(pool);
        add(counter, |c| c.descriptor_pools_created += 1);
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts);
        // SAFETY: as above, on the fresh pool.
        let sets = unsafe { device.allocate_descriptor_sets(&info) }
            .map_err(vulkan("vkAllocateDescriptorSets"))?;
        Ok(PooledSet { set: sets[0], pool })
    }

    /// Destroys the pools (and with them every set), leaving the cache empty.
    ///
    /// # Safety
    ///
    /// No pending command buffer uses any of its sets (the device is idle), and `device` is
    /// the one the pools were created on.
    pub unsafe fn destroy(&mut self, device: &ash::Device) {
        self.sets.clear();
        self.spares.clear();
        for pool in self.pools.drain(..) {
            // SAFETY: the caller guarantees no pending work uses the pool's sets; the pool
            // leaves the cache here, so it is destroyed once.
            unsafe { device.destroy_descriptor_pool(pool, None) };
        }
    }
}
