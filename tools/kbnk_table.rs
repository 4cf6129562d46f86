//! A K+B+N v K distance-to-mate table of the whole ending, made by retrograde analysis,
//! for `tools/endgame_clock.py`, which plays the mating side of K+B+N v K clock games
//! against the table's perfect defence.
//!
//! ```text
//! cargo run --release --example kbnk_table -- DIR [SUITE.epd]
//! ```
//!
//! Builds the table (2^24 placements of white king, bishop, knight and black king, each
//! with either side to move: plies to mate for white, or not won) and writes it into DIR
//! as `kbnk_white.bin` and `kbnk_black.bin`, one byte per placement (255 where white does
//! not win), indexed by white king + 64 bishop + 4096 knight + 262144 black king (square
//! numbers, a1 = 0). With a suite of K+B+N v K mates (`FEN bm #N;`) it first counts the
//! suite's mate lengths the table agrees with.
//!
//! The table is only a measuring tool: the engine never reads it.

use std::process::ExitCode;

use shakmaty::attacks::{bishop_attacks, king_attacks, knight_attacks};
use shakmaty::{Bitboard, Board, Color, Role, Square};

mod retrograde;
use retrograde::{NONE, bit, check_suite, distinct, exit, next_to, occupied, pack, seen_by, unpack};

const SIZE: usize = 1 << 24;

/// White king, bishop and knight, and the black king, as square numbers.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Men {
    wk: u32,
    wb: u32,
    wn: u32,
    bk: u32,
}

impl Men {
    fn of(index: usize) -> Men {
        let [wk, wb, wn, bk] = unpack(index);
        Men { wk, wb, wn, bk }
    }

    fn squares(self) -> [u32; 4] {
        [self.wk, self.wb, self.wn, self.bk]
    }

    fn index(self) -> usize {
        pack(self.squares())
    }

    fn occupied(self) -> Bitboard {
        occupied(self.squares())
    }

    fn apart(self) -> bool {
        distinct(self.squares()) && !next_to(self.wk, self.bk)
    }

    /// Whether white's bishop or knight attacks `target` with `occupied` squares.
    fn minor_hits(self, target: u32, occupied: Bitboard) -> bool {
        let target = Square::new(target);
        bishop_attacks(Square::new(self.wb), occupied).contains(target)
            || knight_attacks(Square::new(self.wn)).contains(target)
    }

    /// A legal placement with white to move: the black king is not in check.
    fn white_to_move(self) -> bool {
        self.apart() && !self.minor_hits(self.bk, self.occupied())
    }

    /// Black's legal moves (placements after them), and whether black can also take a
    /// piece (out of the ending: a draw).
    fn black_moves(self) -> (Vec<Men>, bool) {
        let occupied = self.occupied();
        let mut out = Vec::new();
        let mut takes = false;
        for to in king_attacks(Square::new(self.bk)) {
            let to = to as u32;
            if next_to(to, self.wk) {
                continue;
            }
            let after = (occupied ^ bit(self.bk)) | bit(to);
            if to == self.wb {
                // Taking the bishop: the knight may guard its square.
                takes |= !knight_attacks(Square::new(self.wn)).contains(Square::new(to));
            } else if to == self.wn {
                takes |= !bishop_attacks(Square::new(self.wb), after).contains(Square::new(to));
            } else if !self.minor_hits(to, after) {
                out.push(Men { bk: to, ..self });
            }
        }
        (out, takes)
    }

    /// White's legal moves (none can take anything but the black king's men, and black
    /// has none).
    fn white_moves(self) -> Vec<Men> {
        let occupied = self.occupied();
        let free = !occupied;
        let kings = (king_attacks(Square::new(self.wk)) & free)
            .into_iter()
            .filter(|&to| !next_to(to as u32, self.bk))
            .map(|to| Men { wk: to as u32, ..self });
        let bishops =
            (bishop_attacks(Square::new(self.wb), occupied) & free).into_iter().map(|to| Men { wb: to as u32, ..self });
        let knights = (knight_attacks(Square::new(self.wn)) & free).into_iter().map(|to| Men { wn: to as u32, ..self });
        kings.chain(bishops).chain(knights).collect()
    }
}

/// K+B+N v K: plies to mate with white to move and with black to move, indexed by
/// [`Men::index`]. Retrograde: positions are settled in order of their distance; a
/// black-to-move position is lost once all its moves lead to won positions (a count of
/// its moves not yet known to lose), a white-to-move one is won by the first move found
/// to a lost position. White's moves are their own reverses (no captures, no pawns).
fn bishop_knight() -> (Vec<u8>, Vec<u8>) {
    let mut white = vec![NONE; SIZE];
    let mut black = vec![NONE; SIZE];
    let mut open = vec![0u8; SIZE];
    let mut queue: Vec<Vec<u32>> = vec![Vec::new(); 256];
    for index in 0..SIZE {
        let men = Men::of(index);
        if men.apart() {
            let (moves, takes) = men.black_moves();
            open[index] = (moves.len() + usize::from(takes)) as u8;
            if open[index] == 0 && men.minor_hits(men.bk, men.occupied()) {
                black[index] = 0;
                queue[0].push(index as u32);
            }
        }
    }
    for plies in 0..queue.len() {
        for index in std::mem::take(&mut queue[plies]) {
            let men = Men::of(index as usize);
            if plies % 2 == 0 {
                // Black to move, lost: every white move into it wins one ply later.
                for before in men.white_moves() {
                    let i = before.index();
                    if white[i] == NONE && before.white_to_move() {
                        white[i] = (plies + 1) as u8;
                        queue[plies + 1].push(i as u32);
                    }
                }
            } else {
                // White to move, won: one more move of each black position before it
                // is known to lose.
                let occupied = men.occupied();
                for from in king_attacks(Square::new(men.bk)) & !occupied {
                    let before = Men { bk: from as u32, ..men };
                    let i = before.index();
                    if black[i] == NONE && before.apart() {
                        open[i] -= 1;
                        if open[i] == 0 {
                            black[i] = (plies + 1) as u8;
                            queue[plies + 1].push(i as u32);
                        }
                    }
                }
            }
        }
    }
    (white, black)
}

/// The winning side and the table index of a K+B+N v K position (for [`check_suite`]).
fn placement(board: &Board) -> Option<(Color, usize)> {
    let (bishop, knight) = (board.bishops().first()?, board.knights().first()?);
    let strong = board.color_at(bishop)?;
    if board.role_at(knight) != Some(Role::Knight) || board.color_at(knight) != Some(strong) {
        return None;
    }
    let (wk, bk) = (board.king_of(strong)?, board.king_of(!strong)?);
    let at = |sq| seen_by(strong, sq);
    Some((strong, Men { wk: at(wk), wb: at(bishop), wn: at(knight), bk: at(bk) }.index()))
}

/// Builds the table, checks it against `suite` when given, and writes it into `dir`.
fn write_tables(dir: &str, suite: Option<&String>) -> Result<(), String> {
    let (white, black) = bishop_knight();
    let won = white.iter().filter(|&&v| v != NONE).count();
    let longest = white.iter().filter(|&&v| v != NONE).max().copied().unwrap_or(0);
    println!("K+B+N v K, white to move: {won} placements won, the longest mate {} moves", longest.div_ceil(2));
    if let Some(suite) = suite {
        let (agree, total) = check_suite(&white, &black, suite, placement)?;
        println!("{suite}: the table has the mate length of {agree} of {total} positions");
    }
    for (name, table) in [("kbnk_white", &white), ("kbnk_black", &black)] {
        let path = format!("{dir}/{name}.bin");
        std::fs::write(&path, table).map_err(|e| format!("{path}: {e}"))?;
    }
    println!("wrote the K+B+N v K tables into {dir}");
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let done = match args.as_slice() {
        [dir] => write_tables(dir, None),
        [dir, suite] => write_tables(dir, Some(suite)),
        _ => Err("usage: kbnk_table DIR [SUITE.epd]".to_string()),
    };
    exit(done)
}
