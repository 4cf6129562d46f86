//! The arguments several commands share, each group defined once and flattened into the
//! commands that take it: a search's limits and resources, the game and its tables, and
//! what a problem's solution shows.

use std::sync::Arc;
use std::time::Duration;

use shakmaty::variant::Variant;

use pnmate::knowledge::tablebase::SyzygyTables;
use pnmate::limits::Budget;
use pnmate::options::{MAX_HASH_MB, MAX_THREADS};
use pnmate::problem::tree::Show;
use pnmate::variant::{VARIANT_NAMES, variant_named};

use super::error::CliError;

/// A search's limits and resources.
#[derive(clap::Args, Debug, Clone)]
pub struct SearchArgs {
    /// Time limit in seconds (per position, per problem).
    #[arg(long)]
    pub time: Option<f64>,
    /// Node limit (per position, per problem).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Transposition table size in MB (per job).
    #[arg(long, default_value_t = 64)]
    pub hash: usize,
    /// Search threads (per position, per problem).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

impl SearchArgs {
    /// The limits, once the time, the table size and the threads are checked.
    pub fn budget(&self) -> Result<Budget, CliError> {
        let time = match self.time {
            None => None,
            Some(t) if t.is_finite() && t > 0.0 && t < 1e9 => Some(Duration::from_secs_f64(t)),
            Some(t) => return Err(CliError::Time(t)),
        };
        if self.hash == 0 || self.hash as i64 > MAX_HASH_MB {
            return Err(CliError::Hash);
        }
        if self.threads == 0 || self.threads as i64 > MAX_THREADS {
            return Err(CliError::Threads);
        }
        Ok(Budget { nodes: self.nodes, time })
    }
}

/// The game and the tables a search reads.
#[derive(clap::Args, Debug, Clone)]
pub struct GameArgs {
    /// Syzygy tablebase directories, separated by ':' (';' on Windows).
    #[arg(long)]
    pub syzygy: Option<String>,
    /// The game's rules: chess (default), antichess, atomic, crazyhouse, horde,
    /// kingofthehill, racingkings or 3check. A variant's win takes the place of mate; every
    /// other option works as in chess (Syzygy tables are chess only).
    #[arg(long)]
    pub variant: Option<String>,
}

impl GameArgs {
    /// The variant asked for (None: chess).
    pub fn variant(&self) -> Result<Option<Variant>, CliError> {
        let Some(name) = self.variant.as_deref() else { return Ok(None) };
        let variant = variant_named(name).ok_or_else(|| {
            let (last, rest) = VARIANT_NAMES.split_last().expect("variants have names");
            CliError::Variant { name: name.to_string(), choices: format!("{} or {last}", rest.join(", ")) }
        })?;
        Ok((variant != Variant::Chess).then_some(variant))
    }

    /// The Syzygy tables of `--syzygy`, saying on stderr what was found; in a variant,
    /// a note that they are not used. An error when the option names no readable table.
    pub fn syzygy(&self, variant: Option<Variant>) -> Result<Option<Arc<SyzygyTables>>, CliError> {
        let Some(paths) = self.syzygy.as_deref() else { return Ok(None) };
        let tables = load_syzygy(paths)?;
        if let Some(v) = variant {
            eprintln!("--syzygy: the tables are not used in {} (chess only)", v.uci());
            return Ok(None);
        }
        Ok(Some(tables))
    }
}

/// The Syzygy tables in `paths`, saying on stderr what was found; an error when none is
/// readable.
pub fn load_syzygy(paths: &str) -> Result<Arc<SyzygyTables>, CliError> {
    let (tables, loaded) = SyzygyTables::load(paths, usize::MAX);
    for problem in &loaded.problems {
        eprintln!("{problem}");
    }
    let tables = tables.ok_or_else(|| CliError::Syzygy { paths: paths.to_string(), summary: loaded.summary() })?;
    eprintln!("{}", loaded.summary());
    Ok(tables)
}

/// What a problem's solution shows in battle play, and how many help or series solutions
/// it lists.
#[derive(clap::Args, Debug, Clone)]
pub struct ShowArgs {
    /// The most help or series solutions listed.
    #[arg(long, default_value_t = 1000)]
    pub max_solutions: usize,
    /// Battle play: each key's threat (or zugzwang) and the defences that stop it, with
    /// their continuations.
    #[arg(long)]
    pub variations: bool,
    /// Battle play: also the tries, first moves with at most --refutations refutations.
    #[arg(long)]
    pub tries: bool,
    /// The most refutations a try has.
    #[arg(long, default_value_t = 1, requires = "tries")]
    pub refutations: usize,
    /// Set play: in battle play the defender's moves as if the attacker passed first; in
    /// help play the solutions with White first, one move shorter (h#(n-1).5).
    #[arg(long)]
    pub set_play: bool,
    /// Battle play: no threats; every defence is shown.
    #[arg(long, requires = "variations")]
    pub no_threats: bool,
    /// Battle play: the longest threat looked for, in moves.
    #[arg(long, requires = "variations", value_parser = clap::value_parser!(u16).range(1..))]
    pub max_threat: Option<u16>,
    /// Battle play: the diagram is the position after the key (the defender to move).
    #[arg(long)]
    pub postkey: bool,
}

impl ShowArgs {
    /// What the solution shows.
    pub fn show(&self) -> Show {
        Show {
            variations: self.variations,
            threats: !self.no_threats,
            max_threat: self.max_threat,
            tries: self.tries.then_some(self.refutations),
            set_play: self.set_play,
            postkey: self.postkey,
        }
    }

    /// Whether any of these options was given (they ask for a problem).
    pub fn given(&self) -> bool {
        self.variations || self.tries || self.set_play || self.postkey || self.max_solutions != 1000
    }
}

/// The positions of a suite to take: every `n`-th from the `i`-th, from `--shard I/N`.
pub fn parse_shard(s: Option<&str>) -> Result<Option<(usize, usize)>, CliError> {
    let Some(s) = s else { return Ok(None) };
    let bad = || CliError::Shard(s.to_string());
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok(Some((i, n)))
}

/// Every N-th of `entries` from the I-th, with `shard` (I, N).
pub fn take_shard<T>(entries: Vec<T>, shard: Option<(usize, usize)>) -> Vec<T> {
    match shard {
        Some((i, n)) => entries.into_iter().skip(i).step_by(n).collect(),
        None => entries,
    }
}

/// How each position's mate bound is chosen (`--mate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MateMode {
    /// No bound: analysis until the limit.
    Open,
    /// Each position's own |bm| (open when it has none).
    Bm,
    /// The same bound for all.
    Fixed(u32),
}

/// Reads `--mate`: `bm` or a number of moves.
pub fn parse_mate_mode(s: Option<&str>) -> Result<MateMode, CliError> {
    match s {
        None => Ok(MateMode::Open),
        Some("bm") => Ok(MateMode::Bm),
        Some(n) => match n.parse::<u32>() {
            Ok(n) if (1..=pnmate::chess::mate_len::MAX_MATE_MOVES).contains(&n) => Ok(MateMode::Fixed(n)),
            _ => Err(CliError::Mate(n.to_string())),
        },
    }
}

/// The jobs that run at once: `--jobs`, else the cores divided by the threads per job.
pub fn jobs(asked: Option<usize>, threads: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    asked.unwrap_or(cores / threads.max(1)).max(1)
}
