//! A listed file's size and mtime, as the walk's stat or an opened file's metadata gives them:
//! the two must agree to the nanosecond, since the freshness check compares them.

/// Size and mtime of a regular file.
#[derive(Debug, Clone, Copy)]
pub(super) struct FileStat {
    pub(super) size: u64,
    pub(super) mtime_ns: i64,
    /// False: not stat'ed (the walk listed the name only).
    pub(super) stated: bool,
}

impl FileStat {
    pub(super) const UNKNOWN: FileStat = FileStat {
        size: 0,
        mtime_ns: 0,
        stated: false,
    };
}

/// Size and mtime as the walk's stat gives them, from an opened file's metadata (a note the
/// walk listed by name only gets them so).
pub(crate) fn size_and_mtime(md: &std::fs::Metadata) -> (u64, i64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (md.len(), mtime_ns(md.mtime(), md.mtime_nsec()))
    }
    #[cfg(not(unix))]
    {
        (
            md.len(),
            md.modified().map_or(0, super::store::system_time_ns),
        )
    }
}

/// Nanoseconds since the Unix epoch from a stat's seconds and nanoseconds.
#[cfg(unix)]
pub(super) fn mtime_ns(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}
