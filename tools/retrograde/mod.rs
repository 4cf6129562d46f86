//! What the examples that build distance-to-mate tables by retrograde analysis
//! (`kqkr_lines`, `kbnk_table`) share: square helpers, the packing of four men into a
//! table index, the check of a table against a
//! suite's mate lengths, and the exit status.

use std::process::ExitCode;

use shakmaty::attacks::king_attacks;
use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, Position, Square};

/// Not won for white (drawn, or no legal position).
pub const NONE: u8 = 255;

/// The square numbered `sq` (a1 = 0), as a bitboard.
pub fn bit(sq: u32) -> Bitboard {
    Bitboard::from(Square::new(sq))
}

/// The table index of four men on the squares numbered `sq`, 6 bits each, the first
/// lowest.
pub fn pack(sq: [u32; 4]) -> usize {
    (sq[0] | sq[1] << 6 | sq[2] << 12 | sq[3] << 18) as usize
}

/// The squares of the four men of the table index `index` (see [`pack`]).
pub fn unpack(index: usize) -> [u32; 4] {
    let i = index as u32;
    [i & 63, (i >> 6) & 63, (i >> 12) & 63, i >> 18]
}

/// The squares the four men on `sq` occupy.
pub fn occupied(sq: [u32; 4]) -> Bitboard {
    sq.into_iter().fold(Bitboard::EMPTY, |b, s| b | bit(s))
}

/// Whether the four men on `sq` stand on four different squares.
pub fn distinct(sq: [u32; 4]) -> bool {
    (0..4).all(|i| (i + 1..4).all(|j| sq[i] != sq[j]))
}

/// Whether the squares numbered `a` and `b` are next to each other.
pub fn next_to(a: u32, b: u32) -> bool {
    king_attacks(Square::new(a)).contains(Square::new(b))
}

/// The square numbered as a table with white as the winning side `strong` sees it: the
/// board flipped when `strong` is black.
pub fn seen_by(strong: Color, sq: Square) -> u32 {
    if strong == Color::White { sq as u32 } else { sq.flip_vertical() as u32 }
}

/// How many of the suite's positions (`FEN bm #N;`) have the table's mate length, of how
/// many: `white` and `black` hold plies to mate for white with that side to move, and
/// `placement` gives the winning side and the table index of a position of the ending
/// (None for the suite's other positions).
pub fn check_suite(
    white: &[u8],
    black: &[u8],
    path: &str,
    placement: impl Fn(&Board) -> Option<(Color, usize)>,
) -> Result<(usize, usize), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let (mut agree, mut total) = (0, 0);
    for line in text.lines().filter(|l| l.contains(" bm #")) {
        let (fen, rest) = line.split_once(" bm #").ok_or("no bm")?;
        let moves: i32 = rest.split(';').next().unwrap_or("").trim().parse().map_err(|e| format!("{line}: {e}"))?;
        let fen: Fen = format!("{} 0 1", fen.trim()).parse().map_err(|e| format!("{line}: {e}"))?;
        let pos: Chess = fen.into_position(CastlingMode::Standard).map_err(|e| format!("{line}: {e}"))?;
        let Some((strong, index)) = placement(pos.board()) else { continue };
        let plies = if pos.turn() == strong { white[index] } else { black[index] };
        let expected = if moves > 0 { 2 * moves - 1 } else { -2 * moves };
        total += 1;
        agree += usize::from(i32::from(plies) == expected);
    }
    Ok((agree, total))
}

/// The exit status of an example: 0, or 2 with the error on standard error.
pub fn exit(done: Result<(), String>) -> ExitCode {
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}
