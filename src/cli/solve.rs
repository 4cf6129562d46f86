//! `pnmate solve`: one position's mate (or a variant's win), or every key with `--all`.
//! (With `--stip` a chess problem: `super::problem`.)

use std::path::PathBuf;

use pnmate::chess::mate_len::MateBound;
use pnmate::chess::position::{parse_fen, to_fen, uci_for};
use pnmate::dfpn::Expand;
use pnmate::dfpn::monitor::Control;
use pnmate::fallback::AlphaBeta;
use pnmate::jobs::search_thread;
use pnmate::knowledge::oracle::ChessOracle;
use pnmate::limits::Budget;
use pnmate::proof::certify::CertBudget;
use pnmate::search::multipv::{Ranking, rank_moves};
use pnmate::search::{Event, Outcome, Params, solve};
use pnmate::tt::TranspositionTable;
use pnmate::variant::parse_variant_fen;

use super::args::{GameArgs, SearchArgs, ShowArgs};
use super::error::CliError;
use super::report::{Words, print_outcome};

/// Options of the `solve` subcommand.
#[derive(clap::Args, Debug, Clone)]
pub struct SolveArgs {
    /// The position (FEN, 4 to 6 fields; quote it).
    pub fen: String,
    /// Mate bound in moves (default: keep growing until a limit).
    #[arg(long)]
    pub mate: Option<u32>,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Every first move that mates within --mate, each with its proven length and line
    /// (all keys: shows cooks and duals at move 1).
    #[arg(long, requires = "mate")]
    pub all: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Write a proof certificate of the result here (check it with `pnmate-check`).
    #[arg(long, conflicts_with = "all")]
    pub proof: Option<PathBuf>,
    #[command(flatten)]
    pub game: GameArgs,
    /// Solve a chess problem of this stipulation instead of a mate: #n, s#n, r#n, h#n,
    /// h#n.5, ser-h#n, ser-#n, =n, s=n, h=n or ser-h=n (the side to move moves first).
    #[arg(long, conflicts_with_all = ["mate", "all", "variant", "syzygy"])]
    pub stip: Option<String>,
    #[command(flatten)]
    pub show: ShowArgs,
}

/// Runs `solve` of a mate (a problem's `--stip` goes to `super::problem`); returns the
/// exit status.
pub fn run(args: &SolveArgs) -> Result<i32, CliError> {
    if args.show.given() {
        return Err(CliError::ShowWithoutStip);
    }
    let variant = args.game.variant()?;
    let syzygy = args.game.syzygy(variant)?;
    match variant {
        None => solve_in(args, parse_fen(&args.fen)?, ChessOracle::with_syzygy(syzygy), Words::of(None)),
        Some(v) => solve_in(args, parse_variant_fen(v, &args.fen)?, (), Words::of(Some(v))),
    }
}

/// `solve` on `pos`, in its game, with its `oracle`.
fn solve_in<G: AlphaBeta + Expand>(args: &SolveArgs, pos: G, oracle: G::Oracle, words: Words) -> Result<i32, CliError> {
    let budget = args.search.budget()?;
    if args.mate == Some(0) {
        return Err(CliError::ZeroMate);
    }
    let mut tt = TranspositionTable::new(args.search.hash);
    tt.finish_touching(); // the time limit starts with the table in memory
    let threads = args.search.threads;
    if args.all {
        let mate = MateBound::new(args.mate.unwrap_or(1).into());
        let params = Params { mate, threads, oracle, ..Params::default() };
        return all_keys(&pos, params, budget, &tt, args.json, words);
    }
    let json = args.json;
    let mut on_event = |e: Event| {
        if let (false, Event::Mate { mate: moves, exact, pv, stats }) = (json, e) {
            eprintln!(
                "  {} {moves}{} after {} nodes, {} ms: {}",
                words.win,
                if exact { " (shortest)" } else { "" },
                stats.nodes,
                stats.time.as_millis(),
                uci_for(&pos, &pv)
            );
        }
    };
    let mate = args.mate.and_then(|m| MateBound::new(m.into()));
    let params = Params { mate, threads, oracle: oracle.clone(), ..Params::default() };
    // Deep bounds recurse deeply: search on a thread with a large stack.
    let (outcome, stats, written) = on_search_thread(|| {
        let (outcome, stats) = solve(&pos, params, budget, &tt, &mut on_event);
        let written = args
            .proof
            .as_ref()
            .map(|path| outcome.certify(&pos, &tt, CertBudget::default(), &oracle).and_then(|c| c.write(path)));
        (outcome, stats, written)
    })?;
    let proof = args.proof.as_deref().zip(written.as_ref());
    print_outcome(&pos, &outcome, &stats, words, json, proof);
    Ok(if matches!(written, Some(Err(_))) { 1 } else { 0 })
}

/// Runs `work` on a search thread (whose stack the deep bounds need) and waits for it.
fn on_search_thread<T: Send>(work: impl FnOnce() -> T + Send) -> Result<T, CliError> {
    std::thread::scope(|scope| match search_thread("pnmate-solve").spawn_scoped(scope, work) {
        Ok(h) => h.join().map_err(|_| CliError::Panicked),
        Err(e) => Err(CliError::Thread(e)),
    })
}

/// `solve --all`: every first move that mates within the bound, with its proven length.
fn all_keys<G: AlphaBeta + Expand>(
    pos: &G,
    params: Params<G>,
    budget: Budget,
    tt: &TranspositionTable,
    json: bool,
    words: Words,
) -> Result<i32, CliError> {
    let mate = params.mate.map_or(0, |m| m.moves());
    let control = Control::new();
    control.set_deadline(budget.time);
    tt.new_search();
    let ranking = Ranking { moves: &[], node_limit: budget.nodes, evaluate: &G::evaluate };
    let results = on_search_thread(|| rank_moves(pos, &params, ranking, tt, &control, &mut |_| {}))?;
    let keys: Vec<_> = results.iter().filter(|r| matches!(r.outcome, Outcome::Mate { .. })).collect();
    let unknown = results.iter().filter(|r| r.outcome == Outcome::Unknown).count();
    let refuted = results.len() - keys.len() - unknown;
    if json {
        let rows: Vec<_> = keys
            .iter()
            .map(|r| {
                serde_json::json!({
                    "move": uci_for(pos, &[r.mv]),
                    "moves": r.outcome.signed_moves(),
                    "exact": r.outcome.is_exact(),
                    "pv": uci_for(pos, r.outcome.pv()).split_whitespace().collect::<Vec<_>>(),
                })
            })
            .collect();
        let obj = serde_json::json!({
            "fen": to_fen(pos), "within": mate, "keys": rows, "refuted": refuted, "unknown": unknown,
        });
        println!("{obj}");
        return Ok(0);
    }
    println!("fen     {}", to_fen(pos));
    for r in &keys {
        let exact = if r.outcome.is_exact() { "proven shortest" } else { "shorter not excluded" };
        let moves = r.outcome.signed_moves().unwrap_or(0);
        let (key, line) = (uci_for(pos, &[r.mv]), uci_for(pos, r.outcome.pv()));
        println!("key     {key}  {} in {moves} ({exact})  pv {line}", words.win);
    }
    let s = if keys.len() == 1 { "" } else { "s" };
    println!("keys    {} first move{s} {} within {mate}", keys.len(), words.winning);
    println!("others  {refuted} proven not to {} within {mate}, {unknown} unknown (limit reached)", words.win);
    Ok(0)
}
