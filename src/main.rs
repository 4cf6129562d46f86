//! The pnmate binary: argument dispatch only.

mod cli;
mod problem_cli;
mod tables_cli;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    // The exact tables are stored where the option says, by default in the platform's
    // cache directory; empty: in memory only.
    let cache = match &args.tables_cache {
        Some(dir) => (!dir.trim().is_empty()).then(|| dir.trim().into()),
        None => pnmate::knowledge::exact::file::default_dir(),
    };
    pnmate::knowledge::exact::store().set_cache(cache.clone());
    let code = match args.command {
        None => {
            let out: std::sync::Arc<std::sync::Mutex<dyn std::io::Write + Send>> =
                std::sync::Arc::new(std::sync::Mutex::new(std::io::stdout()));
            let dir = cache.map(|d: std::path::PathBuf| d.display().to_string()).unwrap_or_default();
            let options = [("TablesCache", dir.as_str())];
            pnmate::uci::run(std::io::stdin().lock(), out, if args.tables_cache.is_some() { &options } else { &[] });
            0
        }
        Some(cli::Command::SyzygyTables(command)) => tables_cli::run(&command),
        Some(cli::Command::Solve(args)) => cli::run_solve(&args),
        Some(cli::Command::Epd(args)) => cli::run_epd(&args),
        Some(cli::Command::Problem(args)) => problem_cli::run_file(&args),
        Some(cli::Command::Bench { nodes, syzygy, long }) => cli::run_bench(nodes, syzygy.as_deref(), long),
    };
    std::process::exit(code);
}
