//! `cargo run --release --example genvault -- DIR NOTES [SEED] [--giants]`: writes a
//! deterministic, realistic synthetic vault (see `gen.rs`) for benchmarks; `--giants` adds
//! four giant notes of 1–10 MB built from its words (see `giant.rs`).
// A test/example crate: its `pub` items are for its own modules, not an API.
#![allow(unreachable_pub)]

mod gen;
mod giant;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let giants = args.iter().any(|a| a == "--giants");
    args.retain(|a| a != "--giants");
    let (Some(dir), Some(notes)) = (args.first(), args.get(1).and_then(|n| n.parse().ok())) else {
        eprintln!("usage: genvault DIR NOTES [SEED] [--giants]");
        std::process::exit(2);
    };
    let seed = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(42);
    let dir = std::path::Path::new(dir);
    let written = gen::generate(dir, notes, seed).and_then(|bytes| {
        let giant = if giants { giant::add(dir, seed)? } else { 0 };
        Ok((bytes, giant))
    });
    match written {
        Ok((bytes, giant)) => {
            println!(
                "wrote {notes} notes, {bytes} bytes of Markdown, to {}",
                dir.display()
            );
            if giants {
                println!("and {} giant notes, {giant} bytes", giant::GIANTS.len());
            }
        }
        Err(e) => {
            eprintln!("genvault: {e}");
            std::process::exit(2);
        }
    }
}
