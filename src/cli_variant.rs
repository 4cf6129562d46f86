//! `solve --variant` and `epd --variant`: the command line of the variant prover.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pnmate::chess::position::uci_for;
use pnmate::dfpn::monitor::{Control, Monitor};
use pnmate::epd::Judgement;
use pnmate::proof::certify::CertLimits;
use pnmate::search::{Event, search_thread};
use pnmate::variant::certify::certify_variant;
use pnmate::variant::suite::{VariantEntry, judge_variant, parse_variant_line};
use pnmate::variant::{VARIANT_NAMES, VariantParams, VariantSearch, parse_variant_fen, variant_named};
use pnmate::{MateBound, Outcome, Table};
use shakmaty::variant::{Variant, VariantPosition};

use crate::cli::{EpdArgs, SolveArgs, fail, progress_bar, seconds};

/// The variant called `name`, or why not.
pub fn variant_of(name: &str) -> Result<Variant, String> {
    variant_named(name).ok_or_else(|| {
        let (last, rest) = VARIANT_NAMES.split_last().expect("variants have names");
        format!("unknown variant '{name}': want {} or {last}", rest.join(", "))
    })
}

/// One search of `pos` with a fresh look at `tt`; the outcome and the nodes spent.
fn search(
    pos: &VariantPosition,
    mate: Option<MateBound>,
    time: Option<Duration>,
    nodes: Option<u64>,
    tt: &Table,
    on_event: &mut (dyn FnMut(Event) + Send),
) -> Result<(Outcome, u64), String> {
    let control = Control::new();
    control.set_deadline(time);
    tt.new_search();
    std::thread::scope(|scope| {
        search_thread("pnmate-variant")
            .spawn_scoped(scope, || {
                let mut monitor = Monitor::new(control.clone(), nodes);
                let outcome =
                    VariantSearch::new(pos, VariantParams { mate, history: Vec::new() }, tt, &mut monitor, on_event)
                        .run();
                (outcome, monitor.total_nodes())
            })
            .map_err(|e| format!("cannot start the search thread: {e}"))?
            .join()
            .map_err(|_| "the search panicked".to_string())
    })
}

/// `solve --variant NAME FEN`.
pub fn run_solve_variant(args: &SolveArgs, name: &str) -> i32 {
    let variant = match variant_of(name) {
        Ok(v) => v,
        Err(e) => return fail(&e),
    };
    let pos = match parse_variant_fen(variant, &args.fen) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    let time = match seconds(args.time) {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    if args.mate == Some(0) {
        return fail("--mate must be at least 1");
    }
    let mut tt = Table::new(args.hash);
    tt.finish_touching();
    let json = args.json;
    let started = Instant::now();
    let mut on_event = |e: Event| {
        if let (false, Event::Mate { mate, exact, pv, stats }) = (json, e) {
            eprintln!(
                "  win {mate}{} after {} nodes, {} ms: {}",
                if exact { " (shortest)" } else { "" },
                stats.nodes,
                stats.time.as_millis(),
                uci_for(&pos, &pv)
            );
        }
    };
    let mate = args.mate.and_then(|m| MateBound::new(m.into()));
    let (outcome, nodes) = match search(&pos, mate, time, args.nodes, &tt, &mut on_event) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let (result, moves, exact) = match &outcome {
        Outcome::Mate { moves, exact, .. } => ("win", Some(*moves as i64), Some(*exact)),
        Outcome::Mated { moves, exact, .. } => ("loss", Some(-(*moves as i64)), Some(*exact)),
        Outcome::NoMate { .. } => ("nowin", None, None),
        Outcome::Unknown => ("unknown", None, None),
    };
    let ms = started.elapsed().as_millis();
    // The certificate is built from the search's table, on a thread with the search's stack.
    let written = args.proof.as_ref().map(|path| {
        std::thread::scope(|scope| {
            search_thread("pnmate-certify")
                .spawn_scoped(scope, || {
                    certify_variant(&pos, &outcome, &tt, CertLimits::default()).and_then(|c| c.write(path))
                })
                .map_err(|e| e.to_string())?
                .join()
                .map_err(|_| "the certificate writer panicked".to_string())?
                .map_err(|e| e.to_string())
        })
    });
    if json {
        let obj = serde_json::json!({
            "variant": variant.uci(),
            "fen": args.fen.trim(),
            "result": result,
            "moves": moves,
            "exact": exact,
            "within": if let Outcome::NoMate { moves } = outcome { Some(moves) } else { None },
            "pv": uci_for(&pos, outcome.pv()).split_whitespace().collect::<Vec<_>>(),
            "nodes": nodes,
            "ms": ms,
        });
        println!("{obj}");
        return 0;
    }
    println!("variant {}", variant.uci());
    println!("fen     {}", args.fen.trim());
    match &outcome {
        Outcome::Mate { moves, exact, .. } | Outcome::Mated { moves, exact, .. } => {
            let side = if matches!(outcome, Outcome::Mate { .. }) { "win" } else { "loss" };
            let shortest = if *exact { "proven shortest" } else { "shorter not excluded" };
            println!("result  {side} in {moves} ({shortest})");
            println!("pv      {}", uci_for(&pos, outcome.pv()));
        }
        Outcome::NoMate { moves } => println!("result  no win for either side within {moves} (proven)"),
        Outcome::Unknown => println!("result  unknown (limit reached)"),
    }
    println!("nodes   {nodes}");
    println!("time    {ms} ms");
    match written {
        Some(Ok(w)) => {
            println!("proof   {} nodes, {} bytes{}", w.nodes, w.bytes, if w.shortest { ", shortest" } else { "" });
            0
        }
        Some(Err(e)) => {
            println!("proof   not written: {e}");
            1
        }
        None => 0,
    }
}

/// One suite position's result: its judgement, whether proven shortest, nodes and time.
type Solved = (Judgement, bool, u64, Duration);

/// `epd --variant NAME FILES`: each position searched with the same limits, its line
/// replayed, and a summary.
pub fn run_epd_variant(args: &EpdArgs, name: &str) -> i32 {
    let variant = match variant_of(name) {
        Ok(v) => v,
        Err(e) => return fail(&e),
    };
    let time = match seconds(args.time) {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    if time.is_none() && args.nodes.is_none() {
        return fail("give --time or --nodes");
    }
    let entries = match read_variant_entries(variant, &args.files) {
        Ok(e) => e,
        Err(e) => return fail(&e),
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args.jobs.unwrap_or(cores).clamp(1, entries.len().max(1));
    let bar = progress_bar(entries.len());
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Solved>>> = Mutex::new(vec![None; entries.len()]);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let mut tt = Table::new(args.hash);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(entry) = entries.get(i) else { break };
                    tt.clear(); // independent positions: results do not depend on scheduling
                    let t0 = Instant::now();
                    let (outcome, nodes) =
                        search(&entry.pos, None, time, args.nodes, &tt, &mut |_| {}).unwrap_or((Outcome::Unknown, 0));
                    let judgement = judge_variant(entry, &outcome);
                    let exact =
                        matches!(outcome, Outcome::Mate { exact: true, .. } | Outcome::Mated { exact: true, .. });
                    if matches!(judgement, Judgement::Wrong | Judgement::BadLine) {
                        bar.suspend(|| {
                            eprintln!(
                                "{judgement:?}: {} bm #{:?} -> {:?} {}",
                                entry.fen,
                                entry.bm,
                                outcome.signed_moves(),
                                uci_for(&entry.pos, outcome.pv())
                            )
                        });
                    }
                    let mut r = results.lock().unwrap_or_else(|e| e.into_inner());
                    r[i] = Some((judgement, exact, nodes, t0.elapsed()));
                    let found = r.iter().flatten().filter(|x| x.0.is_found()).count();
                    let best =
                        r.iter().flatten().filter(|x| matches!(x.0, Judgement::Best | Judgement::Better)).count();
                    bar.set_message(format!("found {found} best {best}"));
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    let wall = started.elapsed();
    let results: Vec<_> = results.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().flatten().collect();
    let count = |f: &dyn Fn(Judgement) -> bool| results.iter().filter(|r| f(r.0)).count();
    let nodes: u64 = results.iter().map(|r| r.2).sum();
    let summed: Duration = results.iter().map(|r| r.3).sum();
    let (wrong, bad) = (count(&|j| j == Judgement::Wrong), count(&|j| j == Judgement::BadLine));
    println!("variant    {}", variant.uci());
    println!("positions  {}", results.len());
    println!("found      {}", count(&|j| j.is_found()));
    println!(
        "best       {}   (the suite's length or shorter, verified)",
        count(&|j| matches!(j, Judgement::Best | Judgement::Better))
    );
    println!("better     {}   (shorter than the suite's)", count(&|j| j == Judgement::Better));
    println!("shortest   {}   (proven shortest by pnmate)", results.iter().filter(|r| r.0.is_found() && r.1).count());
    println!("no win     {}   (proven, consistent with the suite)", count(&|j| j == Judgement::NoMate));
    println!("unknown    {}", count(&|j| j == Judgement::Unknown));
    println!("wrong      {wrong}");
    println!("bad line   {bad}");
    println!("time       {:.1} s wall, {:.1} s summed over {jobs} jobs", wall.as_secs_f64(), summed.as_secs_f64());
    println!("nodes      {nodes}   ({} nps per job)", (nodes as f64 / summed.as_secs_f64().max(1e-9)) as u64);
    if wrong + bad > 0 { 1 } else { 0 }
}

fn read_variant_entries(variant: Variant, files: &[PathBuf]) -> Result<Vec<VariantEntry>, String> {
    let mut entries = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        for (n, line) in text.lines().enumerate() {
            match parse_variant_line(variant, line) {
                Ok(Some(e)) => entries.push(e),
                Ok(None) => {}
                Err(e) => eprintln!("{}:{}: skipped: {e}", file.display(), n + 1),
            }
        }
    }
    Ok(entries)
}
