//! Profiling harness: checks one script N times (`check_repeat PATH [N]`), so that callgrind can
//! measure the instructions of one compilation as (count(N) - count(1)) / (N - 1). With N = 0 it
//! checks the script once and prints its diagnostics.

use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: check_repeat PATH [N]");
        std::process::exit(2);
    };
    let repeats: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    let text = match std::fs::read_to_string(Path::new(&path)) {
        Ok(text) => text,
        Err(err) => {
            eprintln!("cannot read `{path}`: {err}");
            std::process::exit(2);
        }
    };
    if repeats == 0 {
        let compilation = rpsl_frontend::check_source(&path, &text);
        print!("{}", compilation.render_diagnostics());
        return;
    }
    let mut errors = 0;
    for _ in 0..repeats {
        let compilation = rpsl_frontend::check_source(&path, &text);
        if compilation.has_errors() {
            errors += 1;
        }
    }
    if errors > 0 {
        eprintln!("{errors} of {repeats} compilations had errors");
        std::process::exit(1);
    }
}
