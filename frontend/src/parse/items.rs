//! Top-level items: where each one starts, how one is parsed and lowered, and the parse of a
//! whole module, with the items spread over several threads when the text is large.
//!
//! The module is parsed as if item after item, each from where the previous one stopped (see
//! `parse/mod.rs`): after a parsed item, parsing resumes past what the item consumed; after a
//! broken or too deeply nested item, past its extent (`extent.rs`). The outcome of an item only
//! depends on the text and on where it starts, so the items can be parsed in any order and on
//! any thread: a pre-scan predicts every start from the extents, the predicted items are parsed
//! in parallel, and the results are then stitched together in order, following the sequential
//! rule. Where a parsed item stops elsewhere than its extent predicted (an item whose brackets
//! mislead the extent scan), the stitching parses the rest of the text item after item, so the
//! module and the diagnostics are always exactly those of the sequential parse.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use pest::Parser as _;

use super::extent::{scan_item_extent, ItemExtent};
use super::{errors, skip_trivia, ExprStacks, Lowerer, RpslParser, Rule, MAX_BRACKET_DEPTH};
use crate::ast::{Item, Module};
use crate::diagnostic::Diagnostic;
use crate::preprocess::SourceMap;

/// The most threads that parse one module (the calling parser thread included).
const MAX_PARSE_THREADS: usize = 4;

/// Texts shorter than this many bytes per thread are not worth another thread.
const MIN_BYTES_PER_THREAD: usize = 4096;

/// The stack of each extra parser thread (the same as the first one's: see `parse_module`).
const HELPER_STACK_BYTES: usize = super::PARSER_STACK_BYTES;

/// The text a module is parsed from.
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    /// The preprocessed text (offsets and diagnostics refer to it).
    pub(crate) text: &'a str,
    /// The text the grammar runs on (`text` with some characters masked: see `ascii_view`).
    pub(crate) parse_text: &'a str,
    /// Maps offsets of `text` to original spans.
    pub(crate) map: &'a SourceMap,
}

/// What parsing the item that starts at some offset gives.
struct ItemOutcome {
    /// The lowered items (empty when the item is broken or lowering gave up).
    items: Vec<Item>,
    /// The item's syntax and lowering errors, in order.
    diagnostics: Vec<Diagnostic>,
    /// Where the next item starts (after blanks and comments).
    next: usize,
}

/// Parses and lowers the item that starts at `pos` (a token, not a stray `;`), whose extent
/// (`scan_item_extent` from `pos`) is `extent`.
fn parse_item_at(
    source: Source<'_>,
    pos: usize,
    extent: ItemExtent,
    stacks: &mut ExprStacks,
) -> ItemOutcome {
    let Source {
        text,
        parse_text,
        map,
    } = source;
    let mut diagnostics = Vec::new();
    let mut items = Vec::new();
    let after_extent = skip_trivia(text, extent.end.max(pos + 1));
    if let Some(deep) = extent.too_deep_at {
        let span = map.span(deep as u32, deep as u32 + 1);
        diagnostics.push(
            Diagnostic::error(span, "brackets are nested too deeply").with_label(format!(
                "more than {MAX_BRACKET_DEPTH} brackets are open here"
            )),
        );
        return ItemOutcome {
            items,
            diagnostics,
            next: after_extent,
        };
    }
    if let Some(nested) = extent.too_nested_at {
        let span = map.span(nested as u32, nested as u32);
        diagnostics.push(Diagnostic::error(
            span,
            "the program is nested too deeply to parse",
        ));
        return ItemOutcome {
            items,
            diagnostics,
            next: after_extent,
        };
    }
    match RpslParser::parse(Rule::item, &parse_text[pos..]) {
        Ok(mut pairs) => {
            let pair = pairs.next().expect("the item rule yields one pair");
            let consumed = pair.as_span().end();
            let mut lowerer = Lowerer::new(pos, map, &mut diagnostics, stacks);
            // An item whose lowering gave up (too deep an expression) is dropped; the error is
            // already in the diagnostics.
            if let Ok(lowered) = lowerer.item(pair) {
                items = lowered;
            }
            ItemOutcome {
                items,
                diagnostics,
                next: skip_trivia(text, pos + consumed.max(1)),
            }
        }
        Err(error) => {
            diagnostics.push(errors::syntax_error(text, parse_text, pos, map, &error));
            ItemOutcome {
                items,
                diagnostics,
                next: after_extent,
            }
        }
    }
}

/// Where the next item starts from `pos`: stray `;` between items are skipped (they are
/// harmless), and so are blanks and comments.
fn next_item_start(text: &str, mut pos: usize) -> usize {
    let bytes = text.as_bytes();
    while pos < bytes.len() && bytes[pos] == b';' {
        pos = skip_trivia(text, pos + 1);
    }
    pos
}

/// Parses every item of `source`, appending the diagnostics in source order.
pub(crate) fn parse_items(source: Source<'_>, diagnostics: &mut Vec<Diagnostic>) -> Module {
    parse_items_on(source, parse_threads(source.text.len()), diagnostics)
}

/// [`parse_items`] on `threads` threads (this one included); the result does not depend on
/// `threads`.
pub(crate) fn parse_items_on(
    source: Source<'_>,
    threads: usize,
    diagnostics: &mut Vec<Diagnostic>,
) -> Module {
    let mut stacks = ExprStacks::default();
    if threads <= 1 {
        return stitch(source, Vec::new(), &mut stacks, diagnostics);
    }
    let starts = predicted_starts(source.text);
    let outcomes = parse_in_parallel(source, &starts, threads, &mut stacks);
    let predicted = starts
        .iter()
        .map(|&(start, _)| start)
        .zip(outcomes)
        .collect();
    stitch(source, predicted, &mut stacks, diagnostics)
}

/// The environment variable that sets the most parser threads (`1` parses on one thread; for
/// profiling and comparisons: the result never depends on it).
pub(crate) const PARSE_THREADS_VAR: &str = "RPSL_PARSE_THREADS";

/// The most threads [`PARSE_THREADS_VAR`] may ask for.
const MAX_REQUESTED_THREADS: usize = 64;

/// How many threads to parse a text of `len` bytes with: as many as the machine runs at once, at
/// most [`MAX_PARSE_THREADS`] (or what [`PARSE_THREADS_VAR`] asks for), and no more than one per
/// [`MIN_BYTES_PER_THREAD`].
fn parse_threads(len: usize) -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    let limit = *LIMIT.get_or_init(|| {
        let requested = std::env::var(PARSE_THREADS_VAR)
            .ok()
            .and_then(|value| value.trim().parse::<usize>().ok());
        match requested {
            Some(threads) => threads.min(MAX_REQUESTED_THREADS),
            None => std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(MAX_PARSE_THREADS),
        }
    });
    limit.min(len / MIN_BYTES_PER_THREAD).max(1)
}

/// The item starts the extents predict (each item ending where its extent ends), with the
/// extents.
fn predicted_starts(text: &str) -> Vec<(usize, ItemExtent)> {
    let mut starts = Vec::new();
    let mut pos = next_item_start(text, skip_trivia(text, 0));
    while pos < text.len() {
        let extent = scan_item_extent(text, pos);
        let next = next_item_start(text, skip_trivia(text, extent.end.max(pos + 1)));
        starts.push((pos, extent));
        pos = next;
    }
    starts
}

/// Parses the items at `starts` on `threads` threads (this one included), largest first; the
/// outcomes are in the order of `starts`.
fn parse_in_parallel(
    source: Source<'_>,
    starts: &[(usize, ItemExtent)],
    threads: usize,
    stacks: &mut ExprStacks,
) -> Vec<ItemOutcome> {
    // Largest items first, so that the last ones to finish are small.
    let mut order: Vec<usize> = (0..starts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(starts[i].1.end.saturating_sub(starts[i].0)));
    let next_job = AtomicUsize::new(0);
    let work = |stacks: &mut ExprStacks| {
        let mut done = Vec::new();
        loop {
            let job = next_job.fetch_add(1, Ordering::Relaxed);
            let Some(&index) = order.get(job) else {
                return done;
            };
            let (start, extent) = starts[index];
            done.push((index, parse_item_at(source, start, extent, stacks)));
        }
    };
    let mut slots: Vec<Option<ItemOutcome>> = starts.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name("rpsl-parse".to_string())
                    .stack_size(HELPER_STACK_BYTES)
                    .spawn_scoped(scope, || work(&mut ExprStacks::default()))
                    .ok()
            })
            .collect();
        for (index, outcome) in work(stacks) {
            slots[index] = Some(outcome);
        }
        for helper in helpers {
            match helper.join() {
                Ok(done) => {
                    for (index, outcome) in done {
                        slots[index] = Some(outcome);
                    }
                }
                // The parser never panics; if it did, the panic carries on in the caller.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.expect("every predicted item was parsed"))
        .collect()
}

/// Follows the sequential rule from the first item to the end of the text, taking the outcome
/// of each item from `predicted` (start, outcome; in order of start) when the item starts where
/// it was predicted, and parsing it here otherwise.
fn stitch(
    source: Source<'_>,
    predicted: Vec<(usize, ItemOutcome)>,
    stacks: &mut ExprStacks,
    diagnostics: &mut Vec<Diagnostic>,
) -> Module {
    let text = source.text;
    let mut module = Module::default();
    let mut predicted = predicted.into_iter().peekable();
    let mut pos = next_item_start(text, skip_trivia(text, 0));
    while pos < text.len() {
        while predicted.next_if(|(start, _)| *start < pos).is_some() {}
        let outcome = match predicted.next_if(|(start, _)| *start == pos) {
            Some((_, outcome)) => outcome,
            None => parse_item_at(source, pos, scan_item_extent(text, pos), stacks),
        };
        module.items.extend(outcome.items);
        diagnostics.extend(outcome.diagnostics);
        pos = next_item_start(text, outcome.next);
    }
    module
}
