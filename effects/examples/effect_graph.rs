//! Prints the render graph of an effect as rpsl's JSON frame dump (the format of `rpsl graph`),
//! compiled by the frame compiler:
//! `cargo run -p rpsl-effects --example effect_graph -- EFFECT WIDTHxHEIGHT [OUT_WIDTHxOUT_HEIGHT]`.
//! Effects with `//!SOURCE` textures are refused: loading their images comes later.

use rpsl_effects::{
    parse_effect_file, pass_declarations, record_effect, resolve_sizes, EffectBindings,
};
use rpsl_runtime::{
    dump_frame_json, CompileOptions, Format, FrameCompiler, GraphBuilder, ResourceDesc,
};

fn size(text: &str) -> Option<[u32; 2]> {
    let (width, height) = text.split_once('x')?;
    Some([width.parse().ok()?, height.parse().ok()?])
}

fn run() -> Result<String, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(path), Some(input)) = (args.first(), args.get(1).and_then(|s| size(s))) else {
        return Err("usage: effect_graph EFFECT WIDTHxHEIGHT [OUT_WIDTHxOUT_HEIGHT]".to_string());
    };
    let output = match args.get(2) {
        Some(text) => Some(size(text).ok_or(format!("`{text}` is not WIDTHxHEIGHT"))?),
        None => None,
    };
    let effect = parse_effect_file(path.as_ref()).map_err(|errors| errors.to_string())?;
    if let Some(source) = effect.textures.iter().find(|t| t.source.is_some()) {
        return Err(format!(
            "`{}` is loaded from an image file (//!SOURCE), which this example does not read",
            source.name
        ));
    }
    let sizes = resolve_sizes(&effect, input, output).map_err(|error| error.to_string())?;
    let mut builder = GraphBuilder::new();
    let decls: Vec<_> = pass_declarations(&effect)
        .into_iter()
        .map(|decl| builder.declare_node(decl))
        .collect();
    builder.begin_frame(0);
    let image =
        |[width, height]: [u32; 2]| ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, width, height);
    let bindings = EffectBindings {
        input: builder
            .import_external("INPUT", image(input))
            .map_err(|e| e.to_string())?,
        output: builder
            .import_external("OUTPUT", image(sizes.output))
            .map_err(|e| e.to_string())?,
        sources: Vec::new(),
        constants: builder
            .import_external(
                "constants",
                ResourceDesc::buffer(rpsl_effects::ConstantLayout::of(&effect).size as u64),
            )
            .map_err(|e| e.to_string())?,
    };
    record_effect(&mut builder, &effect, &decls, &sizes, &bindings, 0)
        .map_err(|e| e.to_string())?;
    let graph = builder.finish().map_err(|e| e.to_string())?;
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let frame = compiler.compile(graph).map_err(|e| e.to_string())?;
    Ok(dump_frame_json(path, graph, Some(frame)))
}

fn main() {
    match run() {
        Ok(json) => print!("{json}"),
        Err(message) => {
            eprintln!("error: {message}");
            std::process::exit(1);
        }
    }
}
