//! Cloud placeholders (not the index's placeholders of files over a cap): files a sync client shows in the vault whose content is not on this
//! machine (OneDrive's Files On-Demand and other cloud-files providers on Windows, iCloud
//! Drive's evicted "dataless" files on macOS). Reading one makes the sync client download it,
//! so a walk that read every note would pull a whole cloud vault down. The walk tells them
//! from their stat alone — which never downloads — and skips them with a reason; a file the
//! user keeps on the device (or opened since) has its content and is indexed as usual.
//!
//! iCloud's older scheme, a `.Name.md.icloud` stub beside the missing file, needs nothing
//! here: a dot file is never listed.

/// Why a placeholder is not indexed.
const REASON: &str = "a cloud placeholder whose content is not on this device (not downloaded)";

/// Windows attributes of a file whose data is elsewhere: `FILE_ATTRIBUTE_OFFLINE`,
/// `FILE_ATTRIBUTE_RECALL_ON_OPEN`, `FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS`.
const WINDOWS_NOT_HERE: u32 = 0x1000 | 0x4_0000 | 0x40_0000;

/// macOS `SF_DATALESS` in `st_flags`: the file's data is in the cloud.
const MACOS_DATALESS: u32 = 0x4000_0000;

/// The skip reason for a file with these Windows file attributes, if it is a placeholder.
#[cfg_attr(not(windows), allow(dead_code))]
pub(super) fn windows(attributes: u32) -> Option<&'static str> {
    (attributes & WINDOWS_NOT_HERE != 0).then_some(REASON)
}

/// The skip reason for a file with these macOS `st_flags`, if it is a placeholder.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub(super) fn macos(flags: u32) -> Option<&'static str> {
    (flags & MACOS_DATALESS != 0).then_some(REASON)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_whose_data_is_elsewhere_are_placeholders() {
        // OneDrive online-only (recall on data access, with the cloud reparse point), an
        // offline file, a provider that recalls on open.
        for attrs in [0x40_0000 | 0x400 | 0x20, 0x1000, 0x4_0000] {
            assert_eq!(windows(attrs), Some(REASON), "{attrs:#x}");
        }
        // Plain, read-only, hidden, archive, pinned ("always keep on this device").
        for attrs in [0x80, 0x1, 0x2, 0x20, 0x8_0000 | 0x20] {
            assert_eq!(windows(attrs), None, "{attrs:#x}");
        }
        assert_eq!(macos(MACOS_DATALESS | 0x20), Some(REASON));
        assert_eq!(macos(0), None);
        assert_eq!(macos(0x8000), None, "UF_HIDDEN is no placeholder");
    }
}
