//! Several search threads: the shared table under concurrent writers, and the engine
//! with `Threads` above one (mates proven exactly, stop reaching every thread).

mod common;

use pnmate::rng::Rng;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use common::{Session, assert_mating_line, bestmove, field, pos, pv_of};
use pnmate::MateBound;
use pnmate::chess::mate_len::{MateRange, Plies};
use pnmate::chess::movecode::MoveCode;
use pnmate::tt::Record;
use pnmate::{Outcome, Params, TranspositionTable};
use shakmaty::Position;

/// The stress test's ground truth for `key`: its mate length in plies, the bound and
/// the move its records carry, and the tie between its pn and dn.
fn mate_of(key: u64) -> u16 {
    2 + (key % 61) as u16
}
fn bound_of(key: u64) -> Plies {
    Plies::from_raw(1 + ((key >> 20) % 500) as u16)
}
fn move_of(key: u64) -> MoveCode {
    MoveCode(1 + ((key >> 32) % 4000) as u16)
}
fn dn_of(key: u64, pn: u32) -> u32 {
    pn ^ (key as u32) ^ (key >> 32) as u32
}

#[test]
fn concurrent_writers_never_make_an_entry_read_back_what_its_key_did_not_store() {
    // 1 MB: 16384 buckets, placed by the key's high bits. 64 keys share 4 buckets of two
    // slots each, so writers collide on every entry and evict each other all the time.
    let tt = TranspositionTable::new(1);
    let keys: Vec<u64> =
        (0..64u64).map(|i| ((i % 4) << 50) | (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & ((1 << 50) - 1)) | 1).collect();
    let threads = 4;
    let barrier = Barrier::new(threads);
    let checked = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (tt, keys, barrier, checked) = (&tt, &keys, &barrier, &checked);
            scope.spawn(move || {
                let mut rng = Rng::new(0x1234_5678 + t as u64 * 0x1_0000_0001);
                barrier.wait();
                for _ in 0..300_000 {
                    let key = keys[(rng.next_u64() % keys.len() as u64) as usize];
                    let truth = mate_of(key);
                    let r = rng.next_u64();
                    if r.is_multiple_of(3) {
                        let Some(e) = tt.probe(key) else { continue };
                        assert_eq!(e.key, key, "a probe returned another key's entry");
                        assert_eq!(e.dn, dn_of(key, e.pn), "pn and dn of different writes: {e:?}");
                        assert_eq!(e.bound, bound_of(key), "a bound its key never stored: {e:?}");
                        assert_eq!(e.best, move_of(key), "a move its key never stored: {e:?}");
                        assert!(e.mate.at_least.get() <= truth, "a disproof its key never stored: {e:?}");
                        assert!(e.mate.at_most.get() >= truth, "a proof its key never stored: {e:?}");
                        checked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        continue;
                    }
                    // A true fact about the key: a proof no shorter than its mate, a
                    // disproof no longer, or working numbers only.
                    let slack = ((r >> 8) % 4) as u16;
                    let mate = match (r >> 4) % 3 {
                        0 => MateRange { at_most: Plies::new(truth + 2 * slack), ..MateRange::UNKNOWN },
                        1 => MateRange { at_least: Plies::new(truth.saturating_sub(slack)), ..MateRange::UNKNOWN },
                        _ => MateRange::UNKNOWN,
                    };
                    let pn = (r >> 16) as u32 & 0x0FFF_FFFF;
                    let record = Record {
                        bound: bound_of(key),
                        pn,
                        dn: dn_of(key, pn),
                        mate,
                        work: (r >> 48) as u32 & 0xFF,
                        best: move_of(key),
                    };
                    tt.store(key, &record);
                }
            });
        }
    });
    let checked = checked.into_inner();
    assert!(checked > 10_000, "only {checked} probes found an entry: the test tests too little");
    // Each key's facts, read back single-threaded, are still only true ones.
    for &key in &keys {
        if let Some(e) = tt.probe(key) {
            assert!(e.mate.at_least.get() <= mate_of(key) && e.mate.at_most.get() >= mate_of(key), "{e:?}");
        }
    }
}

#[test]
fn a_search_on_four_threads_proves_a_mate_in_3_shortest() {
    let root = pos("k7/8/8/3K4/8/8/8/7R w - - 0 1");
    let tt = TranspositionTable::new(16);
    let params = Params { mate: MateBound::new(5), threads: 4, ..Params::default() };
    let (outcome, stats) = pnmate::search::solve(&root, params, Default::default(), &tt, &mut |_| {});
    match outcome {
        Outcome::Mate { moves: 3, exact: true, ref pv } => {
            pnmate::proof::verify::verify_line(&root, pv, pnmate::MateLen::mate_in(3), &[]).unwrap()
        }
        other => panic!("{other:?}"),
    }
    assert!(stats.nodes > 0);
}

/// An engine set to two threads and a 32 MB table, at `fen`.
fn two_threads_at(fen: &str) -> Session {
    let mut s = Session::start();
    s.send("uci");
    s.until(Duration::from_secs(5), |l| l == "uciok");
    s.send("setoption name Threads value 2");
    s.send("setoption name Hash value 32");
    assert!(s.sync().is_empty(), "Threads 2 is accepted without remarks");
    s.send(&format!("position fen {fen}"));
    s
}

#[test]
fn uci_threads_2_answers_go_mate_with_the_shortest_line() {
    // KQvK, a mate in 8 (epd/endgames.epd).
    let fen = "8/8/7K/4Q3/8/8/2k5/8 w - - 0 1";
    let mut s = two_threads_at(fen);
    s.send("go mate 8");
    let lines = s.until_bestmove(Duration::from_secs(120));
    let last_info = lines.iter().rev().find(|l| l.contains(" score mate ")).expect("a mate score");
    assert_eq!(field(last_info, "mate"), Some("8"), "{last_info}");
    let pv = pv_of(last_info);
    assert_mating_line(fen, &pv, 15);
    assert_eq!(bestmove(&lines), pv[0]);
}

#[test]
fn uci_stop_ends_a_two_thread_search_with_a_legal_move() {
    // A long, hard KBNvK mate: the search runs until stopped.
    let fen = "8/8/8/4k3/8/8/8/KBN5 w - - 0 1";
    let mut s = two_threads_at(fen);
    s.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let stopped = Instant::now();
    s.send("stop");
    let lines = s.until_bestmove(Duration::from_secs(5));
    let waited = stopped.elapsed();
    let mv = bestmove(&lines);
    let legal = pos(fen).legal_moves();
    assert!(legal.iter().any(|m| pnmate::chess::position::uci(*m) == mv), "{mv} is not legal; waited {waited:?}");
    // The engine is free again: a second search on both threads answers.
    s.send("go movetime 200");
    let lines = s.until_bestmove(Duration::from_secs(5));
    assert!(legal.iter().any(|m| pnmate::chess::position::uci(*m) == bestmove(&lines)));
}
