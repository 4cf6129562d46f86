//! The chess-problem subcommands: `solve FEN --stip S` and `problem FILE`.

use std::path::PathBuf;

use pnmate::chess::position::{parse_fen, to_fen};
use pnmate::problem::stipulation::Stipulation;
use pnmate::problem::tree::Show;
use pnmate::problem::{ProblemLimits, Solved, Verdict, popeye, report_json, report_text, solve_problem};
use shakmaty::Chess;

use crate::cli::{SolveArgs, fail, in_ranges, seconds};

/// Options of the `problem` subcommand.
#[derive(clap::Args, Debug, Clone)]
pub struct ProblemArgs {
    /// A file in Popeye's input language: `begin`, `pieces`, `stipulation`, `option`,
    /// `twin`, `next`, `end` (the orthodox subset; see docs/problems.md).
    pub file: PathBuf,
    /// Time limit per twin in seconds (a problem's `option maxtime` overrides it).
    #[arg(long)]
    pub time: Option<f64>,
    /// Node limit per twin.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Transposition table size in MB.
    #[arg(long, default_value_t = 64)]
    pub hash: usize,
    /// The most help or series solutions listed (a problem's `option maxsolutions`
    /// overrides it).
    #[arg(long, default_value_t = 1000)]
    pub max_solutions: usize,
    /// One JSON object a line for each twin instead of text.
    #[arg(long)]
    pub json: bool,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

/// The exit status of solved twins: 0 when every one was decided, 1 otherwise.
fn status(decided: bool) -> i32 {
    if decided { 0 } else { 1 }
}

/// `solve FEN --stip S`: one chess problem.
pub fn run_stip(args: &SolveArgs, stip: &str) -> i32 {
    let stip: Stipulation = match stip.parse() {
        Ok(s) => s,
        Err(e) => return fail(&e.to_string()),
    };
    let pos = match parse_fen(&args.fen) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    let time = match seconds(args.time) {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    if let Err(e) = in_ranges(args.hash, args.threads) {
        return fail(&e);
    }
    let limits = ProblemLimits {
        time,
        nodes: args.nodes,
        max_solutions: args.max_solutions,
        hash_mb: args.hash,
        certify: args.proof.is_some(),
        threads: args.threads,
    };
    let show = Show {
        variations: args.variations,
        threats: !args.no_threats,
        max_threat: args.max_threat,
        tries: args.tries.then_some(args.refutations),
        set_play: args.set_play,
        postkey: args.postkey,
    };
    match solve_problem(pos.clone(), stip, limits, show) {
        Ok(solved) => {
            if args.json {
                println!("{}", report_json(stip, &solved));
            } else {
                print!("{}", report_text(&pos, stip, &solved));
            }
            if let Some(path) = &args.proof {
                match &solved.certificate {
                    Some(Ok(cert)) => {
                        let bytes = cert.to_bytes();
                        if let Err(e) = std::fs::write(path, &bytes) {
                            return fail(&format!("{}: {e}", path.display()));
                        }
                        eprintln!(
                            "certificate: {} ({} nodes, {} bytes; check it with pnmate-check)",
                            path.display(),
                            cert.node_count(),
                            bytes.len()
                        );
                    }
                    Some(Err(e)) => eprintln!("certificate: not written: {e}"),
                    None => eprintln!("certificate: not written: nothing proven"),
                }
            }
            status(solved.verdict != Verdict::Unknown)
        }
        Err(e) => fail(&e.to_string()),
    }
}

/// `problem FILE`: every problem and twin of a Popeye input file.
pub fn run_file(args: &ProblemArgs) -> i32 {
    let text = match std::fs::read_to_string(&args.file) {
        Ok(t) => t,
        Err(e) => return fail(&format!("{}: {e}", args.file.display())),
    };
    let problems = match popeye::parse(&text) {
        Ok(p) => p,
        Err(e) => return fail(&format!("{}: {e}", args.file.display())),
    };
    let time = match seconds(args.time) {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    if let Err(e) = in_ranges(args.hash, args.threads) {
        return fail(&e);
    }
    let mut decided = true;
    for (n, problem) in problems.iter().enumerate() {
        if !args.json {
            if n > 0 {
                println!();
            }
            for line in problem.title.iter().chain(&problem.author).chain(&problem.origin) {
                println!("{line}");
            }
        }
        for twin in &problem.twins {
            let limits = ProblemLimits {
                time: twin.max_time.map(std::time::Duration::from_secs).or(time),
                nodes: args.nodes,
                max_solutions: twin.max_solutions.unwrap_or(args.max_solutions),
                hash_mb: args.hash,
                certify: false,
                threads: args.threads,
            };
            match solve_problem(twin.pos.clone(), twin.stip, limits, twin.show) {
                Ok(solved) => {
                    decided &= solved.verdict != Verdict::Unknown;
                    print_twin(n + 1, &twin.label, &twin.pos, twin.stip, &solved, args.json);
                }
                Err(e) => return fail(&format!("problem {}{}: {e}", n + 1, twin_suffix(&twin.label))),
            }
        }
    }
    status(decided)
}

fn twin_suffix(label: &str) -> String {
    label
        .split(')')
        .next()
        .filter(|l| !l.is_empty())
        .map(|l| format!(" twin {}", l.trim_start_matches('+')))
        .unwrap_or_default()
}

/// One twin's solution: its label, stipulation and position, then the solution.
fn print_twin(number: usize, label: &str, pos: &Chess, stip: Stipulation, solved: &Solved, json: bool) {
    if json {
        let mut v = report_json(stip, solved);
        v["problem"] = number.into();
        v["twin"] = label.into();
        v["fen"] = to_fen(pos).into();
        println!("{v}");
        return;
    }
    println!();
    if !label.is_empty() {
        println!("{label}");
    }
    println!("{stip}  {}", to_fen(pos));
    print!("{}", report_text(pos, stip, solved));
}

/// `epd` over suites of chess problems: lines with a `stip "..."` operation. None when
/// no line of `args.files` has one (a mate suite).
pub fn run_stip_suite(args: &crate::cli::EpdArgs) -> Option<i32> {
    use pnmate::epd::parse_line;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let mut entries = Vec::new();
    for file in &args.files {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => return Some(fail(&format!("{}: {e}", file.display()))),
        };
        for (n, line) in text.lines().enumerate() {
            match parse_line(line) {
                Ok(Some(e)) => entries.push(e),
                Ok(None) => {}
                Err(e) => eprintln!("{}:{}: skipped: {e}", file.display(), n + 1),
            }
        }
    }
    if !entries.iter().any(|e| e.stip.is_some()) {
        return None;
    }
    let before = entries.len();
    entries.retain(|e| e.stip.is_some());
    if entries.len() < before {
        eprintln!(
            "skipped {} lines without a stip operation: a problem suite solves stipulations",
            before - entries.len()
        );
    }
    if let Some((i, n)) = match crate::cli::parse_shard(args.shard.as_deref()) {
        Ok(s) => s,
        Err(e) => return Some(fail(&e)),
    } {
        entries = entries.into_iter().skip(i).step_by(n).collect();
    }
    let time = match seconds(args.time) {
        Ok(t) => t,
        Err(e) => return Some(fail(&e)),
    };
    if time.is_none() && args.nodes.is_none() {
        return Some(fail("give --time or --nodes: a problem suite needs a limit per problem"));
    }
    if let Err(e) = in_ranges(args.hash, args.threads) {
        return Some(fail(&e));
    }
    if let Some(dir) = &args.proofs
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return Some(fail(&format!("{}: {e}", dir.display())));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args.jobs.unwrap_or(cores / args.threads.max(1)).max(1);
    let bar = crate::cli::progress_bar(entries.len());
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<Option<Row>>> = Mutex::new(vec![None; entries.len()]);
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(entry) = entries.get(i) else { break };
                    let row = solve_row(i, entry, args, time);
                    if let Some(note) = &row.note {
                        bar.println(format!("{}: {note}", row.label()));
                    }
                    rows.lock().expect("rows")[i] = Some(row);
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    let rows: Vec<Row> = rows.into_inner().expect("rows").into_iter().flatten().collect();
    print_suite(&rows, started.elapsed(), jobs);
    if let Some(path) = &args.json {
        let text: String = rows.iter().map(|r| format!("{}\n", r.json)).collect();
        if let Err(e) = std::fs::write(path, text) {
            return Some(fail(&format!("{}: {e}", path.display())));
        }
    }
    let bad = rows.iter().filter(|r| r.bad).count();
    Some(if bad > 0 { 1 } else { 0 })
}

/// One problem of a suite, solved.
#[derive(Clone, Debug)]
struct Row {
    stip: String,
    fen: String,
    id: Option<String>,
    verdict: Option<Verdict>,
    time: std::time::Duration,
    /// A solution that failed its replay, or a bad line: counted as bad.
    bad: bool,
    note: Option<String>,
    json: serde_json::Value,
}

impl Row {
    fn label(&self) -> String {
        self.id.clone().unwrap_or_else(|| format!("{} {}", self.fen, self.stip))
    }
}

/// Solves one suite problem: its verdict, each help or series solution replayed apart
/// from the solver, and its certificate when asked for.
fn solve_row(
    index: usize,
    entry: &pnmate::epd::EpdEntry,
    args: &crate::cli::EpdArgs,
    time: Option<std::time::Duration>,
) -> Row {
    use pnmate::problem::{check_setup, played, verify_solution};
    let text = entry.stip.clone().unwrap_or_default();
    let mut row = Row {
        stip: text.clone(),
        fen: entry.fen.clone(),
        id: entry.id.clone(),
        verdict: None,
        time: std::time::Duration::ZERO,
        bad: false,
        note: None,
        json: serde_json::Value::Null,
    };
    let stip: Stipulation = match text.parse() {
        Ok(s) => s,
        Err(e) => {
            row.bad = true;
            row.note = Some(e.to_string());
            return row;
        }
    };
    if let Err(e) = check_setup(&entry.pos, stip, false) {
        row.bad = true;
        row.note = Some(e.to_string());
        return row;
    }
    let limits = ProblemLimits {
        time,
        nodes: args.nodes,
        max_solutions: 1000,
        hash_mb: args.hash,
        certify: args.proofs.is_some(),
        threads: args.threads,
    };
    let started = std::time::Instant::now();
    let solved = match solve_problem(entry.pos.clone(), stip, limits, Show::default()) {
        Ok(s) => s,
        Err(e) => {
            row.bad = true;
            row.note = Some(e.to_string());
            return row;
        }
    };
    row.time = started.elapsed();
    row.verdict = Some(solved.verdict);
    for line in &solved.solutions {
        if let Err(e) = verify_solution(&entry.pos, stip, line) {
            row.bad = true;
            row.note = Some(format!("solution {:?} fails its replay: {e}", played(line)));
        }
    }
    if let (Some(dir), Some(cert)) = (&args.proofs, &solved.certificate) {
        let path = dir.join(pnmate::suite::certificate_name(index));
        match cert {
            Ok(c) => {
                if let Err(e) = std::fs::write(&path, c.to_bytes()) {
                    row.note = Some(format!("{}: {e}", path.display()));
                }
            }
            Err(e) => row.note = Some(format!("certificate not written: {e}")),
        }
    }
    let mut json = report_json(stip, &solved);
    json["fen"] = entry.fen.clone().into();
    json["id"] = entry.id.clone().into();
    json["time"] = row.time.as_secs_f64().into();
    row.json = json;
    row
}

/// The suite's summary: per stipulation, how many problems were solved, proven to have
/// no solution, or left unknown, and their median time.
fn print_suite(rows: &[Row], wall: std::time::Duration, jobs: usize) {
    let kind = |s: &str| -> String {
        let s = s.to_ascii_lowercase();
        let end = s.find(|c: char| c.is_ascii_digit()).unwrap_or(s.len());
        format!("{}n", &s[..end]) + if s.ends_with(".5") { ".5" } else { "" }
    };
    let mut kinds: Vec<String> = rows.iter().map(|r| kind(&r.stip)).collect();
    kinds.sort();
    kinds.dedup();
    println!(
        "{:<12} {:>8} {:>9} {:>12} {:>8} {:>5} {:>12}",
        "stipulation", "problems", "solution", "no solution", "unknown", "bad", "median time"
    );
    let line = |name: &str, rows: Vec<&Row>| {
        let count = |v: Verdict| rows.iter().filter(|r| r.verdict == Some(v)).count();
        let mut times: Vec<f64> = rows.iter().filter(|r| r.verdict.is_some()).map(|r| r.time.as_secs_f64()).collect();
        times.sort_by(f64::total_cmp);
        let median = times.get(times.len() / 2).map_or("-".to_string(), |t| format!("{t:.3} s"));
        println!(
            "{:<12} {:>8} {:>9} {:>12} {:>8} {:>5} {:>12}",
            name,
            rows.len(),
            count(Verdict::Solution),
            count(Verdict::NoSolution),
            count(Verdict::Unknown) + rows.iter().filter(|r| r.verdict.is_none()).count(),
            rows.iter().filter(|r| r.bad).count(),
            median
        );
    };
    for k in &kinds {
        line(k, rows.iter().filter(|r| &kind(&r.stip) == k).collect());
    }
    line("total", rows.iter().collect());
    println!("wall {:.1} s, {jobs} jobs", wall.as_secs_f64());
}
