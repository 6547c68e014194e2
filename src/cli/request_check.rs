//! The command line's search flags against the request table: each flag a row, each row the
//! command line takes a flag, with the row's values and bounds.

use clap::Args as _;

use super::args::SearchArgs;
use crate::core::request::table::{self, Front, Kind, Spelling, OPTIONS};

fn flags() -> clap::Command {
    SearchArgs::augment_args(clap::Command::new("search").no_binary_name(true))
}

/// The table's name of a flag: its long name, or the positional's id.
fn name_of(arg: &clap::Arg) -> String {
    arg.get_long()
        .map_or_else(|| arg.get_id().to_string(), str::to_string)
}

#[test]
fn every_flag_is_a_row_and_every_row_a_flag() {
    let cmd = flags();
    let names: Vec<String> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .map(name_of)
        .collect();
    for n in &names {
        let row = table::spelled(Front::Cli, n)
            .unwrap_or_else(|| panic!("--{n} is a search flag the request table doesn't have"));
        let arg = cmd.get_arguments().find(|a| &name_of(a) == n).unwrap();
        assert_eq!(
            arg.get_help().map(ToString::to_string),
            Some(table::cli_help(row.name)),
            "--{n}'s help is the table's"
        );
    }
    for o in OPTIONS {
        if let Spelling::As(n) = o.cli {
            assert!(
                names.iter().any(|f| f == n),
                "the request table's {} has no flag --{n}",
                o.name
            );
        }
    }
}

#[test]
fn each_flag_takes_the_values_and_bounds_of_its_row() {
    let parse = |args: &[&str]| flags().try_get_matches_from(args).map(|_| ());
    for o in OPTIONS {
        let Some(flag) = o.named(Front::Cli) else {
            continue;
        };
        let flag = format!("--{flag}");
        match o.kind {
            Kind::Number => {
                let b = o.bounds.unwrap();
                for ok in [b.min, b.max] {
                    assert!(parse(&[&flag, &ok.to_string()]).is_ok(), "{flag} {ok}");
                }
                for bad in [b.min - 1, b.max + 1] {
                    assert!(parse(&[&flag, &bad.to_string()]).is_err(), "{flag} {bad}");
                }
            }
            Kind::Choice(values) => {
                let cmd = flags();
                let arg = cmd
                    .get_arguments()
                    .find(|a| name_of(a) == flag[2..])
                    .unwrap();
                let taken: Vec<String> = arg
                    .get_possible_values()
                    .iter()
                    .map(|v| v.get_name().to_string())
                    .collect();
                assert_eq!(taken, values, "{flag}");
            }
            Kind::List => assert!(parse(&[&flag, "a", &flag, "b"]).is_ok(), "{flag} repeats"),
            Kind::Text => assert!(parse(&[&flag, "a", &flag, "b"]).is_err(), "{flag} is one"),
            Kind::Switch => assert!(parse(&[&flag]).is_ok(), "{flag}"),
            Kind::Words => assert!(parse(&["a", "b"]).is_ok()),
        }
    }
}
