//! A mutation fuzzer for the whole pipeline: source -> check -> lower -> both engines -> frame
//! compile -> null backend. Shared by the bounded CI run (`tests/fuzz_pipeline.rs`) and the long
//! run (`RPSL_FUZZ_SECONDS=1800 cargo test --test fuzz_pipeline -- --nocapture`).
//!
//! Each input is a seed script (the repository's test, example and benchmark scripts and AMD's
//! corpus) changed by a few mutations that mostly keep it well-formed (numbers, formats, view
//! methods, lines and identifiers swapped) and some that break it (byte edits, token soup). For
//! every input the pipeline must:
//! - never panic, and never take longer than the watchdog allows;
//! - report every frame failure as a located diagnostic (`PATH:LINE:COL: error: ...`);
//! - give identical outcomes under the JIT and the interpreter (dumps, null-backend logs and
//!   diagnostics, frame by frame).
#![allow(dead_code)]

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use rpsl::runtime::{dump_frame_json, Backend, GraphLimits, NullBackend};
use rpsl::vm::Limits;
use rpsl::{EntryArgs, Mode, Program, Session, SessionOptions};

/// Frames run per entry point and engine.
const FRAMES: usize = 2;
/// Entry points tried per input.
const ENTRIES: usize = 2;

/// Tokens inserted by the byte-level mutation: syntax, directives, keywords, odd bytes.
pub const TOKENS: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    ".",
    "=",
    "+=",
    "<<",
    "?",
    ":",
    "#define X(a) a a",
    "#if",
    "#endif",
    "#include \"x\"",
    "/*",
    "*/",
    "//",
    "0x",
    "1e",
    "9999999999999999999999",
    "texture",
    "node",
    "async",
    "null",
    ".mips(",
    "[subgraph(atomic)]",
    "struct",
    "return",
    "break;",
    "switch",
    "case",
    "\\\n",
    "\"",
    "'",
    "\u{0}",
    "\u{ff}",
    "SV_Target9",
    "[readonly(",
    "out",
    "inout",
    "sizeof(",
];

/// Numbers swapped into scripts: edges of every integer width, zero, huge and negative values.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "7",
    "16",
    "255",
    "256",
    "1023",
    "4096",
    "16384",
    "65535",
    "65536",
    "2147483647",
    "4294967295",
    "-1",
    "-2147483648",
    "0.5",
    "1e30",
    "-0.0",
];

/// View derivations appended to a texture or buffer expression.
const VIEW_METHODS: &[&str] = &[
    ".mips(1)",
    ".mips(0, 2)",
    ".mips(3, 1)",
    ".array(1)",
    ".array(0, 2)",
    ".temporal(1)",
    ".temporal(3)",
    ".format(RPS_FORMAT_R8G8B8A8_UNORM)",
    ".format(RPS_FORMAT_R32_UINT)",
    ".format(RPS_FORMAT_D32_FLOAT)",
    ".format(RPS_FORMAT_D24_UNORM_S8_UINT)",
    ".format(RPS_FORMAT_R16G16B16A16_FLOAT)",
    ".format(RPS_FORMAT_BC1_UNORM)",
    ".bytes(0, 256)",
    ".bytes(4, 4)",
    ".elements(1, 2)",
];

/// Formats swapped for other formats.
const FORMATS: &[&str] = &[
    "RPS_FORMAT_R8G8B8A8_UNORM",
    "RPS_FORMAT_R8G8B8A8_UNORM_SRGB",
    "RPS_FORMAT_B8G8R8A8_UNORM",
    "RPS_FORMAT_R16G16B16A16_FLOAT",
    "RPS_FORMAT_R32G32B32A32_FLOAT",
    "RPS_FORMAT_R32_UINT",
    "RPS_FORMAT_R32_FLOAT",
    "RPS_FORMAT_R11G11B10_FLOAT",
    "RPS_FORMAT_R10G10B10A2_UNORM",
    "RPS_FORMAT_D32_FLOAT",
    "RPS_FORMAT_D16_UNORM",
    "RPS_FORMAT_D24_UNORM_S8_UINT",
    "RPS_FORMAT_D32_FLOAT_S8X24_UINT",
    "RPS_FORMAT_BC1_UNORM",
    "RPS_FORMAT_BC7_UNORM",
    "RPS_FORMAT_UNKNOWN",
];

/// A small deterministic random source (splitmix64), so a failure reproduces from its seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// One element of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// One word of a word list.
    pub fn word(&mut self, words: &[&'static str]) -> &'static str {
        words[self.below(words.len())]
    }
}

/// The seed scripts: every `.rpsl` file under the repository's `tests/` and `scripts/` folders and
/// AMD's corpus beside the repository, in a fixed order.
pub fn seed_scripts() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in ["tests", "scripts", "../shared/corpus/rps-sdk"] {
        collect_scripts(&root.join(dir), &mut paths);
    }
    paths.sort();
    let texts: Vec<String> = paths
        .iter()
        .filter_map(|path| fs::read_to_string(path).ok())
        .collect();
    assert!(!texts.is_empty(), "no seed scripts found");
    texts
}

fn collect_scripts(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_scripts(&path, out);
        } else if path.extension().is_some_and(|e| e == "rpsl") {
            out.push(path);
        }
    }
}

/// Byte offsets of the starts of `text`'s lines.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&i| i < text.len())
        .collect()
}

/// The byte ranges of the words (identifiers and numbers) in `text`.
fn words(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

fn replace_range(text: &str, start: usize, end: usize, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..start]);
    out.push_str(with);
    out.push_str(&text[end..]);
    out
}

/// The largest char boundary at or below `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Applies one random mutation to `text`; `donors` are other scripts for splicing.
pub fn mutate(text: &str, donors: &[String], rng: &mut Rng) -> String {
    let len = text.len().max(1);
    match rng.below(10) {
        // A number replaced by an edge value.
        0 | 1 => {
            let numbers: Vec<_> = words(text)
                .into_iter()
                .filter(|&(s, _)| text.as_bytes()[s].is_ascii_digit())
                .collect();
            match numbers.is_empty() {
                true => text.to_string(),
                false => {
                    let (s, e) = *rng.pick(&numbers);
                    replace_range(text, s, e, rng.word(NUMBERS))
                }
            }
        }
        // An identifier replaced by another identifier of the same script.
        2 => {
            let idents: Vec<_> = words(text)
                .into_iter()
                .filter(|&(s, _)| !text.as_bytes()[s].is_ascii_digit())
                .collect();
            match idents.len() < 2 {
                true => text.to_string(),
                false => {
                    let (s, e) = *rng.pick(&idents);
                    let (ds, de) = *rng.pick(&idents);
                    let with = text[ds..de].to_string();
                    replace_range(text, s, e, &with)
                }
            }
        }
        // A view derivation appended after an identifier.
        3 => {
            let idents: Vec<_> = words(text)
                .into_iter()
                .filter(|&(s, _)| !text.as_bytes()[s].is_ascii_digit())
                .collect();
            match idents.is_empty() {
                true => text.to_string(),
                false => {
                    let (_, e) = *rng.pick(&idents);
                    replace_range(text, e, e, rng.word(VIEW_METHODS))
                }
            }
        }
        // A format replaced by another.
        4 => match text
            .match_indices("RPS_FORMAT_")
            .map(|(i, _)| i)
            .collect::<Vec<_>>()
        {
            starts if starts.is_empty() => text.to_string(),
            starts => {
                let s = *rng.pick(&starts);
                let e = s + text[s..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(text.len() - s);
                replace_range(text, s, e, rng.word(FORMATS))
            }
        },
        // A line deleted or duplicated.
        5 | 6 => {
            let starts = line_starts(text);
            if starts.is_empty() {
                return text.to_string();
            }
            let i = rng.below(starts.len());
            let s = starts[i];
            let e = starts.get(i + 1).copied().unwrap_or(text.len());
            let line = text[s..e].to_string();
            match rng.below(2) {
                0 => replace_range(text, s, e, ""),
                _ => replace_range(text, s, s, &line),
            }
        }
        // A line spliced in from another script.
        7 => {
            let donor = rng.pick(donors);
            let lines = line_starts(donor);
            let starts = line_starts(text);
            if lines.is_empty() || starts.is_empty() {
                return text.to_string();
            }
            let i = rng.below(lines.len());
            let line = &donor[lines[i]..lines.get(i + 1).copied().unwrap_or(donor.len())];
            let at = *rng.pick(&starts);
            let mut line = line.to_string();
            if !line.ends_with('\n') {
                line.push('\n');
            }
            replace_range(text, at, at, &line)
        }
        // A token inserted at any char boundary.
        8 => {
            let at = floor_boundary(text, rng.below(len));
            replace_range(text, at, at, rng.word(TOKENS))
        }
        // A byte range deleted.
        _ => {
            let at = floor_boundary(text, rng.below(len));
            let end = floor_boundary(text, at + rng.below(24));
            replace_range(text, at, end, "")
        }
    }
}

/// What one engine made of one entry point: per frame, the dump and the null backend's log, or
/// the rendered diagnostic.
fn run_engine(program: &Program, entry: &str, mode: Mode) -> Result<Vec<String>, String> {
    let options = SessionOptions {
        mode,
        jit_tier_up: false,
        limits: Limits {
            step_budget: 2_000_000,
            ..Limits::default()
        },
        graph_limits: GraphLimits {
            max_nodes: 50_000,
            max_resources: 50_000,
            max_accesses: 200_000,
            max_dependencies: 200_000,
            max_scopes: 50_000,
            max_argument_bytes: 16 << 20,
        },
        ..SessionOptions::default()
    };
    let mut session = Session::new(program, Some(entry), options).map_err(|e| e.message())?;
    let args = EntryArgs::defaults(session.entry());
    let mut backend = NullBackend {
        allow_unbound: true,
        ..NullBackend::default()
    };
    let mut frames = Vec::new();
    for _ in 0..FRAMES {
        match session.run_frame(&args) {
            Ok(frame) => {
                let mut out = dump_frame_json(entry, frame.graph, Some(frame.compiled));
                match backend.execute_frame(frame.graph, frame.compiled) {
                    Ok(()) => write!(out, "\n{:?}", backend.log).unwrap(),
                    Err(error) => write!(out, "\nnull backend: {error}").unwrap(),
                }
                frames.push(out);
            }
            Err(error) => {
                let rendered = error.render();
                let first = rendered.lines().next().unwrap_or("");
                let located = first.split(": error: ").next().is_some_and(|place| {
                    place.starts_with("fuzz.rpsl:") && place.matches(':').count() == 2
                });
                if !located {
                    return Err(format!("unlocated frame error: {rendered}"));
                }
                frames.push(rendered);
            }
        }
    }
    Ok(frames)
}

/// A finding: what went wrong with which input.
#[derive(Debug)]
pub struct Finding {
    /// What went wrong.
    pub problem: String,
    /// The script.
    pub text: String,
}

/// Statistics of a run.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    /// Inputs tried.
    pub inputs: u64,
    /// Inputs the frontend accepted (they were lowered and run).
    pub accepted: u64,
    /// Frames that compiled under both engines.
    pub frames_compiled: u64,
    /// Frames that failed with a located diagnostic under both engines.
    pub frames_failed: u64,
}

/// Runs one input through the whole pipeline; `Err` is a finding.
pub fn run_one(text: &str, stats: &mut Stats) -> Result<(), String> {
    stats.inputs += 1;
    let compilation = rpsl::check_source("fuzz.rpsl", text);
    let _ = compilation.render_diagnostics();
    if compilation.has_errors() {
        return Ok(());
    }
    let program = match Program::from_compilation(compilation) {
        Ok(program) => program,
        Err(error) => {
            let message = error.to_string();
            if message.contains("internal error") {
                return Err(format!("internal error from the lowering: {message}"));
            }
            return Ok(());
        }
    };
    stats.accepted += 1;
    let entries: Vec<String> = program
        .entries()
        .iter()
        .take(ENTRIES)
        .map(|e| e.name.clone())
        .collect();
    for entry in entries {
        let jit = run_engine(&program, &entry, Mode::Jit)?;
        let interp = run_engine(&program, &entry, Mode::Interp)?;
        if jit != interp {
            let differs = jit
                .iter()
                .zip(&interp)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Err(format!(
                "the JIT and the interpreter disagree on entry `{entry}`, frame {differs}:\n--- jit\n{}\n--- interp\n{}",
                jit.get(differs).map_or("", |s| s.as_str()),
                interp.get(differs).map_or("", |s| s.as_str()),
            ));
        }
        for frame in &jit {
            match frame.starts_with('{') {
                true => stats.frames_compiled += 1,
                false => stats.frames_failed += 1,
            }
        }
    }
    Ok(())
}

/// Fuzzes from `seed` until `deadline` or `max_inputs`, whichever comes first. Each input runs
/// under a watchdog: one that takes longer than `input_timeout` aborts the process after printing
/// the script (a hang is a finding too).
pub fn fuzz(
    seed: u64,
    deadline: std::time::Instant,
    max_inputs: u64,
    input_timeout: std::time::Duration,
) -> (Stats, Vec<Finding>) {
    // Scripts the frontend accepts as they are: most mutations of them still reach the runtime.
    let seeds: Vec<String> = seed_scripts()
        .into_iter()
        .filter(|text| !rpsl::check_source("fuzz.rpsl", text).has_errors())
        .collect();
    let mut rng = Rng::new(seed);
    let mut stats = Stats::default();
    let mut findings = Vec::new();
    let current = std::sync::Arc::new(std::sync::Mutex::new((
        std::time::Instant::now(),
        String::new(),
    )));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let current = current.clone();
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(200));
                let guard = current.lock().unwrap_or_else(|e| e.into_inner());
                if guard.0.elapsed() > input_timeout {
                    eprintln!(
                        "pipeline fuzz: an input ran for more than {input_timeout:?} (a hang):\n{}",
                        guard.1
                    );
                    std::process::abort();
                }
            }
        })
    };
    while std::time::Instant::now() < deadline && stats.inputs < max_inputs {
        let mut text = rng.pick(&seeds).clone();
        for _ in 0..1 + rng.below(4) {
            text = mutate(&text, &seeds, &mut rng);
        }
        *current.lock().unwrap_or_else(|e| e.into_inner()) =
            (std::time::Instant::now(), text.clone());
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut local = stats;
            let result = run_one(&text, &mut local);
            (local, result)
        }));
        match outcome {
            Ok((local, Ok(()))) => stats = local,
            Ok((local, Err(problem))) => {
                stats = local;
                findings.push(Finding { problem, text });
            }
            Err(panic) => {
                stats.inputs += 1;
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                findings.push(Finding {
                    problem: format!("panic: {message}"),
                    text,
                });
            }
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = watchdog.join();
    (stats, findings)
}
