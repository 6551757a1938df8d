//! "Did you mean `y`?" suggestions: the closest visible name by edit distance.

/// The Levenshtein distance between two names, compared case-insensitively for letters (a case
/// difference still costs half a step, so an exact-case match wins ties).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Distances are kept doubled so that case-only differences cost 1 (half an edit).
    let mut previous: Vec<usize> = (0..=b.len()).map(|j| j * 2).collect();
    let mut current = vec![0usize; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        current[0] = (i + 1) * 2;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = if ca == cb {
                0
            } else if ca.eq_ignore_ascii_case(&cb) {
                1
            } else {
                2
            };
            current[j + 1] = (previous[j] + substitution)
                .min(previous[j + 1] + 2)
                .min(current[j] + 2);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// Names longer than this many characters get no suggestion and are never suggested: the search
/// stays within 64 x 64 steps per candidate whatever the source holds.
pub const MAX_SUGGESTION_CHARS: usize = 64;

/// The number of characters of `name`, or `None` past [`MAX_SUGGESTION_CHARS`] (without counting
/// a long name to its end).
pub(crate) fn suggestion_length(name: &str) -> Option<usize> {
    if name.len() > 4 * MAX_SUGGESTION_CHARS {
        return None;
    }
    let length = name.chars().count();
    (length <= MAX_SUGGESTION_CHARS).then_some(length)
}

/// The candidate closest to `wanted`, if one is close enough to be a plausible typo: at most one
/// edit for names of 3 or 4 characters, two up to 8, then a third of the length; names of 1 or 2
/// characters only match a different capitalization. Candidates whose length alone differs by
/// more than that are not compared; names longer than [`MAX_SUGGESTION_CHARS`] take no part.
///
/// ```
/// use rpsl_frontend::sema::suggest::closest;
/// assert_eq!(closest("mip", ["mips", "array", "desc"].iter().copied()), Some("mips"));
/// assert_eq!(closest("zzz", ["mips", "array"].iter().copied()), None);
/// ```
pub fn closest<'a>(wanted: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let length = suggestion_length(wanted)?;
    let allowed = match length {
        0..=2 => 1,
        3..=4 => 2,
        5..=8 => 4,
        _ => (length / 3) * 2,
    };
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate == wanted || candidate.starts_with("__") {
            continue;
        }
        // Each character of length difference costs a whole edit (2 in doubled units).
        match suggestion_length(candidate) {
            Some(candidate_length) if candidate_length.abs_diff(length) * 2 <= allowed => {}
            _ => continue,
        }
        let d = distance(wanted, candidate);
        if d <= allowed && best.is_none_or(|(bd, bn)| d < bd || (d == bd && candidate < bn)) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, name)| name)
}

/// The `did you mean `x`?` help text for the closest candidate, if any.
pub fn did_you_mean<'a>(wanted: &str, candidates: impl Iterator<Item = &'a str>) -> Option<String> {
    closest(wanted, candidates).map(|name| format!("did you mean `{name}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("abc", "abc"), 0);
        assert_eq!(distance("abc", "abd"), 2);
        assert_eq!(distance("abc", "Abc"), 1);
        assert_eq!(distance("", "ab"), 4);
    }

    #[test]
    fn picks_closest() {
        let names = ["backbuffer", "backBuffer2", "width", "height"];
        assert_eq!(
            closest("backbufer", names.iter().copied()),
            Some("backbuffer")
        );
        assert_eq!(closest("widht", names.iter().copied()), Some("width"));
        assert_eq!(closest("q", names.iter().copied()), None);
    }

    #[test]
    fn long_names_take_no_part() {
        let long = "a".repeat(MAX_SUGGESTION_CHARS + 1);
        let typo = format!("{}b", &long[1..]);
        assert_eq!(closest(&typo, [long.as_str()].into_iter()), None);
        let longest = "a".repeat(MAX_SUGGESTION_CHARS);
        let typo = format!("{}b", &longest[1..]);
        assert_eq!(
            closest(&typo, [longest.as_str()].into_iter()),
            Some(longest.as_str())
        );
        // A megabyte-long name is not even counted against the candidates.
        let huge = "x".repeat(1 << 20);
        assert_eq!(closest(&huge, [huge.as_str(), "x"].into_iter()), None);
    }
}
