//! The chess-problem commands: `solve FEN --stip S`, `problem FILE` (Popeye's input
//! language), and `epd` over suites of `stip` lines.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use shakmaty::{Chess, Position};

use pnmate::chess::position::{parse_fen, to_fen};
use pnmate::epd::EpdEntry;
use pnmate::jobs::run_jobs;
use pnmate::limits::Budget;
use pnmate::problem::duplex;
use pnmate::problem::language::Language;
use pnmate::problem::popeye::Duplex;
use pnmate::problem::stipulation::Stipulation;
use pnmate::problem::tree::Show;
use pnmate::problem::{
    ProblemSettings, Solved, Verdict, check_setup, played, popeye, report_json, report_text, solve_problem,
    verify_solution,
};
use pnmate::suite::certificate_name;

use super::args::{SearchArgs, ShowArgs, take_shard};
use super::error::CliError;
use super::report::progress_bar;

/// Options of the `problem` subcommand.
#[derive(clap::Args, Debug, Clone)]
pub struct ProblemArgs {
    /// A file in Popeye's input language, English, German or French: `BeginProblem`,
    /// `pieces` or `forsyth`, `stipulation`, `option`, `twin`, `NextProblem`,
    /// `EndProblem` (the orthodox part; see docs/problems.md).
    pub file: PathBuf,
    #[command(flatten)]
    pub search: SearchArgs,
    /// The most help or series solutions listed (a problem's `option maxsolutions`
    /// overrides it).
    #[arg(long, default_value_t = 1000)]
    pub max_solutions: usize,
    /// One JSON object a line for each twin instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The exit status of solved twins: 0 when every one was decided, 1 otherwise.
fn status(decided: bool) -> i32 {
    if decided { 0 } else { 1 }
}

/// `solve FEN --stip S`: one chess problem, its solution as `show` asks, in JSON with
/// `json`, its certificate written to `proof` when given.
pub fn run_stip(
    fen: &str,
    stip: &str,
    search: &SearchArgs,
    show: &ShowArgs,
    json: bool,
    proof: Option<&Path>,
) -> Result<i32, CliError> {
    let stip: Stipulation = stip.parse()?;
    let pos = parse_fen(fen)?;
    let budget = search.budget()?;
    let settings = settings(budget, search, show.max_solutions, proof.is_some());
    let solved = solve_problem(pos.clone(), stip, settings, show.show())?;
    if json {
        println!("{}", report_json(stip, &solved));
    } else {
        print!("{}", report_text(&pos, stip, &solved, Language::English));
    }
    if let Some(path) = proof {
        match &solved.certificate {
            Some(Ok(cert)) => {
                let bytes = cert.to_bytes();
                std::fs::write(path, &bytes).map_err(|e| CliError::io(path, e))?;
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
    Ok(status(solved.verdict != Verdict::Unknown))
}

/// How one problem is solved, from the command line.
fn settings(budget: Budget, search: &SearchArgs, max_solutions: usize, certify: bool) -> ProblemSettings {
    ProblemSettings { budget, max_solutions, hash_mb: search.hash, certify, threads: search.threads }
}

/// `problem FILE`: every problem and twin of a Popeye input file, written in the file's
/// language; a problem that cannot be read (a fairy one) is named and skipped.
pub fn run_file(args: &ProblemArgs) -> Result<i32, CliError> {
    let text = std::fs::read_to_string(&args.file).map_err(|e| CliError::io(&args.file, e))?;
    let input = popeye::parse(&text).map_err(|source| CliError::Popeye { path: args.file.clone(), source })?;
    let lang = input.language;
    let budget = args.search.budget()?;
    let mut out = Output { json: args.json, protocol: None };
    let mut decided = true;
    let mut read = 0;
    let mut first_error = None;
    for (n, problem) in input.problems.iter().enumerate() {
        let number = n + 1;
        let problem = match problem {
            Ok(p) => p,
            Err(e) => {
                // Named where the solutions go: in the text, or beside the JSON.
                if args.json {
                    eprintln!("{}: problem {number} skipped: {e}", args.file.display());
                } else {
                    out.line(&format!("problem {number} skipped: {e}"))?;
                }
                first_error.get_or_insert_with(|| e.clone());
                continue;
            }
        };
        read += 1;
        if let Some(file) = &problem.protocol {
            out.open_protocol(file)?;
        }
        if !args.json {
            if n > 0 {
                out.line("")?;
            }
            for line in problem.title.iter().chain(&problem.author).chain(&problem.origin).chain(&problem.award) {
                out.line(line)?;
            }
            if problem.zero {
                out.line(lang.phrases().zero_position)?;
            }
        }
        let started = Instant::now();
        for twin in &problem.twins {
            let time = twin.max_time.map(Duration::from_secs).or(budget.time);
            let max_solutions = twin.max_solutions.unwrap_or(args.max_solutions);
            let settings = settings(Budget { time, ..budget }, &args.search, max_solutions, false);
            let fail = |source| CliError::Twin { number, twin: twin_suffix(&twin.label), source };
            if twin.duplex != Duplex::Only {
                let twin_started = Instant::now();
                let solved = solve_problem(twin.pos.clone(), twin.stip, settings, twin.show).map_err(fail)?;
                decided &= solved.verdict != Verdict::Unknown;
                let took = twin_started.elapsed();
                out.twin(number, &twin.label, &twin.pos, twin.stip, (&solved, took), lang)?;
            }
            if twin.duplex != Duplex::Off {
                // The other side's turn on the diagram; solved on the exchanged board.
                let diagram = twin.pos.clone().swap_turn().ok();
                let other = diagram.as_ref().and_then(duplex::exchanged);
                let (Some(diagram), Some(other)) = (diagram, other) else {
                    out.line("duplex: the other side cannot move first here")?;
                    continue;
                };
                let twin_started = Instant::now();
                let solved = solve_problem(other, twin.stip, settings, twin.show).map_err(fail)?;
                decided &= solved.verdict != Verdict::Unknown;
                let took = twin_started.elapsed();
                let solved = duplex::solved_back(solved);
                let label = if twin.label.is_empty() { "duplex".to_string() } else { format!("{} duplex", twin.label) };
                out.twin(number, &label, &diagram, twin.stip, (&solved, took), lang)?;
            }
        }
        if !args.json {
            let secs = started.elapsed().as_secs_f64();
            out.line(&format!("\n{} {} = {secs:.3} s", lang.phrases().solution_finished, lang.phrases().time))?;
        }
    }
    if read == 0
        && let Some(source) = first_error
    {
        return Err(CliError::Popeye { path: args.file.clone(), source });
    }
    Ok(status(decided))
}

/// Where a Popeye file's solutions go: standard output, and the file its `protocol`
/// command names (appended to, as Popeye does).
struct Output {
    json: bool,
    protocol: Option<(PathBuf, std::fs::File)>,
}

impl Output {
    fn open_protocol(&mut self, file: &str) -> Result<(), CliError> {
        let path = PathBuf::from(file);
        let f =
            std::fs::OpenOptions::new().create(true).append(true).open(&path).map_err(|e| CliError::io(&path, e))?;
        self.protocol = Some((path, f));
        Ok(())
    }

    fn text(&mut self, text: &str) -> Result<(), CliError> {
        use std::io::Write;
        let written = std::io::stdout().lock().write_all(text.as_bytes());
        match written {
            // A reader that stopped reading (`| head`) wants no more: stop as a filter does.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
            Err(e) => return Err(CliError::io("stdout", e)),
            Ok(()) => {}
        }
        if let Some((path, f)) = &mut self.protocol {
            f.write_all(text.as_bytes()).map_err(|e| CliError::io(path.clone(), e))?;
        }
        Ok(())
    }

    fn line(&mut self, line: &str) -> Result<(), CliError> {
        self.text(&format!("{line}\n"))
    }

    /// One twin's solution: its label, stipulation and position, then the solution; in
    /// JSON one object with the problem's number, the twin's label and the FEN.
    fn twin(
        &mut self,
        number: usize,
        label: &str,
        pos: &Chess,
        stip: Stipulation,
        (solved, took): (&Solved, Duration),
        lang: Language,
    ) -> Result<(), CliError> {
        if self.json {
            let mut v = report_json(stip, solved);
            v["problem"] = number.into();
            v["twin"] = label.into();
            v["fen"] = to_fen(pos).into();
            v["time"] = took.as_secs_f64().into();
            return self.line(&v.to_string());
        }
        self.line("")?;
        if !label.is_empty() {
            self.line(label)?;
        }
        self.line(&format!("{stip}  {}", to_fen(pos)))?;
        let text = report_text(pos, stip, solved, lang);
        // The summary line ends with the twin's time.
        self.text(&format!("{}, {:.3} s\n", text.trim_end(), took.as_secs_f64()))
    }
}

fn twin_suffix(label: &str) -> String {
    label
        .split(')')
        .next()
        .filter(|l| !l.is_empty())
        .map(|l| format!(" twin {}", l.trim_start_matches('+')))
        .unwrap_or_default()
}

/// `epd` over a suite of chess problems, the lines with a `stip` operation of `entries`
/// (every N-th from the I-th with `shard`), `jobs` at once; `(results, proofs)`: where the
/// per-problem JSON and the certificates go.
pub fn run_suite(
    mut entries: Vec<EpdEntry>,
    shard: Option<(usize, usize)>,
    search: &SearchArgs,
    jobs: usize,
    (results, proofs): (Option<&Path>, Option<&Path>),
) -> Result<i32, CliError> {
    let before = entries.len();
    entries.retain(|e| e.stip.is_some());
    if entries.len() < before {
        eprintln!(
            "skipped {} lines without a stip operation: a problem suite solves stipulations",
            before - entries.len()
        );
    }
    let entries = take_shard(entries, shard);
    let budget = search.budget()?;
    if budget.time.is_none() && budget.nodes.is_none() {
        return Err(CliError::OpenProblems);
    }
    if let Some(dir) = proofs {
        std::fs::create_dir_all(dir).map_err(|e| CliError::io(dir, e))?;
    }
    let bar = progress_bar(entries.len());
    let started = std::time::Instant::now();
    let settings = settings(budget, search, 1000, proofs.is_some());
    let solve_one = |_: &mut (), i: usize| solve_row(i, &entries[i], settings, proofs);
    let rows = run_jobs(
        entries.len(),
        jobs,
        "pnmate-epd",
        || (),
        solve_one,
        |_, row: &Row| {
            if let Some(note) = &row.note {
                bar.println(format!("{}: {note}", row.label()));
            }
            bar.inc(1);
        },
    );
    bar.finish_and_clear();
    print_suite(&rows, started.elapsed(), jobs);
    if let Some(path) = results {
        let text: String = rows.iter().map(|r| format!("{}\n", r.json)).collect();
        std::fs::write(path, text).map_err(|e| CliError::io(path, e))?;
    }
    Ok(if rows.iter().any(|r| r.bad) { 1 } else { 0 })
}

/// One problem of a suite, solved.
#[derive(Clone, Debug)]
struct Row {
    stip: String,
    fen: String,
    id: Option<String>,
    verdict: Option<Verdict>,
    time: Duration,
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
/// from the solver, and its certificate in `proofs` when asked for.
fn solve_row(index: usize, entry: &EpdEntry, settings: ProblemSettings, proofs: Option<&Path>) -> Row {
    let text = entry.stip.clone().unwrap_or_default();
    let mut row = Row {
        stip: text.clone(),
        fen: entry.fen.clone(),
        id: entry.id.clone(),
        verdict: None,
        time: Duration::ZERO,
        bad: false,
        note: None,
        json: serde_json::Value::Null,
    };
    let mut bad = |note: String| {
        row.bad = true;
        row.note = Some(note);
    };
    let stip: Stipulation = match text.parse() {
        Ok(s) => s,
        Err(e) => {
            bad(format!("{e}"));
            return row;
        }
    };
    if let Err(e) = check_setup(&entry.pos, stip, false) {
        bad(e.to_string());
        return row;
    }
    let started = std::time::Instant::now();
    let solved = match solve_problem(entry.pos.clone(), stip, settings, Show::default()) {
        Ok(s) => s,
        Err(e) => {
            bad(e.to_string());
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
    if let (Some(dir), Some(cert)) = (proofs, &solved.certificate) {
        let path = dir.join(certificate_name(index));
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
fn print_suite(rows: &[Row], wall: Duration, jobs: usize) {
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
