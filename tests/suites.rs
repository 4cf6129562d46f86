//! The project's own suites (epd/*.epd), solved through the library: exact lengths,
//! proven shortest, every line replayed to checkmate; proven no-mates; and the prover's
//! behaviour at its limits.

use std::time::Duration;

use pnmate::MateBound;
use pnmate::epd::parse_line;
use pnmate::proof::verify::verify_line;
use pnmate::search::{Params, SolveLimits, solve};
use pnmate::{MateLen, Outcome, Table};

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
    let mut tt = Table::new(16);
    for (line, e) in entries {
        let bm = e.bm.unwrap_or_else(|| panic!("{name}: no bm in {line}"));
        tt.clear();
        let params = Params { mate: MateBound::new(u64::from(bm.unsigned_abs())), threads, ..Params::default() };
        let limits = SolveLimits { nodes: Some(50_000_000), time: None };
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
    let mut tt = Table::new(16);
    for (line, e) in entries {
        let n = no_mate_bound(&line).unwrap_or_else(|| panic!("no 'nm N' in {line}"));
        assert!(e.bm.is_none(), "{line}");
        tt.clear();
        let params = Params { mate: MateBound::new(u64::from(n)), threads, ..Params::default() };
        let (outcome, _) = solve(&e.pos, params, SolveLimits::default(), &tt, &mut |_| {});
        assert_eq!(outcome, Outcome::NoMate { moves: n }, "{} on {threads} threads", e.fen);
    }
}

#[test]
fn one_megabyte_table_still_solves_a_mate_in_5_exactly() {
    let entries = suite("mates.epd");
    let (_, e) = entries.iter().find(|(_, e)| e.bm == Some(5)).expect("a mate in 5");
    let tt = Table::new(1);
    let (outcome, _) = solve(
        &e.pos,
        Params { mate: MateBound::new(5), ..Params::default() },
        SolveLimits::default(),
        &tt,
        &mut |_| {},
    );
    match outcome {
        Outcome::Mate { moves: 5, exact: true, ref pv } => verify_line(&e.pos, pv, MateLen::mate_in(5), &[]).unwrap(),
        other => panic!("{}: {other:?}", e.fen),
    }
}

#[test]
fn a_node_limit_gives_unknown_never_a_disproof() {
    let entries = suite("endgames.epd");
    let mut tt = Table::new(16);
    for (_, e) in entries.iter().take(5) {
        for nodes in [1, 10, 100, 1000] {
            tt.clear();
            let limits = SolveLimits { nodes: Some(nodes), time: None };
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
    let tt = Table::new(16);
    let limits = SolveLimits { nodes: None, time: Some(Duration::from_millis(1)) };
    let (outcome, _) = solve(&e.pos, Params::default(), limits, &tt, &mut |_| {});
    assert!(!matches!(outcome, Outcome::NoMate { .. } | Outcome::Mated { .. }), "{outcome:?}");
}

#[test]
fn events_report_each_shorter_mate_and_the_last_is_the_outcome() {
    let entries = suite("endgames.epd");
    let (_, e) = &entries[0];
    let tt = Table::new(16);
    let mut seen = Vec::new();
    let (outcome, _) = solve(&e.pos, Params::default(), SolveLimits::default(), &tt, &mut |ev| {
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
    let mut tt = Table::new(1);
    let mut solve_fen = |fen: &str, mate: u32| {
        tt.clear();
        let pos = parse_fen(fen).unwrap();
        let params = Params { mate: MateBound::new(u64::from(mate)), ..Params::default() };
        let (outcome, _) = solve(&pos, params, SolveLimits::default(), &tt, &mut |_| {});
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
    let tt = Table::new(mb);
    let limits = SolveLimits { nodes: Some(nodes), time: None };
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
    let tt = Table::new(16);
    let limits = SolveLimits { nodes: Some(3_000_000), time: None };
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

/// Nodes the prover needed for its first mate in the quiet KBB v K mate in 7 below before
/// the progress numbers (at commit "Driver asks the user's bound from the first round"):
/// 149,188, and 174,098 for the first mate in 7.
const KBB_FIRST_MATE_NODES: u64 = 100_000;

#[test]
fn a_quiet_kbb_v_k_mate_is_found_by_the_progress_numbers() {
    // Mate in 7 (Stockfish 15.1 agrees at depth 30); no check helps until the last moves.
    let pos = pnmate::chess::position::parse_fen("1k6/8/3K4/8/8/8/8/2BB4 w - - 0 1").unwrap();
    let tt = Table::new(16);
    let limits = SolveLimits { nodes: Some(KBB_FIRST_MATE_NODES), time: None };
    let mut seven = None;
    let _ = solve(&pos, Params::default(), limits, &tt, &mut |ev| {
        if let pnmate::search::Event::Mate { mate, ref pv, .. } = ev
            && mate == MateLen::mate_in(7)
        {
            seven = Some(pv.clone());
        }
    });
    let pv = seven.unwrap_or_else(|| panic!("no mate in 7 within {KBB_FIRST_MATE_NODES} nodes"));
    verify_line(&pos, &pv, MateLen::mate_in(7), &[]).unwrap();
    // Proven shortest with a larger budget.
    let limits = SolveLimits { nodes: Some(5_000_000), time: None };
    let (outcome, _) = solve(&pos, Params::default(), limits, &tt, &mut |_| {});
    assert!(matches!(outcome, Outcome::Mate { moves: 7, exact: true, .. }), "{outcome:?}");
}

/// Nodes within which the analysis of issue 8's K+B+B v K mate in 15 (a quiet mate:
/// the bishops' checks come only at the end) yields its first mate with a line. Before
/// the analysis of a quiet mate asked a long bound beside the ladder (with the quiet
/// moves narrowed there), it had none within 3,000,000; with them, a mate in 32 after
/// 1,126,828.
const KBB_LONG_BOUND_NODES: u64 = 1_500_000;

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

#[test]
fn a_quiet_kbb_v_k_mate_is_found_by_the_long_bound() {
    // The shortest mate is 15.
    long_bound_mate_within("8/4k3/8/8/5B2/K7/8/7B w - - 0 1", KBB_LONG_BOUND_NODES, 16, 15..=49);
}

/// Nodes within which the analysis of the K+B+B v K position below yields a proven mate
/// with its line. With the long bound at 16 times a ladder call's budget, as in other
/// endings, the first proof came after 1,094,413 nodes (a mated in 41); at the quiet
/// mates' 64 times, after 589,673 (mated in 37).
const KBB_LONG_SHARE_NODES: u64 = 750_000;

#[test]
fn the_long_bound_takes_most_of_a_quiet_mates_first_rounds() {
    // Black to move is mated in 17 (the shared K+B+B v K suite).
    long_bound_mate_within("8/3B4/8/2B5/6k1/8/8/5K2 b - - 0 1", KBB_LONG_SHARE_NODES, 16, -49..=-17);
}

/// Nodes within which the analysis of the K+B+B v K position below yields a proven mate
/// with its line, with a 64 MB table. While the progress numbers counted the defending
/// king's corner distance once, the first proof came after 499,371 nodes; counted twice,
/// after 335,744.
const KBB_CORNER_NODES: u64 = 420_000;

#[test]
fn two_bishops_drive_the_lone_king_to_a_corner() {
    // Black to move is mated in 15 (the shared K+B+B v K suite).
    long_bound_mate_within("3K4/8/8/3B4/8/8/1B4k1/8 b - - 0 1", KBB_CORNER_NODES, 64, -49..=-15);
}

/// Nodes within which the analysis of the K+B+B v K position below yields a proven mate
/// with its line, with a 64 MB table. While the flights a quiet move leaves only broke
/// ties among the moves a quiet mate keeps, the first proof came after 659,290 nodes;
/// added to their proof numbers, after 207,127.
const KBB_FLIGHTS_NODES: u64 = 300_000;

#[test]
fn the_bishop_step_that_takes_flights_is_searched_first() {
    // Black to move is mated in 17 (the shared K+B+B v K suite).
    long_bound_mate_within("8/8/7K/5k2/2B5/8/7B/8 b - - 0 1", KBB_FLIGHTS_NODES, 64, -49..=-17);
}

/// Nodes within which the analysis of the K+B+B v K position below yields a proven mate
/// with its line, with a 64 MB table. While the far bounds and the cap were asked beside
/// the long call, the first proof came after 123,265 nodes; with their budget left to
/// the long call, after 42,681.
const KBB_NO_FAR_NODES: u64 = 80_000;

#[test]
fn two_bishops_leave_the_far_bounds_to_the_long_call() {
    // Black to move is mated in 13 (the shared K+B+B v K suite).
    long_bound_mate_within("8/8/8/B4B2/2K5/8/6k1/8 b - - 0 1", KBB_NO_FAR_NODES, 64, -49..=-13);
}

/// Nodes within which the analysis of the K+B+B v K position below yields a proven mate
/// with its line, with a 64 MB table. Its reply 1...Kb7 attacks the bishop on b8, and of
/// White's quiet moves only the bishop's five safe steps keep the win; while the attacker
/// nodes one ply below a defender's root kept only the most promising quiet moves in
/// every call, none of those steps was kept, so the long call failed on the cut after 49
/// nodes every round and no proof came within 20,000,000 nodes. Searched again with
/// every move at that level, the first proof came after 619,694 (mated in 39), and with
/// the long bound at 49 moves instead of 45, after 562,330 (mated in 34).
const KBB_FIRST_LEVEL_NODES: u64 = 800_000;

#[test]
fn a_reply_that_attacks_a_bishop_is_answered_with_every_move() {
    // Black to move is mated in 15 (the shared K+B+B v K suite).
    long_bound_mate_within("1B6/6K1/2k3B1/8/8/8/8/8 b - - 0 1", KBB_FIRST_LEVEL_NODES, 64, -49..=-15);
}

/// Nodes within which the analysis of the K+R v K position below yields a proven mate
/// with its line, with a 64 MB table. While the progress numbers counted the defending
/// king's distance from a corner in every ending, the first proof came after 617,416
/// nodes (a mated in 23); counted from the nearest edge where the attacker has a rook,
/// after 356,601 (mated in 42).
const KRK_EDGE_NODES: u64 = 450_000;

#[test]
fn a_rook_drives_the_lone_king_to_the_nearest_edge() {
    // Black to move is mated in 14 (the shared K+R v K suite).
    long_bound_mate_within("8/7R/8/5k2/8/1K6/8/8 b - - 0 1", KRK_EDGE_NODES, 64, -49..=-14);
}

/// Nodes within which the analysis of the K+R+B v K+R position below yields a proven mate
/// with its line, with a 64 MB table. While an attacker's quiet move started at its
/// progress number alone where the defender keeps a rook, the first proof came after
/// 2,160,642 nodes (a mate in 22); at four times that number, after 413,834 (mate in 24),
/// and with checks at twice their evasions too, after 431,598 (mate in 19).
const KRB_KR_QUIET_NODES: u64 = 700_000;

#[test]
fn quiet_moves_start_higher_where_the_defender_keeps_a_rook() {
    // White mates in 15 (the shared K+R+B v K+R suite).
    long_bound_mate_within("8/5r2/7R/8/5BK1/8/6k1/8 w - - 0 1", KRB_KR_QUIET_NODES, 64, 15..=49);
}

/// Nodes within which the analysis of the K+R+B v K+R position below yields a proven mate
/// with its line, with a 64 MB table. With quiet moves at four times their progress
/// number and checks at their count of evasions, the first proof came after 1,842,922
/// nodes (a mate in 31); with checks at twice that count, after 1,323,447 (mate in 40).
const KRB_KR_CHECK_NODES: u64 = 1_550_000;

#[test]
fn checks_start_higher_where_the_defender_keeps_a_rook() {
    // White mates in 16 (the shared K+R+B v K+R suite).
    long_bound_mate_within("1R6/7K/3r4/2k5/8/8/3B4/8 w - - 0 1", KRB_KR_CHECK_NODES, 64, 16..=49);
}

/// Nodes within which the analysis of the K+Q v K+R position below yields a proven mate
/// with its line, with a 64 MB table. While the queen's checks started at their count of
/// evasions, in front of every quiet move, the first proof came after 945,541 nodes (a
/// mate in 26); started at the progress number a quiet move gets, after 332,602 (mate in
/// 28).
const KQKR_CHECK_NODES: u64 = 450_000;

#[test]
fn a_queens_check_starts_at_its_progress_number_in_kqkr() {
    // White mates in 13 (a position of the ending's table, `kqkr_lines`); no K+Q v K+R
    // mate is longer than 35.
    long_bound_mate_within("1k6/4K3/8/1r6/8/5Q2/8/8 w - - 0 1", KQKR_CHECK_NODES, 64, 13..=35);
}

/// Nodes within which the analysis of the K+Q v K+R position below yields a proven mate
/// with its line, with a 64 MB table. While every attacker node of the long call kept all
/// its quiet moves, the first proof came after 1,582,634 nodes (a mate in 32); keeping
/// the ten the fitted model ranks first, as in the quiet mates, after 623,201 (mate in
/// 35).
const KQKR_NARROW_NODES: u64 = 850_000;

#[test]
fn a_kqkr_long_call_keeps_the_queens_most_promising_quiet_moves() {
    // White mates in 18 (a position of the ending's table, `kqkr_lines`).
    long_bound_mate_within("8/2K3r1/k7/8/8/7Q/8/8 w - - 0 1", KQKR_NARROW_NODES, 64, 18..=35);
}

/// Nodes within which the analysis of the K+Q v K+R position below yields a proven mate
/// with its line, with a 64 MB table. While the queen's quiet moves and checks started at
/// their progress number, the first proof came after 1,170,957 nodes (a mated in 25); at
/// four times it, as where a rook defends against other pieces, after 468,355 (mated in
/// 30).
const KQKR_SCALE_NODES: u64 = 650_000;

#[test]
fn a_kqkr_defence_is_proven_lost_with_the_queens_moves_started_higher() {
    // Black to move is mated in 15 (a position of the ending's table, `kqkr_lines`).
    long_bound_mate_within("8/8/1Q6/8/5r2/8/k3K3/8 b - - 0 1", KQKR_SCALE_NODES, 64, -35..=-15);
}

/// Nodes the prover needed for its first proof in the K+B+B v K position below before a
/// quiet move that proved a sibling subtree started lower: 3,257,626 (a mated in 22).
const KBB_MATED_NODES: u64 = 2_000_000;

#[test]
fn a_kbb_v_k_king_is_proven_mated_with_the_moves_that_mated_its_siblings() {
    // Black to move is mated in 15 (the shared K+B+B v K suite); every king move must be
    // proven lost, and the proofs of the replies repeat the bishops' manoeuvres.
    let FirstMate { pos, first, .. } =
        first_mate("8/B2k4/8/8/8/1K6/2B5/8 b - - 0 1", Params::default(), KBB_MATED_NODES);
    let (mate, pv, _) = first.unwrap_or_else(|| panic!("no proof within {KBB_MATED_NODES} nodes"));
    assert!(mate.signed() <= -15, "{}", mate.signed());
    verify_line(&pos, &pv, mate, &[]).unwrap();
}

/// Nodes within which the analysis of the K+B+N v K position below yields a proven mate
/// with its line, with a 64 MB table. While the progress numbers counted the defending
/// king's distance from any corner, the first proof came after 1,495,285 nodes (a mate
/// in 16); counted from the corners of the bishop's colour, after 94,393 (mate in 18);
/// with the fitted distance (`bishop_and_knight_distance`), after 81,362 (mate in 16).
const KBN_CORNER_NODES: u64 = 200_000;

#[test]
fn bishop_and_knight_drive_the_lone_king_to_their_corner() {
    // The shortest mate is 12 (the shared K+B+N v K suite); light-squared bishop: a8, h1.
    long_bound_mate_within("8/1k6/3K4/8/4N3/1B6/8/8 w - - 0 1", KBN_CORNER_NODES, 64, 12..=49);
}

/// Nodes within which the analysis of the K+B+N v K position below yields a proven mate
/// with its line, with a 64 MB table. While a K+B+N v K position's progress numbers
/// counted twice the defending king's steps to a corner of the bishop's colour plus the
/// kings' distance, no mate was proven within 4,000,000 nodes; with the distance fitted
/// to the suite's tablebase lines (`bishop_and_knight_distance`), after 103,314 (mated
/// in 18).
const KBN_FITTED_NODES: u64 = 200_000;

#[test]
fn bishop_and_knight_progress_is_the_fitted_distance_to_mate() {
    // Black to move is mated in 15 (a position on a line of the shared K+B+N v K suite).
    long_bound_mate_within("8/8/2K5/4B3/8/1k2N3/8/8 b - - 0 1", KBN_FITTED_NODES, 64, -49..=-15);
}

/// Nodes within which the analysis of the K+B+N v K position below yields a proven mate
/// with its line, with a 64 MB table. While the root of a call kept only its ten most
/// promising quiet moves, it dropped 1.Kd2 (the kings' distance stays 2 and the king
/// takes no flight), and no mate was proven within 40,000,000 nodes; keeping every root
/// move, after 270,795 (mate in 31); with the fitted distance, after 170,739 (mate in 24).
const KBN_ROOT_NODES: u64 = 400_000;

#[test]
fn the_root_of_a_call_keeps_every_quiet_move() {
    // The shortest mate is 15, 1.Kd2 (the shared K+B+N v K suite).
    long_bound_mate_within("8/2N5/8/8/8/1k2B3/8/2K5 w - - 0 1", KBN_ROOT_NODES, 64, 15..=49);
}
