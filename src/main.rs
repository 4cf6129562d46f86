//! The pnmate binary: the command line ([`cli`]); without a subcommand, the UCI engine.

mod cli;

use clap::Parser;

fn main() {
    let code = cli::run(cli::Cli::parse());
    std::process::exit(code);
}
