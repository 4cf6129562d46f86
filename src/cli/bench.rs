//! `pnmate bench`: fixed positions to a fixed node limit (the signature a commit that
//! changes the search quotes), or the long mates until their first proof.

use super::args::load_syzygy;
use super::error::CliError;

/// Options of the `bench` subcommand.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// Node limit per position.
    #[arg(long, default_value_t = pnmate::bench::DEFAULT_NODES)]
    pub nodes: u64,
    /// Also time the positions the tables in these directories do not cover, with and
    /// without the tables loaded.
    #[arg(long)]
    pub syzygy: Option<String>,
    /// Instead, time the long-mate bench: quiet mates searched until their first proof;
    /// print each one's mate, nodes and time.
    #[arg(long, conflicts_with_all = ["nodes", "syzygy"])]
    pub long: bool,
}

/// Runs `bench`; returns the exit status.
pub fn run(args: &BenchArgs) -> Result<i32, CliError> {
    if args.long {
        let proofs = pnmate::bench::long_mates();
        for p in &proofs {
            let mate = p.moves.map_or("none".to_string(), |m| format!("mate {m}"));
            println!(
                "{:<20} {mate:<8} {:>9} nodes {:>6} ms (exact tables built in {} ms)",
                p.name,
                p.nodes,
                p.time.as_millis(),
                p.tables.as_millis()
            );
        }
        let nodes: u64 = proofs.iter().map(|p| p.nodes).sum();
        let ms: u128 = proofs.iter().map(|p| p.time.as_millis()).sum();
        println!("{nodes} nodes {ms} ms");
        return Ok(0);
    }
    let r = pnmate::bench::run(args.nodes);
    println!("{} nodes {} nps", r.nodes, r.nps());
    eprintln!("exact tables built in {} ms, left out of the nps", r.tables.as_millis());
    let Some(paths) = args.syzygy.as_deref() else { return Ok(0) };
    let tables = load_syzygy(paths)?;
    let [without, with] = pnmate::bench::outside_tables(args.nodes, &tables);
    for (label, runs) in [("without tables", without), ("with tables", with)] {
        let nps: Vec<String> = runs.iter().map(|r| r.nps().to_string()).collect();
        println!("outside the tables, {label}: {} nodes, nps {}", runs[0].nodes, nps.join(" "));
    }
    Ok(0)
}
