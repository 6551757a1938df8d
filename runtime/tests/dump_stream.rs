//! The JSON dump streams: dumping a frame of 200,000 nodes (compiled: schedule, barriers,
//! render passes) allocates a bounded amount whatever the graph's size, and the writer receives
//! the text in small pieces as the frame is walked. (One test in this binary: the allocation
//! counter is process-wide.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

use rpsl_runtime::shapes::{declare_shapes, record_chain};
use rpsl_runtime::*;

/// The system allocator, counting the bytes live and the most live at once.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` with the caller's layout; the counters are
// plain atomics and never affect the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's (valid, non-zero-sized) layout.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: `block` came from `alloc` above with this layout.
        unsafe { System.dealloc(block, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Discards the text, keeping its size, the number of writes and the largest one.
#[derive(Default)]
struct Sink {
    bytes: usize,
    writes: usize,
    largest: usize,
}

impl Write for Sink {
    fn write(&mut self, text: &[u8]) -> io::Result<usize> {
        self.bytes += text.len();
        self.writes += 1;
        self.largest = self.largest.max(text.len());
        Ok(text.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_large_frame_dumps_in_bounded_memory() {
    const NODES: u32 = 200_000;
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    builder.begin_frame(0);
    record_chain(&mut builder, decls, NODES).unwrap();
    let graph = builder.finish().unwrap().clone();
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let compiled = compiler.compile(&graph).unwrap();
    assert_eq!(compiled.order.len(), NODES as usize);

    let live_before = LIVE.load(Ordering::Relaxed);
    PEAK.store(live_before, Ordering::Relaxed);
    let sink = write_frame_json(Sink::default(), "chain", &graph, Some(compiled)).unwrap();
    let grown = PEAK.load(Ordering::Relaxed) - live_before;

    // Roughly 0.5 KiB of text per node: a document of ~100 MB...
    assert!(sink.bytes > 50 << 20, "dumped {} bytes", sink.bytes);
    // ...written while at most 64 KiB more were ever allocated (short-lived names and
    // numbers), where building the text first would hold all of it.
    assert!(
        grown < 64 << 10,
        "the dump allocated {grown} bytes at its peak"
    );
    // ...and handed over in small pieces as it goes.
    assert!(
        sink.largest <= 4096,
        "a write of {} bytes (of {} in {} writes)",
        sink.largest,
        sink.bytes,
        sink.writes
    );
    assert!(sink.writes > 1_000_000, "{} writes", sink.writes);
}
