//! What the explorer page shows beyond the JSON dump, computed per frame on the Rust side so the
//! page only draws: dependency edges with their reasons (which resource, which subresources),
//! why each culled node was culled, barrier batches with their masks and layouts decoded into
//! Vulkan names (through `vk`'s `Display`, the one table of names), whole-resource lifetimes,
//! the memory each placed resource reuses, and lifetimes per subresource (mip x layer rows).

use rpsl::runtime::compile::deps::{access_boxes, DepBuilder, DepGraph, EdgeKind};
use rpsl::runtime::SubresourceBox;
use rpsl::runtime::{CompiledFrame, NodeId, RecordedGraph, ResourceId, ResourceKind};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fmt::Write as _;

/// A resource with more subresources than this gets rows per mip (layers merged) instead of
/// one row per mip and layer.
const MAX_SUBRESOURCE_ROWS: u64 = 64;

/// The facts of one frame as the page's JSON (`names`, `edges`, `culled`, `batches`,
/// `lifetimes`, `alias_after`, `reuses`, `subresources`; docs/cli.md describes the page).
/// Ranges, layouts and masks repeat thousands of times in a large frame: edges and barriers
/// hold them as indices into `names`, which the page expands when it loads.
pub fn frame_facts(graph: &RecordedGraph, compiled: &CompiledFrame) -> Value {
    let mut boxes = Vec::new();
    access_boxes(graph, &mut boxes);
    let mut deps = DepGraph::default();
    DepBuilder::default().build(graph, None, &mut deps);
    let mut names = Names::default();
    let edges = edges(graph, &deps, &boxes, &mut names);
    let culled = culled_reasons(graph, compiled, &deps);
    let batches = batches(graph, compiled, &mut names);
    json!({
        "names": names.list,
        "edges": edges,
        "culled": culled,
        "batches": batches,
        "lifetimes": compiled.lifetimes.iter().map(|span| span.map(|(a, b)| [a, b])).collect::<Vec<_>>(),
        "alias_after": compiled.alias_after,
        "reuses": super::heap_reuse::previous_occupants(&compiled.placements, &compiled.lifetimes),
        "subresources": subresource_rows(graph, compiled, &boxes),
    })
}

/// The distinct strings of a frame's facts, each once, by first use.
#[derive(Default)]
struct Names {
    list: Vec<String>,
    index: HashMap<String, usize>,
}

impl Names {
    /// The index of `text` in the list (added when new).
    fn of(&mut self, text: String) -> usize {
        if let Some(&index) = self.index.get(&text) {
            return index;
        }
        self.list.push(text.clone());
        self.index.insert(text, self.list.len() - 1);
        self.list.len() - 1
    }
}

/// `mips 0..2, layers 1..2` (texture) or `bytes 0..256` (buffer): a subresource box as the
/// page prints it (half-open ranges; planes only when not the colour/depth plane alone).
pub fn box_text(kind: ResourceKind, region: &SubresourceBox) -> String {
    if kind == ResourceKind::Buffer {
        return format!("bytes {}..{}", region.lo[0], region.hi[0]);
    }
    let mut text = format!(
        "mips {}..{}, layers {}..{}",
        region.lo[0], region.hi[0], region.lo[1], region.hi[1]
    );
    if (region.lo[2], region.hi[2]) != (0, 1) {
        text.push_str(match (region.lo[2], region.hi[2]) {
            (1, 2) => ", stencil",
            _ => ", depth+stencil",
        });
    }
    text
}

/// Every dependency edge once (a data edge wins over an order edge between the same nodes) as
/// `[pred, node, "data"|"order", [[resource, range name]...]]`; an edge with no shared
/// resource is an explicit dependency (no reasons).
fn edges(
    graph: &RecordedGraph,
    deps: &DepGraph,
    boxes: &[SubresourceBox],
    names: &mut Names,
) -> Vec<Value> {
    let mut out = Vec::new();
    let mut preds: Vec<(u32, bool)> = Vec::new();
    for node in 0..graph.nodes.len() {
        preds.clear();
        preds.extend(
            deps.preds(node)
                .iter()
                .map(|&(pred, kind)| (pred, kind == EdgeKind::Data)),
        );
        preds.sort_unstable();
        preds.dedup_by(|later, earlier| {
            let same = later.0 == earlier.0;
            earlier.1 |= same & later.1;
            same
        });
        for &(pred, data) in &preds {
            let reasons: Vec<Value> =
                edge_reasons(graph, boxes, NodeId(pred), NodeId::from_index(node))
                    .into_iter()
                    .map(|(resource, range)| json!([resource, names.of(range)]))
                    .collect();
            let kind = if data { "data" } else { "order" };
            out.push(json!([pred, node, kind, reasons]));
        }
    }
    out
}

/// The shared subresources that order `later` after `earlier`: each pair of their accesses to
/// one resource whose boxes overlap and of which at least one writes.
fn edge_reasons(
    graph: &RecordedGraph,
    boxes: &[SubresourceBox],
    earlier: NodeId,
    later: NodeId,
) -> Vec<(u32, String)> {
    let span = |node: NodeId| {
        let record = &graph.nodes[node.index()];
        record.accesses.start as usize..record.accesses.end as usize
    };
    let mut reasons: Vec<(u32, String)> = Vec::new();
    for a in span(earlier) {
        for b in span(later) {
            let (first, second) = (&graph.accesses[a], &graph.accesses[b]);
            if first.resource != second.resource
                || !(first.access.writes() || second.access.writes())
                || !boxes[a].overlaps(&boxes[b])
            {
                continue;
            }
            let kind = graph.resources[first.resource.index()].desc.kind;
            let reason = (
                first.resource.0,
                box_text(kind, &boxes[a].intersection(&boxes[b])),
            );
            if !reasons.contains(&reason) {
                reasons.push(reason);
            }
        }
    }
    reasons
}

/// `resource N` when unnamed.
fn resource_label(graph: &RecordedGraph, id: ResourceId) -> String {
    graph
        .resource_name(id)
        .map_or_else(|| format!("resource {}", id.0), str::to_string)
}

/// Why each culled node was culled: it has no effect of its own (no CPU access, no write to a
/// resource that outlives the frame), and what it writes feeds no surviving node.
fn culled_reasons(graph: &RecordedGraph, compiled: &CompiledFrame, deps: &DepGraph) -> Vec<Value> {
    let mut data_successors: Vec<Vec<u32>> = vec![Vec::new(); graph.nodes.len()];
    for node in 0..graph.nodes.len() {
        for &(pred, kind) in deps.preds(node) {
            let list = &mut data_successors[pred as usize];
            if kind == EdgeKind::Data && !list.contains(&(node as u32)) {
                list.push(node as u32);
            }
        }
    }
    compiled
        .culled
        .iter()
        .map(|&node| {
            let mut written: Vec<String> = Vec::new();
            for access in graph.node_accesses(node) {
                let label = resource_label(graph, access.resource);
                if access.access.writes() && !written.contains(&label) {
                    written.push(label);
                }
            }
            let readers = &data_successors[node.index()];
            let why = match (written.is_empty(), readers.is_empty()) {
                (true, _) => "no effect: it writes nothing and has no CPU access".to_string(),
                (false, true) => format!(
                    "no effect: it writes only frame-local {} and no node reads it",
                    written.join(", ")
                ),
                (false, false) => format!(
                    "no effect: it writes only frame-local {}, read only by culled nodes {}",
                    written.join(", "),
                    readers
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            json!({"node": node.0, "why": why})
        })
        .collect()
}

/// Each barrier batch with every transition decoded, as `{position, barriers}` with each
/// barrier `[resource, range, old layout, new layout, src stages, src accesses, dst stages,
/// dst accesses]` (names: layouts as Vulkan's `VkImageLayout` names without the prefix, masks
/// through `vk`'s `Display`), then `src queue, dst queue` for a queue family transfer.
fn batches(graph: &RecordedGraph, compiled: &CompiledFrame, names: &mut Names) -> Vec<Value> {
    compiled
        .batch_list
        .iter()
        .map(|batch| {
            let barriers: Vec<Value> = compiled.barriers
                [batch.barriers.start as usize..batch.barriers.end as usize]
                .iter()
                .map(|barrier| {
                    let kind = graph.resources[barrier.resource.index()].desc.kind;
                    let mut fields = vec![
                        barrier.resource.0 as usize,
                        names.of(box_text(kind, &compiled.barrier_region(barrier))),
                        names.of(layout_name(barrier.old_layout).to_string()),
                        names.of(layout_name(barrier.new_layout).to_string()),
                        names.of(barrier.src_stages.to_string()),
                        names.of(barrier.src_accesses.to_string()),
                        names.of(barrier.dst_stages.to_string()),
                        names.of(barrier.dst_accesses.to_string()),
                    ];
                    if barrier.src_queue != barrier.dst_queue {
                        fields.extend([barrier.src_queue as usize, barrier.dst_queue as usize]);
                    }
                    json!(fields)
                })
                .collect();
            json!({"position": batch.position, "barriers": barriers})
        })
        .collect()
}

/// `COLOR_ATTACHMENT_OPTIMAL`: a layout as Vulkan spells it, without `VK_IMAGE_LAYOUT_`.
fn layout_name(layout: rpsl::runtime::vk::ImageLayout) -> &'static str {
    use rpsl::runtime::vk::ImageLayout as L;
    match layout {
        L::Undefined => "UNDEFINED",
        L::General => "GENERAL",
        L::ColorAttachment => "COLOR_ATTACHMENT_OPTIMAL",
        L::DepthStencilAttachment => "DEPTH_STENCIL_ATTACHMENT_OPTIMAL",
        L::DepthStencilReadOnly => "DEPTH_STENCIL_READ_ONLY_OPTIMAL",
        L::ShaderReadOnly => "SHADER_READ_ONLY_OPTIMAL",
        L::TransferSrc => "TRANSFER_SRC_OPTIMAL",
        L::TransferDst => "TRANSFER_DST_OPTIMAL",
        L::DepthAttachment => "DEPTH_ATTACHMENT_OPTIMAL",
        L::DepthReadOnly => "DEPTH_READ_ONLY_OPTIMAL",
        L::StencilAttachment => "STENCIL_ATTACHMENT_OPTIMAL",
        L::StencilReadOnly => "STENCIL_READ_ONLY_OPTIMAL",
        L::PresentSrc => "PRESENT_SRC_KHR",
        L::FragmentShadingRateAttachment => "FRAGMENT_SHADING_RATE_ATTACHMENT_OPTIMAL_KHR",
    }
}

/// Per resource with more than one subresource (textures only): `null`, or rows
/// `{label, span, touches}`: `span` the `[first, last]` schedule positions of the scheduled
/// nodes touching that subresource (live from its first to its last access; `null` when
/// untouched) and `touches` every such position once. Rows are per mip and layer (with the
/// temporal slice when the resource has several: `mip 0 layer 0 slice 1`), or per mip with
/// the layers merged past [`MAX_SUBRESOURCE_ROWS`].
fn subresource_rows(
    graph: &RecordedGraph,
    compiled: &CompiledFrame,
    boxes: &[SubresourceBox],
) -> Vec<Value> {
    let mut touching: Vec<Vec<(u32, usize)>> = vec![Vec::new(); graph.resources.len()];
    for (position, &node) in compiled.order.iter().enumerate() {
        let record = &graph.nodes[node.index()];
        for access in record.accesses.start as usize..record.accesses.end as usize {
            touching[graph.accesses[access].resource.index()].push((position as u32, access));
        }
    }
    graph
        .resources
        .iter()
        .enumerate()
        .map(|(index, resource)| {
            let Some(whole) = compiled.resource_boxes.get(index) else {
                return Value::Null;
            };
            let (mips, layers) = (whole.hi[0], whole.hi[1]);
            if resource.desc.kind == ResourceKind::Buffer || mips * layers <= 1 {
                return Value::Null;
            }
            // The layer axis holds every temporal slice's layers in turn.
            let array_layers = u64::from(resource.desc.array_layers()).max(1);
            let per_layer = mips * layers <= MAX_SUBRESOURCE_ROWS;
            let mut rows = Vec::new();
            for mip in 0..mips.min(MAX_SUBRESOURCE_ROWS) {
                let layer_rows: Vec<(u64, u64)> = if per_layer {
                    (0..layers).map(|layer| (layer, layer + 1)).collect()
                } else {
                    vec![(0, layers)]
                };
                for (layer_lo, layer_hi) in layer_rows {
                    let row = SubresourceBox {
                        lo: [mip, layer_lo, whole.lo[2]],
                        hi: [mip + 1, layer_hi, whole.hi[2]],
                    };
                    let mut touches: Vec<u32> = touching[index]
                        .iter()
                        .filter(|&&(_, access)| boxes[access].overlaps(&row))
                        .map(|&(position, _)| position)
                        .collect();
                    touches.dedup();
                    let span = touches.first().zip(touches.last()).map(|(&a, &b)| [a, b]);
                    let mut label = if per_layer {
                        format!("mip {mip} layer {}", layer_lo % array_layers)
                    } else {
                        format!("mip {mip} layers {layer_lo}..{layer_hi}")
                    };
                    if per_layer && layers > array_layers {
                        let _ = write!(label, " slice {}", layer_lo / array_layers);
                    }
                    rows.push(json!({"label": label, "span": span, "touches": touches}));
                }
            }
            Value::Array(rows)
        })
        .collect()
}
