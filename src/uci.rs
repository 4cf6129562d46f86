//! The UCI front end: the only code that reads stdin or writes stdout in UCI mode.
//!
//! Commands are parsed by vampirc-uci, hardened (docs/design.md, "UCI parsing"): every line is
//! lossily decoded and re-joined with single spaces (so trailing whitespace and double
//! spaces cannot trip or silently truncate the parser), and `parse_strict` runs inside
//! `catch_unwind` and must yield exactly one message. What vampirc cannot express is
//! handled by a small pre-pass of our own: `position` (4-field FENs, X-FEN/Shredder
//! castling, long move lists) is parsed here entirely, and `go` gets a pre-pass for the
//! few things vampirc cannot express (see `parse_go`).
//! Bad input is answered with `info string error: ...`; the engine keeps its last valid
//! position and stays responsive.

use std::io::{BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use vampirc_uci::{UciMessage, UciTimeControl, parse_strict};

use crate::chess::mate_len::MateBound;
use crate::chess::position::{uci_in, uci_line_in};
use crate::engine::{Engine, EngineEvent, Sink};
use crate::error::UciError;
use crate::limits::{Clock, GoLimits};
use crate::options::OPTIONS;
use crate::search::multipv::MoveResult;
use crate::search::{Event, Outcome, Stats};
use shakmaty::CastlingMode;

/// The engine's name and version as `id name` reports them.
pub const ENGINE_NAME: &str = concat!("pnmate ", env!("CARGO_PKG_VERSION"));

/// A parsed command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`
    Uci,
    /// `debug on|off`
    Debug(bool),
    /// `isready`
    IsReady,
    /// `register ...` (accepted, ignored)
    Register,
    /// `setoption name N [value V]`
    SetOption {
        /// Option name.
        name: String,
        /// Option value.
        value: Option<String>,
    },
    /// `ucinewgame`
    UciNewGame,
    /// `position startpos|fen F [moves ...]`
    Position {
        /// The FEN, None for startpos.
        fen: Option<String>,
        /// The moves, in UCI notation.
        moves: Vec<String>,
    },
    /// `go ...`
    Go(GoLimits),
    /// `stop`
    Stop,
    /// `ponderhit`
    PonderHit,
    /// `quit`
    Quit,
    /// An empty line.
    Empty,
}

/// Parses one input line. Never panics.
pub fn parse_command(raw: &str) -> Result<Command, UciError> {
    let tokens: Vec<&str> = raw.split_whitespace().collect();
    let Some(&head) = tokens.first() else {
        return Ok(Command::Empty);
    };
    match head {
        "position" => parse_position(&tokens[1..]),
        "go" => parse_go(&tokens[1..]),
        "uci" | "isready" | "ucinewgame" | "stop" | "ponderhit" | "quit" | "debug" | "register" | "setoption" => {
            let msg = vampirc_one(&tokens.join(" "))
                .ok_or_else(|| UciError::BadArguments { command: head.into(), reason: "malformed".into() })?;
            match msg {
                UciMessage::Uci => Ok(Command::Uci),
                UciMessage::IsReady => Ok(Command::IsReady),
                UciMessage::UciNewGame => Ok(Command::UciNewGame),
                UciMessage::Stop => Ok(Command::Stop),
                UciMessage::PonderHit => Ok(Command::PonderHit),
                UciMessage::Quit => Ok(Command::Quit),
                UciMessage::Debug(on) => Ok(Command::Debug(on)),
                UciMessage::Register { .. } => Ok(Command::Register),
                UciMessage::SetOption { name, value } => Ok(Command::SetOption { name, value }),
                _ => Err(UciError::Unknown(head.into())),
            }
        }
        _ => Err(UciError::Unknown(head.chars().take(40).collect())),
    }
}

/// vampirc's strict parser on one normalised line, panic-proof; exactly one message.
fn vampirc_one(line: &str) -> Option<UciMessage> {
    let parsed = catch_unwind(AssertUnwindSafe(|| parse_strict(line))).ok()?.ok()?;
    match parsed.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

fn parse_position(args: &[&str]) -> Result<Command, UciError> {
    let bad = |reason: &str| UciError::BadArguments { command: "position".into(), reason: reason.into() };
    let split = args.iter().position(|&t| t == "moves").unwrap_or(args.len());
    let (head, tail) = args.split_at(split);
    let moves: Vec<String> = tail.iter().skip(1).map(|s| s.to_string()).collect();
    match head {
        ["startpos"] => Ok(Command::Position { fen: None, moves }),
        ["fen", fen @ ..] if !fen.is_empty() => Ok(Command::Position { fen: Some(fen.join(" ")), moves }),
        ["fen"] => Err(bad("'fen' needs a FEN")),
        _ => Err(bad("want 'startpos' or 'fen <FEN>', optionally followed by 'moves ...'")),
    }
}

/// `go`: vampirc-uci parses what it can express; a pre-pass of ours takes out of the line
/// what it cannot, first:
/// - `mate N`, parsed here alone into a [`MateBound`];
/// - `depth` and `movestogo` above 255 (vampirc holds them in a `u8` and panics);
/// - `ponder`, `infinite` and `movetime` beside clock fields (vampirc keeps one
///   time-control group, and the clock's replaces the others).
fn parse_go(args: &[&str]) -> Result<Command, UciError> {
    let bad = |reason: String| UciError::BadArguments { command: "go".into(), reason };
    let has_clock = args.iter().any(|t| matches!(*t, "wtime" | "btime" | "winc" | "binc" | "movestogo"));
    let mut limits = GoLimits::default();
    let mut wide_movestogo = None;
    let mut line = vec!["go"];
    let mut i = 0;
    while i < args.len() {
        let (key, value) = (args[i], args.get(i + 1).copied());
        let wide = value.and_then(|v| v.parse::<u64>().ok()).filter(|&n| n > 255);
        match (key, wide, value) {
            ("mate", _, Some(v)) => {
                let moves = v.parse::<u64>().map_err(|_| bad(format!("'mate {v}': not a number")))?;
                limits.mate = Some(MateBound::new(moves).ok_or_else(|| bad("'mate 0': want at least 1".into()))?);
            }
            ("depth", Some(n), _) => limits.depth = Some(n),
            ("movestogo", Some(n), _) => wide_movestogo = Some(n),
            ("movetime", _, Some(v)) if has_clock => {
                let ms: i64 = v.parse().map_err(|_| bad(format!("'movetime {v}': not a number")))?;
                limits.movetime = Some(Duration::from_millis(ms.max(0) as u64));
            }
            ("ponder", ..) if has_clock => {
                limits.ponder = true;
                i += 1;
                continue;
            }
            ("infinite", ..) if has_clock => {
                limits.infinite = true;
                i += 1;
                continue;
            }
            _ => {
                line.push(key);
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let msg = vampirc_one(&line.join(" ")).ok_or_else(|| bad(format!("cannot parse '{}'", args.join(" "))))?;
    let UciMessage::Go { time_control, search_control } = msg else {
        return Err(bad("not a go command".into()));
    };
    let ms = |d: vampirc_uci::Duration| Duration::from_millis(d.num_milliseconds().max(0) as u64);
    match time_control {
        Some(UciTimeControl::Infinite) => limits.infinite = true,
        Some(UciTimeControl::Ponder) => limits.ponder = true,
        Some(UciTimeControl::MoveTime(t)) => limits.movetime = Some(ms(t)),
        Some(UciTimeControl::TimeLeft { white_time, black_time, white_increment, black_increment, moves_to_go }) => {
            limits.clock = Some(Clock {
                wtime: white_time.map(ms),
                btime: black_time.map(ms),
                winc: white_increment.map(ms).unwrap_or_default(),
                binc: black_increment.map(ms).unwrap_or_default(),
                movestogo: wide_movestogo.or(moves_to_go.map(u64::from)),
            });
        }
        None => {}
    }
    if let Some(sc) = search_control {
        limits.depth = limits.depth.or(sc.depth.map(u64::from));
        limits.nodes = sc.nodes;
        limits.searchmoves = sc.search_moves.iter().map(|m| m.to_string()).collect();
    }
    Ok(Command::Go(limits))
}

/// How events are printed: the options that change output lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// Scores come with `wdl W D L` (per mille; UCI_ShowWDL).
    pub show_wdl: bool,
    /// Castling is written king takes rook (UCI_Chess960).
    pub chess960: bool,
}

impl Style {
    /// How this style writes castling moves.
    fn castling(&self) -> CastlingMode {
        if self.chess960 { CastlingMode::Chess960 } else { CastlingMode::Standard }
    }

    /// A move as this style writes it.
    fn mv(&self, m: shakmaty::Move) -> String {
        uci_in(m, self.castling())
    }

    /// A line of moves as this style writes it.
    fn line(&self, moves: &[shakmaty::Move]) -> String {
        uci_line_in(moves, self.castling())
    }
}

/// Win/draw/loss per mille for an evaluation of `cp` centipawns from the side to move's
/// view: a plain logistic model (even at 0, 0.5 pawn of edge wins a quarter, 3 pawns
/// nearly always), uncalibrated: the fallback's evaluation is a rough one.
pub fn wdl_of_cp(cp: i32) -> (u32, u32, u32) {
    let share = |x: f64| (1000.0 / (1.0 + ((200.0 - x) / 80.0).exp())).round() as u32;
    let (win, loss) = (share(f64::from(cp)), share(-f64::from(cp)));
    (win, 1000 - win - loss, loss)
}

/// The `wdl` field of a score, when asked for.
fn wdl(style: Style, (w, d, l): (u32, u32, u32)) -> String {
    if style.show_wdl { format!(" wdl {w} {d} {l}") } else { String::new() }
}

/// The common `depth .. seldepth .. nodes .. nps .. time .. hashfull ..` fields.
fn counters(stats: &Stats) -> String {
    format!(
        "depth {} seldepth {} nodes {} nps {} time {} hashfull {} tbhits {}",
        stats.depth,
        stats.seldepth.max(stats.depth),
        stats.nodes,
        stats.nps(),
        stats.time.as_millis(),
        stats.hashfull,
        stats.tbhits
    )
}

/// MultiPV lines: one per root move, best first, each with its own proven result (a
/// mate proven shortest, or `lowerbound`/`upperbound` when only its length is bounded),
/// or the move's evaluation when no mate is proven; a proven "no mate within N" is said in
/// an `info string`.
fn ranked_lines(results: &[MoveResult], stats: &Stats, style: Style) -> Vec<String> {
    let mut lines = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let head = format!("info multipv {} {}", i + 1, counters(stats));
        lines.push(match &r.outcome {
            Outcome::Mate { moves, exact, pv } => format!(
                "{head} score mate {moves}{}{} pv {}",
                if *exact { "" } else { " lowerbound" },
                wdl(style, (1000, 0, 0)),
                style.line(pv)
            ),
            Outcome::Mated { moves, exact, pv } => format!(
                "{head} score mate -{moves}{}{} pv {}",
                if *exact { "" } else { " upperbound" },
                wdl(style, (0, 0, 1000)),
                style.line(pv)
            ),
            Outcome::NoMate { .. } | Outcome::Unknown => {
                format!("{head} score cp {}{} pv {}", r.eval, wdl(style, wdl_of_cp(r.eval)), style.mv(r.mv))
            }
        });
        if let Outcome::NoMate { moves } = r.outcome {
            lines.push(format!("info string multipv {} {}: no mate within {moves} (proven)", i + 1, style.mv(r.mv)));
        }
    }
    lines
}

/// Formats an engine event as UCI output lines.
pub fn format_event(event: &EngineEvent, style: Style) -> Vec<String> {
    match event {
        EngineEvent::Search(Event::Mate { mate, pv, stats, .. }) => {
            let stats = Stats { seldepth: stats.seldepth.max(pv.len() as u32), ..*stats };
            let outcome = if mate.side_to_move_mates() { (1000, 0, 0) } else { (0, 0, 1000) };
            vec![format!("info {} score mate {mate}{} pv {}", counters(&stats), wdl(style, outcome), style.line(pv))]
        }
        EngineEvent::Search(Event::NoMate { moves, stats }) => {
            vec![format!("info {}", counters(stats)), format!("info string no mate in {moves} (proven)")]
        }
        EngineEvent::Search(Event::MateUnshown { mate, .. }) => {
            vec![format!("info string mate {mate} proven; its line was not built before the search ended")]
        }
        EngineEvent::Search(Event::Status(text)) => vec![format!("info string {text}")],
        EngineEvent::Progress(stats) => vec![format!("info {}", counters(stats))],
        EngineEvent::Ranked { results, stats } => ranked_lines(results, stats, style),
        EngineEvent::CurrMove { depth, mv, number } => {
            vec![format!("info depth {depth} currmove {} currmovenumber {number}", style.mv(*mv))]
        }
        EngineEvent::Evaluation { cp, pv, stats } => {
            vec![format!("info {} score cp {cp}{} pv {}", counters(stats), wdl(style, wdl_of_cp(*cp)), style.line(pv))]
        }
        EngineEvent::RootTerminal { checkmated: true } => {
            vec![format!("info depth 0 score mate 0{}", wdl(style, (0, 0, 1000)))]
        }
        EngineEvent::RootTerminal { checkmated: false } => {
            vec![format!("info depth 0 score cp 0{}", wdl(style, (0, 1000, 0)))]
        }
        EngineEvent::Note(text) => vec![format!("info string {text}")],
        EngineEvent::BestMove { best: None, .. } => vec!["bestmove 0000".into()],
        EngineEvent::BestMove { best: Some(b), ponder } => vec![match ponder {
            Some(p) => format!("bestmove {} ponder {}", style.mv(*b), style.mv(*p)),
            None => format!("bestmove {}", style.mv(*b)),
        }],
    }
}

type Out = Arc<Mutex<dyn Write + Send>>;

fn emit(out: &Out, lines: &[String]) {
    let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
    for line in lines {
        let _ = writeln!(w, "{line}");
    }
    let _ = w.flush();
}

/// The `uci` handshake lines.
pub fn handshake() -> Vec<String> {
    let mut lines = vec![format!("id name {ENGINE_NAME}"), "id author the pnmate developers".into()];
    lines.extend(OPTIONS.iter().map(|o| o.uci_line()));
    lines.push("uciok".into());
    lines
}

/// Handles one command; returns false on `quit`.
pub fn handle(engine: &mut Engine, command: Command, out: &Out) -> bool {
    match command {
        Command::Uci => emit(out, &handshake()),
        Command::IsReady => {
            engine.ready();
            emit(out, &["readyok".into()])
        }
        Command::Debug(_) | Command::Register | Command::Empty => {}
        Command::UciNewGame => engine.new_game(),
        Command::SetOption { name, value } => match engine.set_option(&name, value.as_deref()) {
            Ok(Some(note)) => emit(out, &note.lines().map(|l| format!("info string {l}")).collect::<Vec<_>>()),
            Ok(None) => {}
            Err(e) => emit(out, &[format!("info string error: {e}")]),
        },
        Command::Position { fen, moves } => {
            let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
            if let Err(e) = engine.set_position(fen.as_deref(), &moves) {
                emit(out, &[format!("info string error: {}", UciError::Position(e))]);
            }
        }
        Command::Go(limits) => {
            let sink_out = Arc::clone(out);
            let style = Style { show_wdl: engine.show_wdl(), chess960: engine.chess960() };
            let sink: Sink = Arc::new(move |e: EngineEvent| emit(&sink_out, &format_event(&e, style)));
            engine.go(limits, sink);
        }
        Command::Stop => engine.stop(),
        Command::PonderHit => engine.ponderhit(),
        Command::Quit => {
            engine.stop();
            let _ = engine.wait();
            return false;
        }
    }
    true
}

/// The UCI loop: reads commands from `input` until `quit` or end of input, with the
/// engine's `options` (name, value) set first, as from the command line.
pub fn run(input: impl BufRead, out: Out, options: &[(&str, &str)]) {
    let mut engine = Engine::new();
    for (name, value) in options {
        if let Err(e) = engine.set_option(name, Some(value)) {
            emit(&out, &[format!("info string error: {e}")]);
        }
    }
    let mut input = input;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&buf);
        let keep_going = match parse_command(&line) {
            Ok(command) => handle(&mut engine, command, &out),
            Err(e) => {
                emit(&out, &[format!("info string error: {e}")]);
                true
            }
        };
        if !keep_going {
            return;
        }
    }
    // End of input: let a running search finish (its bestmove is still printed); an
    // open-ended one is stopped, as nobody is left to send `stop`.
    let _ = engine.finish();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hardened_go_parsing() {
        let Command::Go(l) = parse_command("go mate 1000").unwrap() else { panic!() };
        assert_eq!(l.mate, MateBound::new(1000));
        let Command::Go(l) = parse_command("go ").unwrap() else { panic!() };
        assert_eq!(l, GoLimits::default());
        let Command::Go(l) = parse_command("go depth 300 movestogo 400 wtime 1000 btime 2000").unwrap() else {
            panic!()
        };
        assert_eq!(l.depth, Some(300));
        let c = l.clock.unwrap();
        assert_eq!(
            (c.movestogo, c.wtime, c.btime),
            (Some(400), Some(Duration::from_millis(1000)), Some(Duration::from_millis(2000)))
        );
        let Command::Go(l) = parse_command("go wtime -500 btime 100").unwrap() else { panic!() };
        assert_eq!(l.clock.unwrap().wtime, Some(Duration::ZERO));
        let Command::Go(l) = parse_command("go searchmoves e2e4 d2d4 mate 3").unwrap() else { panic!() };
        assert_eq!(l.searchmoves, vec!["e2e4", "d2d4"]);
        assert_eq!(l.mate, MateBound::new(3));
        let Command::Go(l) = parse_command("go ponder wtime 100 btime 100").unwrap() else { panic!() };
        assert!(l.ponder);
        assert!(parse_command("go mate").is_err());
        assert!(parse_command("go mate x").is_err());
        assert!(parse_command("go mate 0").is_err());
        assert!(parse_command("go nodes -5").is_err());
        assert!(parse_command("go mate 99999999999999999999").is_err());
    }

    #[test]
    fn wdl_figures_add_up_and_follow_the_score() {
        for cp in [-10_000, -300, -50, 0, 50, 300, 10_000] {
            let (w, d, l) = wdl_of_cp(cp);
            assert_eq!(w + d + l, 1000, "{cp}");
            assert_eq!(wdl_of_cp(-cp), (l, d, w), "{cp}");
        }
        assert!(wdl_of_cp(0).1 > 800);
        assert_eq!(wdl_of_cp(10_000), (1000, 0, 0));
        assert!(wdl_of_cp(300).0 > wdl_of_cp(50).0);
    }

    #[test]
    fn scores_lines_and_counters_as_guis_read_them() {
        let stats =
            Stats { nodes: 2000, time: Duration::from_millis(1000), hashfull: 3, depth: 9, seldepth: 4, tbhits: 0 };
        let style = Style { show_wdl: true, chess960: false };
        let pos = shakmaty::Chess::default();
        let e4 = shakmaty::uci::UciMove::from_ascii(b"e2e4").unwrap().to_move(&pos).unwrap();
        assert_eq!(
            format_event(&EngineEvent::Progress(stats), style),
            ["info depth 9 seldepth 9 nodes 2000 nps 2000 time 1000 hashfull 3 tbhits 0"]
        );
        assert_eq!(
            format_event(&EngineEvent::Evaluation { cp: 35, pv: vec![e4], stats }, style),
            [
                "info depth 9 seldepth 9 nodes 2000 nps 2000 time 1000 hashfull 3 tbhits 0 score cp 35 wdl 113 837 50 pv e2e4"
            ]
        );
        assert_eq!(
            format_event(&EngineEvent::Evaluation { cp: 35, pv: vec![e4], stats }, Style::default()),
            ["info depth 9 seldepth 9 nodes 2000 nps 2000 time 1000 hashfull 3 tbhits 0 score cp 35 pv e2e4"]
        );
        assert_eq!(
            format_event(&EngineEvent::RootTerminal { checkmated: true }, style),
            ["info depth 0 score mate 0 wdl 0 0 1000"]
        );
    }

    #[test]
    fn hardened_position_parsing() {
        let c = parse_command("position startpos moves  e2e4   e7e5 ").unwrap();
        assert_eq!(c, Command::Position { fen: None, moves: vec!["e2e4".into(), "e7e5".into()] });
        let c = parse_command("position fen 8/8/8/8/8/8/8/K1k5 w - - moves a1a2").unwrap();
        assert_eq!(c, Command::Position { fen: Some("8/8/8/8/8/8/8/K1k5 w - -".into()), moves: vec!["a1a2".into()] });
        assert!(parse_command("position").is_err());
        assert!(parse_command("position fen").is_err());
        assert!(parse_command("position startpos e2e4").is_err());
    }

    #[test]
    fn other_commands_and_garbage() {
        assert_eq!(parse_command("uci").unwrap(), Command::Uci);
        assert_eq!(parse_command("  isready  \r\n").unwrap(), Command::IsReady);
        assert_eq!(
            parse_command("setoption name Move Overhead value 100").unwrap(),
            Command::SetOption { name: "Move Overhead".into(), value: Some("100".into()) }
        );
        assert_eq!(
            parse_command("setoption name Clear Hash").unwrap(),
            Command::SetOption { name: "Clear Hash".into(), value: None }
        );
        assert_eq!(parse_command("").unwrap(), Command::Empty);
        assert_eq!(parse_command("debug on").unwrap(), Command::Debug(true));
        assert_eq!(parse_command("register later").unwrap(), Command::Register);
        assert!(matches!(parse_command("hello world"), Err(UciError::Unknown(_))));
        assert!(parse_command("isready now").is_err());
        assert!(parse_command("\u{0}\u{1}\u{fffd}").is_err());
    }
}
