//! `pnmate epd`: suites of mates (or of a variant's wins), judged against the suite, or
//! suites of chess problems when their lines carry a `stip` operation.

use std::path::PathBuf;

use pnmate::chess::game::Game;
use pnmate::chess::mate_len::MateBound;
use pnmate::dfpn::Expand;
use pnmate::epd::{EpdEntry, parse_line, parse_variant_line};
use pnmate::error::EpdError;
use pnmate::fallback::AlphaBeta;
use pnmate::knowledge::oracle::ChessOracle;
use pnmate::suite::{RunSettings, Summary, run};

use super::args::{GameArgs, MateMode, SearchArgs, jobs, parse_mate_mode, parse_shard, take_shard};
use super::error::CliError;
use super::report::{Progress, Words, json_rows, print_keys, print_proofs, print_summary, solved_lines};

/// Options of the `epd` subcommand.
#[derive(clap::Args, Debug, Clone)]
pub struct EpdArgs {
    /// Suite files (`FEN bm #N;` lines, or `FEN stip "s#3";` for problems).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Mate bound: `bm` (each position's own |bm|) or a number of moves. Default: none
    /// (search for mates of growing length until the limit).
    #[arg(long)]
    pub mate: Option<String>,
    /// Positions solved at once (default: the cores divided by --threads).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Take every N-th position starting at I (0-based): `I/N`.
    #[arg(long)]
    pub shard: Option<String>,
    /// Write per-position results as JSON here.
    #[arg(long)]
    pub results: Option<PathBuf>,
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
    #[command(flatten)]
    pub game: GameArgs,
}

/// Runs `epd`; returns the exit status (1 when a claim was wrong or a line bad).
pub fn run_epd(args: &EpdArgs) -> Result<i32, CliError> {
    let variant = args.game.variant()?;
    let shard = parse_shard(args.shard.as_deref())?;
    match variant {
        None => {
            let entries = read_entries(&args.files, &parse_line)?;
            if entries.iter().any(|e| e.stip.is_some()) {
                let (results, proofs) = (args.results.as_deref(), args.proofs.as_deref());
                let jobs = jobs(args.jobs, args.search.threads);
                return super::problem::run_suite(entries, shard, &args.search, jobs, (results, proofs));
            }
            let oracle = ChessOracle::with_syzygy(args.game.syzygy(None)?);
            mate_suite(args, take_shard(entries, shard), oracle, Words::of(None))
        }
        Some(v) => {
            let entries = read_entries(&args.files, &|line| parse_variant_line(v, line))?;
            args.game.syzygy(Some(v))?;
            mate_suite(args, take_shard(entries, shard), (), Words::of(Some(v)))
        }
    }
}

/// A suite of mates (or wins) in one game, with the game's `oracle`.
fn mate_suite<G: AlphaBeta + Expand>(
    args: &EpdArgs,
    mut entries: Vec<EpdEntry<G>>,
    oracle: G::Oracle,
    words: Words,
) -> Result<i32, CliError> {
    let mode = parse_mate_mode(args.mate.as_deref())?;
    let budget = args.search.budget()?;
    let open = budget.time.is_none() && budget.nodes.is_none();
    if open && mode == MateMode::Open {
        return Err(CliError::OpenSearch);
    }
    if open && mode == MateMode::Bm {
        // A search without a bound would never end.
        let before = entries.len();
        entries.retain(|e| e.bm.is_some());
        if entries.len() < before {
            eprintln!("skipped {} positions without bm: give --time or --nodes to search them", before - entries.len());
        }
    }
    if let Some(dir) = &args.proofs {
        std::fs::create_dir_all(dir).map_err(|e| CliError::io(dir, e))?;
    }
    // Jobs times threads stays within the cores unless the user asks for more.
    let jobs = jobs(args.jobs, args.search.threads);
    let settings = RunSettings {
        oracle,
        limits: budget,
        hash: args.search.hash,
        jobs,
        threads: args.search.threads,
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
    print_summary(&summary, wall, jobs, args.search.threads);
    if let Some(dir) = &args.proofs {
        print_proofs(&results, dir);
    }
    if args.all {
        print_keys(&results);
    }
    for (path, text) in [(&args.results, json_rows(&results)), (&args.out, solved_lines(&results))] {
        if let Some(path) = path {
            std::fs::write(path, text).map_err(|e| CliError::io(path, e))?;
        }
    }
    Ok(if summary.total.wrong > 0 || summary.total.bad_line > 0 { 1 } else { 0 })
}

/// Reads one suite line: its entry, None for a blank or comment line.
type ParseLine<'a, G> = &'a dyn Fn(&str) -> Result<Option<EpdEntry<G>>, EpdError>;

/// The suite lines of `files`, each read once by `parse` (a line that does not parse is
/// reported and skipped).
fn read_entries<G: Game>(files: &[PathBuf], parse: ParseLine<'_, G>) -> Result<Vec<EpdEntry<G>>, CliError> {
    let mut entries = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| CliError::io(file, e))?;
        for (n, line) in text.lines().enumerate() {
            match parse(line) {
                Ok(Some(e)) => entries.push(e),
                Ok(None) => {}
                Err(e) => eprintln!("{}:{}: skipped: {e}", file.display(), n + 1),
            }
        }
    }
    Ok(entries)
}
