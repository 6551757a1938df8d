//! Frames of an unchanged graph make no Vulkan objects: image views, descriptor sets and
//! pipelines are made once and reused, counted by `VulkanBackend::object_counts` (transients
//! with one and two frames in flight, temporal slices, buffer render targets' scratch images).
//! A changed graph (resized transient or external images, an edited shader) makes new ones and
//! frees or recycles the old; every frame still renders the exact pixels, under validation.

mod common;

use std::path::{Path, PathBuf};

use rpsl_runtime::*;
use rpsl_vulkan::shader_node::shaders::CompilerOptions;
use rpsl_vulkan::shader_node::{bind_shader_nodes, ShaderNodeOptions};
use rpsl_vulkan::{ObjectCounts, VulkanBackend};

/// A temporary shader directory removed on drop.
struct ShaderDir(PathBuf);

impl ShaderDir {
    fn new(test: &str) -> ShaderDir {
        let path =
            std::env::temp_dir().join(format!("rpsl-object-caching-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        ShaderDir(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ShaderDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `(16 x, 16 y, blue, 255)` at texel (x, y) of `dst`.
const GRADIENT: &str = include_str!("shaders/Gradient.comp");

/// Tiles `src` over the render target (a combined image sampler: the backend's sampler).
const BLIT: &str = include_str!("shaders/Blit.frag");

/// The graph: `Gradient` writes a transient `tile`-sized texture, `Blit` tiles it over the
/// external `out` (`out_size` square).
struct Scene {
    builder: GraphBuilder,
    compiler: FrameCompiler,
    gradient: DeclId,
    blit: DeclId,
}

impl Scene {
    fn new(backend: &mut VulkanBackend, dir: &ShaderDir) -> Scene {
        std::fs::write(dir.path().join("Gradient.comp"), GRADIENT).unwrap();
        std::fs::write(dir.path().join("Blit.frag"), BLIT).unwrap();
        let options = ShaderNodeOptions {
            shader_dir: dir.path().to_path_buf(),
            compiler: CompilerOptions::default(),
        };
        let names = ["Gradient".to_string(), "Blit".to_string()];
        assert_eq!(bind_shader_nodes(backend, options, names.clone()), names);
        let mut builder = GraphBuilder::new();
        let texture =
            |name: &str, access| ParamDesc::new(name, ValueType::Texture).with_access(access);
        let gradient = builder.declare_node(NodeDeclDesc::new(
            "Gradient",
            QueueClass::Compute,
            vec![
                texture("dst", AccessDesc::writeonly(AccessFlags::CS)),
                ParamDesc::new("blue", ValueType::Scalar(ScalarType::F32)),
            ],
        ));
        let blit = builder.declare_node(NodeDeclDesc::new(
            "Blit",
            QueueClass::Graphics,
            vec![
                texture("src", AccessDesc::readonly(AccessFlags::PS)),
                texture("rt", AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                    .with_semantic(SemanticKind::Target, 0),
            ],
        ));
        Scene {
            builder,
            compiler: FrameCompiler::new(CompileOptions::default()),
            gradient,
            blit,
        }
    }

    /// Runs frame `index` and returns what it made.
    fn frame(
        &mut self,
        backend: &mut VulkanBackend,
        index: u64,
        tile: u32,
        out_size: u32,
    ) -> ObjectCounts {
        self.run(backend, index, tile, out_size, false)
    }

    /// Runs frame `index` with a temporal tile (two slices): `Blit` reads the slice `Gradient`
    /// wrote the frame before.
    fn history_frame(&mut self, backend: &mut VulkanBackend, index: u64) -> ObjectCounts {
        self.run(backend, index, 8, 8, true)
    }

    fn run(
        &mut self,
        backend: &mut VulkanBackend,
        index: u64,
        tile: u32,
        out_size: u32,
        history: bool,
    ) -> ObjectCounts {
        let before = backend.object_counts();
        self.builder.begin_frame(index);
        let desc = ResourceDesc {
            temporal_layers: if history { 2 } else { 1 },
            ..ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, tile, tile)
        };
        let tile_id = self.builder.create_resource(desc, 1).unwrap();
        let tile_view = self.builder.default_texture_view(tile_id).unwrap();
        let read_view = TextureView {
            temporal_layer: u32::from(history),
            ..tile_view
        };
        let out_id = self
            .builder
            .import_external(
                "out",
                ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, out_size, out_size),
            )
            .unwrap();
        let out_view = self.builder.default_texture_view(out_id).unwrap();
        let mut args = ArgsWriter::new(self.builder.decl(self.gradient).unwrap());
        args.write_texture(0, &tile_view);
        args.write_f32(1, 0, blue(index) as f32 / 255.0);
        self.builder
            .call_node(self.gradient, args.bytes(), CallFlags::default(), 2)
            .unwrap();
        let mut args = ArgsWriter::new(self.builder.decl(self.blit).unwrap());
        args.write_texture(0, &read_view);
        args.write_texture(1, &out_view);
        self.builder
            .call_node(self.blit, args.bytes(), CallFlags::default(), 3)
            .unwrap();
        let graph = self.builder.finish().unwrap().clone();
        let frame = self.compiler.compile(&graph).unwrap().clone();
        backend
            .execute_frame(&graph, &frame)
            .unwrap_or_else(|error| panic!("frame {index}: {error}"));
        backend.object_counts().since(&before)
    }
}

/// The blue channel frame `index` writes (every frame differs, so a stale result shows).
fn blue(index: u64) -> u8 {
    (index * 10 % 250) as u8
}

/// `out` as frame `index` must have rendered it (`swizzled`: the edited `Blit`'s `.bgra`).
fn assert_pixels(
    backend: &mut VulkanBackend,
    index: u64,
    tile: u32,
    out_size: u32,
    swizzled: bool,
) {
    let (width, height, pixels) = backend.read_rgba8("out").unwrap();
    assert_eq!((width, height), (out_size, out_size), "frame {index}");
    let expected: Vec<u8> = (0..out_size)
        .flat_map(|y| (0..out_size).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            let texel = [
                (16 * (x % tile)) as u8,
                (16 * (y % tile)) as u8,
                blue(index),
                255,
            ];
            if swizzled {
                [texel[2], texel[1], texel[0], texel[3]]
            } else {
                texel
            }
        })
        .collect();
    assert_eq!(pixels, expected, "frame {index}");
}

/// What a frame made, in a compact comparable form: (views created, views destroyed, sets
/// allocated, sets written, sets freed, pipelines created).
fn made(counts: ObjectCounts) -> (u64, u64, u64, u64, u64, u64) {
    (
        counts.image_views_created,
        counts.image_views_destroyed,
        counts.descriptor_sets_allocated,
        counts.descriptor_sets_written,
        counts.descriptor_sets_freed,
        counts.pipelines_created,
    )
}

const NOTHING: (u64, u64, u64, u64, u64, u64) = (0, 0, 0, 0, 0, 0);

#[test]
fn steady_frames_make_nothing_and_changes_recycle_the_old_objects() {
    let Some(mut backend) = common::backend_with(1) else {
        return;
    };
    let dir = ShaderDir::new("steady");
    let mut scene = Scene::new(&mut backend, &dir);
    // Warm-up: views of the tile and `out`, one set and one pipeline per node.
    let first = scene.frame(&mut backend, 0, 8, 8);
    assert_eq!(made(first), (2, 0, 2, 2, 0, 2));
    assert_eq!(first.descriptor_pools_created, 1);
    assert_pixels(&mut backend, 0, 8, 8, false);
    for index in 1..4 {
        assert_eq!(
            made(scene.frame(&mut backend, index, 8, 8)),
            NOTHING,
            "frame {index}"
        );
        assert_pixels(&mut backend, index, 8, 8, false);
    }
    // A smaller tile: the transient is re-created, its view replaced, both nodes' sets (which
    // name it) made anew; the pipelines stay.
    assert_eq!(made(scene.frame(&mut backend, 4, 4, 8)), (1, 1, 2, 2, 0, 0));
    assert_pixels(&mut backend, 4, 4, 8, false);
    for index in 5..12 {
        assert_eq!(
            made(scene.frame(&mut backend, index, 4, 8)),
            NOTHING,
            "frame {index}"
        );
    }
    assert_pixels(&mut backend, 11, 4, 8, false);
    // Back to 8: the sets of frames 0-3 went unused for 8 frames, so they are rewritten for
    // the new tile's view instead of allocating.
    assert_eq!(
        made(scene.frame(&mut backend, 12, 8, 8)),
        (1, 1, 0, 2, 0, 0)
    );
    assert_pixels(&mut backend, 12, 8, 8, false);
    // An edited shader: one new pipeline and a set of its new layout.
    std::fs::write(
        dir.path().join("Blit.frag"),
        BLIT.replace("% size, 0);", "% size, 0).bgra;"),
    )
    .unwrap();
    assert_eq!(
        made(scene.frame(&mut backend, 13, 8, 8)),
        (0, 0, 1, 1, 0, 1)
    );
    assert_pixels(&mut backend, 13, 8, 8, true);
    for index in 14..21 {
        assert_eq!(
            made(scene.frame(&mut backend, index, 8, 8)),
            NOTHING,
            "frame {index}"
        );
    }
    // Eight frames after the edit the old program is destroyed with its two sets.
    assert_eq!(
        made(scene.frame(&mut backend, 21, 8, 8)),
        (0, 0, 0, 0, 2, 0)
    );
    assert_pixels(&mut backend, 21, 8, 8, true);
    let totals = backend.object_counts();
    assert_eq!(totals.live_descriptor_sets(), 3);
    assert_eq!(totals.live_image_views(), 2);
    // A resized external: its view is replaced; sets do not name attachments, so none change.
    assert_eq!(
        made(scene.frame(&mut backend, 22, 8, 4)),
        (1, 1, 0, 0, 0, 0)
    );
    assert_pixels(&mut backend, 22, 8, 4, true);
    assert_eq!(made(scene.frame(&mut backend, 23, 8, 4)), NOTHING);
    assert_eq!(backend.object_counts().live_image_views(), 2);
}

#[test]
fn frames_in_flight_reuse_each_slots_objects() {
    let Some(mut backend) = common::backend_with(2) else {
        return;
    };
    let dir = ShaderDir::new("in-flight");
    let mut scene = Scene::new(&mut backend, &dir);
    // Each slot has its own transient tile: two warm-up frames.
    assert_eq!(made(scene.frame(&mut backend, 0, 8, 8)), (2, 0, 2, 2, 0, 2));
    assert_eq!(made(scene.frame(&mut backend, 1, 8, 8)), (1, 0, 2, 2, 0, 0));
    for index in 2..10 {
        assert_eq!(
            made(scene.frame(&mut backend, index, 8, 8)),
            NOTHING,
            "frame {index}"
        );
    }
    assert_pixels(&mut backend, 9, 8, 8, false);
    backend.wait_idle().unwrap();
    let totals = backend.object_counts();
    assert_eq!(totals.live_image_views(), 3);
    assert_eq!(totals.live_descriptor_sets(), 4);
}

#[test]
fn buffer_render_targets_keep_their_scratch_image_and_view() {
    let Some(mut backend) = common::backend_with(1) else {
        return;
    };
    let mut calls = 0u32;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = std::sync::Arc::clone(&seen);
    backend.bind_node("Fill", move |context| {
        calls += 1;
        let view = context.views[0];
        // The node's view is of the buffer (the scratch image stands in for it as the
        // attachment only).
        let bytes = view.buffer().ok_or("`rt` is a buffer")?;
        record.lock().unwrap().push((calls, bytes.buffer, view.id));
        Ok(())
    });
    let mut builder = GraphBuilder::new();
    let fill = builder.declare_node(NodeDeclDesc::new(
        "Fill",
        QueueClass::Graphics,
        vec![
            ParamDesc::new("rt", ValueType::Buffer)
                .with_access(AccessDesc::readwrite(
                    AccessFlags::RENDER_TARGET | AccessFlags::CLEAR,
                ))
                .with_semantic(SemanticKind::Target, 0),
            ParamDesc::new("c", ValueType::Vector(ScalarType::F32, 4))
                .with_semantic(SemanticKind::ClearColor, 0),
        ],
    ));
    // The frame cache stays on: frames after the first hit it and still get their own clear
    // colour (render passes taking values from arguments are rebuilt on a hit).
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    for index in 0..4u64 {
        let before = backend.object_counts();
        builder.begin_frame(index);
        let desc = ResourceDesc {
            flags: ResourceFlags::ROWMAJOR_IMAGE,
            ..ResourceDesc::buffer(64)
        };
        let id = builder.import_external("rows", desc).unwrap();
        let view = BufferView {
            view_format: Format::R8G8B8A8_UNORM.0,
            ..builder.default_buffer_view(id).unwrap()
        };
        let mut args = ArgsWriter::new(builder.decl(fill).unwrap());
        args.write_buffer(0, &view);
        let green = index as f32 * 20.0 / 255.0;
        for (channel, value) in [1.0, green, 0.0, 1.0].into_iter().enumerate() {
            args.write_f32(1, channel as u32 * 4, value);
        }
        builder
            .call_node(fill, args.bytes(), CallFlags::default(), 1)
            .unwrap();
        let graph = builder.finish().unwrap().clone();
        let frame = compiler.compile(&graph).unwrap().clone();
        backend
            .execute_frame(&graph, &frame)
            .unwrap_or_else(|error| panic!("frame {index}: {error}"));
        let made = backend.object_counts().since(&before);
        let expected_views = u64::from(index == 0);
        assert_eq!(made.image_views_created, expected_views, "frame {index}");
        assert_eq!(made.image_views_destroyed, 0, "frame {index}");
        let bytes = backend.read_external("rows").unwrap();
        assert_eq!(
            bytes,
            [255, (index * 20) as u8, 0, 255].repeat(16),
            "frame {index}"
        );
    }
    // Every frame bound the same buffer, with the same identity.
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 4);
    assert!(seen
        .iter()
        .all(|&(_, view, id)| (view, id) == (seen[0].1, seen[0].2)));
}

#[test]
fn temporal_slices_keep_one_view_each() {
    let Some(mut backend) = common::backend_with(1) else {
        return;
    };
    let dir = ShaderDir::new("temporal");
    let mut scene = Scene::new(&mut backend, &dir);
    // Frame 0 has no history yet: `Blit` reads the slice just written, through the same view.
    assert_eq!(
        made(scene.history_frame(&mut backend, 0)),
        (2, 0, 2, 2, 0, 2)
    );
    // Frame 1 writes the other slice (a new view and set) and reads frame 0's (as frame 0 did).
    assert_eq!(
        made(scene.history_frame(&mut backend, 1)),
        (1, 0, 1, 1, 0, 0)
    );
    assert_pixels(&mut backend, 0, 8, 8, false);
    // Frame 2 writes frame 0's slice again and reads frame 1's: one new set.
    assert_eq!(
        made(scene.history_frame(&mut backend, 2)),
        (0, 0, 1, 1, 0, 0)
    );
    assert_pixels(&mut backend, 1, 8, 8, false);
    for index in 3..9 {
        assert_eq!(
            made(scene.history_frame(&mut backend, index)),
            NOTHING,
            "frame {index}"
        );
        // `out` shows the gradient of the frame before.
        assert_pixels(&mut backend, index - 1, 8, 8, false);
    }
}
