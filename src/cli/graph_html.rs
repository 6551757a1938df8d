//! `rpsl graph --format html`: one self-contained page (inline SVG and CSS, no scripts, nothing
//! fetched) that shows a compiled frame the way a graphics engineer inspects one: the schedule as
//! a timeline with queues and barrier batches, the transient heap as resources placed over time
//! (lifetime x byte offset, which makes aliasing visible), and tables of nodes and resources.
//! Every shape carries a tooltip with the details (barrier transitions, placements, accesses).

use std::fmt::Write as _;

use rpsl::runtime::{CompiledFrame, RecordedGraph, ResourceId, ResourceKind};

/// Width of one schedule position in the SVG views, in pixels.
const STEP: f64 = 28.0;
/// Left margin of the SVG views (queue and axis labels).
const MARGIN: f64 = 90.0;
/// Height of the heap view.
const HEAP_HEIGHT: f64 = 320.0;

/// The HTML page of a compiled frame.
pub fn html(entry: &str, graph: &RecordedGraph, compiled: &CompiledFrame) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>rpsl graph: {title}</title>\n<style>{STYLE}</style></head><body>\n\
         <h1>{title} <small>frame {frame}</small></h1>\n",
        title = escape(entry),
        frame = graph.frame_index,
    );
    summary(&mut out, graph, compiled);
    timeline(&mut out, graph, compiled);
    heap(&mut out, graph, compiled);
    node_table(&mut out, graph, compiled);
    resource_table(&mut out, graph, compiled);
    out.push_str("</body></html>\n");
    out
}

const STYLE: &str = "body{font:13px system-ui,sans-serif;margin:20px;color:#222}\
h1 small{color:#888;font-weight:normal}h2{margin-top:28px}\
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}\
th{background:#f2f2f2}.num{text-align:right;font-variant-numeric:tabular-nums}\
svg{border:1px solid #ddd;background:#fcfcfc}.culled{color:#999}\
.scroll{overflow-x:auto;max-width:100%}";

fn summary(out: &mut String, graph: &RecordedGraph, compiled: &CompiledFrame) {
    let mb = |bytes: u64| format!("{:.2} MB", bytes as f64 / 1e6);
    let rows = [
        ("nodes recorded", graph.nodes.len().to_string()),
        ("nodes scheduled", compiled.order.len().to_string()),
        ("nodes culled", compiled.culled.len().to_string()),
        ("resources", graph.resources.len().to_string()),
        ("queues", compiled.queues.len().to_string()),
        ("barrier batches", compiled.batches.to_string()),
        ("transitions", compiled.transitions.to_string()),
        ("cross-queue waits", compiled.queue_waits.len().to_string()),
        ("render passes", compiled.render_passes.len().to_string()),
        ("transient heap", mb(compiled.memory.transient_bytes)),
        ("without aliasing", mb(compiled.memory.unaliased_bytes)),
        ("live-set bound", mb(compiled.memory.lower_bound_bytes)),
    ];
    out.push_str("<table>\n");
    for (name, value) in rows {
        let _ = writeln!(
            out,
            "<tr><th>{name}</th><td class=\"num\">{value}</td></tr>"
        );
    }
    out.push_str("</table>\n");
}

/// Queue colours, by queue index.
fn queue_colour(queue: u32) -> &'static str {
    ["#6fa8dc", "#f6b26b", "#93c47d", "#c27ba0", "#ffd966"][queue as usize % 5]
}

fn timeline(out: &mut String, graph: &RecordedGraph, compiled: &CompiledFrame) {
    let positions = compiled.order.len().max(1) as f64;
    let lanes = compiled.queues.len().max(1) as f64;
    let width = MARGIN + positions * STEP + 20.0;
    let height = 40.0 + lanes * 40.0;
    let _ = write!(
        out,
        "<h2>Schedule</h2>\n<p>One column per scheduled node, one row per queue; red marks are \
         barrier batches (hover for their transitions).</p>\n<div class=\"scroll\">\
         <svg width=\"{width:.0}\" height=\"{height:.0}\" xmlns=\"http://www.w3.org/2000/svg\">\n"
    );
    for (index, queue) in compiled.queues.iter().enumerate() {
        let y = 30.0 + index as f64 * 40.0;
        let _ = writeln!(
            out,
            "<text x=\"4\" y=\"{:.0}\">{}</text>",
            y + 20.0,
            escape(queue.name())
        );
    }
    for (position, &node) in compiled.order.iter().enumerate() {
        let queue = compiled.node_queue.get(node.index()).copied().unwrap_or(0);
        let x = MARGIN + position as f64 * STEP;
        let y = 30.0 + queue as f64 * 40.0;
        let name = &graph.decl_of(node).name;
        let _ = writeln!(
            out,
            "<rect x=\"{x:.0}\" y=\"{y:.0}\" width=\"{w:.0}\" height=\"30\" rx=\"3\" fill=\"{fill}\">\
             <title>#{position} node {id}: {name} ({queue_name})</title></rect>",
            w = STEP - 3.0,
            fill = queue_colour(queue),
            id = node.0,
            name = escape(name),
            queue_name = escape(compiled.queues.get(queue as usize).map_or("?", |q| q.name())),
        );
    }
    for batch in &compiled.batch_list {
        let x = MARGIN + batch.position as f64 * STEP - 2.0;
        let mut tip = format!("batch before #{}:", batch.position);
        for barrier in
            &compiled.barriers[batch.barriers.start as usize..batch.barriers.end as usize]
        {
            let _ = write!(
                tip,
                "\n{}: {:?} -> {:?}",
                resource_label(graph, barrier.resource),
                barrier.old_layout,
                barrier.new_layout
            );
        }
        let _ = writeln!(
            out,
            "<rect x=\"{x:.0}\" y=\"8\" width=\"3\" height=\"{h:.0}\" fill=\"#cc0000\">\
             <title>{tip}</title></rect>",
            h = height - 12.0,
            tip = escape(&tip)
        );
    }
    out.push_str("</svg></div>\n");
}

fn heap(out: &mut String, graph: &RecordedGraph, compiled: &CompiledFrame) {
    let heap_bytes = compiled.memory.transient_bytes.max(1) as f64;
    let positions = compiled.order.len().max(1) as f64;
    let width = MARGIN + positions * STEP + 20.0;
    let _ = write!(
        out,
        "<h2>Transient heap</h2>\n<p>Each transient resource occupies its byte range (vertical) \
         for its lifetime (horizontal, schedule positions); rectangles sharing a row band alias the \
         same memory at different times.</p>\n<div class=\"scroll\">\
         <svg width=\"{width:.0}\" height=\"{h:.0}\" xmlns=\"http://www.w3.org/2000/svg\">\n\
         <text x=\"4\" y=\"16\">0</text><text x=\"4\" y=\"{bottom:.0}\">{mb:.1} MB</text>\n",
        h = HEAP_HEIGHT + 20.0,
        bottom = HEAP_HEIGHT + 10.0,
        mb = heap_bytes / 1e6,
    );
    for (index, placement) in compiled.placements.iter().enumerate() {
        let (Some(placement), Some(Some((first, last)))) =
            (placement, compiled.lifetimes.get(index))
        else {
            continue;
        };
        let x = MARGIN + *first as f64 * STEP;
        let w = (*last - *first + 1) as f64 * STEP - 2.0;
        let y = 8.0 + placement.offset as f64 / heap_bytes * HEAP_HEIGHT;
        let h = (placement.size as f64 / heap_bytes * HEAP_HEIGHT).max(2.0);
        let id = ResourceId(index as u32);
        let _ = writeln!(
            out,
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" \
             fill=\"hsl({hue},55%,65%)\" stroke=\"#555\" stroke-width=\"0.5\">\
             <title>{label}: bytes {offset}..{end}, positions {first}..={last}</title></rect>",
            hue = (index * 47) % 360,
            label = escape(&resource_label(graph, id)),
            offset = placement.offset,
            end = placement.offset + placement.size,
        );
    }
    out.push_str("</svg></div>\n");
}

fn node_table(out: &mut String, graph: &RecordedGraph, compiled: &CompiledFrame) {
    out.push_str(
        "<h2>Nodes</h2>\n<table><tr><th>#</th><th>node</th><th>name</th><th>queue</th>\
         <th>render pass</th><th>accesses</th></tr>\n",
    );
    for (position, &node) in compiled.order.iter().enumerate() {
        let record = &graph.nodes[node.index()];
        let queue = compiled.node_queue.get(node.index()).copied().unwrap_or(0);
        let pass = compiled
            .render_passes
            .iter()
            .find(|pass| pass.node == node)
            .map_or(String::new(), |pass| {
                let mut text = format!(
                    "{}x{} x{} samples, {} colour{}",
                    pass.width,
                    pass.height,
                    pass.samples,
                    pass.colors.len(),
                    if pass.depth_stencil.is_some() {
                        " + depth"
                    } else {
                        ""
                    }
                );
                for line in super::graph::render_pass_lines(graph, pass) {
                    text.push_str("; ");
                    text.push_str(&line);
                }
                text
            });
        let accesses: Vec<String> = graph.accesses
            [record.accesses.start as usize..record.accesses.end as usize]
            .iter()
            .map(|access| resource_label(graph, access.resource))
            .collect();
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{position}</td><td class=\"num\">{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>",
            node.0,
            escape(&graph.decl_of(node).name),
            escape(
                compiled
                    .queues
                    .get(queue as usize)
                    .map_or("?", |q| q.name())
            ),
            escape(&pass),
            escape(&accesses.join(", ")),
        );
    }
    for &node in &compiled.culled {
        let _ = writeln!(
            out,
            "<tr class=\"culled\"><td>culled</td><td class=\"num\">{}</td><td>{}</td>\
             <td></td><td></td><td></td></tr>",
            node.0,
            escape(&graph.decl_of(node).name),
        );
    }
    out.push_str("</table>\n");
}

fn resource_table(out: &mut String, graph: &RecordedGraph, compiled: &CompiledFrame) {
    out.push_str(
        "<h2>Resources</h2>\n<table><tr><th>id</th><th>name</th><th>description</th>\
         <th>class</th><th>lifetime</th><th>heap bytes</th></tr>\n",
    );
    for (index, resource) in graph.resources.iter().enumerate() {
        let desc = &resource.desc;
        let shape = match desc.kind {
            ResourceKind::Buffer => format!("buffer {} bytes", desc.width),
            _ => format!(
                "{} {}x{}x{} {} mips {} samples",
                desc.kind.name(),
                desc.width,
                desc.height,
                desc.depth_or_array_size,
                desc.mip_levels,
                desc.sample_count
            ),
        };
        let format = desc.format.name().unwrap_or("");
        let class = if resource.external {
            "external"
        } else if resource.outlives_frame() {
            "persistent"
        } else {
            "transient"
        };
        let lifetime = match compiled.lifetimes.get(index) {
            Some(Some((first, last))) => format!("{first}..={last}"),
            _ => String::new(),
        };
        let placement = match compiled.placements.get(index) {
            Some(Some(p)) => format!("{}..{}", p.offset, p.offset + p.size),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{index}</td><td>{}</td><td>{} {}</td><td>{class}</td>\
             <td>{lifetime}</td><td class=\"num\">{placement}</td></tr>",
            escape(&resource_label(graph, ResourceId(index as u32))),
            escape(&shape),
            escape(format),
        );
    }
    out.push_str("</table>\n");
}

/// `name` or `resource N`.
fn resource_label(graph: &RecordedGraph, id: ResourceId) -> String {
    graph
        .resource_name(id)
        .map_or_else(|| format!("resource {}", id.0), str::to_string)
}

/// Escapes text for HTML element content and attribute values.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            _ => escaped.push(c),
        }
    }
    escaped
}
