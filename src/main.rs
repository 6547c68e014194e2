//! `vault-search`: the command-line front-end of the library (see `cli`).

fn main() -> std::process::ExitCode {
    vault_search::cli::main()
}
