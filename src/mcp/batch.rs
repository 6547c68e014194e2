//! JSON-RPC batches, which protocol revision 2025-03-26 allows (and later revisions drop):
//! rmcp refuses any array, so each member goes to rmcp on its own, under an id of the
//! framing's making, and the answers are gathered back into one array with the client's ids.

use std::collections::HashMap;

use serde_json::Value;

/// The one protocol revision in which a client may send a batch.
pub(crate) const BATCH_VERSION: &str = "2025-03-26";

/// Ids of this form are the framing's: a client's own ids never reach this table.
pub(crate) const PREFIX: &str = "vault-search-batch:";

/// The batches whose answers are still being gathered.
#[derive(Debug, Default)]
pub(crate) struct Batches {
    next: u64,
    next_member: u64,
    /// Our id of a member in flight → its batch and the client's id.
    members: HashMap<String, (u64, Value)>,
    open: HashMap<u64, Open>,
}

#[derive(Debug, Default)]
struct Open {
    pending: usize,
    replies: Vec<Value>,
    /// Every member has been passed on or answered: the array goes out when none is pending.
    sealed: bool,
}

impl Batches {
    pub(crate) fn open(&mut self) -> u64 {
        self.next += 1;
        self.open.insert(self.next, Open::default());
        self.next
    }

    /// The id a request member goes to rmcp under.
    pub(crate) fn member(&mut self, batch: u64, client_id: Value) -> Value {
        self.next_member += 1;
        let id = format!("{PREFIX}{batch}:{}", self.next_member);
        self.members.insert(id.clone(), (batch, client_id));
        if let Some(open) = self.open.get_mut(&batch) {
            open.pending += 1;
        }
        Value::String(id)
    }

    /// A member answered without rmcp.
    pub(crate) fn reply(&mut self, batch: u64, reply: Value) {
        if let Some(open) = self.open.get_mut(&batch) {
            open.replies.push(reply);
        }
    }

    /// All members are out: the array when it is already complete.
    pub(crate) fn seal(&mut self, batch: u64) -> Option<Value> {
        self.open.get_mut(&batch)?.sealed = true;
        self.complete(batch)
    }

    /// rmcp's answer to `id`. `None`: not a batch member, pass it on as it is; `Some(array)`:
    /// the batch is complete (`Some(None)`: held until it is).
    pub(crate) fn answered(&mut self, id: &Value, mut reply: Value) -> Option<Option<Value>> {
        let key = id.as_str().filter(|s| s.starts_with(PREFIX))?;
        let (batch, client_id) = self.members.remove(key)?;
        reply["id"] = client_id;
        if let Some(open) = self.open.get_mut(&batch) {
            open.pending = open.pending.saturating_sub(1);
            open.replies.push(reply);
        }
        Some(self.complete(batch))
    }

    /// The client cancelled a member (named by the client's id): rmcp is told under our id
    /// and will not answer, so it is no longer waited for. Returns our id, and the array when
    /// that completed the batch.
    pub(crate) fn cancel(&mut self, client_id: &str) -> Option<(Value, Option<Value>)> {
        let wanted: Value = serde_json::from_str(client_id).ok()?;
        let ours = self
            .members
            .iter()
            .find(|(_, (_, id))| *id == wanted)
            .map(|(k, _)| k.clone())?;
        let (batch, _) = self.members.remove(&ours)?;
        if let Some(open) = self.open.get_mut(&batch) {
            open.pending = open.pending.saturating_sub(1);
        }
        Some((Value::String(ours), self.complete(batch)))
    }

    fn complete(&mut self, batch: u64) -> Option<Value> {
        let open = self.open.get(&batch)?;
        if !open.sealed || open.pending > 0 {
            return None;
        }
        let open = self.open.remove(&batch)?;
        // A batch of notifications only has no answer at all.
        (!open.replies.is_empty()).then_some(Value::Array(open.replies))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_gathered_under_the_clients_ids() {
        let mut b = Batches::default();
        let n = b.open();
        let ours = b.member(n, json!(7));
        b.reply(n, json!({"id": 8, "result": {}}));
        assert_eq!(b.seal(n), None);
        assert_eq!(b.answered(&json!(7), json!({})), None, "not a member id");
        let all = b.answered(&ours, json!({"id": ours, "result": 1}));
        let all = all.flatten().unwrap();
        assert_eq!(
            all,
            json!([{"id": 8, "result": {}}, {"id": 7, "result": 1}])
        );
        let n = b.open();
        assert_eq!(b.seal(n), None, "notifications only: no answer");
    }
}
