//! What the mate commands print: a search's verdict as text or JSON, a suite run's
//! progress bar and summary, and the files `epd` writes.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use shakmaty::variant::Variant;

use pnmate::chess::game::Game;
use pnmate::chess::position::{san_line, to_fen, uci_for};
use pnmate::epd::{Judgement, LENGTH_BANDS};
use pnmate::error::CertError;
use pnmate::proof::Written;
use pnmate::search::{Outcome, Stats};
use pnmate::suite::{PositionResult, Summary, certificate_name};

/// How results are worded in a game: chess's mates, a variant's wins.
#[derive(Clone, Copy)]
pub struct Words {
    /// The variant's name, for a variant.
    pub variant: Option<&'static str>,
    pub win: &'static str,
    pub winning: &'static str,
    pub loss: &'static str,
    pub none: &'static str,
}

impl Words {
    /// The words of chess (None) or of a variant.
    pub fn of(variant: Option<Variant>) -> Words {
        match variant {
            None => Words { variant: None, win: "mate", winning: "mating", loss: "mated", none: "nomate" },
            Some(v) => Words { variant: Some(v.uci()), win: "win", winning: "winning", loss: "loss", none: "nowin" },
        }
    }
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
pub fn progress_bar(len: usize) -> ProgressBar {
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

/// One search's verdict as `solve` prints it: text, or one JSON object.
pub fn print_outcome<G: Game>(
    pos: &G,
    outcome: &Outcome,
    stats: &Stats,
    words: Words,
    json: bool,
    proof: Option<(&Path, &Result<Written, CertError>)>,
) {
    let pv = outcome.pv();
    if json {
        let (result, moves) = match outcome {
            Outcome::Mate { moves, .. } => (words.win, *moves as i64),
            Outcome::Mated { moves, .. } => (words.loss, -(*moves as i64)),
            Outcome::NoMate { moves } => (words.none, *moves as i64),
            Outcome::Unknown => ("unknown", 0),
        };
        let obj = serde_json::json!({
            "variant": words.variant,
            "fen": to_fen(pos),
            "result": result,
            "moves": if matches!(outcome, Outcome::Mate { .. } | Outcome::Mated { .. }) { Some(moves) } else { None },
            "exact": match outcome { Outcome::Mate { exact, .. } | Outcome::Mated { exact, .. } => Some(*exact), _ => None },
            "within": if let Outcome::NoMate { moves } = outcome { Some(moves) } else { None },
            "pv": uci_for(pos, pv).split_whitespace().collect::<Vec<_>>(),
            "san": san_line(pos, pv),
            "nodes": stats.nodes,
            "time_ms": stats.time.as_millis() as u64,
            "nps": stats.nps(),
            "proof": proof.map(|(_, w)| match w {
                Ok(w) => serde_json::json!({
                    "nodes": w.nodes, "bytes": w.bytes, "claim": w.claim.to_string(), "shortest": w.shortest, "note": w.note
                }),
                Err(e) => serde_json::json!({ "error": e.to_string() }),
            }),
        });
        println!("{obj}");
        return;
    }
    let verdict = match outcome {
        Outcome::Mate { moves, exact, .. } => {
            format!("{} in {moves}{}", words.win, if *exact { " (proven shortest)" } else { " (shorter not excluded)" })
        }
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
    println!("fen     {}", to_fen(pos));
    println!("result  {verdict}");
    if !pv.is_empty() {
        println!("pv      {}", uci_for(pos, pv));
        println!("san     {}", san_line(pos, pv));
    }
    println!("nodes   {}", stats.nodes);
    println!("time    {} ms", stats.time.as_millis());
    println!("nps     {}", stats.nps());
    match proof {
        Some((path, Ok(w))) => println!(
            "proof   {}: {}{}, {} nodes, {} bytes{}",
            path.display(),
            w.claim,
            if w.shortest { " shortest" } else { "" },
            w.nodes,
            w.bytes,
            w.note.as_ref().map(|n| format!(" ({n}: upper bound only)")).unwrap_or_default()
        ),
        Some((_, Err(e))) => println!("proof   not written: {e}"),
        None => {}
    }
}

/// The progress bar of a suite run, with the found and best counts so far; wrong claims
/// and bad lines are printed above it.
pub struct Progress {
    bar: ProgressBar,
    counts: Mutex<(usize, usize)>,
}

impl Progress {
    /// A bar of `len` positions.
    pub fn new(len: usize) -> Progress {
        Progress { bar: progress_bar(len), counts: Mutex::new((0, 0)) }
    }

    /// One position done.
    pub fn record<G: Game>(&self, r: &PositionResult<G>) {
        let mut c = pnmate::jobs::lock(&self.counts);
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

    /// The run is over.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The summary a person reads at a glance: counts, time, nodes, then a table by mate length.
pub fn print_summary(s: &Summary, wall: Duration, jobs: usize, threads: usize) {
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
pub fn print_proofs<G: Game>(results: &[PositionResult<G>], dir: &Path) {
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
        println!("  not written: {} {}: {e}", certificate_name(r.index), r.entry.fen);
    }
}

/// The positions with more than one first move mating within the mate found (`--all`).
pub fn print_keys<G: Game>(results: &[PositionResult<G>]) {
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

/// The per-position results of `--results`, as a JSON array.
pub fn json_rows<G: Game>(results: &[PositionResult<G>]) -> String {
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
pub fn solved_lines<G: Game>(results: &[PositionResult<G>]) -> String {
    let mut text = String::new();
    for r in results {
        if let Some(m) = r.outcome.signed_moves().filter(|_| r.judgement.is_found()) {
            text.push_str(&format!("{} bm #{m}; PV: {};\n", r.entry.fen, uci_for(&r.entry.pos, r.outcome.pv())));
        }
    }
    text
}
