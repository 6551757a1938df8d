//! The source map of expanded text: compact segments (binary-searched) that map any byte range of
//! the preprocessor's output back to a `Span` of an original file, plus the macro expansions.

use crate::source::{FileId, Span};

rpsl_types::define_id!(
    /// Identifies one macro expansion recorded in a [`SourceMap`].
    ExpansionId,
    "expansion"
);

/// One macro expansion: which macro, where it is defined and where it was invoked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    /// The macro's name.
    pub macro_name: String,
    /// The macro's name in its `#define`.
    pub definition: Span,
    /// The whole invocation, `NAME` or `NAME(args)`, as it appears in an original file (for an
    /// invocation written inside another macro's body, the outer invocation).
    pub invocation: Span,
    /// The expansion whose output contained this invocation's macro name, if any.
    pub parent: Option<ExpansionId>,
}

/// How the bytes of one segment map back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// Byte `out_start + k` comes from byte `start + k` of `file`.
    Linear { file: FileId, start: u32 },
    /// Every byte comes from this whole span (a macro body token maps to its invocation).
    Fixed(Span),
}

#[derive(Clone, Copy, Debug)]
struct Segment {
    out_start: u32,
    origin: Origin,
    expansion: Option<ExpansionId>,
}

/// Maps byte offsets of the expanded text back to original locations.
///
/// Text copied from a file maps byte for byte. Text produced by a macro maps to the invocation
/// (`NAME(args)`), except tokens that came from an argument, which map to where they are written in
/// the argument. [`SourceMap::expansion`] says which macro produced a byte.
#[derive(Debug, Default, Clone)]
pub struct SourceMap {
    root: Option<FileId>,
    segments: Vec<Segment>,
    expansions: Vec<Expansion>,
    out_len: u32,
}

impl SourceMap {
    /// The original span of the expanded-text range `start..end`. For text produced by a macro
    /// expansion this is the span of the macro invocation (or of the argument token). A range that
    /// starts in one file and ends in another gives the span of its start. Offsets past the end map
    /// to the end of the last piece of text.
    pub fn span(&self, start: u32, end: u32) -> Span {
        // Fast path (most spans): the range lies in one segment, found by one search.
        if start < end && end <= self.out_len {
            if let Some(idx) = self.segment_index(start) {
                let seg = self.segments[idx];
                let seg_end = self
                    .segments
                    .get(idx + 1)
                    .map_or(self.out_len, |next| next.out_start);
                if end <= seg_end {
                    return match seg.origin {
                        Origin::Linear { file, start: orig } => Span::new(
                            file,
                            orig + (start - seg.out_start),
                            orig + (end - seg.out_start),
                        ),
                        Origin::Fixed(span) => span,
                    };
                }
            }
        }
        let first = self.point(start);
        if end <= start || start >= self.out_len {
            return Span::new(first.file, first.start, first.start);
        }
        let last = self.point(end.min(self.out_len) - 1);
        first.to(last)
    }

    /// The macro expansion that produced the byte at `offset` (the innermost one), if any. Tokens
    /// substituted from a macro argument also count as produced by that macro.
    pub fn expansion(&self, offset: u32) -> Option<&Expansion> {
        let idx = self.segment_index(offset)?;
        let id = self.segments[idx].expansion?;
        self.expansions.get(id.0 as usize)
    }

    /// Every macro expansion of the run, in the order they happened.
    pub fn expansions(&self) -> &[Expansion] {
        &self.expansions
    }

    /// The expansion with this id.
    pub fn expansion_by_id(&self, id: ExpansionId) -> Option<&Expansion> {
        self.expansions.get(id.0 as usize)
    }

    /// The expansion at `offset` followed by its parents (innermost first).
    pub fn expansion_chain(&self, offset: u32) -> Vec<&Expansion> {
        let mut chain = Vec::new();
        let mut next = self.expansion(offset);
        while let Some(exp) = next {
            if chain.len() > self.expansions.len() {
                break;
            }
            chain.push(exp);
            next = exp.parent.and_then(|p| self.expansion_by_id(p));
        }
        chain
    }

    /// Number of segments (a measure of the map's size).
    pub fn segment_count(&self) -> usize {
        self.segments.len()
    }

    fn segment_index(&self, offset: u32) -> Option<usize> {
        let offset = offset.min(self.out_len.saturating_sub(1));
        let idx = self.segments.partition_point(|s| s.out_start <= offset);
        idx.checked_sub(1)
    }

    /// The one-byte span of the byte at `offset`, or a zero-width span at the end.
    fn point(&self, offset: u32) -> Span {
        let Some(idx) = self.segment_index(offset) else {
            return Span::new(self.root.unwrap_or(FileId(0)), 0, 0);
        };
        let seg = self.segments[idx];
        let past_end = offset >= self.out_len;
        match seg.origin {
            Origin::Linear { file, start } => {
                let at = start + (offset.min(self.out_len) - seg.out_start);
                if past_end {
                    // `offset.min(out_len)` already points one past the last byte.
                    Span::new(file, at, at)
                } else {
                    Span::new(file, at, at + 1)
                }
            }
            Origin::Fixed(span) if past_end => Span::new(span.file, span.end, span.end),
            Origin::Fixed(span) => span,
        }
    }
}

/// Builds a [`SourceMap`] while the output text grows.
#[derive(Debug, Default)]
pub(crate) struct MapBuilder {
    map: SourceMap,
}

impl MapBuilder {
    /// A builder for output whose empty text maps to `root`.
    pub(crate) fn new(root: FileId) -> MapBuilder {
        MapBuilder {
            map: SourceMap {
                root: Some(root),
                ..SourceMap::default()
            },
        }
    }

    /// Records that output from `out_pos` on is a verbatim copy of `file` from `orig_start` on.
    pub(crate) fn linear(&mut self, out_pos: usize, file: FileId, orig_start: u32) {
        let out_pos = out_pos as u32;
        if let Some(last) = self.map.segments.last() {
            if let (Origin::Linear { file: f, start }, None) = (last.origin, last.expansion) {
                if f == file && start + (out_pos - last.out_start) == orig_start {
                    return;
                }
            }
        }
        self.push(Segment {
            out_start: out_pos,
            origin: Origin::Linear {
                file,
                start: orig_start,
            },
            expansion: None,
        });
    }

    /// Records that output from `out_pos` on maps to the whole of `span`.
    pub(crate) fn fixed(&mut self, out_pos: usize, span: Span, expansion: Option<ExpansionId>) {
        if let Some(last) = self.map.segments.last() {
            if last.origin == Origin::Fixed(span) && last.expansion == expansion {
                return;
            }
        }
        self.push(Segment {
            out_start: out_pos as u32,
            origin: Origin::Fixed(span),
            expansion,
        });
    }

    fn push(&mut self, segment: Segment) {
        match self.map.segments.last_mut() {
            // A segment that got no bytes is replaced.
            Some(last) if last.out_start == segment.out_start => *last = segment,
            _ => self.map.segments.push(segment),
        }
    }

    /// Records a macro expansion and returns its id.
    pub(crate) fn add_expansion(&mut self, expansion: Expansion) -> ExpansionId {
        self.map.expansions.push(expansion);
        ExpansionId(self.map.expansions.len() as u32 - 1)
    }

    /// Forgets all segments (the output was discarded); expansions are kept.
    pub(crate) fn clear_segments(&mut self) {
        self.map.segments.clear();
    }

    /// The finished map for output of `out_len` bytes.
    pub(crate) fn finish(mut self, out_len: usize) -> SourceMap {
        self.map.out_len = out_len as u32;
        if let Some(last) = self.map.segments.last() {
            if last.out_start >= out_len as u32 && self.map.segments.len() > 1 {
                self.map.segments.pop();
            }
        }
        self.map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_segments_merge_and_map() {
        let mut builder = MapBuilder::new(FileId(0));
        builder.linear(0, FileId(0), 0);
        builder.linear(5, FileId(0), 5);
        builder.fixed(10, Span::new(FileId(0), 20, 30), None);
        builder.fixed(12, Span::new(FileId(0), 20, 30), None);
        builder.linear(14, FileId(1), 3);
        let map = builder.finish(20);
        assert_eq!(map.segment_count(), 3);
        assert_eq!(map.span(2, 4), Span::new(FileId(0), 2, 4));
        assert_eq!(map.span(11, 13), Span::new(FileId(0), 20, 30));
        assert_eq!(map.span(15, 16), Span::new(FileId(1), 4, 5));
        assert_eq!(map.span(20, 20), Span::new(FileId(1), 9, 9));
        assert_eq!(map.span(25, 30), Span::new(FileId(1), 9, 9));
    }

    #[test]
    fn empty_map_points_at_root() {
        let map = MapBuilder::new(FileId(3)).finish(0);
        assert_eq!(map.span(0, 0), Span::new(FileId(3), 0, 0));
        assert_eq!(map.span(4, 9), Span::new(FileId(3), 0, 0));
        assert!(map.expansion(0).is_none());
    }
}
