//! A tiny deterministic JSON writer: fields in the order written, floats in shortest round-trip
//! form (non-finite floats as the strings `"inf"`, `"-inf"`, `"NaN"`).

use std::fmt::Write;

/// Appends JSON text to a `String`, inserting commas between elements.
#[derive(Debug, Default)]
pub struct JsonWriter {
    out: String,
    needs_comma: Vec<bool>,
}

impl JsonWriter {
    /// An empty writer.
    pub fn new() -> JsonWriter {
        JsonWriter::default()
    }

    /// The text written.
    pub fn finish(self) -> String {
        self.out
    }

    fn separate(&mut self) {
        if let Some(needs) = self.needs_comma.last_mut() {
            if *needs {
                self.out.push(',');
            }
            *needs = true;
        }
    }

    /// Starts an object value.
    pub fn begin_object(&mut self) {
        self.separate();
        self.out.push('{');
        self.needs_comma.push(false);
    }

    /// Ends an object.
    pub fn end_object(&mut self) {
        self.needs_comma.pop();
        self.out.push('}');
    }

    /// Starts an array value.
    pub fn begin_array(&mut self) {
        self.separate();
        self.out.push('[');
        self.needs_comma.push(false);
    }

    /// Ends an array.
    pub fn end_array(&mut self) {
        self.needs_comma.pop();
        self.out.push(']');
    }

    /// Writes a key; the next value belongs to it.
    pub fn key(&mut self, key: &str) {
        self.separate();
        write_string(&mut self.out, key);
        self.out.push(':');
        if let Some(needs) = self.needs_comma.last_mut() {
            *needs = false;
        }
    }

    /// Writes a string value.
    pub fn string(&mut self, value: &str) {
        self.separate();
        write_string(&mut self.out, value);
    }

    /// Writes an unsigned number.
    pub fn uint(&mut self, value: u64) {
        self.separate();
        let _ = write!(self.out, "{value}");
    }

    /// Writes a signed number.
    pub fn int(&mut self, value: i64) {
        self.separate();
        let _ = write!(self.out, "{value}");
    }

    /// Writes an `f32` in shortest round-trip form.
    pub fn float32(&mut self, value: f32) {
        if value.is_finite() {
            self.separate();
            let _ = write!(self.out, "{value}");
        } else {
            self.non_finite(value as f64);
        }
    }

    /// Writes an `f64` in shortest round-trip form.
    pub fn float64(&mut self, value: f64) {
        if value.is_finite() {
            self.separate();
            let _ = write!(self.out, "{value}");
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
        self.out.push_str(if value { "true" } else { "false" });
    }

    /// Writes `null`.
    pub fn null(&mut self) {
        self.separate();
        self.out.push_str("null");
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
}

fn write_string(out: &mut String, value: &str) {
    out.push('"');
    for ch in value.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ch if (ch as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", ch as u32);
            }
            ch => out.push(ch),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_nested_values() {
        let mut json = JsonWriter::new();
        json.begin_object();
        json.field_uint("a", 1);
        json.key("b");
        json.begin_array();
        json.float32(0.1);
        json.float32(f32::INFINITY);
        json.string("q\"");
        json.end_array();
        json.field_bool("c", false);
        json.end_object();
        assert_eq!(json.finish(), r#"{"a":1,"b":[0.1,"inf","q\""],"c":false}"#);
    }
}
