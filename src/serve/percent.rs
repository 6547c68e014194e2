//! Percent-decoding of request targets: strict for paths, the plugin's lenient way for query
//! parameters, so a query a browser page sends as typed reads as the plugin reads it.

/// Decodes a path's `%XX`; `None` for a bad escape or invalid UTF-8: no path needs either.
pub(crate) fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(hex_pair(bytes.get(i + 1..i + 3)?)?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Decodes a query component as the plugin's Node server does (`URLSearchParams`): `+` is a
/// space, `%XX` a byte, a `%` without two hex digits after it stays a `%`, and bytes that
/// are not UTF-8 become U+FFFD. Browser userscripts send a typed `%` as it is
/// (`?q=100%` or `?q=50%25off`); refusing those would fail searches the plugin answers.
pub(crate) fn query_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => match bytes.get(i + 1..i + 3).and_then(hex_pair) {
                Some(b) => {
                    out.push(b);
                    i += 3;
                }
                None => {
                    out.push(b'%');
                    i += 1;
                }
            },
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Two hex digits as a byte (`u8::from_str_radix` alone would also take a sign).
fn hex_pair(two: &[u8]) -> Option<u8> {
    let digit = |c: u8| (c as char).to_digit(16);
    match two {
        [hi, lo] => Some((digit(*hi)? * 16 + digit(*lo)?) as u8),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stray_percent_stays_as_the_plugin_keeps_it() {
        for (raw, want) in [
            ("100%", "100%"),
            ("50%25off", "50%off"),
            ("%zz%4", "%zz%4"),
            ("a+b%2Bc", "a b+c"),
            ("caf%C3%A9", "café"),
            ("%+1", "% 1"),
            ("%FF", "\u{FFFD}"),
        ] {
            assert_eq!(query_decode(raw), want, "{raw}");
        }
    }
}
