//! The lexical layer of an effect file: its lines, with comments blanked out, and the directive
//! lines (`//!NAME ARGUMENTS`) among them.

/// One line of the file (without its line break).
#[derive(Clone, Debug)]
pub struct Line<'a> {
    /// Byte offset of the line's first character in the file.
    pub start: usize,
    /// The line as written.
    pub text: &'a str,
    /// The line with comments (and only comments) replaced by spaces; same length as `text`.
    pub code: String,
    /// Whether the line begins inside a `/* */` comment.
    pub starts_in_comment: bool,
}

impl Line<'_> {
    /// Whether the line holds anything but comments and white space.
    pub fn has_code(&self) -> bool {
        !self.code.trim().is_empty()
    }
}

/// A directive line `//!NAME ARGUMENTS`.
#[derive(Clone, Debug)]
pub struct Directive<'a> {
    /// The name (`PASS`, `WIDTH`, ...).
    pub name: &'a str,
    /// Byte range of `//!NAME` in the file.
    pub name_range: (usize, usize),
    /// The arguments, trimmed (may be empty).
    pub args: &'a str,
    /// Byte range of the trimmed arguments (empty range right after the name when there are none).
    pub args_range: (usize, usize),
}

/// Splits `text` into lines (`\n` or `\r\n`), blanking comments while tracking `/* */` across lines
/// and skipping string and character literals.
pub fn split_lines(text: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut in_block_comment = false;
    let mut start = 0;
    for raw in text.split_inclusive('\n') {
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let starts_in_comment = in_block_comment;
        let code = blank_comments(line, &mut in_block_comment);
        lines.push(Line {
            start,
            text: line,
            code,
            starts_in_comment,
        });
        start += raw.len();
    }
    lines
}

/// `line` with its comments replaced by spaces (one space per byte, so offsets stay valid);
/// `in_block_comment` carries an unfinished `/* */` to the next line.
fn blank_comments(line: &str, in_block_comment: &mut bool) -> String {
    let blank = |code: &mut String, c: char| code.extend(std::iter::repeat_n(' ', c.len_utf8()));
    let mut code = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if *in_block_comment {
            if c == '*' && chars.peek() == Some(&'/') {
                chars.next();
                code.push_str("  ");
                *in_block_comment = false;
            } else {
                blank(&mut code, c);
            }
            continue;
        }
        if let Some(open) = quote {
            code.push(c);
            if c == '\\' {
                if let Some(escaped) = chars.next() {
                    code.push(escaped);
                }
            } else if c == open {
                quote = None;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                blank(&mut code, c);
                for rest in chars.by_ref() {
                    blank(&mut code, rest);
                }
            }
            ('/', Some('*')) => {
                chars.next();
                code.push_str("  ");
                *in_block_comment = true;
            }
            ('"' | '\'', _) => {
                quote = Some(c);
                code.push(c);
            }
            _ => code.push(c),
        }
    }
    code
}

/// The directive on `line`, if it is one: optional leading white space, then `//!`, outside any
/// `/* */` comment. The name runs to the first white space.
pub fn directive<'a>(line: &Line<'a>) -> Option<Directive<'a>> {
    if line.starts_in_comment {
        return None;
    }
    let indent = line.text.len() - line.text.trim_start().len();
    let rest = line.text[indent..].strip_prefix("//!")?;
    let name_start = indent + 3;
    let name_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let name = &rest[..name_len];
    let after = &rest[name_len..];
    let args = after.trim();
    let args_offset = if args.is_empty() {
        name_start + name_len
    } else {
        name_start + name_len + (after.len() - after.trim_start().len())
    };
    Some(Directive {
        name,
        name_range: (line.start + indent, line.start + name_start + name_len),
        args,
        args_range: (
            line.start + args_offset,
            line.start + args_offset + args.len(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_blanked_in_place() {
        let text = "float a; // note\r\n/* x\n still */ int b; \"//s\"\n//!PASS 1\n";
        let lines = split_lines(text);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0].text, "float a; // note");
        assert_eq!(lines[0].code, "float a;        ");
        assert_eq!(lines[1].code, "    ");
        assert!(lines[2].starts_in_comment);
        assert_eq!(lines[2].code, "          int b; \"//s\"");
        assert_eq!(lines[3].start, text.find("//!PASS").unwrap());
        assert!(!lines[3].has_code());
    }

    #[test]
    fn non_ascii_comments_keep_byte_lengths() {
        let lines = split_lines("int a; // 描述\n");
        assert_eq!(lines[0].code.len(), lines[0].text.len());
        assert_eq!(lines[0].code.trim(), "int a;");
    }

    #[test]
    fn directives_with_and_without_arguments() {
        let lines = split_lines("  //!WIDTH  INPUT_WIDTH * 2 \n//!COMMON\n/*\n//!PASS 1\n*/\n");
        let width = directive(&lines[0]).unwrap();
        assert_eq!(width.name, "WIDTH");
        assert_eq!(width.args, "INPUT_WIDTH * 2");
        assert_eq!(width.name_range, (2, 10));
        assert_eq!(width.args_range, (12, 27));
        let common = directive(&lines[1]).unwrap();
        assert_eq!((common.name, common.args), ("COMMON", ""));
        assert_eq!(common.args_range, (38, 38));
        assert!(directive(&lines[3]).is_none());
    }
}
