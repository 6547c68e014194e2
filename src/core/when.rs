//! Points in time as people type them (`2026-11-30`, `7d`, `yesterday`) and as the JSON
//! contract prints them (RFC 3339), both in the system's local time zone.
//!
//! The one place of the core that looks outside the process: "local" is the system time zone
//! as `jiff` finds it — `$TZ` when set (an IANA name or a POSIX rule), else `/etc/localtime`
//! on Linux and macOS, else the zone Windows reports (resolved through the tz database bundled
//! into the binary on Windows). A zone that cannot be found is UTC. Offsets are those in force
//! at the date asked for, so `2026-07-01` in Paris is midnight at +02:00 and `2026-12-01` at
//! +01:00; a midnight skipped by a DST change is the first instant after the gap.

use std::sync::OnceLock;

use anyhow::{bail, Context, Result};
use jiff::tz::TimeZone;
use jiff::{civil, Timestamp};

/// Nanoseconds since the Unix epoch of what the user typed, `now` being the reference for
/// the relative forms. Accepted: `YYYY-MM-DD` (local midnight), `YYYY-MM-DDTHH:MM[:SS]` (also
/// with a space for `T`), either with `Z` or an offset, `Nd` / `Nh` / `Nm` ago, `today` and
/// `yesterday` (local midnight).
pub fn parse_time(text: &str, now_ns: i64) -> Result<i64> {
    let t = text.trim();
    let tz = local_tz();
    let now =
        Timestamp::from_nanosecond(i128::from(now_ns)).context("the clock is out of range")?;
    let ts = match t.to_ascii_lowercase().as_str() {
        "" => bail!("a date is empty"),
        "now" => now,
        "today" => now
            .to_zoned_datetime(tz)
            .start_of_day()
            .context("no local midnight today")?
            .timestamp(),
        "yesterday" => now
            .to_zoned_datetime(tz)
            .yesterday()
            .and_then(|z| z.start_of_day())
            .context("no local midnight yesterday")?
            .timestamp(),
        lower => match relative(lower) {
            Some(secs) => {
                let back = secs.checked_mul(1_000_000_000).context("too far back")?;
                return now_ns.checked_sub(back).context("too far back");
            }
            None => absolute(t, tz)?,
        },
    };
    i64::try_from(ts.as_nanosecond()).context("the date is out of range")
}

/// `7d`, `12h`, `30m` as seconds.
fn relative(t: &str) -> Option<i64> {
    let unit = t.chars().last()?;
    let n: i64 = t[..t.len() - unit.len_utf8()].parse().ok()?;
    if n < 0 || !t.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    let per = match unit {
        'd' => 86_400,
        'h' => 3_600,
        'm' => 60,
        _ => return None,
    };
    n.checked_mul(per)
}

fn absolute(t: &str, tz: TimeZone) -> Result<Timestamp> {
    let shape_ok = t.len() >= 10
        && t.as_bytes()[..10].iter().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if !shape_ok {
        bail!(unknown(t));
    }
    if let Ok(ts) = t.parse::<Timestamp>() {
        return Ok(ts);
    }
    let dt: civil::DateTime = t.replacen(' ', "T", 1).parse().map_err(|_| unknown(t))?;
    Ok(dt
        .to_zoned_datetime(tz)
        .with_context(|| format!("{t:?} has no local time"))?
        .timestamp())
}

fn unknown(t: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "unknown date {t:?}: use YYYY-MM-DD, YYYY-MM-DDTHH:MM, 7d, 12h, 30m, today or yesterday"
    )
}

/// Now, in nanoseconds since the Unix epoch.
pub(crate) fn now_ns() -> i64 {
    i64::try_from(Timestamp::now().as_nanosecond()).unwrap_or(i64::MAX)
}

/// The local time zone, looked up once per process. Without `$TZ`, `/etc/localtime` is read
/// directly on Unix: jiff's own lookup first indexes the whole tz database directory to name
/// the zone (about 3 million instructions and a stat per zone file), which a search that
/// prints one date per hit does not need. Elsewhere, or when that fails, jiff decides.
fn local_tz() -> TimeZone {
    static TZ: OnceLock<TimeZone> = OnceLock::new();
    TZ.get_or_init(|| {
        #[cfg(unix)]
        if std::env::var_os("TZ").is_none() {
            if let Ok(data) = std::fs::read("/etc/localtime") {
                if let Ok(tz) = TimeZone::tzif("Local", &data) {
                    return tz;
                }
            }
        }
        TimeZone::system()
    })
    .clone()
}

/// RFC 3339 in local time, to the second (`2026-11-30T14:00:00+01:00`).
pub(crate) fn rfc3339(ns: i64) -> Option<String> {
    let ts = Timestamp::from_nanosecond(i128::from(ns)).ok()?;
    Some(
        ts.to_zoned_datetime(local_tz())
            .strftime("%Y-%m-%dT%H:%M:%S%:z")
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_780_000_000_000_000_000;

    #[test]
    fn relative_forms() {
        assert_eq!(parse_time("7d", NOW).unwrap(), NOW - 7 * 86_400_000_000_000);
        assert_eq!(
            parse_time("12h", NOW).unwrap(),
            NOW - 12 * 3_600_000_000_000
        );
        assert_eq!(parse_time(" 30m ", NOW).unwrap(), NOW - 30 * 60_000_000_000);
        assert_eq!(parse_time("0d", NOW).unwrap(), NOW);
    }

    #[test]
    fn absolute_forms_with_offsets() {
        let z = parse_time("2026-11-30T14:00:00Z", NOW).unwrap();
        assert_eq!(z, 1_796_047_200_000_000_000);
        assert_eq!(parse_time("2026-11-30T15:00+01:00", NOW).unwrap(), z);
    }

    #[test]
    fn bad_forms_are_errors() {
        for bad in [
            "",
            "7",
            "d",
            "-7d",
            "7w",
            "2026-13-01",
            "2026-11-31",
            "30/11/2026",
            "tomorrow",
            "2026-11-30T25:00",
            "99999999999999999d",
        ] {
            assert!(parse_time(bad, NOW).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn formats_to_the_second() {
        let s = rfc3339(1_796_047_200_123_000_000).unwrap();
        let back = parse_time(&s, NOW).unwrap();
        assert_eq!(back, 1_796_047_200_000_000_000);
    }
}
