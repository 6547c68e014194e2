//! `vault-search`: parse flags, resolve them into one `Config`, run, map errors to exit 2.

use std::process::ExitCode;

use vault_search::cli;
use vault_search::config::Config;

fn main() -> ExitCode {
    let args = match cli::parse_args() {
        Ok(args) => args,
        Err(code) => return code,
    };
    match Config::resolve(args).and_then(|config| vault_search::run(&config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("vault-search: {}", one_line(&format!("{err:#}")));
            ExitCode::from(2)
        }
    }
}

/// Errors are promised to fit on one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
