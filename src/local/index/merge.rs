//! When a commit is followed by a merge, and of which segments: the small tail that updates
//! leave, or all of them once too many documents are deleted. A full build writes one segment
//! per indexing thread and merges nothing.

use anyhow::{Context, Result};
use tantivy::{Index, IndexWriter};

use super::document::NoteDoc;

/// Merge when a commit leaves more segments than this.
const MAX_SEGMENTS: usize = 8;
/// Merge when more than this share of the documents are deleted.
const MAX_DELETED_RATIO: f64 = 0.2;

/// Merges when segments pile up (the small ones, see [`small_tail`]) or too many documents are
/// deleted (all).
pub(super) fn maybe_merge(index: &Index, writer: &mut IndexWriter<NoteDoc>) -> Result<()> {
    let metas = index
        .searchable_segment_metas()
        .context("listing index segments")?;
    let max_doc: u64 = metas.iter().map(|m| u64::from(m.max_doc())).sum();
    let deleted: u64 = metas.iter().map(|m| u64::from(m.num_deleted_docs())).sum();
    let ratio = if max_doc == 0 {
        0.0
    } else {
        deleted as f64 / max_doc as f64
    };
    let mut ids: Vec<_> = if ratio > MAX_DELETED_RATIO {
        metas.iter().map(|m| m.id()).collect()
    } else if metas.len() > MAX_SEGMENTS {
        let sizes: Vec<u64> = metas.iter().map(|m| u64::from(m.num_docs())).collect();
        small_tail(&sizes)
            .into_iter()
            .map(|i| metas[i].id())
            .collect()
    } else {
        Vec::new()
    };
    if ids.len() >= 2 || (ids.len() == 1 && deleted > 0) {
        ids.sort();
        writer
            .merge(&ids)
            .wait()
            .context("merging index segments")?;
        let _ = writer.garbage_collect_files().wait();
    }
    Ok(())
}

/// Which segments to merge (indexes into `sizes`, documents per segment): the smallest ones,
/// at least two, and then each next one as long as it is no larger than those taken so far.
/// So a merge rewrites about as much as the updates added since the last one, never a large
/// segment for a few new notes: after a full build, the first save at 100,000 notes used to
/// rewrite 23,000 notes (3.6 s) and then again every seventh save (+0.4 s).
fn small_tail(sizes: &[u64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| sizes[i]);
    let mut take = 2.min(order.len());
    let mut sum: u64 = order[..take].iter().map(|&i| sizes[i]).sum();
    while take < order.len() && sizes[order[take]] <= sum {
        sum += sizes[order[take]];
        take += 1;
    }
    order.truncate(take);
    order
}

#[cfg(test)]
mod tests {
    use super::small_tail;

    fn sizes_of(sizes: &[u64], picked: Vec<usize>) -> Vec<u64> {
        let mut v: Vec<u64> = picked.into_iter().map(|i| sizes[i]).collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn a_merge_takes_the_small_segments_not_the_large_ones() {
        // Two large segments, two middling, five of one note each: the five are merged.
        let sizes = [76_707, 1, 23_310, 1, 500, 1, 100, 1, 1];
        assert_eq!(sizes_of(&sizes, small_tail(&sizes)), [1, 1, 1, 1, 1]);
        // The next one joins when it is no larger than what is taken so far.
        let sizes = [9, 1, 1, 2, 4, 100];
        assert_eq!(sizes_of(&sizes, small_tail(&sizes)), [1, 1, 2, 4]);
        // Always at least the two smallest.
        let sizes = [1_000, 5, 7];
        assert_eq!(sizes_of(&sizes, small_tail(&sizes)), [5, 7]);
        // Equal segments all merge.
        let sizes = [3; 9];
        assert_eq!(small_tail(&sizes).len(), 9);
    }

    #[test]
    fn repeated_small_commits_keep_few_segments_and_small_merges() {
        // One large segment, then single-note commits, merging as `maybe_merge` does.
        let mut segs: Vec<u64> = vec![100_000];
        let mut rewritten_max = 0;
        for _ in 0..1_000 {
            segs.push(1);
            if segs.len() > super::MAX_SEGMENTS {
                let mut picked = small_tail(&segs);
                let merged: u64 = picked.iter().map(|&i| segs[i]).sum();
                rewritten_max = rewritten_max.max(merged);
                picked.sort_unstable_by(|a, b| b.cmp(a));
                for i in picked {
                    segs.remove(i);
                }
                segs.push(merged);
            }
            assert!(segs.len() <= super::MAX_SEGMENTS);
        }
        assert!(
            segs.contains(&100_000),
            "the large segment is never rewritten"
        );
        assert!(
            rewritten_max < 1_000,
            "a merge rewrote {rewritten_max} notes"
        );
    }
}
