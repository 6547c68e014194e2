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
        let mtime_ns = md
            .mtime()
            .saturating_mul(1_000_000_000)
            .saturating_add(md.mtime_nsec());
        (md.len(), mtime_ns)
    }
    #[cfg(not(unix))]
    {
        (
            md.len(),
            md.modified().map_or(0, super::store::system_time_ns),
        )
    }
}
