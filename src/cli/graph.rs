//! `rpsl graph FILE --format json|dot|html [-o OUT]`: the compiled render graph of frame 0 (the
//! HTML page is `graph_page`'s explorer). The dot form lists the surviving nodes in schedule order, then the culled ones greyed, with an edge per
//! dependency (solid: data, dashed: order only).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use rpsl::runtime::compile::deps::{DepBuilder, DepGraph, EdgeKind};
use rpsl::runtime::{
    write_frame_json, AccessRange, CompiledFrame, LoadOp, NodeId, RecordedGraph, RenderPass,
    ResourceId, StoreOp,
};

use super::frames::{self, FrameOptions, EXIT_RUNTIME};
use super::graph_page::ExplorerPage;
use super::output::{Destination, Output};

/// Output formats of `rpsl graph`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// The JSON graph dump of docs/cli.md (one frame).
    Json,
    /// Graphviz dot.
    Dot,
    /// The graph explorer: one self-contained HTML page (docs/cli.md).
    Html,
}

/// Options of `rpsl graph`.
#[derive(Args, Debug)]
pub struct GraphArgs {
    #[command(flatten)]
    options: FrameOptions,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: GraphFormat,
    /// Write here instead of stdout.
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: &GraphArgs) -> ExitCode {
    if super::effect::is_effect_file(&args.options.file) {
        return super::effect::graph(&args.options.file, args.format, args.output.as_deref());
    }
    if let Err(code) = frames::session_options(&args.options) {
        return code;
    }
    let program = match frames::load_program(&args.options) {
        Ok(program) => program,
        Err(code) => return code,
    };
    let shader_dir = super::run_vulkan::shader_dir_of(&args.options.file);
    let effect_nodes = match super::effect_nodes::EffectNodes::load(&program, &shader_dir) {
        Ok(nodes) => nodes,
        Err(code) => return code,
    };
    let (mut session, entry_args) = match frames::start(&program, &args.options) {
        Ok(started) => started,
        Err(code) => return code,
    };
    effect_nodes.install(&mut session);
    let entry = session.entry().name.clone();
    let frame = match session.run_frame(&entry_args) {
        Ok(frame) => frame,
        Err(error) => {
            diag!("{}", error.render());
            return ExitCode::from(EXIT_RUNTIME);
        }
    };
    write_graph(
        &entry,
        frame.graph,
        frame.compiled,
        args.format,
        args.output.as_deref(),
    )
}

/// Writes a compiled frame in `format` to `output` (stdout when `None` or `-`).
pub fn write_graph(
    entry: &str,
    graph: &RecordedGraph,
    compiled: &CompiledFrame,
    format: GraphFormat,
    output: Option<&std::path::Path>,
) -> ExitCode {
    let destination = Destination::from_option(output);
    let mut output = match Output::open("the graph", destination) {
        Ok(output) => output,
        Err(error) => return error.report(ExitCode::SUCCESS),
    };
    let written = match format {
        GraphFormat::Json => write_frame_json(output.writer(), entry, graph, Some(compiled))
            .map(|_| ())
            .map_err(|error| output.failed(error)),
        GraphFormat::Dot => output.write_str(&dot(entry, graph, compiled)),
        GraphFormat::Html => {
            let mut page = ExplorerPage::new(entry);
            page.add_frame(graph, compiled);
            output.write_str(&page.finish())
        }
    };
    match written.and_then(|()| output.finish()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => error.report(ExitCode::SUCCESS),
    }
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The render-pass state of a pass as short lines (`rpsl graph`'s dot labels and HTML node
/// table): each colour target with its load/store operations and resolve target, each
/// viewport and each scissor rectangle, e.g. `colour 0: resource 1 clear/dont_care, resolve to
/// resource 2 (mips 0+1, layers 0+1)`, `viewport 0: (8, 4) 32x16, depth 0..1`,
/// `scissor 0: (8, 4) 32x16`.
pub fn render_pass_lines(graph: &RecordedGraph, pass: &RenderPass) -> Vec<String> {
    let resource = |id: ResourceId| {
        graph
            .resource_name(id)
            .map_or_else(|| format!("resource {}", id.0), str::to_string)
    };
    let mut lines = Vec::new();
    for color in &pass.colors {
        let mut line = format!(
            "colour {}: {} {}/{}",
            color.slot,
            resource(color.resource),
            load_name(color.load),
            store_name(color.store)
        );
        if let Some(access) = color.resolve.and_then(|i| graph.accesses.get(i as usize)) {
            let _ = write!(line, ", resolve to {}", resource(access.resource));
            if let AccessRange::Texture(range) = access.range {
                let _ = write!(
                    line,
                    " (mips {}+{}, layers {}+{})",
                    range.base_mip, range.mip_count, range.base_layer, range.layer_count
                );
            }
        }
        lines.push(line);
    }
    for (index, viewport) in pass.viewports.iter().enumerate() {
        lines.push(format!(
            "viewport {index}: ({}, {}) {}x{}, depth {}..{}",
            viewport.x,
            viewport.y,
            viewport.width,
            viewport.height,
            viewport.min_depth,
            viewport.max_depth
        ));
    }
    for (index, scissor) in pass.scissors.iter().enumerate() {
        lines.push(format!(
            "scissor {index}: ({}, {}) {}x{}",
            scissor.x, scissor.y, scissor.width, scissor.height
        ));
    }
    lines
}

fn load_name(op: LoadOp) -> &'static str {
    match op {
        LoadOp::Load => "load",
        LoadOp::Clear => "clear",
        LoadOp::DontCare => "dont_care",
    }
}

fn store_name(op: StoreOp) -> &'static str {
    match op {
        StoreOp::Store => "store",
        StoreOp::DontCare => "dont_care",
    }
}

/// The Graphviz form of a compiled frame.
pub fn dot(entry: &str, graph: &RecordedGraph, compiled: &CompiledFrame) -> String {
    let mut deps = DepGraph::default();
    DepBuilder::default().build(graph, None, &mut deps);
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(entry));
    let _ = writeln!(out, "  rankdir=LR;\n  node [shape=box, style=rounded];");
    let label = |node: NodeId| {
        let decl = graph.decl_of(node);
        let queue = if graph.nodes[node.index()].flags.prefer_async {
            format!("{} async", decl.queue.name())
        } else {
            decl.queue.name().to_string()
        };
        let mut label = format!("{}: {}\\n{}", node.0, escape(&decl.name), queue);
        if let Some(pass) = compiled.render_passes.iter().find(|pass| pass.node == node) {
            for line in render_pass_lines(graph, pass) {
                let _ = write!(label, "\\n{}", escape(&line));
            }
        }
        label
    };
    for (position, &node) in compiled.order.iter().enumerate() {
        let _ = writeln!(
            out,
            "  n{} [label=\"{}\\n#{}\"];",
            node.0,
            label(node),
            position
        );
    }
    for &node in &compiled.culled {
        let _ = writeln!(
            out,
            "  n{} [label=\"{}\\nculled\", color=grey, fontcolor=grey];",
            node.0,
            label(node)
        );
    }
    // Each node's predecessors once each, in call order (a data edge stands for an order edge
    // from the same node): the drawing does not depend on the order the builder found them in.
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
            let style = if data { "" } else { " [style=dashed]" };
            let _ = writeln!(out, "  n{pred} -> n{node}{style};");
        }
    }
    out.push_str("}\n");
    out
}
