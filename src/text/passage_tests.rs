use super::*;

fn cut(text: &str, needle: &str, max: usize) -> Passage {
    let at = text.find(needle).expect("needle");
    let floor = note::parse(text).body_start;
    let line_at = text[..at].matches('\n').count() as u64 + 1;
    let src = Source {
        text,
        floor,
        at,
        line_at,
        markdown: true,
        heading_above: None,
    };
    passage(&src, max).expect("a passage")
}

/// Every passage line is the note's line of that number, as the note has it.
fn assert_real_lines(text: &str, p: &Passage) {
    let lines: Vec<&str> = text.lines().collect();
    let (a, b) = (p.line.unwrap(), p.end_line.unwrap());
    let shown: Vec<&str> = p.text.split('\n').collect();
    assert_eq!(shown.len() as u64, b - a + 1, "{p:?}");
    for (i, l) in shown.iter().enumerate() {
        let real = lines[(a as usize) + i - 1].trim_end();
        assert!(
            real.contains(l.trim_matches('…')),
            "line {} is {real:?}, shown {l:?}",
            a as usize + i
        );
    }
}

const NOTE: &str = "---\ntags: [x]\n---\n# Guide\nintro words\n\n## Install\nrun the installer\nthen reboot\n\n- step one\n- step two\n\n## Usage\nuse it daily\n";

#[test]
fn a_section_is_shown_whole_under_its_heading_path() {
    let p = cut(NOTE, "then reboot", 70);
    assert_eq!(p.heading.as_deref(), Some("Guide > Install"));
    assert_eq!(
        p.text,
        "## Install\nrun the installer\nthen reboot\n\n- step one\n- step two"
    );
    assert_eq!((p.line, p.end_line), (Some(7), Some(12)));
    assert!(!p.cut);
    assert_real_lines(NOTE, &p);
}

#[test]
fn a_whole_section_reads_on_into_the_next_while_blocks_fit() {
    let p = cut(NOTE, "then reboot", 90);
    assert_eq!(
        p.text,
        "## Install\nrun the installer\nthen reboot\n\n- step one\n- step two\n\n## Usage\nuse it daily"
    );
    // Below first: the intro above stays out while there is no room for it.
    assert!(!p.text.contains("intro"));
    assert_real_lines(NOTE, &p);
    // A short note is shown whole (its body: the frontmatter is no passage).
    let p = cut(NOTE, "then reboot", 1000);
    assert!(p.text.starts_with("# Guide\nintro words\n"), "{p:?}");
    assert!(p.text.ends_with("use it daily"), "{p:?}");
    assert_eq!(p.heading.as_deref(), Some("Guide > Install"));
    assert_real_lines(NOTE, &p);
}

#[test]
fn a_match_on_a_heading_shows_the_section_it_heads() {
    let p = cut(NOTE, "Usage", 20);
    assert_eq!(p.heading.as_deref(), Some("Guide > Usage"));
    assert_eq!(p.text, "use it daily");
    assert_eq!(p.line, Some(15));
}

#[test]
fn a_small_cap_keeps_the_match_block_and_grows_by_whole_blocks() {
    // A heading comes with the lines after it.
    let p = cut(NOTE, "then reboot", 45);
    assert_eq!(p.text, "## Install\nrun the installer\nthen reboot");
    assert!(!p.cut);
    let p = cut(NOTE, "then reboot", 12);
    assert!(p.cut);
    assert!(p.text.contains("then reboot"), "{p:?}");
    assert_real_lines(NOTE, &p);
}

#[test]
fn frontmatter_shows_only_when_it_is_the_match() {
    let p = cut(NOTE, "tags", 1000);
    assert_eq!(p.text, "tags: [x]");
    assert_eq!(p.heading, None);
    let p = cut(NOTE, "intro", 1000);
    assert!(!p.text.contains("tags"));
    assert_eq!(p.heading.as_deref(), Some("Guide"));
}

#[test]
fn a_hash_inside_a_code_fence_is_no_heading() {
    let text =
        "# Deploy\nrun this:\n````bash\n# not a heading\n```\nstill code\n````\nafter the fence\n";
    let p = cut(text, "after the fence", 1000);
    assert_eq!(p.heading.as_deref(), Some("Deploy"));
    assert!(p.text.starts_with("# Deploy\nrun this:"), "{p:?}");
    assert_real_lines(text, &p);
}

#[test]
fn comments_are_hidden_and_lines_keep_their_numbers() {
    let text = "# A\nkeep %% secret\nstill secret %% this\nand <!-- gone --> that\n";
    let p = cut(text, "that", 1000);
    assert_eq!(p.text, "# A\nkeep\n this\nand  that");
    assert_eq!((p.line, p.end_line), (Some(1), Some(4)));
}

#[test]
fn a_line_longer_than_the_cap_is_cut_around_the_match() {
    let long = format!(
        "# Dump\n{} needle {}\n",
        "a ".repeat(5000),
        "b ".repeat(5000)
    );
    let p = cut(&long, "needle", 300);
    assert!(p.cut);
    assert!(p.text.contains("needle"));
    assert!(p.text.len() <= 300 + 2 * '…'.len_utf8());
    assert_eq!(p.line, Some(2));
}

#[test]
fn cjk_and_crlf_text_is_cut_on_character_boundaries() {
    let text = "# 标题\r\n第一行文字\r\n\r\n第二行有答案\r\n";
    let p = cut(text, "答案", 1000);
    assert_eq!(p.heading.as_deref(), Some("标题"));
    assert_eq!(p.text, "# 标题\n第一行文字\n\n第二行有答案");
    let p = cut(text, "答案", 7);
    assert!(p.cut);
}

#[test]
fn a_window_of_a_giant_note_uses_the_heading_found_above_it() {
    let window = "line one\nline two with the match\nline three\n";
    let src = Source {
        text: window,
        floor: 0,
        at: window.find("match").unwrap(),
        line_at: 5001,
        markdown: true,
        heading_above: Some("Far above"),
    };
    let p = passage(&src, 1000).unwrap();
    assert_eq!(p.heading.as_deref(), Some("Far above"));
    assert_eq!((p.line, p.end_line), (Some(5000), Some(5002)));
}
