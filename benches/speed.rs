//! Micro-benchmarks of the steps of a df-pn node: move generation, the check tests,
//! expansion, aggregation and table probes. `cargo bench` runs them all; `cargo bench --
//! expand` only those whose name holds "expand". The whole search is timed by
//! `pnmate bench` and `pnmate bench --long`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pnmate::bench::micro::{Fixture, check_count, evasions_of_checks, legal_move_count, mates_among, pick};
use pnmate::chess::mate_len::{MateRange, Plies};
use pnmate::chess::movecode::MoveCode;
use pnmate::tt::{Record, TranspositionTable};
use shakmaty::{Move, Position};

/// Positions of the kinds the prover meets: a middlegame, a K+Q v K+R ending, a K+B+N v
/// K ending and a defender in check.
const POSITIONS: &[(&str, &str)] = &[
    ("middlegame", "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8"),
    ("kqkr", "4r3/7Q/8/6K1/8/4k3/8/8 w - - 0 1"),
    ("kbnk", "8/2k5/6K1/8/8/4NB2/8/8 w - - 0 1"),
    ("evasions", "3k4/3r4/8/8/8/1B6/8/3QK3 b - - 0 1"),
];

fn checks(fixture: &Fixture) -> Vec<Move> {
    let pos = fixture.position();
    pos.legal_moves()
        .into_iter()
        .filter(|&m| {
            let mut after = pos.clone();
            after.play_unchecked(m);
            after.is_check()
        })
        .collect()
}

fn movegen(c: &mut Criterion) {
    for &(name, fen) in POSITIONS {
        let fixture = Fixture::new(fen);
        let pos = fixture.position();
        c.bench_function(&format!("movegen/legal_moves/{name}"), |b| b.iter(|| legal_move_count(black_box(pos))));
        c.bench_function(&format!("movegen/checks/{name}"), |b| b.iter(|| check_count(black_box(pos))));
        c.bench_function(&format!("movegen/play_all/{name}"), |b| b.iter(|| black_box(&fixture).play_all()));
        let checks = checks(&fixture);
        if !checks.is_empty() {
            c.bench_function(&format!("checks/evasion_count/{name}"), |b| {
                b.iter(|| evasions_of_checks(black_box(pos), &checks))
            });
            c.bench_function(&format!("checks/is_checkmate/{name}"), |b| {
                b.iter(|| mates_among(black_box(pos), &checks))
            });
        }
    }
}

fn expansion(c: &mut Criterion) {
    for &(name, fen) in POSITIONS {
        let fixture = Fixture::new(fen);
        let mut children = Vec::new();
        c.bench_function(&format!("expand/{name}"), |b| b.iter(|| black_box(&fixture).expand(20, &mut children)));
    }
}

fn aggregation(c: &mut Criterion) {
    for &(name, fen) in POSITIONS {
        let fixture = Fixture::new(fen);
        let children = fixture.children(20);
        let or = fixture.position().turn() == shakmaty::Color::White;
        c.bench_function(&format!("aggregate/{name}/{}", children.len()), |b| {
            b.iter(|| pick(black_box(or), black_box(&children)))
        });
    }
}

fn table(c: &mut Criterion) {
    // A 256 MB table and a million keys, an entry stored for every 8th: a pass over the
    // keys touches 64 MB, so probes miss the caches as the search's do.
    let tt = TranspositionTable::new(256);
    let record = Record { bound: Plies::new(9), pn: 3, dn: 5, mate: MateRange::UNKNOWN, work: 1, best: MoveCode::NONE };
    let keys: Vec<u64> = (1..=1u64 << 20).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
    for &k in keys.iter().step_by(8) {
        tt.store(k, &record);
    }
    c.bench_function("table/probe_1m", |b| {
        b.iter(|| keys.iter().filter(|&&k| tt.probe(black_box(k)).is_some()).count())
    });
    c.bench_function("table/prefetch_16_then_probe_1m", |b| {
        b.iter(|| {
            keys.chunks(16)
                .map(|chunk| {
                    chunk.iter().for_each(|&k| tt.prefetch(k));
                    chunk.iter().filter(|&&k| tt.probe(black_box(k)).is_some()).count()
                })
                .sum::<usize>()
        })
    });
    c.bench_function("table/store_1m", |b| b.iter(|| keys.iter().for_each(|&k| tt.store(black_box(k), &record))));
}

criterion_group!(benches, movegen, expansion, aggregation, table);
criterion_main!(benches);
