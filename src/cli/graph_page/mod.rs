//! The graph explorer: one self-contained HTML page (inline CSS and script, nothing fetched)
//! for one or several compiled frames (`rpsl graph --format html`, `rpsl run --dump-html`).
//!
//! The page embeds the JSON graph dump of docs/cli.md (one entry per frame) and, per frame, the
//! facts of [`frame_facts`] (edges with reasons, culling reasons, decoded barriers, lifetimes per
//! subresource). `page.js` draws them on canvases: a per-queue timeline at the window's width
//! with labelled nodes, dependency edges, barrier batches and cross-queue waits; lifetimes per
//! resource and subresource; heap placement over time; a details panel; a frame selector and a
//! two-frame comparison. Opened with `#selftest`, the page writes what it drew into
//! `<pre id="selftest">` (tests/graph_page.rs reads it through a headless browser).

mod frame_facts;
mod heap_reuse;

use rpsl::runtime::{CompiledFrame, DumpWriter, RecordedGraph};
use serde_json::Value;

/// The page's script: the views, then the panel, comparison, input and self-test.
const SCRIPT: &str = concat!(include_str!("page.js"), include_str!("page_panel.js"));
/// The page's style sheet.
const STYLE: &str = include_str!("page.css");
/// The page's body (the views' elements; the script fills them).
const BODY: &str = include_str!("page.html");

/// Collects frames and writes the explorer page.
///
/// ```ignore
/// let mut page = ExplorerPage::new("main");
/// page.add_frame(frame.graph, frame.compiled);
/// let html = page.finish();
/// assert!(html.starts_with("<!DOCTYPE html>"));
/// ```
pub struct ExplorerPage {
    entry: String,
    dump: DumpWriter<Vec<u8>>,
    facts: Vec<Value>,
}

impl ExplorerPage {
    /// An empty page for an entry point.
    pub fn new(entry: &str) -> ExplorerPage {
        ExplorerPage {
            entry: entry.to_string(),
            dump: DumpWriter::new(entry),
            facts: Vec::new(),
        }
    }

    /// Adds one compiled frame.
    pub fn add_frame(&mut self, graph: &RecordedGraph, compiled: &CompiledFrame) {
        self.dump.add_frame(graph, Some(compiled));
        self.facts.push(frame_facts::frame_facts(graph, compiled));
    }

    /// The HTML page of every frame added.
    pub fn finish(self) -> String {
        let dump = self.dump.finish();
        let facts = Value::Array(self.facts).to_string();
        let mut out = String::with_capacity(dump.len() + facts.len() + SCRIPT.len() + 4096);
        out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
        out.push_str(
            "<meta name=\"viewport\" content=\"width=device-width\">\n<title>rpsl explorer: ",
        );
        out.push_str(&escape(&self.entry));
        out.push_str("</title>\n<style>\n");
        out.push_str(STYLE);
        out.push_str("</style></head>\n<body>\n");
        out.push_str(BODY);
        out.push_str("<script type=\"application/json\" id=\"dump\">");
        out.push_str(&script_safe(&dump));
        out.push_str("</script>\n<script type=\"application/json\" id=\"facts\">");
        out.push_str(&script_safe(&facts));
        out.push_str("</script>\n<script>\n");
        out.push_str(SCRIPT);
        out.push_str("</script>\n</body></html>\n");
        out
    }
}

/// JSON text that can sit inside a `<script>` element: every `<` (which JSON has only inside
/// strings) becomes the escape `\u003c`, so no `</script>` or `<!--` can end the element.
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_in_the_page_cannot_close_its_script_element() {
        assert_eq!(
            script_safe(r#"{"name":"</script><!--"}"#),
            r#"{"name":"\u003c/script>\u003c!--"}"#
        );
        let parsed: Value = serde_json::from_str(&script_safe(r#"["</b>"]"#)).unwrap();
        assert_eq!(parsed, serde_json::json!(["</b>"]));
    }
}
