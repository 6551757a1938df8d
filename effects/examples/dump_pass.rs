//! Prints the generated HLSL of one pass of an effect (development aid):
//! `cargo run -p rpsl-effects --example dump_pass -- EFFECT PASS [fp16]`.

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(pass)) = (args.next(), args.next()) else {
        eprintln!("usage: dump_pass EFFECT PASS [fp16]");
        std::process::exit(2);
    };
    let fp16 = args.next().as_deref() == Some("fp16");
    let effect = match rpsl_effects::parse_effect_file(path.as_ref()) {
        Ok(effect) => effect,
        Err(errors) => {
            eprintln!("{errors}");
            std::process::exit(1);
        }
    };
    let variant = rpsl_effects::PassVariant {
        fp16,
        inline_params: None,
        debug: false,
    };
    let passes = rpsl_effects::generate_passes(&effect, &variant);
    match pass
        .parse::<usize>()
        .ok()
        .and_then(|n| passes.get(n.wrapping_sub(1)))
    {
        Some(pass) => print!("{}", pass.source),
        None => {
            eprintln!("the effect has {} passes", passes.len());
            std::process::exit(1);
        }
    }
}
