//! `cargo run --release --example genvault -- DIR NOTES [SEED]`: writes a deterministic,
//! realistic synthetic vault (see `gen.rs`) for benchmarks.

mod gen;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(notes)) = (args.first(), args.get(1).and_then(|n| n.parse().ok())) else {
        eprintln!("usage: genvault DIR NOTES [SEED]");
        std::process::exit(2);
    };
    let seed = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(42);
    match gen::generate(std::path::Path::new(dir), notes, seed) {
        Ok(bytes) => println!("wrote {notes} notes, {bytes} bytes of Markdown, to {dir}"),
        Err(e) => {
            eprintln!("genvault: {e}");
            std::process::exit(2);
        }
    }
}
