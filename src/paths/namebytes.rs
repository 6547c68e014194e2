//! How a file name that is not UTF-8 is spelt in a note path, so that every path the index
//! lists (in JSON, MCP, `serve`) is a string that names exactly one file and that `read_note`,
//! `serve` and the index's own reads open again.
//!
//! The rule, on Unix (Linux and the BSDs allow any bytes but `/` and NUL in a name):
//!
//! - a name that is valid UTF-8 is spelt as itself, except for a character in
//!   U+EF80..=U+EFFF (Private Use, kept free for the escapes below): each of its three UTF-8
//!   bytes is escaped;
//! - a byte that is not part of valid UTF-8 (always 0x80..=0xFF) is escaped;
//! - the escape of byte `b` is the character U+EF00 + `b` (U+EF80..=U+EFFF), a character a
//!   Rust `String` and JSON hold as any other (like Python's `surrogateescape`, which needs
//!   surrogates that neither can hold).
//!
//! Reading a spelling back turns every U+EF80..=U+EFFF into its byte and keeps every other
//! character's UTF-8. That is the exact inverse: any name's spelling reads back to the name's
//! bytes, so no two names share a spelling (a file `\x80.md` is spelt `\u{ef80}.md`, a file
//! literally named `\u{ef80}.md` is spelt with three escapes), and a spelling is always read
//! back, never first tried as a literal name (which could be another file). `/` is ASCII, so
//! a `/`-separated path is spelt and read back as a whole. macOS only has UTF-8 names; there
//! the rule only ever escapes the rare U+EF80..=U+EFFF.
//!
//! Windows names are UTF-16 and may hold an unpaired surrogate: such a name keeps its lossy
//! spelling (U+FFFD for the surrogate), which names no file, and nothing is read back there
//! (a U+EF80..=U+EFFF in a name is itself), as before this rule.

use std::borrow::Cow;
use std::ffi::OsStr;

/// The escape of byte `b` is `ESCAPE_BASE + b`.
#[cfg(unix)]
const ESCAPE_BASE: u32 = 0xEF00;

/// Whether `c` is one of the escapes (U+EF80..=U+EFFF).
#[cfg(unix)]
fn is_escape(c: char) -> bool {
    ('\u{ef80}'..='\u{efff}').contains(&c)
}

/// Whether `s` may hold an escape: each one's UTF-8 starts with the byte 0xEE, which is rare
/// in a path, so the common case is one scan of the bytes.
#[cfg(unix)]
fn may_hold_escape(s: &str) -> bool {
    s.as_bytes().contains(&0xEE) && s.chars().any(is_escape)
}

/// The spelling of a name, or of a `/`-separated path of names (see the module doc).
#[cfg(unix)]
pub(crate) fn spell(name: &OsStr) -> Cow<'_, str> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = name.as_bytes();
    if let Ok(s) = std::str::from_utf8(bytes) {
        if !may_hold_escape(s) {
            return Cow::Borrowed(s);
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    let escape = |out: &mut String, b: u8| {
        // 0xEF00 + a byte is always a character of the Private Use Area.
        out.extend(char::from_u32(ESCAPE_BASE + u32::from(b)));
    };
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_escape(c) {
                for b in c.encode_utf8(&mut [0; 4]).bytes() {
                    escape(&mut out, b);
                }
            } else {
                out.push(c);
            }
        }
        for &b in chunk.invalid() {
            escape(&mut out, b);
        }
    }
    Cow::Owned(out)
}

/// The spelling of a name: lossy where it is not Unicode (see the module doc).
#[cfg(not(unix))]
pub(crate) fn spell(name: &OsStr) -> Cow<'_, str> {
    name.to_string_lossy()
}

/// The spelling of a name the caller holds as a string (a path another program gave): the
/// same as [`spell`], so a character in U+EF80..=U+EFFF is escaped.
pub(crate) fn spell_str(name: &str) -> Cow<'_, str> {
    spell(OsStr::new(name))
}

/// The name (or `/`-separated path) a spelling stands for: every escape back to its byte.
#[cfg(unix)]
pub(crate) fn unspell(spelling: &str) -> Cow<'_, OsStr> {
    use std::os::unix::ffi::OsStringExt;
    if !may_hold_escape(spelling) {
        return Cow::Borrowed(OsStr::new(spelling));
    }
    let mut out = Vec::with_capacity(spelling.len());
    for c in spelling.chars() {
        if is_escape(c) {
            // An escape is ESCAPE_BASE + a byte: the difference fits in a byte.
            out.push((u32::from(c) - ESCAPE_BASE) as u8);
        } else {
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    }
    Cow::Owned(std::ffi::OsString::from_vec(out))
}

/// The name a spelling stands for: itself (see the module doc).
#[cfg(not(unix))]
pub(crate) fn unspell(spelling: &str) -> Cow<'_, OsStr> {
    Cow::Borrowed(OsStr::new(spelling))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::os::unix::ffi::OsStrExt;

    fn bytes(s: &str) -> Vec<u8> {
        unspell(s).as_bytes().to_vec()
    }

    #[test]
    fn utf8_names_are_spelt_as_themselves() {
        for name in [
            "note.md",
            "Café/Ünïcödé 日本.md",
            "a\nb.md",
            "\u{fffd}.md",
            "",
        ] {
            let spelt = spell(OsStr::new(name));
            assert!(matches!(spelt, Cow::Borrowed(_)), "{name:?}");
            assert_eq!(spelt, name);
            assert_eq!(bytes(name), name.as_bytes());
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_escaped_and_read_back() {
        let name = OsStr::from_bytes(b"caf\xe9 \xff\xfe/x\xc3.md");
        let spelt = spell(name);
        assert_eq!(spelt, "caf\u{efe9} \u{efff}\u{effe}/x\u{efc3}.md");
        assert_eq!(bytes(&spelt), name.as_bytes());
    }

    #[test]
    fn a_literal_escape_character_is_escaped_so_no_two_names_share_a_spelling() {
        let literal = OsStr::new("\u{ef80}.md");
        let byte = OsStr::from_bytes(b"\x80.md");
        let (a, b) = (spell(literal), spell(byte));
        assert_ne!(a, b);
        assert_eq!(a, "\u{efee}\u{efbe}\u{ef80}.md");
        assert_eq!(b, "\u{ef80}.md");
        assert_eq!(bytes(&a), literal.as_bytes());
        assert_eq!(bytes(&b), byte.as_bytes());
        // Its neighbours outside the range are themselves.
        assert_eq!(spell(OsStr::new("\u{ef7f}\u{f000}")), "\u{ef7f}\u{f000}");
    }

    proptest! {
        #[test]
        fn any_name_reads_back_to_its_bytes(name in proptest::collection::vec(any::<u8>(), 0..40)) {
            let spelt = spell(OsStr::from_bytes(&name));
            prop_assert_eq!(bytes(&spelt), name);
        }

        #[test]
        fn a_string_without_escapes_is_its_own_spelling(s in "[^\u{ef80}-\u{efff}]{0,20}") {
            prop_assert_eq!(spell(OsStr::new(&s)), s.as_str());
            prop_assert_eq!(bytes(&s), s.as_bytes());
        }
    }
}
