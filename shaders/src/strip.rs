//! Removing `SPV_GOOGLE_hlsl_functionality1` from a module once reflection has read it: the
//! extension only carries HLSL semantics (`UserSemantic`) and counter-buffer links
//! (`HlslCounterBufferGOOGLE`), which no driver needs, and a device without
//! `VK_GOOGLE_hlsl_functionality1` must not be given it.

const OP_EXTENSION: u32 = 10;
const OP_DECORATE_ID: u32 = 332;
const OP_DECORATE_STRING: u32 = 5632;
const OP_MEMBER_DECORATE_STRING: u32 = 5633;
const DECORATION_HLSL_COUNTER_BUFFER: u32 = 5634;
const DECORATION_USER_SEMANTIC: u32 = 5635;
const EXTENSIONS: [&str; 2] = [
    "SPV_GOOGLE_hlsl_functionality1",
    "SPV_GOOGLE_decorate_string",
];

/// Whether the instruction `words` (opcode word first) belongs to the extension.
fn is_hlsl_functionality1(words: &[u32]) -> bool {
    let opcode = words[0] & 0xffff;
    match opcode {
        OP_EXTENSION => {
            let bytes: Vec<u8> = words[1..]
                .iter()
                .flat_map(|word| word.to_le_bytes())
                .take_while(|byte| *byte != 0)
                .collect();
            EXTENSIONS.iter().any(|name| name.as_bytes() == bytes)
        }
        OP_DECORATE_STRING => words.get(2) == Some(&DECORATION_USER_SEMANTIC),
        OP_MEMBER_DECORATE_STRING => words.get(3) == Some(&DECORATION_USER_SEMANTIC),
        OP_DECORATE_ID => words.get(2) == Some(&DECORATION_HLSL_COUNTER_BUFFER),
        _ => false,
    }
}

/// `words` without the extension's declaration and decorations (unchanged when it has none;
/// a malformed stream is returned as it is, for the driver's validation to report).
pub(crate) fn strip_hlsl_functionality1(words: Vec<u32>) -> Vec<u32> {
    if words.len() < 5 {
        return words;
    }
    let mut kept = words[..5].to_vec();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return words;
        }
        let instruction = &words[at..at + count];
        if !is_hlsl_functionality1(instruction) {
            kept.extend_from_slice(instruction);
        }
        at += count;
    }
    kept
}
