//! The command line: the `pnmate` command, its subcommands and their dispatch. Without a
//! subcommand the binary speaks UCI.
//!
//! Inside: [`args`] holds the arguments several commands share, [`solve`], [`epd`],
//! [`problem`], [`bench`] and [`tables`] one command each, [`report`] what the mate
//! commands print, and [`error`] every failure a command reports.

pub mod args;
pub mod bench;
pub mod epd;
pub mod error;
pub mod problem;
pub mod report;
pub mod solve;
pub mod tables;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use error::CliError;

/// pnmate: a proof-number mate prover. Without a subcommand it speaks UCI on stdin/stdout.
#[derive(Parser, Debug)]
#[command(name = "pnmate", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Where the exact tables of endings of up to four men are stored, built once per
    /// machine (default: the platform's cache directory, as ~/.cache/pnmate); an empty
    /// value keeps them in memory only.
    #[arg(long, global = true, value_name = "DIR")]
    pub tables_cache: Option<String>,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Prove the shortest mate (or none) in one position, or solve a chess problem.
    Solve(solve::SolveArgs),
    /// Run EPD mate suites (or suites of problems) with verification and a summary.
    Epd(epd::EpdArgs),
    /// Solve the chess problems of a file in Popeye's input language (orthodox subset).
    Problem(problem::ProblemArgs),
    /// Build, list or verify the exact tables of endings of up to four men stored on this
    /// machine.
    #[command(subcommand)]
    Tables(tables::TablesCommand),
    /// Search fixed positions to a fixed node limit; print "<nodes> nodes <nps> nps".
    Bench(bench::BenchArgs),
}

/// Runs the command line; returns the process's exit status (2 with a one-line error).
pub fn run(cli: Cli) -> i32 {
    // The exact tables are stored where the option says, by default in the platform's
    // cache directory; empty: in memory only.
    let cache: Option<PathBuf> = match &cli.tables_cache {
        Some(dir) => (!dir.trim().is_empty()).then(|| dir.trim().into()),
        None => pnmate::knowledge::exact::file::default_dir(),
    };
    pnmate::knowledge::exact::store().set_cache(cache.clone());
    let result: Result<i32, CliError> = match &cli.command {
        None => {
            let out: std::sync::Arc<std::sync::Mutex<dyn std::io::Write + Send>> =
                std::sync::Arc::new(std::sync::Mutex::new(std::io::stdout()));
            let dir = cache.map(|d| d.display().to_string()).unwrap_or_default();
            let options = [("TablesCache", dir.as_str())];
            let options: &[(&str, &str)] = if cli.tables_cache.is_some() { &options } else { &[] };
            pnmate::uci::run(std::io::stdin().lock(), out, options);
            Ok(0)
        }
        Some(Command::Solve(args)) => match &args.stip {
            Some(stip) => {
                problem::run_stip(&args.fen, stip, &args.search, &args.show, args.json, args.proof.as_deref())
            }
            None => solve::run(args),
        },
        Some(Command::Epd(args)) => epd::run_epd(args),
        Some(Command::Problem(args)) => problem::run_file(args),
        Some(Command::Tables(command)) => tables::run(command),
        Some(Command::Bench(args)) => bench::run(args),
    };
    result.unwrap_or_else(|e| {
        eprintln!("pnmate: {e}");
        2
    })
}
