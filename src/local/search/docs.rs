//! A query for documents already found: the notes the link filters let through
//! (`crate::local::links::allowed_docs`), by their address in the searcher that found them.
//! Hundreds of backlinks are then one bitset per segment, where as many `path` terms would
//! each be looked up in the term dictionary again (measured: most of the filter's cost).

use std::collections::HashMap;
use std::sync::Arc;

use tantivy::index::SegmentId;
use tantivy::query::{
    BitSetDocSet, ConstScorer, EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::{BitSet, DocAddress, DocId, Score, Searcher, SegmentReader};

/// The documents at some addresses of one searcher; valid only for queries on that searcher.
#[derive(Debug, Clone)]
pub(in crate::local) struct DocsQuery {
    docs: Arc<HashMap<SegmentId, Vec<DocId>>>,
}

impl DocsQuery {
    pub(in crate::local) fn new(searcher: &Searcher, addrs: &[DocAddress]) -> DocsQuery {
        let readers = searcher.segment_readers();
        let mut docs: HashMap<SegmentId, Vec<DocId>> = HashMap::new();
        for a in addrs {
            if let Some(r) = readers.get(a.segment_ord as usize) {
                docs.entry(r.segment_id()).or_default().push(a.doc_id);
            }
        }
        DocsQuery {
            docs: Arc::new(docs),
        }
    }
}

impl Query for DocsQuery {
    fn weight(&self, _: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(DocsWeight(Arc::clone(&self.docs))))
    }
}

struct DocsWeight(Arc<HashMap<SegmentId, Vec<DocId>>>);

impl Weight for DocsWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let Some(docs) = self.0.get(&reader.segment_id()) else {
            return Ok(Box::new(EmptyScorer));
        };
        let max = reader.max_doc();
        let mut set = BitSet::with_max_value(max);
        for &d in docs.iter().filter(|&&d| d < max) {
            set.insert(d);
        }
        Ok(Box::new(ConstScorer::new(BitSetDocSet::from(set), boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let found = self
            .0
            .get(&reader.segment_id())
            .is_some_and(|d| d.contains(&doc));
        if found {
            Ok(Explanation::new("let through by the link filters", 1.0))
        } else {
            Err(tantivy::TantivyError::InvalidArgument(format!(
                "document {doc} is not let through by the link filters"
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::collector::DocSetCollector;
    use tantivy::schema::{Schema, STRING};
    use tantivy::{doc, Index};

    #[test]
    fn matches_exactly_the_addresses_given() {
        let mut schema = Schema::builder();
        let f = schema.add_text_field("f", STRING);
        let index = Index::create_in_ram(schema.build());
        let mut w = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for i in 0..5 {
            w.add_document(doc!(f => i.to_string())).unwrap();
        }
        w.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let want = [DocAddress::new(0, 1), DocAddress::new(0, 3)];
        let q = DocsQuery::new(&searcher, &want);
        let mut got: Vec<DocAddress> = searcher
            .search(&q, &DocSetCollector)
            .unwrap()
            .into_iter()
            .collect();
        got.sort();
        assert_eq!(got, want);
        let none = DocsQuery::new(&searcher, &[]);
        assert!(searcher.search(&none, &DocSetCollector).unwrap().is_empty());
    }
}
