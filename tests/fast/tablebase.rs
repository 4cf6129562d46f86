//! Syzygy tablebases: loading, the prover's use of them and the player's. The tables are
//! the small canonical ones in tests/syzygy (checksums beside them); values are checked
//! against shakmaty-syzygy probed directly, independently of pnmate's code. Node limits
//! here are hang guards.

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use common::{Session, bestmove, field, pos};
use pnmate::knowledge::oracle::ChessOracle;
use pnmate::limits::Budget;
use pnmate::search::{Params, solve};
use pnmate::tablebase::SyzygyTables;
use pnmate::{MateBound, Outcome, TranspositionTable};
use sha2::{Digest, Sha256};
use shakmaty::{Board, CastlingMode, Chess, Color, FromSetup, Position, Role, Setup, Square};
use shakmaty_syzygy::{Tablebase, Wdl};

const LONG: Duration = Duration::from_secs(60);

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/syzygy")
}

fn tables() -> Arc<SyzygyTables> {
    SyzygyTables::load(dir().to_str().unwrap(), 7).0.expect("the test tables")
}

/// The tables as shakmaty-syzygy reads them on its own.
fn oracle() -> Tablebase<Chess> {
    let mut tb = Tablebase::new();
    tb.add_directory(dir()).unwrap();
    tb
}

/// Solves `fen` within `mate` moves (None: open) with or without tables, up to a node limit.
fn solve_with(fen: &str, mate: Option<u32>, tables: Option<Arc<SyzygyTables>>, nodes: u64) -> (Outcome, u64) {
    let tt = TranspositionTable::new(64);
    let params = Params {
        mate: mate.and_then(|m| MateBound::new(m.into())),
        oracle: ChessOracle::with_syzygy(tables),
        ..Params::default()
    };
    let (outcome, stats) = solve(&pos(fen), params, Budget { nodes: Some(nodes), time: None }, &tt, &mut |_| {});
    (outcome, stats.nodes)
}

#[test]
fn committed_tables_match_their_published_checksums() {
    let list = std::fs::read_to_string(dir().join("CHECKSUMS.txt")).unwrap();
    let mut files = 0;
    for line in list.lines().filter(|l| !l.starts_with('#')) {
        let [name, embedded, sha256] = line.split_whitespace().collect::<Vec<_>>()[..] else { panic!("{line}") };
        let bytes = std::fs::read(dir().join(name)).unwrap();
        let tail: String = bytes[bytes.len() - 16..].iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(tail, embedded, "{name}: embedded checksum");
        let digest: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(digest, sha256, "{name}: SHA-256");
        files += 1;
    }
    assert_eq!(files, 12);
}

#[test]
fn loading_says_what_it_found_and_what_it_could_not_read() {
    let (tables, loaded) = SyzygyTables::load(dir().to_str().unwrap(), 7);
    assert_eq!((loaded.files, loaded.men, loaded.problems.len()), (12, 4, 0));
    assert_eq!(loaded.summary(), "found 12 Syzygy table files, up to 4 men");
    assert_eq!(tables.unwrap().max_men(), 4);

    let both = format!("/no/such/dir{}{}", pnmate::tablebase::PATH_SEPARATOR, dir().display());
    let (tables, loaded) = SyzygyTables::load(&both, 3);
    assert_eq!(
        loaded.problems,
        ["cannot read Syzygy directory '/no/such/dir': No such file or directory (os error 2)"]
    );
    assert_eq!(tables.unwrap().max_men(), 3, "the probe limit caps the men probed");

    let (tables, loaded) = SyzygyTables::load("<empty>", 7);
    assert!(tables.is_none() && loaded.problems.is_empty());
    assert_eq!(loaded.summary(), "no Syzygy tables found");
}

#[test]
fn a_corrupt_table_is_unknown_and_the_search_still_proves_the_mate() {
    let tmp = std::env::temp_dir().join(format!("pnmate-corrupt-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    // A table of a plausible size with garbage inside, and one whose size says corrupt.
    std::fs::write(tmp.join("KQvK.rtbw"), [0x55u8; 80]).unwrap();
    std::fs::write(tmp.join("KQvK.rtbz"), [0xaau8; 80]).unwrap();
    std::fs::write(tmp.join("KRvK.rtbw"), [0u8; 10]).unwrap();
    let (_, loaded) = SyzygyTables::load(tmp.to_str().unwrap(), 7);
    assert_eq!(loaded.problems.len(), 1, "{loaded:?}");
    assert!(loaded.problems[0].contains("unexpected file size"), "{loaded:?}");
    // Without the file of a bad size, the directory is read and the garbage is named.
    std::fs::remove_file(tmp.join("KRvK.rtbw")).unwrap();
    let (tables, loaded) = SyzygyTables::load(tmp.to_str().unwrap(), 7);
    assert_eq!(loaded.files, 2);
    let corrupt = |name: &str| format!("Syzygy table '{}' is corrupt (bad header)", tmp.join(name).display());
    assert_eq!(loaded.problems, [corrupt("KQvK.rtbw"), corrupt("KQvK.rtbz")]);
    let tables = tables.expect("two table files found");
    let kqk: Chess = pos("8/8/8/3k4/8/8/8/Q3K3 w - - 0 1");
    assert_eq!(tables.wdl(&kqk), None, "a probe of a corrupt table is unknown");
    // K+Q v K: mate in 10 (1. Kd2 ...), proven by search alone.
    let (outcome, _) = solve_with("8/8/8/3k4/8/8/8/Q3K3 w - - 0 1", Some(10), Some(tables), 20_000_000);
    assert!(matches!(outcome, Outcome::Mate { .. }), "{outcome:?}");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn drawn_four_men_positions_have_no_mate_within_20_at_once() {
    for fen in [
        "8/8/8/4k3/8/8/8/2NNK3 w - - 0 1",   // K+N+N v K
        "8/8/2b1k3/8/8/2B1K3/8/8 w - - 0 1", // K+B v K+B
        "8/8/2b1k3/8/8/2B1K3/8/8 b - - 0 1", // the same, Black to move
        "r7/8/8/4k3/8/3K4/8/7R w - - 0 1",   // K+R v K+R is not in the test tables
    ] {
        let tables = tables();
        if tables.wdl(&pos(fen)).is_some() {
            let (outcome, nodes) = solve_with(fen, Some(20), Some(tables), 50_000_000);
            assert_eq!(outcome, Outcome::NoMate { moves: 20 }, "{fen}");
            assert!(nodes <= 4, "{fen}: the tables end both questions at the root, {nodes} nodes");
        } else {
            // Outside the tables the search works as before.
            let (without, _) = solve_with(fen, Some(2), None, 50_000_000);
            let (with, _) = solve_with(fen, Some(2), Some(tables), 50_000_000);
            assert_eq!(with, without, "{fen}");
            assert_eq!(with, Outcome::NoMate { moves: 2 }, "{fen}");
        }
    }
}

#[test]
fn k_r_v_k_mates_with_tables_have_the_suites_length() {
    let suite = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/epd/public/KRvK1000pv.epd")).unwrap();
    for line in suite.lines().step_by(97).take(10) {
        let fen = line.split(" bm ").next().unwrap();
        let bm: i64 = line.split("bm #").nth(1).unwrap().split(';').next().unwrap().parse().unwrap();
        // The limit ends the search after the first proof, while it tries to prove it shortest.
        let (outcome, _) = solve_with(fen, None, Some(tables()), 400_000);
        let (moves, pv) = match &outcome {
            Outcome::Mate { moves, pv, .. } => (i64::from(*moves), pv),
            Outcome::Mated { moves, pv, .. } => (-i64::from(*moves), pv),
            other => panic!("{fen}: {other:?}"),
        };
        assert_eq!(moves, bm, "{fen}");
        let plies = if bm > 0 { 2 * bm - 1 } else { -2 * bm };
        assert_eq!(pv.len() as i64, plies, "{fen}");
        let mut p = pos(fen);
        for &m in pv {
            p.play_unchecked(m);
        }
        assert!(p.is_checkmate(), "{fen}: {pv:?}");
    }
}

#[test]
fn results_agree_with_the_tables_on_random_k_q_v_k_and_k_r_v_k_positions() {
    let oracle = oracle();
    let mut rng = pnmate::rng::Rng::new(57);
    let mut checked = 0;
    while checked < 24 {
        let role = if rng.below(2) == 0 { Role::Queen } else { Role::Rook };
        let mut board = Board::empty();
        for piece in [Color::White.king(), role.of(Color::White), Color::Black.king()] {
            let free: Vec<Square> = Square::ALL.into_iter().filter(|&sq| board.piece_at(sq).is_none()).collect();
            board.set_piece_at(free[rng.below(free.len())], piece);
        }
        let turn = if rng.below(2) == 0 { Color::White } else { Color::Black };
        let setup = Setup { board, turn, ..Setup::empty() };
        let Ok(p) = Chess::from_setup(setup, CastlingMode::Standard) else { continue };
        let fen = pnmate::chess::position::to_fen(&p);
        if p.is_game_over() {
            continue;
        }
        let wdl = oracle.probe_wdl_after_zeroing(&p).unwrap();
        let (outcome, _) = solve_with(&fen, Some(20), Some(tables()), 400_000);
        match (wdl, &outcome) {
            (Wdl::Win, Outcome::Mate { pv, .. }) | (Wdl::Loss, Outcome::Mated { pv, .. }) => {
                let mut q = p.clone();
                for &m in pv {
                    q.play_unchecked(m);
                }
                assert!(q.is_checkmate(), "{fen}: {pv:?}");
            }
            (Wdl::Draw, Outcome::NoMate { moves: 20 }) => {}
            _ => panic!("{fen}: tables say {wdl:?}, pnmate {outcome:?}"),
        }
        checked += 1;
    }
}

#[test]
fn uci_loads_the_tables_reports_tbhits_and_proves_with_them() {
    let mut s = Session::start();
    s.send(&format!("setoption name SyzygyPath value {}", dir().display()));
    assert_eq!(s.sync(), ["info string found 12 Syzygy table files, up to 4 men"]);
    s.send("setoption name SyzygyProbeLimit value 3");
    assert_eq!(s.sync(), ["info string found 12 Syzygy table files, up to 4 men"]);
    s.send("setoption name SyzygyProbeLimit value 4");
    s.sync();
    // K+R v K: Black is mated in 8.
    s.send("position fen 8/6k1/8/8/5R2/8/4K3/8 b - - 1 1");
    s.send("go mate 8");
    let lines = s.until_bestmove(LONG);
    let info = lines.iter().rev().find(|l| l.contains(" score mate ")).expect("a mate score");
    assert_eq!(field(info, "mate"), Some("-8"), "{info}");
    assert!(field(info, "tbhits").is_some_and(|n| n.parse::<u64>().unwrap() > 0), "{info}");
    // K+N+N v K: no mate, proven at once.
    s.send("position fen 8/8/8/4k3/8/8/8/2NNK3 w - - 0 1");
    s.send("go mate 20");
    let lines = s.until_bestmove(LONG);
    assert!(lines.iter().any(|l| l == "info string no mate in 20 (proven)"), "{lines:#?}");
}

/// Plays `fen` out: pnmate (`go nodes 1`: no time to prove, so the player moves) for the
/// side the tables call the winner, the tables' longest defence for the other. Returns the
/// moves until checkmate; panics on anything else within `max_plies`.
fn play_out(fen: &str, max_plies: usize) -> usize {
    let oracle = oracle();
    let mut p = pos(fen);
    let winner = if oracle.probe_wdl_after_zeroing(&p).unwrap() == Wdl::Win { p.turn() } else { !p.turn() };
    let mut s = Session::start();
    s.send(&format!("setoption name SyzygyPath value {}", dir().display()));
    s.sync();
    let mut moves: Vec<String> = Vec::new();
    for ply in 0..max_plies {
        if p.is_checkmate() {
            assert_ne!(p.turn(), winner, "{fen}: {moves:?}");
            return ply;
        }
        assert!(!p.is_game_over(), "{fen}: the game ended without mate after {moves:?}");
        let m = if p.turn() == winner {
            s.send(&format!("position fen {fen} moves {}", moves.join(" ")));
            s.send("go nodes 1");
            let text = bestmove(&s.until_bestmove(LONG));
            text.parse::<shakmaty::uci::UciMove>().unwrap().to_move(&p).unwrap()
        } else {
            oracle.best_move(&p).unwrap().unwrap().0
        };
        moves.push(m.to_uci(shakmaty::CastlingMode::Standard).to_string());
        p.play_unchecked(m);
    }
    panic!("{fen}: no mate in {max_plies} plies: {moves:?}");
}

#[test]
fn the_player_converts_table_wins_against_the_tables_defence() {
    // K+R v K, mate in 16 with best play; K+Q v K with the defender to move.
    assert!(play_out("8/8/8/3k4/8/8/8/R3K3 w - - 0 1", 60) < 2 * 16);
    assert!(play_out("8/8/8/4k3/8/8/1Q6/6K1 b - - 0 1", 40) <= 2 * 10);
}

fn run(bin: &str, args: &[&str]) -> (i32, String) {
    let out = std::process::Command::new(bin).args(args).output().expect("run");
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn a_disproof_that_rests_on_the_tables_is_checked_with_the_same_tables() {
    let file = std::env::temp_dir().join(format!("pnmate-tb-{}.cert", std::process::id()));
    let (path, tb) = (file.to_str().unwrap(), dir());
    let tb = tb.to_str().unwrap();
    // K+N+N v K: no mate within 20, shown by a tablebase leaf at the root.
    let fen = "8/8/8/4k3/8/8/8/2NNK3 w - - 0 1";
    let (code, out) = run(
        env!("CARGO_BIN_EXE_pnmate"),
        &["--tables-cache=", "solve", fen, "--mate", "20", "--syzygy", tb, "--proof", path],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("result  no mate within 20 (proven)"), "{out}");
    let check = env!("CARGO_BIN_EXE_pnmate-check");
    let (code, out) = run(check, &["--syzygy", tb, path]);
    assert_eq!((code, out.lines().next()), (0, Some("valid: no mate within 20")), "{out}");
    let (code, out) = run(check, &[path]);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("invalid: section 0: node 0 (8/8/8/4k3/8/8/8/2NNK3 w - - 0 1): a tablebase leaf"), "{out}");
    // A mate's proof never rests on the tables: it checks without them.
    let fen = "8/7k/8/8/8/8/3K4/6R1 b - - 0 1";
    let (code, out) = run(
        env!("CARGO_BIN_EXE_pnmate"),
        &["--tables-cache=", "solve", fen, "--mate", "6", "--syzygy", tb, "--proof", path],
    );
    assert_eq!(code, 0, "{out}");
    let (code, out) = run(check, &["--syzygy", tb, path]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("valid: mated in 6"), "{out}");
    let _ = std::fs::remove_file(&file);
}
