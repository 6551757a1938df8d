//! [`Name`]: the text of an identifier in the AST, stored inline when short (nearly every name),
//! so that lowering a name allocates nothing.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// The most bytes a name holds inline (the size of a `String`, less the length byte and tag).
const INLINE_BYTES: usize = 22;

/// The text of a name as written. Dereferences to `str`; compares equal to `str` and `String`.
///
/// ```
/// use rpsl_frontend::ast::Name;
/// let name = Name::from("frameIndex");
/// assert_eq!(name, "frameIndex");
/// assert_eq!(name.len(), 10);
/// assert_eq!(format!("{name}"), "frameIndex");
/// let long = "a_rather_long_identifier_name";
/// assert_eq!(Name::from(long).as_str(), long);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Name(Repr);

/// A short name in place, a long one on the heap (each length has one form, so that the derived
/// comparisons compare the texts).
#[derive(Clone, PartialEq, Eq)]
enum Repr {
    /// Up to [`INLINE_BYTES`] bytes; the unused bytes are zero.
    Inline { len: u8, bytes: [u8; INLINE_BYTES] },
    /// Longer names.
    Heap(Box<str>),
}

impl Name {
    /// The name's text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => match std::str::from_utf8(&bytes[..*len as usize]) {
                Ok(text) => text,
                Err(_) => unreachable!("an inline name is copied from a `str`"),
            },
            Repr::Heap(text) => text,
        }
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        if text.len() <= INLINE_BYTES {
            let mut bytes = [0; INLINE_BYTES];
            bytes[..text.len()].copy_from_slice(text.as_bytes());
            Name(Repr::Inline {
                len: text.len() as u8,
                bytes,
            })
        } else {
            Name(Repr::Heap(text.into()))
        }
    }
}

impl From<String> for Name {
    fn from(text: String) -> Name {
        if text.len() <= INLINE_BYTES {
            Name::from(text.as_str())
        } else {
            Name(Repr::Heap(text.into_boxed_str()))
        }
    }
}

impl From<Name> for String {
    fn from(name: Name) -> String {
        name.as_str().to_string()
    }
}

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

/// Hashes as the text does (a `Name` may be looked up by `&str`).
impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::Name;

    #[test]
    fn names_keep_their_text_at_every_length() {
        for len in 0..40 {
            let text: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            let name = Name::from(text.as_str());
            assert_eq!(name.as_str(), text);
            assert_eq!(Name::from(text.clone()), name);
            assert_eq!(String::from(name.clone()), text);
            assert_eq!(format!("{name:?}"), format!("{text:?}"));
        }
        assert_ne!(Name::from("ab"), Name::from("abc"));
    }
}
