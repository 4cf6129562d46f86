//! The command-line subcommands: `solve`, `epd` and `bench` (`problem` in problem_cli.rs).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use pnmate::chess::game::Game;
use pnmate::chess::position::{parse_fen, san_line, to_fen, uci_for};
use pnmate::dfpn::Expand;
use pnmate::epd::{EpdEntry, Judgement, LENGTH_BANDS, parse_line, parse_variant_line};
use pnmate::proof::certify::CertBudget;
use pnmate::search::{Budget, Event, Params, solve};
use pnmate::suite::{PositionResult, RunSettings, Summary, run};
use pnmate::tablebase::SyzygyTables;
use pnmate::variant::{VARIANT_NAMES, parse_variant_fen, variant_named};
use pnmate::{MateBound, Outcome, TranspositionTable};
use shakmaty::variant::Variant;

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
    /// Prove the shortest mate (or none) in one position.
    Solve(SolveArgs),
    /// Run EPD mate suites with verification and a summary.
    Epd(EpdArgs),
    /// Solve the chess problems of a file in Popeye's input language (orthodox subset).
    Problem(crate::problem_cli::ProblemArgs),
    /// Build, list or verify the exact tables of endings of up to four men stored on this
    /// machine.
    #[command(subcommand)]
    SyzygyTables(crate::tables_cli::TablesCommand),
    /// Search fixed positions to a fixed node limit; print "<nodes> nodes <nps> nps".
    Bench {
        /// Node limit per position.
        #[arg(long, default_value_t = pnmate::bench::DEFAULT_NODES)]
        nodes: u64,
        /// Also time the positions the tables in these directories do not cover, with and
        /// without the tables loaded.
        #[arg(long)]
        syzygy: Option<String>,
        /// Instead, time the long-mate bench: quiet mates searched until their first
        /// proof; print each one's mate, nodes and time.
        #[arg(long, conflicts_with_all = ["nodes", "syzygy"])]
        long: bool,
    },
}

/// Whether `hash` (MB) and `threads` are in the ranges of the UCI options.
pub(crate) fn in_ranges(hash: usize, threads: usize) -> Result<(), String> {
    use pnmate::options::{MAX_HASH_MB, MAX_THREADS};
    if hash == 0 || hash as i64 > MAX_HASH_MB {
        return Err(format!("--hash must be in 1..{MAX_HASH_MB}"));
    }
    if threads == 0 || threads as i64 > MAX_THREADS {
        return Err(format!("--threads must be in 1..{MAX_THREADS}"));
    }
    Ok(())
}

pub(crate) fn fail(msg: &str) -> i32 {
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

/// Loads the tables of `--syzygy`, saying on stderr what it found; an error when the
/// option names no readable table.
fn load_tables(paths: Option<&str>) -> Result<Option<Arc<SyzygyTables>>, String> {
    let Some(paths) = paths else { return Ok(None) };
    let (tables, loaded) = SyzygyTables::load(paths, usize::MAX);
    for problem in &loaded.problems {
        eprintln!("{problem}");
    }
    match tables {
        Some(t) => {
            eprintln!("{}", loaded.summary());
            Ok(Some(t))
        }
        None => Err(format!("--syzygy {paths}: {}", loaded.summary())),
    }
}

/// Runs `bench`; returns the exit status.
pub fn run_bench(nodes: u64, syzygy: Option<&str>, long: bool) -> i32 {
    if long {
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
        return 0;
    }
    let r = pnmate::bench::run(nodes);
    println!("{} nodes {} nps", r.nodes, r.nps());
    eprintln!("exact tables built in {} ms, left out of the nps", r.tables.as_millis());
    let Some(paths) = syzygy else { return 0 };
    let tables = match load_tables(Some(paths)) {
        Ok(t) => t.expect("tables were asked for"),
        Err(e) => return fail(&e),
    };
    let [without, with] = pnmate::bench::outside_tables(nodes, &tables);
    for (label, runs) in [("without tables", without), ("with tables", with)] {
        let nps: Vec<String> = runs.iter().map(|r| r.nps().to_string()).collect();
        println!("outside the tables, {label}: {} nodes, nps {}", runs[0].nodes, nps.join(" "));
    }
    0
}

/// The variant called `name` (None for chess), or why not.
fn variant_of(name: Option<&str>) -> Result<Option<Variant>, String> {
    let Some(name) = name else { return Ok(None) };
    let variant = variant_named(name).ok_or_else(|| {
        let (last, rest) = VARIANT_NAMES.split_last().expect("variants have names");
        format!("unknown variant '{name}': want {} or {last}", rest.join(", "))
    })?;
    Ok((variant != Variant::Chess).then_some(variant))
}

/// How results are worded in a game: chess's mates, a variant's wins.
#[derive(Clone, Copy)]
struct Words {
    /// The variant's name, for a variant.
    variant: Option<&'static str>,
    win: &'static str,
    winning: &'static str,
    loss: &'static str,
    none: &'static str,
}

impl Words {
    fn of(variant: Option<Variant>) -> Words {
        match variant {
            None => Words { variant: None, win: "mate", winning: "mating", loss: "mated", none: "nomate" },
            Some(v) => Words { variant: Some(v.uci()), win: "win", winning: "winning", loss: "loss", none: "nowin" },
        }
    }
}

/// Runs `solve`; returns the exit status.
pub fn run_solve(args: &SolveArgs) -> i32 {
    if let Some(stip) = &args.stip {
        return crate::problem_cli::run_stip(args, stip);
    }
    let variant = match variant_of(args.variant.as_deref()) {
        Ok(v) => v,
        Err(e) => return fail(&e),
    };
    match variant {
        None => match parse_fen(&args.fen) {
            Ok(pos) => solve_in(args, pos, Words::of(None)),
            Err(e) => fail(&e.to_string()),
        },
        Some(v) => match parse_variant_fen(v, &args.fen) {
            Ok(pos) => solve_in(args, pos, Words::of(Some(v))),
            Err(e) => fail(&e.to_string()),
        },
    }
}

/// `solve` on `pos`, in its game.
fn solve_in<G: Expand>(args: &SolveArgs, pos: G, words: Words) -> i32 {
    let SolveArgs { mate, time, nodes, hash, threads, all, json, ref proof, ref syzygy, .. } = *args;
    let time = match seconds(time) {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    if mate == Some(0) {
        return fail("--mate must be at least 1");
    }
    if let Err(e) = in_ranges(hash, threads) {
        return fail(&e);
    }
    let tables = match load_tables(syzygy.as_deref()) {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    let tables = unused_in_variants(tables, words);
    let mut tt = TranspositionTable::new(hash);
    tt.finish_touching(); // the time limit starts with the table in memory
    if all {
        let params = Params { mate: MateBound::new(mate.unwrap_or(1).into()), threads, tables, ..Params::default() };
        return run_all_keys(&pos, params, Budget { nodes, time }, &tt, json, words);
    }
    let mut on_event = |e: Event| {
        if json {
            return;
        }
        if let Event::Mate { mate: moves, exact, pv, stats } = e {
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
    let params = Params {
        mate: mate.and_then(|m| MateBound::new(m.into())),
        threads,
        tables: tables.clone(),
        ..Params::default()
    };
    let limits = Budget { nodes, time };
    // Deep bounds recurse deeply: search on a thread with a large stack.
    let searched = std::thread::scope(|scope| {
        pnmate::search::search_thread("pnmate-solve")
            .spawn_scoped(scope, || {
                let (outcome, stats) = solve(&pos, params, limits, &tt, &mut on_event);
                let written = proof.as_ref().map(|path| {
                    outcome.certify(&pos, &tt, CertBudget::default(), tables.as_deref()).and_then(|c| c.write(path))
                });
                (outcome, stats, written)
            })
            .map(|h| h.join())
    });
    let (outcome, stats, written) = match searched {
        Ok(Ok(result)) => result,
        Ok(Err(_)) => return fail("the search panicked"),
        Err(e) => return fail(&format!("cannot start the search thread: {e}")),
    };
    let (result, moves) = match &outcome {
        Outcome::Mate { moves, .. } => (words.win, *moves as i64),
        Outcome::Mated { moves, .. } => (words.loss, -(*moves as i64)),
        Outcome::NoMate { moves } => (words.none, *moves as i64),
        Outcome::Unknown => ("unknown", 0),
    };
    let pv = outcome.pv();
    if json {
        let obj = serde_json::json!({
            "variant": words.variant,
            "fen": to_fen(&pos),
            "result": result,
            "moves": if matches!(outcome, Outcome::Mate { .. } | Outcome::Mated { .. }) { Some(moves) } else { None },
            "exact": match &outcome { Outcome::Mate { exact, .. } | Outcome::Mated { exact, .. } => Some(*exact), _ => None },
            "within": if let Outcome::NoMate { moves } = outcome { Some(moves) } else { None },
            "pv": uci_for(&pos, pv).split_whitespace().collect::<Vec<_>>(),
            "san": san_line(&pos, pv),
            "nodes": stats.nodes,
            "time_ms": stats.time.as_millis() as u64,
            "nps": stats.nps(),
            "proof": written.as_ref().map(|w| match w {
                Ok(w) => serde_json::json!({
                    "nodes": w.nodes, "bytes": w.bytes, "claim": w.claim.to_string(), "shortest": w.shortest, "note": w.note
                }),
                Err(e) => serde_json::json!({ "error": e.to_string() }),
            }),
        });
        println!("{obj}");
    } else {
        let verdict = match &outcome {
            Outcome::Mate { moves, exact, .. } => format!(
                "{} in {moves}{}",
                words.win,
                if *exact { " (proven shortest)" } else { " (shorter not excluded)" }
            ),
            Outcome::Mated { moves, exact, .. } => {
                format!("{} in {moves}{}", words.loss, if *exact { " (proven longest defence)" } else { "" })
            }
            Outcome::NoMate { moves } if words.variant.is_some() => {
                format!("no win for either side within {moves} (proven)")
            }
            Outcome::NoMate { moves } => format!("no mate within {moves} (proven)"),
            Outcome::Unknown => "unknown (limit reached before a proof)".to_string(),
        };
        if let Some(v) = words.variant {
            println!("variant {v}");
        }
        println!("fen     {}", to_fen(&pos));
        println!("result  {verdict}");
        if !pv.is_empty() {
            println!("pv      {}", uci_for(&pos, pv));
            println!("san     {}", san_line(&pos, pv));
        }
        println!("nodes   {}", stats.nodes);
        println!("time    {} ms", stats.time.as_millis());
        println!("nps     {}", stats.nps());
        if let (Some(path), Some(w)) = (proof, &written) {
            match w {
                Ok(w) => println!(
                    "proof   {}: {}{}, {} nodes, {} bytes{}",
                    path.display(),
                    w.claim,
                    if w.shortest { " shortest" } else { "" },
                    w.nodes,
                    w.bytes,
                    w.note.as_ref().map(|n| format!(" ({n}: upper bound only)")).unwrap_or_default()
                ),
                Err(e) => println!("proof   not written: {e}"),
            }
        }
    }
    match written {
        Some(Err(_)) => 1,
        _ => 0,
    }
}

/// The tables, unless the game is a variant: then a note says they are not used.
fn unused_in_variants(tables: Option<Arc<SyzygyTables>>, words: Words) -> Option<Arc<SyzygyTables>> {
    match (tables, words.variant) {
        (Some(_), Some(v)) => {
            eprintln!("--syzygy: the tables are not used in {v} (chess only)");
            None
        }
        (tables, _) => tables,
    }
}

/// `solve --all`: every first move that mates within `mate`, with its proven length.
fn run_all_keys<G: Expand>(
    pos: &G,
    params: Params,
    limits: Budget,
    tt: &TranspositionTable,
    json: bool,
    words: Words,
) -> i32 {
    use pnmate::dfpn::monitor::Control;
    use pnmate::search::multipv::rank_moves;
    let mate = params.mate.map_or(0, |m| m.moves());
    let control = Control::new();
    control.set_deadline(limits.time);
    tt.new_search();
    let searched = std::thread::scope(|scope| {
        pnmate::search::search_thread("pnmate-solve")
            .spawn_scoped(scope, || rank_moves(pos, &params, &[], tt, &control, limits.nodes, &mut |_| {}))
            .map(|h| h.join())
    });
    let results = match searched {
        Ok(Ok(r)) => r,
        Ok(Err(_)) => return fail("the search panicked"),
        Err(e) => return fail(&format!("cannot start the search thread: {e}")),
    };
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
        return 0;
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
    0
}

/// Options of the `solve` subcommand.
#[derive(clap::Args, Debug, Clone)]
pub struct SolveArgs {
    /// The position (FEN, 4 to 6 fields; quote it).
    pub fen: String,
    /// Mate bound in moves (default: keep growing until a limit).
    #[arg(long)]
    pub mate: Option<u32>,
    /// Time limit in seconds.
    #[arg(long)]
    pub time: Option<f64>,
    /// Node limit.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Transposition table size in MB.
    #[arg(long, default_value_t = 64)]
    pub hash: usize,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
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
    /// Syzygy tablebase directories, separated by ':' (';' on Windows).
    #[arg(long)]
    pub syzygy: Option<String>,
    /// Solve a chess problem of this stipulation instead of a mate: #n, s#n, r#n, h#n,
    /// h#n.5, ser-h#n, ser-#n, =n, s=n, h=n or ser-h=n (the side to move moves first).
    #[arg(long, conflicts_with_all = ["mate", "all", "variant", "syzygy"])]
    pub stip: Option<String>,
    /// The most help or series solutions listed.
    #[arg(long, default_value_t = 1000, requires = "stip")]
    pub max_solutions: usize,
    /// Battle play: each key's threat (or zugzwang) and the defences that stop it, with
    /// their continuations.
    #[arg(long, requires = "stip")]
    pub variations: bool,
    /// Battle play: also the tries, first moves with at most --refutations refutations.
    #[arg(long, requires = "stip")]
    pub tries: bool,
    /// The most refutations a try has.
    #[arg(long, default_value_t = 1, requires = "tries")]
    pub refutations: usize,
    /// Battle play: set play, the defender's moves as if the attacker passed first.
    #[arg(long, requires = "stip")]
    pub set_play: bool,
    /// Battle play: no threats; every defence is shown.
    #[arg(long, requires = "variations")]
    pub no_threats: bool,
    /// Battle play: the longest threat looked for, in moves.
    #[arg(long, requires = "variations", value_parser = clap::value_parser!(u16).range(1..))]
    pub max_threat: Option<u16>,
    /// Battle play: the diagram is the position after the key (the defender to move).
    #[arg(long, requires = "stip")]
    pub postkey: bool,
    /// The game's rules: chess (default), antichess, atomic, crazyhouse, horde,
    /// kingofthehill, racingkings or 3check. A variant's win takes the place of mate;
    /// every other option works as in chess (Syzygy tables are chess only).
    #[arg(long)]
    pub variant: Option<String>,
}

/// Options of the `epd` subcommand.
#[derive(clap::Args, Debug, Clone)]
pub struct EpdArgs {
    /// Suite files (`FEN bm #N;` lines).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Seconds per position.
    #[arg(long, conflicts_with = "nodes")]
    pub time: Option<f64>,
    /// Nodes per position.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Mate bound: `bm` (each position's own |bm|) or a number of moves. Default: none
    /// (search for mates of growing length until the limit).
    #[arg(long)]
    pub mate: Option<String>,
    /// Transposition table per job, in MB.
    #[arg(long, default_value_t = 64)]
    pub hash: usize,
    /// Positions solved at once (default: the cores divided by --threads).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Search threads per position.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Take every N-th position starting at I (0-based): `I/N`.
    #[arg(long)]
    pub shard: Option<String>,
    /// Write per-position results as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the solved positions back as `FEN bm #M; PV: ...;` lines here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// After each mate, also find every first move that mates as fast or within the
    /// bound (same limits again) and report positions with more than one key.
    #[arg(long)]
    pub all: bool,
    /// Write a proof certificate of every proven result into this directory (created if
    /// missing), named by the position's number in the run: `00001.cert`, ...
    #[arg(long)]
    pub proofs: Option<PathBuf>,
    /// Syzygy tablebase directories, separated by ':' (';' on Windows).
    #[arg(long)]
    pub syzygy: Option<String>,
    /// The suites' rules (see `solve --variant`); their lines are `FEN bm #N;` with the
    /// variant's FEN (crazyhouse pockets, three-check counters). Every other option
    /// works as in chess (Syzygy tables are chess only).
    #[arg(long)]
    pub variant: Option<String>,
}

/// How each position's mate bound is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MateMode {
    /// No bound: analysis until the limit.
    Open,
    /// Each position's own |bm| (open when it has none).
    Bm,
    /// The same bound for all.
    Fixed(u32),
}

/// Parses `--mate`.
pub fn parse_mate_mode(s: Option<&str>) -> Result<MateMode, String> {
    match s {
        None => Ok(MateMode::Open),
        Some("bm") => Ok(MateMode::Bm),
        Some(n) => match n.parse::<u32>() {
            Ok(n) if (1..=pnmate::chess::mate_len::MAX_MATE_MOVES).contains(&n) => Ok(MateMode::Fixed(n)),
            _ => Err(format!("bad --mate '{n}': want 'bm' or a number of moves 1..1000")),
        },
    }
}

/// Parses `--shard I/N`.
pub fn parse_shard(s: Option<&str>) -> Result<Option<(usize, usize)>, String> {
    let Some(s) = s else { return Ok(None) };
    let bad = || format!("bad --shard '{s}': want I/N with 0 <= I < N");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok(Some((i, n)))
}

/// Runs `epd`; returns the exit status (1 when a claim was wrong or a line bad).
pub fn run_epd(args: &EpdArgs) -> i32 {
    let variant = match variant_of(args.variant.as_deref()) {
        Ok(v) => v,
        Err(e) => return fail(&e),
    };
    match variant {
        None => crate::problem_cli::run_stip_suite(args).unwrap_or_else(|| epd_in(args, Words::of(None), parse_line)),
        Some(v) => epd_in(args, Words::of(Some(v)), |line| parse_variant_line(v, line)),
    }
}

/// `epd` over suites of one game, whose lines `parse` reads.
fn epd_in<G: Expand>(
    args: &EpdArgs,
    words: Words,
    parse: impl Fn(&str) -> Result<Option<EpdEntry<G>>, pnmate::EpdError>,
) -> i32 {
    let (mode, shard, time) =
        match (parse_mate_mode(args.mate.as_deref()), parse_shard(args.shard.as_deref()), seconds(args.time)) {
            (Ok(m), Ok(s), Ok(t)) => (m, s, t),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return fail(&e),
        };
    if let Err(e) = in_ranges(args.hash, args.threads) {
        return fail(&e);
    }
    let open = time.is_none() && args.nodes.is_none();
    if open && mode == MateMode::Open {
        return fail("give --time, --nodes or --mate: an open search would never end");
    }
    let entries = match read_entries(&args.files, &parse, shard, open && mode == MateMode::Bm) {
        Ok(entries) => entries,
        Err(e) => return fail(&e),
    };
    if let Some(dir) = &args.proofs
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return fail(&format!("{}: {e}", dir.display()));
    }
    // Jobs times threads stays within the cores unless the user asks for more.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args.jobs.unwrap_or(cores / args.threads).max(1);
    let tables = match load_tables(args.syzygy.as_deref()) {
        Ok(t) => unused_in_variants(t, words),
        Err(e) => return fail(&e),
    };
    let settings = RunSettings {
        tables,
        limits: Budget { nodes: args.nodes, time },
        hash: args.hash,
        jobs,
        threads: args.threads,
        all_keys: args.all,
        proofs: args.proofs.clone(),
    };
    let bound_of = move |e: &EpdEntry<G>| match mode {
        MateMode::Open => None,
        MateMode::Bm => e.bm.and_then(|b| MateBound::new(b.unsigned_abs().into())),
        MateMode::Fixed(n) => MateBound::new(n.into()),
    };

    let progress = Progress::new(entries.len());
    let started = std::time::Instant::now();
    let results = run(&entries, &settings, &bound_of, &|r| progress.record(r));
    let wall = started.elapsed();
    progress.finish();

    let summary = Summary::of(&results);
    if let Some(v) = words.variant {
        println!("variant    {v}");
    }
    print_summary(&summary, wall, jobs, args.threads);
    if let Some(dir) = &args.proofs {
        print_proofs(&results, dir);
    }
    if args.all {
        print_keys(&results);
    }
    let outputs: [(&Option<PathBuf>, Report<G>); 2] = [(&args.json, json_rows), (&args.out, solved_lines)];
    for (path, text) in outputs {
        if let Some(path) = path
            && let Err(e) = std::fs::write(path, text(&results))
        {
            return fail(&format!("{}: {e}", path.display()));
        }
    }
    if summary.total.wrong > 0 || summary.total.bad_line > 0 { 1 } else { 0 }
}

/// The suite lines of `files` (a line that does not parse is reported and skipped),
/// every N-th from the I-th with `shard`; without those that have no bm when
/// `need_bm` (a search of them would never end).
fn read_entries<G: Game>(
    files: &[PathBuf],
    parse: &LineParser<'_, G>,
    shard: Option<(usize, usize)>,
    need_bm: bool,
) -> Result<Vec<EpdEntry<G>>, String> {
    let mut entries = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        for (n, line) in text.lines().enumerate() {
            match parse(line) {
                Ok(Some(e)) => entries.push(e),
                Ok(None) => {}
                Err(e) => eprintln!("{}:{}: skipped: {e}", file.display(), n + 1),
            }
        }
    }
    if let Some((i, n)) = shard {
        entries = entries.into_iter().skip(i).step_by(n).collect();
    }
    if need_bm {
        let before = entries.len();
        entries.retain(|e| e.bm.is_some());
        if entries.len() < before {
            eprintln!("skipped {} positions without bm: give --time or --nodes to search them", before - entries.len());
        }
    }
    Ok(entries)
}

/// A reader of one suite line of a game: its entry, none for blank and comment lines.
type LineParser<'p, G> = dyn Fn(&str) -> Result<Option<EpdEntry<G>>, pnmate::EpdError> + 'p;

/// The progress bar of a suite run on stderr (hidden when stderr is not a terminal), with
/// the found and best counts so far; wrong claims and bad lines are printed above it.
struct Progress {
    bar: ProgressBar,
    counts: Mutex<(usize, usize)>,
}

/// A suite's progress bar on stderr, hidden when stderr is not a terminal.
pub(crate) fn progress_bar(len: usize) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    if std::io::stderr().is_terminal() {
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed_precise} eta {eta}]")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
    } else {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}

impl Progress {
    fn new(len: usize) -> Progress {
        Progress { bar: progress_bar(len), counts: Mutex::new((0, 0)) }
    }

    fn record<G: Game>(&self, r: &PositionResult<G>) {
        let mut c = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        c.0 += usize::from(r.judgement.is_found());
        c.1 += usize::from(r.judgement == Judgement::Best);
        if matches!(r.judgement, Judgement::Wrong | Judgement::BadLine) {
            self.bar.suspend(|| {
                eprintln!(
                    "{:?}: {} bm #{:?} -> {:?} {}",
                    r.judgement,
                    r.entry.fen,
                    r.entry.bm,
                    r.outcome.signed_moves(),
                    uci_for(&r.entry.pos, r.outcome.pv())
                )
            });
        }
        self.bar.set_message(format!("found {} best {}", c.0, c.1));
        self.bar.inc(1);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The summary a person reads at a glance: counts, time, nodes, then a table by mate length.
fn print_summary(s: &Summary, wall: Duration, jobs: usize, threads: usize) {
    let t = &s.total;
    let nps = (t.nodes as f64 / t.time.as_secs_f64().max(1e-9)) as u64;
    println!("positions  {}", t.positions);
    println!("found      {}", t.found);
    println!("best       {}   (= suite's mate length)", t.best);
    println!("better     {}   (shorter than the suite's, verified)", t.better);
    println!("shortest   {}   (proven shortest by pnmate: a shorter mate disproven)", t.shortest);
    println!("no mate    {}   (proven, consistent with the suite)", t.no_mate);
    println!("unknown    {}", t.unknown);
    println!("wrong      {}", t.wrong);
    println!("bad line   {}", t.bad_line);
    println!(
        "time       {:.1} s wall, {:.1} s summed over {} jobs of {} thread{}",
        wall.as_secs_f64(),
        t.time.as_secs_f64(),
        jobs,
        threads,
        if threads == 1 { "" } else { "s" }
    );
    println!("nodes      {}   ({} nps per job)", t.nodes, nps);
    println!();
    println!("{:<9} {:>9} {:>7} {:>7}", "suite", "positions", "found", "best");
    for (i, &(_, _, name)) in LENGTH_BANDS.iter().enumerate() {
        let b = &s.bands[i];
        if b.positions > 0 {
            println!("{:<9} {:>9} {:>7} {:>7}", name, b.positions, b.found, b.best);
        }
    }
}

/// What `--proofs DIR` wrote, and why the certificates not written are missing.
fn print_proofs<G: Game>(results: &[PositionResult<G>], dir: &Path) {
    let written: Vec<_> = results.iter().filter_map(|r| r.certificate.as_ref()?.as_ref().ok()).collect();
    let failed: Vec<_> = results.iter().filter_map(|r| Some((r, r.certificate.as_ref()?.as_ref().err()?))).collect();
    let shortest = written.iter().filter(|w| w.shortest).count();
    let bytes: usize = written.iter().map(|w| w.bytes).sum();
    let nodes: usize = written.iter().map(|w| w.nodes).sum();
    println!(
        "proofs     {} written to {} ({shortest} with the shorter mate refuted), {} not written; {} bytes, {} nodes, largest {} bytes",
        written.len(),
        dir.display(),
        failed.len(),
        bytes,
        nodes,
        written.iter().map(|w| w.bytes).max().unwrap_or(0)
    );
    for (r, e) in failed {
        println!("  not written: {} {}: {e}", pnmate::suite::certificate_name(r.index), r.entry.fen);
    }
}

/// The positions with more than one first move mating within the mate found (`--all`).
fn print_keys<G: Game>(results: &[PositionResult<G>]) {
    let cooked: Vec<_> = results.iter().filter(|r| r.keys.len() > 1).collect();
    println!("keys > 1   {}   (positions with more than one first move mating within the mate found)", cooked.len());
    for r in cooked {
        let keys: Vec<String> = r
            .keys
            .iter()
            .map(|k| format!("{} #{}", uci_for(&r.entry.pos, &[k.mv]), k.outcome.signed_moves().unwrap_or(0)))
            .collect();
        println!("  {}  keys: {}", r.entry.fen, keys.join(", "));
    }
}

/// A file `epd` writes from the results when asked (`--json`, `--out`).
type Report<G> = fn(&[PositionResult<G>]) -> String;

/// The per-position results of `--json`.
fn json_rows<G: Game>(results: &[PositionResult<G>]) -> String {
    let rows: Vec<_> = results
        .iter()
        .map(|r| {
            serde_json::json!({
                "fen": r.entry.fen,
                "bm": r.entry.bm,
                "verdict": format!("{:?}", r.judgement).to_lowercase(),
                "moves": r.outcome.signed_moves(),
                "pv": uci_for(&r.entry.pos, r.outcome.pv()).split_whitespace().collect::<Vec<_>>(),
                "nodes": r.nodes,
                "time_ms": r.time.as_millis() as u64,
                "keys": r.keys.iter().map(|k| serde_json::json!({
                    "move": uci_for(&r.entry.pos, &[k.mv]),
                    "moves": k.outcome.signed_moves(),
                    "exact": k.outcome.is_exact(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::to_string_pretty(&rows).unwrap_or_default()
}

/// The solved positions as suite lines, `FEN bm #M; PV: ...;` (`--out`).
fn solved_lines<G: Game>(results: &[PositionResult<G>]) -> String {
    let mut text = String::new();
    for r in results {
        if let Some(m) = r.outcome.signed_moves().filter(|_| r.judgement.is_found()) {
            text.push_str(&format!("{} bm #{m}; PV: {};\n", r.entry.fen, uci_for(&r.entry.pos, r.outcome.pv())));
        }
    }
    text
}
