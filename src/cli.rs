//! The command-line subcommands: `solve`, `epd` and `bench`.

use std::time::Duration;

use clap::{Parser, Subcommand};

use pnmate::position::{parse_fen, san_line, to_fen, uci_line};
use pnmate::search::{Event, Params, SolveLimits, solve};
use pnmate::{Outcome, Table};

/// pnmate: a proof-number mate prover. Without a subcommand it speaks UCI on stdin/stdout.
#[derive(Parser, Debug)]
#[command(name = "pnmate", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Prove the shortest mate (or none) in one position.
    Solve {
        /// The position (FEN, 4 to 6 fields; quote it).
        fen: String,
        /// Mate bound in moves (default: keep growing until a limit).
        #[arg(long)]
        mate: Option<u32>,
        /// Time limit in seconds.
        #[arg(long)]
        time: Option<f64>,
        /// Node limit.
        #[arg(long)]
        nodes: Option<u64>,
        /// Transposition table size in MB.
        #[arg(long, default_value_t = 64)]
        hash: usize,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

fn fail(msg: &str) -> i32 {
    eprintln!("pnmate: {msg}");
    2
}

/// Seconds from the command line, validated.
pub fn seconds(s: Option<f64>) -> Result<Option<Duration>, String> {
    match s {
        None => Ok(None),
        Some(t) if t.is_finite() && t > 0.0 && t < 1e9 => Ok(Some(Duration::from_secs_f64(t))),
        Some(t) => Err(format!("bad time {t}: want a positive number of seconds")),
    }
}

/// Runs `solve`; returns the exit status.
pub fn run_solve(fen: &str, mate: Option<u32>, time: Option<f64>, nodes: Option<u64>, hash: usize, json: bool) -> i32 {
    let pos = match parse_fen(fen) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    let time = match seconds(time) {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    if mate == Some(0) || hash == 0 || hash > 65536 {
        return fail("--mate must be at least 1 and --hash in 1..65536");
    }
    let mut tt = Table::new(hash);
    let mut on_event = |e: Event| {
        if json {
            return;
        }
        if let Event::Mate { moves, exact, pv, stats } = e {
            eprintln!(
                "  mate {moves}{} after {} nodes, {} ms: {}",
                if exact { " (shortest)" } else { "" },
                stats.nodes,
                stats.time.as_millis(),
                uci_line(&pv)
            );
        }
    };
    let params = Params { mate, ..Params::default() };
    let (outcome, stats) = solve(&pos, params, SolveLimits { nodes, time }, &mut tt, &mut on_event);
    let (result, moves) = match &outcome {
        Outcome::Mate { moves, .. } => ("mate", *moves as i64),
        Outcome::Mated { moves, .. } => ("mated", -(*moves as i64)),
        Outcome::NoMate { moves } => ("nomate", *moves as i64),
        Outcome::Unknown => ("unknown", 0),
    };
    let pv = outcome.pv();
    if json {
        let obj = serde_json::json!({
            "fen": to_fen(&pos),
            "result": result,
            "moves": if matches!(outcome, Outcome::Mate { .. } | Outcome::Mated { .. }) { Some(moves) } else { None },
            "exact": match &outcome { Outcome::Mate { exact, .. } | Outcome::Mated { exact, .. } => Some(*exact), _ => None },
            "within": if let Outcome::NoMate { moves } = outcome { Some(moves) } else { None },
            "pv": pv.iter().map(|&m| pnmate::position::uci(m)).collect::<Vec<_>>(),
            "san": san_line(&pos, pv),
            "nodes": stats.nodes,
            "time_ms": stats.time.as_millis() as u64,
            "nps": stats.nps(),
        });
        println!("{obj}");
    } else {
        let verdict = match &outcome {
            Outcome::Mate { moves, exact, .. } => {
                format!("mate in {moves}{}", if *exact { " (proven shortest)" } else { " (shorter not excluded)" })
            }
            Outcome::Mated { moves, exact, .. } => {
                format!("mated in {moves}{}", if *exact { " (proven longest defence)" } else { "" })
            }
            Outcome::NoMate { moves } => format!("no mate within {moves} (proven)"),
            Outcome::Unknown => "unknown (limit reached before a proof)".to_string(),
        };
        println!("fen     {}", to_fen(&pos));
        println!("result  {verdict}");
        if !pv.is_empty() {
            println!("pv      {}", uci_line(pv));
            println!("san     {}", san_line(&pos, pv));
        }
        println!("nodes   {}", stats.nodes);
        println!("time    {} ms", stats.time.as_millis());
        println!("nps     {}", stats.nps());
    }
    0
}
