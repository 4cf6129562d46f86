//! The pnmate binary: argument dispatch only.

mod cli;
mod problem_cli;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    let code = match args.command {
        None => {
            let out: std::sync::Arc<std::sync::Mutex<dyn std::io::Write + Send>> =
                std::sync::Arc::new(std::sync::Mutex::new(std::io::stdout()));
            pnmate::uci::run(std::io::stdin().lock(), out);
            0
        }
        Some(cli::Command::Solve(args)) => cli::run_solve(&args),
        Some(cli::Command::Epd(args)) => cli::run_epd(&args),
        Some(cli::Command::Problem(args)) => problem_cli::run_file(&args),
        Some(cli::Command::Bench { nodes, syzygy, long }) => cli::run_bench(nodes, syzygy.as_deref(), long),
    };
    std::process::exit(code);
}
