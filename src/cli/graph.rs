//! `rpsl graph FILE --format json|dot|html [-o OUT]`: the compiled render graph of frame 0 (the
//! HTML page is `graph_html`'s). The dot form lists the surviving nodes in schedule order, then the culled ones greyed, with an edge per
//! dependency (solid: data, dashed: order only).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use rpsl::runtime::compile::deps::{DepBuilder, DepGraph, EdgeKind};
use rpsl::runtime::{dump_frame_json, CompiledFrame, NodeId, RecordedGraph};

use super::frames::{self, FrameOptions, EXIT_RUNTIME};

/// Output formats of `rpsl graph`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// The JSON graph dump of docs/cli.md (one frame).
    Json,
    /// Graphviz dot.
    Dot,
    /// A self-contained HTML page: schedule timeline, transient heap, node and resource tables.
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
    if let Err(code) = frames::session_options(&args.options) {
        return code;
    }
    let program = match frames::load_program(&args.options) {
        Ok(program) => program,
        Err(code) => return code,
    };
    let (mut session, entry_args) = match frames::start(&program, &args.options) {
        Ok(started) => started,
        Err(code) => return code,
    };
    let entry = session.entry().name.clone();
    let text = match session.run_frame(&entry_args) {
        Ok(frame) => match args.format {
            GraphFormat::Json => dump_frame_json(&entry, frame.graph, Some(frame.compiled)),
            GraphFormat::Dot => dot(&entry, frame.graph, frame.compiled),
            GraphFormat::Html => super::graph_html::html(&entry, frame.graph, frame.compiled),
        },
        Err(error) => {
            eprint!("{}", error.render());
            return ExitCode::from(EXIT_RUNTIME);
        }
    };
    let written = match &args.output {
        Some(path) => std::fs::write(path, text),
        None => {
            print!("{text}");
            Ok(())
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let path = args
                .output
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string());
            eprintln!("error: cannot write `{path}`: {error}");
            ExitCode::from(EXIT_RUNTIME)
        }
    }
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
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
        format!("{}: {}\\n{}", node.0, escape(&decl.name), queue)
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
