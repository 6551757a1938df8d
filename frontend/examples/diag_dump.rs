//! Differential-testing helper: prints the rendered diagnostics of every script named on the
//! command line (one block per file), for comparing two builds of the frontend.

fn main() {
    for path in std::env::args().skip(1) {
        let text = match std::fs::read(&path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(err) => {
                println!("== {path}\ncannot read: {err}");
                continue;
            }
        };
        let compilation = rpsl_frontend::check_source(&path, &text);
        println!("== {path} errors={}", compilation.has_errors());
        print!("{}", compilation.render_diagnostics());
    }
}
