//! A tiny deterministic JSON writer that streams into any [`io::Write`]: fields in the order
//! written, floats in shortest round-trip form (non-finite floats as the strings `"inf"`,
//! `"-inf"`, `"NaN"`).
//!
//! Writing never fails on the spot: the first I/O error is kept, later output is skipped, and
//! [`JsonWriter::error`] / [`JsonWriter::into_inner`] report it. A document of any size therefore
//! needs only the writer's buffer, never a string of the whole text.

use std::fmt;
use std::io::{self, Write};

/// Writes JSON text into `W`, inserting commas between elements.
///
/// ```
/// use rpsl_runtime::JsonWriter;
///
/// let mut json = JsonWriter::to_vec();
/// json.begin_object();
/// json.field_uint("nodes", 3);
/// json.field_uints("mips", [0, 1]);
/// json.end_object();
/// assert_eq!(json.into_string(), r#"{"nodes":3,"mips":[0,1]}"#);
/// ```
#[derive(Debug)]
pub struct JsonWriter<W: Write> {
    out: W,
    error: Option<io::Error>,
    needs_comma: Vec<bool>,
}

impl JsonWriter<Vec<u8>> {
    /// A writer into memory; [`JsonWriter::into_string`] returns the text.
    pub fn to_vec() -> JsonWriter<Vec<u8>> {
        JsonWriter::new(Vec::new())
    }

    /// The text written into memory.
    pub fn into_string(self) -> String {
        String::from_utf8(self.out).expect("the writer writes UTF-8 only")
    }
}

impl<W: Write> JsonWriter<W> {
    /// A writer into `out` (wrap files and pipes in a [`std::io::BufWriter`]: the writer makes
    /// many small writes).
    pub fn new(out: W) -> JsonWriter<W> {
        JsonWriter {
            out,
            error: None,
            needs_comma: Vec::new(),
        }
    }

    /// The first I/O error met so far, if any (output after it was skipped).
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }

    /// Flushes and returns the inner writer, or the first I/O error.
    pub fn into_inner(mut self) -> io::Result<W> {
        if self.error.is_none() {
            self.record(|out| out.flush());
        }
        match self.error {
            Some(error) => Err(error),
            None => Ok(self.out),
        }
    }

    fn record(&mut self, write: impl FnOnce(&mut W) -> io::Result<()>) {
        if self.error.is_none() {
            if let Err(error) = write(&mut self.out) {
                self.error = Some(error);
            }
        }
    }

    fn raw(&mut self, text: &str) {
        self.record(|out| out.write_all(text.as_bytes()));
    }

    fn raw_fmt(&mut self, args: fmt::Arguments<'_>) {
        self.record(|out| out.write_fmt(args));
    }

    /// Writes raw text outside any value (such as a trailing newline).
    pub fn text(&mut self, text: &str) {
        self.raw(text);
    }

    fn separate(&mut self) {
        let comma = match self.needs_comma.last_mut() {
            Some(needs) => std::mem::replace(needs, true),
            None => false,
        };
        if comma {
            self.raw(",");
        }
    }

    /// Starts an object value.
    pub fn begin_object(&mut self) {
        self.separate();
        self.raw("{");
        self.needs_comma.push(false);
    }

    /// Ends an object.
    pub fn end_object(&mut self) {
        self.needs_comma.pop();
        self.raw("}");
    }

    /// Starts an array value.
    pub fn begin_array(&mut self) {
        self.separate();
        self.raw("[");
        self.needs_comma.push(false);
    }

    /// Ends an array.
    pub fn end_array(&mut self) {
        self.needs_comma.pop();
        self.raw("]");
    }

    /// Writes a key; the next value belongs to it.
    pub fn key(&mut self, key: &str) {
        self.separate();
        self.string_text(key);
        self.raw(":");
        if let Some(needs) = self.needs_comma.last_mut() {
            *needs = false;
        }
    }

    /// Writes a string value.
    pub fn string(&mut self, value: &str) {
        self.separate();
        self.string_text(value);
    }

    /// Writes an unsigned number.
    pub fn uint(&mut self, value: u64) {
        self.separate();
        self.raw_fmt(format_args!("{value}"));
    }

    /// Writes a signed number.
    pub fn int(&mut self, value: i64) {
        self.separate();
        self.raw_fmt(format_args!("{value}"));
    }

    /// Writes an `f32` in shortest round-trip form.
    pub fn float32(&mut self, value: f32) {
        if value.is_finite() {
            self.separate();
            self.raw_fmt(format_args!("{value}"));
        } else {
            self.non_finite(value as f64);
        }
    }

    /// Writes an `f64` in shortest round-trip form.
    pub fn float64(&mut self, value: f64) {
        if value.is_finite() {
            self.separate();
            self.raw_fmt(format_args!("{value}"));
        } else {
            self.non_finite(value);
        }
    }

    fn non_finite(&mut self, value: f64) {
        let text = if value.is_nan() {
            "NaN"
        } else if value > 0.0 {
            "inf"
        } else {
            "-inf"
        };
        self.string(text);
    }

    /// Writes a boolean.
    pub fn boolean(&mut self, value: bool) {
        self.separate();
        self.raw(if value { "true" } else { "false" });
    }

    /// Writes `null`.
    pub fn null(&mut self) {
        self.separate();
        self.raw("null");
    }

    /// `"key": value` for an unsigned number.
    pub fn field_uint(&mut self, key: &str, value: u64) {
        self.key(key);
        self.uint(value);
    }

    /// `"key": "value"`.
    pub fn field_str(&mut self, key: &str, value: &str) {
        self.key(key);
        self.string(value);
    }

    /// `"key": true/false`.
    pub fn field_bool(&mut self, key: &str, value: bool) {
        self.key(key);
        self.boolean(value);
    }

    /// `"key": [values]` of unsigned numbers.
    pub fn field_uints(&mut self, key: &str, values: impl IntoIterator<Item = u64>) {
        self.key(key);
        self.begin_array();
        for value in values {
            self.uint(value);
        }
        self.end_array();
    }

    /// `"key": [strings]`.
    pub fn field_strs<'a>(&mut self, key: &str, values: impl IntoIterator<Item = &'a str>) {
        self.key(key);
        self.begin_array();
        for value in values {
            self.string(value);
        }
        self.end_array();
    }

    /// A JSON string literal of `value`, escaped; runs without escapes are written whole.
    fn string_text(&mut self, value: &str) {
        self.raw("\"");
        let mut plain_from = 0;
        for (at, ch) in value.char_indices() {
            let escape = match ch {
                '"' => Some("\\\""),
                '\\' => Some("\\\\"),
                '\n' => Some("\\n"),
                '\r' => Some("\\r"),
                '\t' => Some("\\t"),
                ch if (ch as u32) < 0x20 => None,
                _ => continue,
            };
            self.raw(&value[plain_from..at]);
            match escape {
                Some(text) => self.raw(text),
                None => self.raw_fmt(format_args!("\\u{:04x}", ch as u32)),
            }
            plain_from = at + ch.len_utf8();
        }
        self.raw(&value[plain_from..]);
        self.raw("\"");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_nested_values() {
        let mut json = JsonWriter::to_vec();
        json.begin_object();
        json.field_uint("a", 1);
        json.key("b");
        json.begin_array();
        json.float32(0.1);
        json.float32(f32::INFINITY);
        json.string("q\"\u{1}\té");
        json.end_array();
        json.field_bool("c", false);
        json.end_object();
        assert_eq!(
            json.into_string(),
            r#"{"a":1,"b":[0.1,"inf","q\"\u0001\té"],"c":false}"#
        );
    }

    /// A writer that accepts `room` bytes, then fails like a full disk.
    struct Full {
        room: usize,
        taken: Vec<u8>,
    }

    impl Write for Full {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::Error::from_raw_os_error(28));
            }
            let n = bytes.len().min(self.room);
            self.room -= n;
            self.taken.extend_from_slice(&bytes[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn keeps_the_first_error_and_writes_nothing_after_it() {
        let mut full = Full {
            room: 5,
            taken: Vec::new(),
        };
        let mut json = JsonWriter::new(&mut full);
        json.begin_array();
        json.string("abcdef");
        assert_eq!(json.error().map(io::Error::raw_os_error), Some(Some(28)));
        json.uint(7);
        json.end_array();
        let error = json.into_inner().map(|_| ()).unwrap_err();
        assert_eq!(error.raw_os_error(), Some(28));
        assert_eq!(full.taken, b"[\"abc");
    }
}
