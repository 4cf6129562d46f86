//! The project's own suites (epd/*.epd), solved through the library: exact lengths,
//! proven shortest, every line replayed to checkmate; proven no-mates; and the prover's
//! behaviour at its limits.

use std::time::Duration;

use pnmate::MateBound;
use pnmate::epd::parse_line;
use pnmate::limits::Budget;
use pnmate::proof::verify::verify_line;
use pnmate::search::{Params, solve};
use pnmate::{MateLen, Outcome, TranspositionTable};

fn suite(name: &str) -> Vec<(String, pnmate::epd::EpdEntry)> {
    let path = format!("{}/epd/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter_map(|l| parse_line(l).unwrap_or_else(|e| panic!("{path}: {l}: {e}")).map(|e| (l.to_string(), e)))
        .collect()
}

/// The `nm N` operation ("no mate within N moves") of an EPD line.
fn no_mate_bound(line: &str) -> Option<u32> {
    let words: Vec<&str> = line.split(|c: char| c.is_whitespace() || c == ';').filter(|w| !w.is_empty()).collect();
    words.windows(2).find(|w| w[0] == "nm").and_then(|w| w[1].parse().ok())
}

/// Solves every mate of a suite with `go mate |bm|` semantics and checks it exactly.
fn check_mates(name: &str, min_positions: usize) {
    check_mates_on(name, min_positions, 1);
}

/// [`check_mates`] with `threads` search threads.
fn check_mates_on(name: &str, min_positions: usize, threads: usize) {
    let entries = suite(name);
    assert!(entries.len() >= min_positions, "{name}: only {} positions", entries.len());
    let mut tt = TranspositionTable::new(16);
    for (line, e) in entries {
        let bm = e.bm.unwrap_or_else(|| panic!("{name}: no bm in {line}"));
        tt.clear();
        let params = Params { mate: MateBound::new(u64::from(bm.unsigned_abs())), threads, ..Params::default() };
        let limits = Budget { nodes: Some(50_000_000), time: None };
        let (outcome, _) = solve(&e.pos, params, limits, &tt, &mut |_| {});
        let (moves, exact) = match &outcome {
            Outcome::Mate { moves, exact, .. } => (*moves as i32, *exact),
            Outcome::Mated { moves, exact, .. } => (-(*moves as i32), *exact),
            other => panic!("{}: expected mate {bm}, got {other:?}", e.fen),
        };
        assert_eq!(moves, bm, "{}: wrong mate length", e.fen);
        assert!(exact, "{}: mate {bm} not proven shortest", e.fen);
        let pv = outcome.pv();
        assert_eq!(pv.len() as i32, if bm > 0 { 2 * bm - 1 } else { -2 * bm }, "{}", e.fen);
        verify_line(&e.pos, pv, MateLen::from_signed(bm), &[]).unwrap_or_else(|err| panic!("{}: {err}", e.fen));
    }
}

#[test]
fn mates_in_1_to_10_for_both_colours() {
    check_mates("mates.epd", 100);
    let entries = suite("mates.epd");
    for colour in [" w ", " b "] {
        assert!(entries.iter().any(|(_, e)| e.fen.contains(colour)), "no side-to-move{colour}");
    }
    for m in 1..=10 {
        assert!(entries.iter().any(|(_, e)| e.bm == Some(m)), "no mate in {m}");
    }
}

#[test]
fn mated_side_positions() {
    check_mates("mated.epd", 20);
}

#[test]
fn long_endgame_mates() {
    check_mates("endgames.epd", 10);
}

#[test]
fn two_threads_prove_the_same_exact_mates_and_lines() {
    check_mates_on("mates.epd", 100, 2);
    check_mates_on("mated.epd", 20, 2);
    check_mates_on("endgames.epd", 10, 2);
}

#[test]
fn more_threads_than_cores_still_prove_exactly() {
    check_mates_on("traps.epd", 5, 4);
    check_mates_on("mated.epd", 20, 3);
}

#[test]
fn proven_no_mate_within_n() {
    check_no_mates(1);
}

#[test]
fn two_threads_prove_the_same_no_mates() {
    check_no_mates(2);
}

fn check_no_mates(threads: usize) {
    let entries = suite("nomate.epd");
    assert!(entries.len() >= 20);
    let mut tt = TranspositionTable::new(16);
    for (line, e) in entries {
        let n = no_mate_bound(&line).unwrap_or_else(|| panic!("no 'nm N' in {line}"));
        assert!(e.bm.is_none(), "{line}");
        tt.clear();
        let params = Params { mate: MateBound::new(u64::from(n)), threads, ..Params::default() };
        let (outcome, _) = solve(&e.pos, params, Budget::default(), &tt, &mut |_| {});
        assert_eq!(outcome, Outcome::NoMate { moves: n }, "{} on {threads} threads", e.fen);
    }
}

#[test]
fn one_megabyte_table_still_solves_a_mate_in_5_exactly() {
    let entries = suite("mates.epd");
    let (_, e) = entries.iter().find(|(_, e)| e.bm == Some(5)).expect("a mate in 5");
    let tt = TranspositionTable::new(1);
    let (outcome, _) =
        solve(&e.pos, Params { mate: MateBound::new(5), ..Params::default() }, Budget::default(), &tt, &mut |_| {});
    match outcome {
        Outcome::Mate { moves: 5, exact: true, ref pv } => verify_line(&e.pos, pv, MateLen::mate_in(5), &[]).unwrap(),
        other => panic!("{}: {other:?}", e.fen),
    }
}

#[test]
fn a_node_limit_gives_unknown_never_a_disproof() {
    let entries = suite("endgames.epd");
    let mut tt = TranspositionTable::new(16);
    for (_, e) in entries.iter().take(5) {
        for nodes in [1, 10, 100, 1000] {
            tt.clear();
            let limits = Budget { nodes: Some(nodes), time: None };
            let (outcome, stats) = solve(&e.pos, Params::default(), limits, &tt, &mut |_| {});
            assert!(
                matches!(outcome, Outcome::Unknown | Outcome::Mate { .. }),
                "{} with {nodes} nodes: {outcome:?}",
                e.fen
            );
            if let Outcome::Mate { moves, ref pv, .. } = outcome {
                verify_line(&e.pos, pv, MateLen::mate_in(moves), &[]).unwrap();
            }
            assert!(stats.nodes <= nodes + 2_000_000, "line building is bounded");
        }
    }
}

#[test]
fn a_time_limit_gives_unknown_on_a_hard_position() {
    // A long KRvK mate cut off after 1 ms: unknown or a verified mate, never "no mate".
    let entries = suite("endgames.epd");
    let (_, e) = entries.iter().max_by_key(|(_, e)| e.bm).unwrap();
    let tt = TranspositionTable::new(16);
    let limits = Budget { nodes: None, time: Some(Duration::from_millis(1)) };
    let (outcome, _) = solve(&e.pos, Params::default(), limits, &tt, &mut |_| {});
    assert!(!matches!(outcome, Outcome::NoMate { .. } | Outcome::Mated { .. }), "{outcome:?}");
}

#[test]
fn events_report_each_shorter_mate_and_the_last_is_the_outcome() {
    let entries = suite("endgames.epd");
    let (_, e) = &entries[0];
    let tt = TranspositionTable::new(16);
    let mut seen = Vec::new();
    let (outcome, _) = solve(&e.pos, Params::default(), Budget::default(), &tt, &mut |ev| {
        if let pnmate::Event::Mate { mate, pv, .. } = ev {
            seen.push((mate.signed(), pv));
        }
    });
    assert!(!seen.is_empty());
    assert!(
        seen.windows(2).all(|w| w[1].0 < w[0].0),
        "each report is shorter: {:?}",
        seen.iter().map(|s| s.0).collect::<Vec<_>>()
    );
    let (last_moves, last_pv) = seen.last().unwrap();
    assert_eq!(Some(*last_moves), outcome.signed_moves());
    assert_eq!(last_pv.as_slice(), outcome.pv());
    assert_eq!(Some(*last_moves), e.bm);
}

#[test]
fn fifty_move_rule_is_the_defenders_claim() {
    use pnmate::chess::position::parse_fen;
    let mut tt = TranspositionTable::new(1);
    let mut solve_fen = |fen: &str, mate: u32| {
        tt.clear();
        let pos = parse_fen(fen).unwrap();
        let params = Params { mate: MateBound::new(u64::from(mate)), ..Params::default() };
        let (outcome, _) = solve(&pos, params, Budget::default(), &tt, &mut |_| {});
        if let Outcome::Mate { moves, ref pv, .. } = outcome {
            verify_line(&pos, pv, MateLen::mate_in(moves), &[]).unwrap();
        }
        outcome
    };
    // Mate in one at clock 100: the defender never has a turn to claim on.
    assert!(matches!(solve_fen("k7/8/1K6/8/8/8/8/7R w - - 100 80", 3), Outcome::Mate { moves: 1, .. }));
    // Mate in two from clock 98: Black, to move at clock 99 with a non-zeroing move, claims.
    assert_eq!(solve_fen("k7/8/2K5/8/8/8/8/7R w - - 98 80", 2), Outcome::NoMate { moves: 2 });
    // The same at clock 0 is a mate in two (1. Kb6 Kb8 2. Rh8#).
    assert!(matches!(solve_fen("k7/8/2K5/8/8/8/8/7R w - - 0 80", 2), Outcome::Mate { moves: 2, exact: true, .. }));
}

#[test]
fn stalemate_and_material_traps() {
    check_mates("traps.epd", 5);
}

/// Nodes Prover's proof-number search needed for Krabbé's mate in 38 (Breuker, Allis and
/// van den Herik, "Mate in 38: Applying Proof-Number Search", 1994).
const PROVER_NODES: u64 = 225_752;

/// The first mate a search of `fen` reports within `nodes` (16 MB table): its length, its
/// line and the nodes searched when it came; with the position and the search's outcome.
struct FirstMate {
    pos: shakmaty::Chess,
    first: Option<(MateLen, Vec<shakmaty::Move>, u64)>,
    outcome: Outcome,
}

fn first_mate(fen: &str, params: Params, nodes: u64) -> FirstMate {
    first_mate_with_table(fen, params, nodes, 16)
}

/// [`first_mate`] with a table of `mb` megabytes.
fn first_mate_with_table(fen: &str, params: Params, nodes: u64, mb: usize) -> FirstMate {
    let pos = pnmate::chess::position::parse_fen(fen).unwrap();
    let tt = TranspositionTable::new(mb);
    let limits = Budget { nodes: Some(nodes), time: None };
    let mut first = None;
    let (outcome, _) = solve(&pos, params, limits, &tt, &mut |ev| {
        if let pnmate::search::Event::Mate { mate, ref pv, ref stats, .. } = ev {
            first.get_or_insert((mate, pv.clone(), stats.nodes));
        }
    });
    FirstMate { pos, first, outcome }
}

#[test]
fn krabbes_mate_in_38_in_fewer_nodes_than_prover() {
    let params = Params { mate: MateBound::new(38), ..Params::default() };
    let FirstMate { pos, first, outcome } =
        first_mate("1R6/6pK/5p2/4p3/1B1p3n/8/p1p1pp2/1k3b2 w - - 0 1", params, PROVER_NODES);
    let (mate, pv, nodes) = first.unwrap_or_else(|| panic!("no mate within {PROVER_NODES} nodes: {outcome:?}"));
    assert_eq!(mate, MateLen::mate_in(38));
    assert!(nodes <= PROVER_NODES, "{nodes} nodes");
    verify_line(&pos, &pv, mate, &[]).unwrap();
    assert!(matches!(outcome, Outcome::Mate { moves: 38, .. }), "{outcome:?}");
}

/// A mate in 22 (matetrack) whose proof comes from a bound searched with cycles cut: the
/// white rook shuttles on the first rank while the black knight shuffles, so a re-proof
/// that searched cycles out could not rebuild the line in seconds (before the line
/// builder cut cycles first, the proof came at about 1.1M nodes and its line never did).
#[test]
fn a_proof_found_with_cycles_cut_gets_its_line() {
    let pos = pnmate::chess::position::parse_fen("3R4/6p1/8/2p3p1/n7/4p3/4p1pp/4K1kr w - - 0 1").unwrap();
    let tt = TranspositionTable::new(16);
    let limits = Budget { nodes: Some(3_000_000), time: None };
    let (outcome, _) = solve(&pos, Params::default(), limits, &tt, &mut |_| {});
    let Outcome::Mate { moves, pv, .. } = &outcome else { panic!("no mate with a line: {outcome:?}") };
    assert_eq!(*moves, 22);
    verify_line(&pos, pv, MateLen::mate_in(22), &[]).unwrap();
}

/// A mate in 26 (matetrack) whose first proof is longer: a first proof at a long bound
/// is often far from the shortest. Tightening one move at a time with cycles searched
/// stayed at the first proof for seconds (with the single far bound of the time, a mate
/// in 62 for 10 s); asking P - 2 and a halfway bound with cycles cut reaches 26 in
/// about 1.3M nodes.
#[test]
fn a_long_first_proof_is_tightened_to_the_short_mate() {
    let FirstMate { pos, first, outcome } =
        first_mate("6R1/8/2P5/3K4/1P1PpP1P/p1p1P1P1/rpPp3N/qnbrkBB1 w - - 0 1", Params::default(), 2_000_000);
    assert_eq!(first.map(|(mate, ..)| mate), Some(MateLen::mate_in(32)), "the first proof this test is about");
    let Outcome::Mate { moves, pv, .. } = &outcome else { panic!("{outcome:?}") };
    assert_eq!(*moves, 26);
    verify_line(&pos, pv, MateLen::mate_in(26), &[]).unwrap();
}

/// Positions of four men with their shortest mates (signed: negative where the side to
/// move is mated), each from its suite's tablebase line or Stockfish's mate score.
const SMALL_ENDINGS: &[(&str, i32)] = &[
    ("1k6/8/3K4/8/8/8/8/2BB4 w - - 0 1", 7), // K+B+B v K, Stockfish 15.1 at depth 30
    ("8/4k3/8/8/5B2/K7/8/7B w - - 0 1", 15), // K+B+B v K
    ("8/B2k4/8/8/8/1K6/2B5/8 b - - 0 1", -15), // KBBvK500pv.epd
    ("8/1k6/3K4/8/4N3/1B6/8/8 w - - 0 1", 12), // KBNvK500pv.epd
    ("8/2N5/8/8/8/1k2B3/8/2K5 w - - 0 1", 15), // KBNvK500pv.epd, 1.Kd2
    ("8/8/2K5/4B3/8/1k2N3/8/8 b - - 0 1", -14), // Stockfish 15.1: mate -14 at depth 40
    ("1k6/4K3/8/1r6/8/5Q2/8/8 w - - 0 1", 13), // K+Q v K+R
    ("8/2K3r1/k7/8/8/7Q/8/8 w - - 0 1", 18), // K+Q v K+R
    ("8/8/1Q6/8/5r2/8/k3K3/8 b - - 0 1", -15), // K+Q v K+R
];

/// Nodes within which each small ending is proven shortest: its table decides every node.
const SMALL_ENDING_NODES: u64 = 20_000;

#[test]
fn small_endings_are_proven_shortest_from_their_exact_values() {
    for &(fen, signed) in SMALL_ENDINGS {
        let pos = pnmate::chess::position::parse_fen(fen).unwrap();
        let tt = TranspositionTable::new(16);
        let limits = Budget { nodes: Some(SMALL_ENDING_NODES), time: None };
        let (outcome, stats) = solve(&pos, Params::default(), limits, &tt, &mut |_| {});
        let (moves, pv) = match &outcome {
            Outcome::Mate { moves, exact: true, pv } => (*moves as i32, pv),
            Outcome::Mated { moves, exact: true, pv } => (-(*moves as i32), pv),
            other => panic!("{fen}: {other:?}"),
        };
        assert_eq!(moves, signed, "{fen}");
        assert!(stats.nodes <= SMALL_ENDING_NODES, "{fen}: {} nodes", stats.nodes);
        let mate = if signed > 0 { MateLen::mate_in(signed as u32) } else { MateLen::mated_in((-signed) as u32) };
        verify_line(&pos, pv, mate, &[]).unwrap();
    }
}

/// Asserts that the analysis of `fen` reports a mate within `nodes`, of a signed length
/// in `lengths`, whose line replays to checkmate: any mate will do, so long as it fits
/// the long bound (49 moves) that found it. The table has `mb` megabytes.
fn long_bound_mate_within(fen: &str, nodes: u64, mb: usize, lengths: std::ops::RangeInclusive<i32>) {
    let FirstMate { pos, first, outcome } = first_mate_with_table(fen, Params::default(), nodes, mb);
    let (mate, pv, spent) = first.unwrap_or_else(|| panic!("{fen}: no mate within {nodes} nodes: {outcome:?}"));
    assert!(spent <= nodes, "{fen}: {spent} nodes");
    assert!(lengths.contains(&mate.signed()), "{fen}: {}", mate.signed());
    verify_line(&pos, &pv, mate, &[]).unwrap();
}

/// Guards the armed defender's quiet scale (4): within 700k nodes (2,160,642 at 1).
const KRB_KR_QUIET_NODES: u64 = 700_000;

#[test]
fn within_700k_nodes_quiet_moves_start_higher_against_an_armed_defender() {
    // White mates in 15 (epd/public/endgames/KRBvKR500pv.epd).
    long_bound_mate_within("8/5r2/7R/8/5BK1/8/6k1/8 w - - 0 1", KRB_KR_QUIET_NODES, 64, 15..=49);
}

/// Guards the armed defender's check scale (2): within 1.55M nodes (1,842,922 at 1).
const KRB_KR_CHECK_NODES: u64 = 1_550_000;

#[test]
fn within_1_55m_nodes_checks_start_higher_against_an_armed_defender() {
    // White mates in 16 (epd/public/endgames/KRBvKR500pv.epd).
    long_bound_mate_within("1R6/7K/3r4/2k5/8/8/3B4/8 w - - 0 1", KRB_KR_CHECK_NODES, 64, 16..=49);
}
