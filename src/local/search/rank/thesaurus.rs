//! Other words for the same thing, for a query read as a sentence.
//!
//! A question is worded by the one who asks, a note by the one who wrote it: "add an account"
//! against "create a new user", "a frozen program" against "terminate a process", "my mac"
//! against "macOS". Matching words alone cannot bridge that, and the issue rules out a model
//! of meaning; what a lexical engine can carry is a thesaurus. This one is small and general:
//! groups of words that stand for each other in technical and workplace writing — computing's
//! everyday nouns and verbs, common abbreviations (`repo`, `k8s`, `config`) and a team's words
//! for people, pay and time off. No tool's, product's or project's name, which a vault's own
//! notes spell out, beyond the usual short forms of a few languages and platforms (`k8s`,
//! `js`, `py`, `osx` for `macos`).
//!
//! Only a sentence's content words get alternatives (keywords are read as typed), each looked
//! up exactly and by inflection and matched at [`w_syn`](crate::local::weights::Weights) of an
//! exact match, so the words the question holds always count more than their stand-ins.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Groups of words that stand for each other, lowercased as the analyzer leaves them. A word
/// may sit in several groups; its alternatives are all of them.
#[rustfmt::skip]
const GROUPS: &[&[&str]] = &[
    // programs and the machine
    &["program", "process", "application", "app"],
    &["folder", "directory", "dir"],
    &["subfolder", "subdirectory", "subdir"],
    &["computer", "machine", "host", "pc"],
    &["server", "host"],
    &["account", "user"],
    &["mac", "macos", "osx", "macbook"],
    &["disk", "drive"],
    &["picture", "image", "photo", "img", "pic"],
    &["video", "movie"],
    &["audio", "sound"],
    &["service", "daemon"],
    &["log", "logs", "journal"],
    &["password", "passphrase"],
    &["wifi", "wireless", "wlan"],
    &["website", "site", "webpage"],
    &["mail", "email"],
    &["clipboard", "pasteboard"],
    &["screenshot", "screengrab", "screencap"],
    &["certificate", "cert"],
    &["ssl", "tls"],
    &["permission", "permissions", "access", "rights"],
    &["checksum", "hash", "digest", "fingerprint"],
    &["string", "pattern"],
    &["character", "characters", "char", "chars"],
    &["capital", "capitals", "uppercase"],
    &["boot", "startup"],
    &["bug", "error", "problem", "issue"],
    &["corrupt", "corrupted", "damaged", "broken"],
    &["frozen", "hung", "unresponsive", "stuck"],
    &["percent", "percentage"],
    &["expire", "expires", "expiry", "expiration"],
    &["big", "large", "huge"],
    &["bigger", "larger", "greater"],
    // what one does to them
    &["delete", "remove", "erase"],
    &["destroy", "wipe"],
    &["kill", "terminate"],
    &["close", "quit", "exit", "terminate"],
    &["start", "launch"],
    &["run", "execute", "launch"],
    &["restart", "reboot", "reload"],
    &["create", "make", "generate", "add"],
    &["find", "search", "locate", "lookup"],
    &["show", "display", "view"],
    &["print", "output"],
    &["download", "fetch", "retrieve"],
    &["copy", "duplicate"],
    &["duplicate", "duplicates", "identical", "dupe", "dupes"],
    &["change", "modify", "alter", "edit"],
    &["compress", "zip", "archive"],
    &["extract", "unpack", "unzip", "decompress", "uncompress"],
    &["convert", "transform"],
    &["resize", "scale", "shrink"],
    &["clean", "clear", "prune", "purge"],
    &["stop", "prevent", "block"],
    &["sleep", "suspend", "doze", "dozing", "hibernate"],
    &["repair", "fix"],
    &["verify", "confirm", "validate"],
    &["undo", "revert", "rollback"],
    &["pronounce", "speak", "speech", "voice"],
    &["tally", "count"],
    &["share", "serve"],
    &["consume", "consuming", "hog", "hogging", "eat", "eating"],
    &["pretty", "prettify", "beautify", "format", "formatted"],
    &["choose", "chose", "chosen", "pick", "picked", "select", "selected"],
    &["login", "logon", "signin"],
    &["signed", "logged"],
    // abbreviations
    &["repo", "repository"],
    &["config", "configuration", "settings", "preferences"],
    &["docs", "documentation"],
    &["doc", "document"],
    &["db", "database"],
    &["env", "environment"],
    &["auth", "authentication", "authenticate"],
    &["k8s", "kubernetes"],
    &["js", "javascript"],
    &["ts", "typescript"],
    &["py", "python"],
    &["msg", "message"],
    &["info", "information"],
    // people, pay and time
    &["coworker", "colleague", "teammate"],
    &["employee", "staff"],
    &["customer", "client"],
    &["hire", "hiring", "recruit", "recruiting", "recruitment"],
    &["salary", "payroll", "compensation", "wage", "wages"],
    &["holiday", "vacation", "pto"],
    &["price", "pricing", "cost", "fee"],
    &["reason", "rationale"],
    &["rule", "rules", "policy", "guideline", "guidelines"],
    &["guide", "tutorial", "handbook"],
    &["deploy", "deployment", "release"],
    &["meeting", "meetings", "standup"],
];

/// Each word of the groups → the groups holding it.
fn index() -> &'static HashMap<&'static str, Vec<usize>> {
    static INDEX: OnceLock<HashMap<&'static str, Vec<usize>>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut m: HashMap<&'static str, Vec<usize>> = HashMap::new();
        for (g, words) in GROUPS.iter().enumerate() {
            for w in *words {
                m.entry(w).or_default().push(g);
            }
        }
        m
    })
}

/// The words that may stand for `word` (a token as the analyzer makes it), itself left out,
/// in the order of the groups; a plural the groups lack is looked up by its singular.
pub(super) fn alternatives(word: &str) -> Vec<&'static str> {
    let idx = index();
    let groups = idx.get(word).or_else(|| {
        let singular = word.strip_suffix('s')?;
        idx.get(singular)
    });
    let Some(groups) = groups else {
        return Vec::new();
    };
    let mut out: Vec<&'static str> = Vec::new();
    for &g in groups {
        for &w in GROUPS[g] {
            if w != word && word.strip_suffix('s') != Some(w) && !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::analyzer;
    use crate::local::search::rank::reading;

    #[test]
    fn a_word_stands_for_the_others_of_its_groups() {
        assert_eq!(alternatives("account"), ["user"]);
        assert_eq!(alternatives("folder"), ["directory", "dir"]);
        // In two groups: both are its alternatives, each once.
        assert_eq!(alternatives("terminate"), ["kill", "close", "quit", "exit"]);
    }

    #[test]
    fn a_plural_is_looked_up_by_its_singular() {
        assert_eq!(alternatives("accounts"), ["user"]);
        assert!(alternatives("folders").contains(&"directory"));
    }

    #[test]
    fn words_of_no_group_have_none() {
        assert!(alternatives("lsof").is_empty());
        assert!(alternatives("").is_empty());
    }

    #[test]
    fn every_word_is_a_single_content_token_as_the_analyzer_makes_it() {
        let mut a = analyzer::text_analyzer();
        for words in GROUPS {
            assert!(words.len() >= 2, "{words:?}");
            for w in *words {
                let tokens: Vec<String> = analyzer::analyze(&mut a, w)
                    .into_iter()
                    .map(|t| t.text)
                    .collect();
                assert_eq!(tokens, [w.to_string()], "{w} is not one token");
                assert!(!reading::is_filler_word(w), "{w} is a stop word");
            }
        }
    }
}
