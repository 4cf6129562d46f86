//! The pnmate binary: argument dispatch only.

mod cli;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    let code = match args.command {
        None => {
            eprintln!("UCI mode not built yet");
            0
        }
        Some(cli::Command::Solve { fen, mate, time, nodes, hash, json }) => {
            cli::run_solve(&fen, mate, time, nodes, hash, json)
        }
        Some(cli::Command::Epd(args)) => cli::run_epd(&args),
    };
    std::process::exit(code);
}
