//! Training positions for the K+Q v K+R model (`src/knowledge/fitted/queen_rook.rs`), from a
//! distance-to-mate table of the whole ending made here by retrograde analysis.
//!
//! ```text
//! cargo run --release --example kqkr_lines -- lines LINES SEED OUT [SUITE.epd]
//! cargo run --release --example kqkr_lines -- tables DIR
//! ```
//!
//! Builds the K+Q v K table, then the K+Q v K+R table (2^24 placements of white king,
//! white queen, black king, black rook, each with either side to move: plies to mate for
//! white, or not won). `lines` walks LINES tablebase-optimal lines from random white-to-move
//! starts that mate in 11 moves or more, and writes six bytes per training position to
//! OUT: white king, queen, black king, rook (square numbers a1 = 0), plies to mate with
//! white to move, and its kind: 0 for a position on the line, 1 for the position after
//! another white move that keeps the win and black's best reply to it. The model has to
//! rank exactly those: the positions after a good move and after its siblings. With a
//! suite of K+Q v K+R mates (`FEN bm #N;`) it also counts the suite's mate lengths the
//! table agrees with. `tools/fit_kqkr.py` fits the model to OUT. `tables` writes
//! the tables themselves for `tools/endgame_clock.py`, which plays the queen's side of
//! K+Q v K+R clock games against the tables' perfect defence.
//!
//! The table is only a measuring and fitting tool: the engine never reads it.

use std::process::ExitCode;

use pnmate::rng::Rng;
use shakmaty::attacks::{king_attacks, queen_attacks, rook_attacks};
use shakmaty::{Bitboard, Board, Color, Role, Square};

mod retrograde;
use retrograde::{NONE, bit, check_suite, distinct, exit, next_to, occupied, pack, seen_by, unpack};

/// Lines start where white mates in 11 moves or more.
const MIN_START_PLIES: u8 = 21;

/// White king, white queen, black king, and the black rook (None in K+Q v K), as square
/// numbers.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Men {
    wk: u32,
    wq: u32,
    bk: u32,
    br: u32,
}

impl Men {
    fn of(index: usize) -> Men {
        let [wk, wq, bk, br] = unpack(index);
        Men { wk, wq, bk, br }
    }

    fn squares(self) -> [u32; 4] {
        [self.wk, self.wq, self.bk, self.br]
    }

    fn index(self) -> usize {
        pack(self.squares())
    }

    /// The index of K+Q v K with the same kings and queen (the rook taken).
    fn without_rook(self) -> usize {
        pack([self.wk, self.wq, self.bk, 0])
    }

    fn occupied(self) -> Bitboard {
        occupied(self.squares())
    }

    fn apart(self) -> bool {
        distinct(self.squares()) && !next_to(self.wk, self.bk)
    }

    /// Whether the queen attacks `target` with `occupied` squares.
    fn queen_hits(self, target: u32, occupied: Bitboard) -> bool {
        queen_attacks(Square::new(self.wq), occupied).contains(Square::new(target))
    }

    fn rook_hits(self, target: u32, occupied: Bitboard) -> bool {
        rook_attacks(Square::new(self.br), occupied).contains(Square::new(target))
    }

    /// A legal placement with white to move: the black king is not in check.
    fn white_to_move(self) -> bool {
        self.apart() && !self.queen_hits(self.bk, self.occupied())
    }

    /// A legal placement with black to move: the white king is not in check.
    fn black_to_move(self) -> bool {
        self.apart() && !self.rook_hits(self.wk, self.occupied())
    }

    /// Black's legal moves that stay in the ending (placements after them), and whether
    /// black can also take the queen (out of the ending: not won for white).
    fn black_moves(self) -> (Vec<Men>, bool) {
        let occupied = self.occupied();
        let mut out = Vec::new();
        let mut takes_queen = false;
        for to in king_attacks(Square::new(self.bk)) & !bit(self.br) {
            let to = to as u32;
            if next_to(to, self.wk) {
                continue;
            }
            if to == self.wq {
                takes_queen = true;
            } else if !self.queen_hits(to, (occupied ^ bit(self.bk)) | bit(to)) {
                out.push(Men { bk: to, ..self });
            }
        }
        for to in rook_attacks(Square::new(self.br), occupied) & !bit(self.bk) {
            let to = to as u32;
            if to == self.wq {
                takes_queen = true;
            } else if !self.queen_hits(self.bk, (occupied ^ bit(self.br)) | bit(to)) {
                out.push(Men { br: to, ..self });
            }
        }
        (out, takes_queen)
    }

    /// White's legal moves that take nothing.
    fn white_quiet_moves(self) -> Vec<Men> {
        let occupied = self.occupied();
        let mut out = Vec::new();
        for to in king_attacks(Square::new(self.wk)) & !occupied {
            let to = to as u32;
            if !next_to(to, self.bk) && !self.rook_hits(to, (occupied ^ bit(self.wk)) | bit(to)) {
                out.push(Men { wk: to, ..self });
            }
        }
        for to in queen_attacks(Square::new(self.wq), occupied) & !occupied {
            let to = to as u32;
            if !self.rook_hits(self.wk, (occupied ^ bit(self.wq)) | bit(to)) {
                out.push(Men { wq: to, ..self });
            }
        }
        out
    }
}

/// K+Q v K: plies to mate with white to move and with black to move, indexed by
/// [`Men::without_rook`]. Small enough (2^18 placements) to solve by sweeping until
/// nothing changes.
fn queen_against_king() -> (Vec<u8>, Vec<u8>) {
    const SIZE: usize = 1 << 18;
    let mut white = vec![NONE; SIZE];
    let mut black = vec![NONE; SIZE];
    for plies in 0..u8::MAX {
        let mut changed = false;
        for index in 0..SIZE {
            let men = Men::of(index);
            if men.wk == men.wq || men.wk == men.bk || men.wq == men.bk || next_to(men.wk, men.bk) {
                continue;
            }
            let occupied = bit(men.wk) | bit(men.wq) | bit(men.bk);
            let settled = if plies % 2 == 0 { &black } else { &white };
            if settled[index] != NONE {
                continue;
            }
            let value = if plies % 2 == 0 {
                // Black to move: mated, or every king move leads to a win found before
                // and the longest is one ply shorter.
                // (The white king is never next to the black one: every square around
                // it is empty or holds the queen.)
                let mut replies = king_attacks(Square::new(men.bk))
                    .into_iter()
                    .map(|to| to as u32)
                    .filter(|&to| {
                        !next_to(to, men.wk)
                            && (to == men.wq || !men.queen_hits(to, (occupied ^ bit(men.bk)) | bit(to)))
                    })
                    .map(|to| if to == men.wq { NONE } else { white[Men { bk: to, ..men }.without_rook()] })
                    .peekable();
                if replies.peek().is_none() {
                    (plies == 0 && men.queen_hits(men.bk, occupied)).then_some(0)
                } else {
                    let longest = replies.try_fold(0, |longest: u8, v| (v < plies).then_some(longest.max(v)));
                    longest.filter(|&v| v + 1 == plies).map(|_| plies)
                }
            } else {
                // White to move (the black king not in check): a move into a loss one ply
                // shorter.
                let kings =
                    (king_attacks(Square::new(men.wk)) & !occupied).into_iter().map(|to| Men { wk: to as u32, ..men });
                let queens = (queen_attacks(Square::new(men.wq), occupied) & !occupied)
                    .into_iter()
                    .map(|to| Men { wq: to as u32, ..men });
                (!men.queen_hits(men.bk, occupied)
                    && kings
                        .filter(|m| !next_to(m.wk, m.bk))
                        .chain(queens)
                        .any(|m| black[m.without_rook()] == plies - 1))
                .then_some(plies)
            };
            if let Some(value) = value {
                if plies % 2 == 0 {
                    black[index] = value
                } else {
                    white[index] = value
                }
                changed = true;
            }
        }
        if !changed && plies > 1 {
            break;
        }
    }
    (white, black)
}

/// K+Q v K+R: plies to mate with white to move and with black to move, indexed by
/// [`Men::index`]. Retrograde: positions are settled in order of their distance; a
/// black-to-move position is lost once all its moves lead to won positions (a count of
/// its moves not yet known to lose), a white-to-move one is won by the first move found
/// to a lost position, or by taking the rook into a won K+Q v K.
fn queen_against_rook(queen_king: &[u8]) -> (Vec<u8>, Vec<u8>) {
    const SIZE: usize = 1 << 24;
    let mut white = vec![NONE; SIZE];
    let mut black = vec![NONE; SIZE];
    let mut open = vec![0u8; SIZE];
    let mut best = vec![NONE; SIZE];
    let mut queue: Vec<Vec<u32>> = vec![Vec::new(); 256];
    for index in 0..SIZE {
        let men = Men::of(index);
        if men.black_to_move() {
            // A move that takes the queen counts too: it never loses, so such a position
            // is never settled.
            let (moves, takes_queen) = men.black_moves();
            open[index] = (moves.len() + usize::from(takes_queen)) as u8;
            if open[index] == 0 && men.queen_hits(men.bk, men.occupied()) {
                black[index] = 0;
                queue[0].push(index as u32);
            }
        }
        if men.white_to_move() {
            let occupied = men.occupied();
            let mut take = NONE;
            if next_to(men.wk, men.br) && !next_to(men.bk, men.br) {
                take = take.min(queen_king[Men { wk: men.br, ..men }.without_rook()].saturating_add(1));
            }
            if men.queen_hits(men.br, occupied) {
                take = take.min(queen_king[Men { wq: men.br, ..men }.without_rook()].saturating_add(1));
            }
            if take != NONE {
                best[index] = take;
                queue[take as usize].push(index as u32);
            }
        }
    }
    for plies in 0..queue.len() {
        for index in std::mem::take(&mut queue[plies]) {
            let index = index as usize;
            let men = Men::of(index);
            let occupied = men.occupied();
            if plies % 2 == 0 {
                // Black to move, lost: every white move into it wins one ply later.
                let kings = (king_attacks(Square::new(men.wk)) & !occupied)
                    .into_iter()
                    .map(|from| Men { wk: from as u32, ..men });
                let queens = (queen_attacks(Square::new(men.wq), occupied) & !occupied)
                    .into_iter()
                    .map(|from| Men { wq: from as u32, ..men });
                for before in kings.chain(queens) {
                    let i = before.index();
                    if white[i] == NONE && usize::from(best[i]) > plies + 1 && before.white_to_move() {
                        best[i] = (plies + 1) as u8;
                        queue[plies + 1].push(i as u32);
                    }
                }
            } else {
                if white[index] != NONE || usize::from(best[index]) != plies {
                    continue;
                }
                white[index] = plies as u8;
                // White to move, won: one more move of each black position before it
                // is known to lose.
                let kings = (king_attacks(Square::new(men.bk)) & !occupied)
                    .into_iter()
                    .map(|from| Men { bk: from as u32, ..men });
                let rooks = (rook_attacks(Square::new(men.br), occupied) & !occupied)
                    .into_iter()
                    .map(|from| Men { br: from as u32, ..men });
                for before in kings.chain(rooks) {
                    let i = before.index();
                    if black[i] == NONE && before.black_to_move() {
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

/// Black's best reply to `men` (black to move): the longest of its moves that stay in the
/// ending, ties broken at random; None when black has a way out (takes the queen, or a
/// move into a position not won) or no move.
fn best_reply(white: &[u8], men: Men, rng: &mut Rng) -> Option<Men> {
    let (moves, takes_queen) = men.black_moves();
    if takes_queen || moves.iter().any(|m| white[m.index()] == NONE) {
        return None;
    }
    let longest = moves.iter().map(|m| white[m.index()]).max()?;
    let best: Vec<Men> = moves.into_iter().filter(|m| white[m.index()] == longest).collect();
    Some(best[rng.below(best.len())])
}

/// The training records of one line from `start` (white to move, won), appended to `out`.
fn walk_line(white: &[u8], black: &[u8], start: Men, rng: &mut Rng, out: &mut Vec<u8>) {
    let record = |out: &mut Vec<u8>, m: Men, plies: u8, kind: u8| {
        out.extend_from_slice(&[m.wk as u8, m.wq as u8, m.bk as u8, m.br as u8, plies, kind]);
    };
    let mut men = start;
    loop {
        let here = white[men.index()];
        record(out, men, here, 0);
        let mut next = None;
        for after in men.white_quiet_moves() {
            let lost_in = black[after.index()];
            if lost_in == NONE {
                continue;
            }
            if lost_in + 1 == here && next.is_none() {
                next = Some(after);
            } else if let Some(reply) = best_reply(white, after, rng) {
                record(out, reply, white[reply.index()], 1);
            }
        }
        // The line ends where the fastest win takes the rook or mates.
        match next.and_then(|after| best_reply(white, after, rng)) {
            Some(reply) => men = reply,
            None => break,
        }
    }
}

/// The winning side and the table index of a K+Q v K+R position (for [`check_suite`]).
fn placement(board: &Board) -> Option<(Color, usize)> {
    let queen = board.queens().first()?;
    let strong = board.color_at(queen)?;
    let (wk, bk, br) = (board.king_of(strong)?, board.king_of(!strong)?, board.by_role(Role::Rook).first()?);
    let at = |sq| seen_by(strong, sq);
    Some((strong, Men { wk: at(wk), wq: at(queen), bk: at(bk), br: at(br) }.index()))
}

/// Writes the four tables as raw bytes into `dir`: `kqkr_white.bin`, `kqkr_black.bin`
/// (indexed by [`Men::index`]), `kqk_white.bin`, `kqk_black.bin` (by
/// [`Men::without_rook`]); plies to mate for white, 255 where white does not win.
fn write_tables(dir: &str) -> Result<(), String> {
    let (kqk_white, kqk_black) = queen_against_king();
    let (white, black) = queen_against_rook(&kqk_black);
    for (name, table) in
        [("kqkr_white", &white), ("kqkr_black", &black), ("kqk_white", &kqk_white), ("kqk_black", &kqk_black)]
    {
        let path = format!("{dir}/{name}.bin");
        std::fs::write(&path, table).map_err(|e| format!("{path}: {e}"))?;
    }
    println!("wrote the K+Q v K+R and K+Q v K tables into {dir}");
    Ok(())
}

/// Walks `lines` optimal lines (see the module documentation) and writes their records to
/// `out`, after checking the table against `suite` when given.
fn write_lines(lines: usize, seed: u64, out: &str, suite: Option<&String>) -> Result<(), String> {
    let (white, black) = queen_against_rook(&queen_against_king().1);
    let won = white.iter().filter(|&&v| v != NONE).count();
    let longest = white.iter().filter(|&&v| v != NONE).max().copied().unwrap_or(0);
    println!("K+Q v K+R, white to move: {won} placements won, the longest mate {} moves", longest.div_ceil(2));
    if let Some(suite) = suite {
        let (agree, total) = check_suite(&white, &black, suite, placement)?;
        println!("{suite}: the table has the mate length of {agree} of {total} positions");
    }
    let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut records = Vec::new();
    let mut walked = 0;
    while walked < lines {
        let start = Men::of(rng.below(1 << 24));
        let plies = white[start.index()];
        if plies != NONE && plies >= MIN_START_PLIES {
            walk_line(&white, &black, start, &mut rng, &mut records);
            walked += 1;
        }
    }
    std::fs::write(out, &records).map_err(|e| format!("{out}: {e}"))?;
    println!(
        "{out}: {} positions ({} on the lines)",
        records.len() / 6,
        records.chunks(6).filter(|r| r[5] == 0).count()
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let done = match words.as_slice() {
        ["tables", dir] => write_tables(dir),
        ["lines", lines, seed, out, rest @ ..] if rest.len() <= 1 => match (lines.parse(), seed.parse()) {
            (Ok(lines), Ok(seed)) => write_lines(lines, seed, out, args.get(4)),
            _ => Err("LINES and SEED are numbers".to_string()),
        },
        _ => Err("usage: kqkr_lines lines LINES SEED OUT [SUITE.epd] | kqkr_lines tables DIR".to_string()),
    };
    exit(done)
}
