//! Whatever an effect file holds, parsing it (and rendering its errors) returns; it never panics.

use proptest::prelude::*;

/// Pieces effect files are made of, so that random files reach deep into the parser.
const PIECES: &[&str] = &[
    "//!MAGPIE EFFECT\n",
    "//!VERSION 4\n",
    "//!PARAMETER\n",
    "//!TEXTURE\n",
    "//!SAMPLER\n",
    "//!COMMON\n",
    "//!PASS 1\n",
    "//!PASS 2\n",
    "//!IN INPUT, t\n",
    "//!OUT OUTPUT\n",
    "//!OUT t, u\n",
    "//!STYLE PS\n",
    "//!BLOCK_SIZE 8, 3\n",
    "//!NUM_THREADS 64\n",
    "//!WIDTH INPUT_WIDTH * (2\n",
    "//!HEIGHT 日本\n",
    "//!FORMAT R8_UNORM\n",
    "//!SOURCE x.png\n",
    "//!FILTER POINT\n",
    "//!DEFAULT 1\n",
    "//!MIN 0\n",
    "//!MAX 2\n",
    "//!STEP 1\n",
    "float a;\n",
    "int a;\n",
    "Texture2D t;\n",
    "Texture2D u;\n",
    "SamplerState s;\n",
    "/* open comment\n",
    "*/\n",
    "#include \"x.hlsli\"\n",
    "#include <\n",
    "\"str // \n",
    "é\r\n",
    "\u{feff}",
    "\0",
    "//!\n",
    ";",
];

fn effect_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            3 => prop::sample::select(PIECES).prop_map(str::to_string),
            1 => "\\PC{0,12}",
        ],
        0..40,
    )
    .prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn parsing_never_panics(text in effect_text()) {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("E.hlsl");
        match rpsl_effects::parse_effect_source(&path, text) {
            Ok(effect) => {
                prop_assert!(!effect.passes.is_empty());
                let _ = rpsl_effects::generate_passes(&effect, &Default::default());
            }
            Err(errors) => {
                prop_assert!(!errors.diagnostics.is_empty());
                let _ = errors.render();
            }
        }
    }
}
