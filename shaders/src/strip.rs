//! Removing `SPV_GOOGLE_hlsl_functionality1` from a module once reflection has read it: the
//! extension only carries HLSL semantics (`UserSemantic`) and counter-buffer links
//! (`HlslCounterBufferGOOGLE`), which no driver needs, and a device without
//! `VK_GOOGLE_hlsl_functionality1` must not be given it. `SPV_GOOGLE_user_type` (`UserTypeGOOGLE`
//! strings), which newer glslang versions add next to it, goes too.

const OP_EXTENSION: u32 = 10;
const OP_DECORATE_ID: u32 = 332;
const OP_DECORATE_STRING: u32 = 5632;
const OP_MEMBER_DECORATE_STRING: u32 = 5633;
const DECORATION_HLSL_COUNTER_BUFFER: u32 = 5634;
const DECORATION_USER_SEMANTIC: u32 = 5635;
const DECORATION_USER_TYPE: u32 = 5636;
const EXTENSIONS: [&str; 3] = [
    "SPV_GOOGLE_hlsl_functionality1",
    "SPV_GOOGLE_decorate_string",
    "SPV_GOOGLE_user_type",
];

/// Whether a string decoration belongs to the removed extensions.
fn is_google_string(decoration: Option<&u32>) -> bool {
    matches!(
        decoration,
        Some(&DECORATION_USER_SEMANTIC) | Some(&DECORATION_USER_TYPE)
    )
}

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
        OP_DECORATE_STRING => is_google_string(words.get(2)),
        OP_MEMBER_DECORATE_STRING => is_google_string(words.get(3)),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A word-aligned, nul-terminated literal string.
    fn literal(text: &str) -> Vec<u32> {
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(0);
        while !bytes.len().is_multiple_of(4) {
            bytes.push(0);
        }
        bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn instruction(opcode: u32, operands: &[u32]) -> Vec<u32> {
        let mut words = vec![((operands.len() as u32 + 1) << 16) | opcode];
        words.extend_from_slice(operands);
        words
    }

    #[test]
    fn removes_the_extension_and_its_decorations_only() {
        let header = [0x0723_0203, 0x0001_0300, 0, 100, 0];
        let capability = instruction(17, &[1]);
        let extension = instruction(OP_EXTENSION, &literal("SPV_GOOGLE_hlsl_functionality1"));
        let other_extension = instruction(OP_EXTENSION, &literal("SPV_KHR_other"));
        let location = instruction(71, &[7, 30, 2]);
        let mut semantic = vec![7, DECORATION_USER_SEMANTIC];
        semantic.extend(literal("COLOR0"));
        let semantic = instruction(OP_DECORATE_STRING, &semantic);
        let mut member = vec![8, 1, DECORATION_USER_SEMANTIC];
        member.extend(literal("TEXCOORD1"));
        let member = instruction(OP_MEMBER_DECORATE_STRING, &member);
        let counter = instruction(OP_DECORATE_ID, &[9, DECORATION_HLSL_COUNTER_BUFFER, 10]);
        let module: Vec<u32> = [
            &header[..],
            &capability,
            &extension,
            &other_extension,
            &location,
            &semantic,
            &member,
            &counter,
        ]
        .concat();
        let expected: Vec<u32> = [&header[..], &capability, &other_extension, &location].concat();
        assert_eq!(strip_hlsl_functionality1(module), expected);
        // A malformed stream (a word count past the end) comes back unchanged.
        let broken = vec![0x0723_0203, 0, 0, 1, 0, 0x0009_0047];
        assert_eq!(strip_hlsl_functionality1(broken.clone()), broken);
    }
}
