//! Setting up positions from text: FENs (6-field, or EPD-style 4-field), X-FEN and
//! Shredder castling letters, and UCI move lists.

use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Position, Setup, fen::Fen, uci::UciMove};

use crate::chess::game::Game;
use crate::chess::rules::AUTOMATIC_DRAW_CLOCK;
use crate::error::SetupError;

/// The largest halfmove clock kept (see [`AUTOMATIC_DRAW_CLOCK`]).
pub const MAX_HALFMOVES: u32 = AUTOMATIC_DRAW_CLOCK;

/// Parses a FEN (4 to 6 fields) into a legal standard-chess position.
///
/// Castling letters may be KQkq, X-FEN or Shredder-FEN (file letters). A position whose
/// castling rights only Chess960 allows (a king off the e-file, a rook not in its corner)
/// is read as a Chess960 position: its castling moves are Chess960 castles, and
/// [`uci_for`] writes them king-takes-rook. Errors say what is wrong: bad syntax, a
/// missing king, the side not to move in check, pawns on the back rank, and so on. A
/// halfmove clock above [`MAX_HALFMOVES`] is clamped to it.
pub fn parse_fen(text: &str) -> Result<Chess, SetupError> {
    let text = text.trim();
    let fields: Vec<&str> = text.split_whitespace().collect();
    if !(2..=6).contains(&fields.len()) {
        return Err(SetupError::Fen { fen: text.to_string(), reason: format!("{} fields, want 4 to 6", fields.len()) });
    }
    let fen: Fen = text.parse().map_err(|e| SetupError::Fen { fen: text.to_string(), reason: format!("{e}") })?;
    // Checks no game could produce (e.g. a pawn and a knight both checking) are harmless
    // to the search and common in composed and generated positions: accepted. Everything
    // else (missing kings, the side not to move in check, pawns on the back rank, ...) is
    // rejected.
    let mut setup = Setup::from(fen);
    setup.halfmoves = setup.halfmoves.min(MAX_HALFMOVES);
    let read = |mode| {
        Chess::from_setup(setup.clone(), mode)
            .or_else(shakmaty::PositionError::ignore_impossible_check)
            .map_err(|e| SetupError::Illegal { fen: text.to_string(), reason: format!("{e}") })
    };
    // The standard reading's error is the one to report: it names what a standard
    // position lacks.
    read(CastlingMode::Standard).or_else(|standard| read(CastlingMode::Chess960).map_err(|_| standard))
}

/// Plays UCI moves (e.g. `e2e4 e7e5`, drops as `P@e4`) from `pos`, in any game; fails
/// on the first illegal move. Also returns the hashes of the positions passed through
/// since the last move that resets the history (the only ones that can recur, see
/// [`Game::resets_history`]), oldest first, the final position excluded.
pub fn play_moves<'a, G: Game>(
    mut pos: G,
    moves: impl IntoIterator<Item = &'a str>,
) -> Result<(G, Vec<u64>), SetupError> {
    let mut history = Vec::new();
    for (i, text) in moves.into_iter().enumerate() {
        let bad = || SetupError::Move { uci: text.to_string(), index: i + 1 };
        let uci: UciMove = text.parse().map_err(|_| bad())?;
        let m = uci.to_move(&pos).map_err(|_| bad())?;
        if pos.resets_history(m) {
            history.clear();
        } else {
            history.push(pos.full_hash());
        }
        pos.play_unchecked(m);
    }
    Ok((pos, history))
}

/// The positions of a game from `start` through legal `moves` (UCI), since its last pawn
/// move or capture and the final one included, that occurred twice or more: those a
/// defender may claim on their next occurrence. Empty where a move is not legal.
pub fn repeated_positions<'a, G: Game>(mut pos: G, moves: impl IntoIterator<Item = &'a str>) -> Vec<G> {
    let mut seen: Vec<G> = Vec::new();
    for text in moves {
        let Some(m) = text.parse::<UciMove>().ok().and_then(|u| u.to_move(&pos).ok()) else { return Vec::new() };
        if pos.resets_history(m) {
            seen.clear();
        } else {
            seen.push(pos.clone());
        }
        pos.play_unchecked(m);
    }
    seen.push(pos);
    let hashes: Vec<u64> = seen.iter().map(Game::full_hash).collect();
    let mut out: Vec<G> = Vec::new();
    for (i, p) in seen.into_iter().enumerate() {
        let h = hashes[i];
        if hashes.iter().filter(|&&x| x == h).count() >= 2 && !hashes[..i].contains(&h) {
            out.push(p);
        }
    }
    out
}

/// The FEN of a position (6 fields).
pub fn to_fen<P: Position + Clone>(pos: &P) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// A move in UCI notation (standard castling: e1g1).
pub fn uci(m: shakmaty::Move) -> String {
    uci_in(m, CastlingMode::Standard)
}

/// A move in UCI notation, castling as `mode` writes it (Chess960: king takes rook, e1h1).
pub fn uci_in(m: shakmaty::Move, mode: CastlingMode) -> String {
    UciMove::from_move(m, mode).to_string()
}

/// A line of moves in UCI notation, space separated.
pub fn uci_line(moves: &[shakmaty::Move]) -> String {
    uci_line_in(moves, CastlingMode::Standard)
}

/// A line of moves in UCI notation with castling as `mode` writes it.
pub fn uci_line_in(moves: &[shakmaty::Move], mode: CastlingMode) -> String {
    moves.iter().map(|&m| uci_in(m, mode)).collect::<Vec<_>>().join(" ")
}

/// A line from `pos` in UCI notation, castling as the position's own rules write it
/// (king takes rook in Chess960 positions).
pub fn uci_for<P: Position>(pos: &P, moves: &[shakmaty::Move]) -> String {
    uci_line_in(moves, pos.castles().mode())
}

/// A line in SAN with move numbers, starting from `pos`.
pub fn san_line<P: Position + Clone>(pos: &P, moves: &[shakmaty::Move]) -> String {
    let mut pos = pos.clone();
    let mut out = String::new();
    for (i, &m) in moves.iter().enumerate() {
        let number = pos.fullmoves();
        if pos.turn().is_white() {
            out.push_str(&format!("{number}. "));
        } else if i == 0 {
            out.push_str(&format!("{number}... "));
        }
        let san = shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut pos, m);
        out.push_str(&san.to_string());
        out.push(' ');
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::zobrist::Zobrist64;

    #[test]
    fn chess960_castling_rights_make_a_chess960_position() {
        let standard = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        assert_eq!(standard.castles().mode(), CastlingMode::Standard);
        // King on f1, rook on h1: castling rights only Chess960 has.
        let p = parse_fen("4rkr1/4p1p1/8/8/8/8/8/5K1R w H - 0 1").unwrap();
        assert_eq!(p.castles().mode(), CastlingMode::Chess960);
        let castle = p.legal_moves().into_iter().find(|m| m.is_castle()).expect("a castling move");
        assert_eq!(uci_for(&p, &[castle]), "f1h1");
        assert_eq!(uci(castle), "f1g1");
        let (after, _) = play_moves(p.clone(), ["f1h1"]).unwrap();
        assert!(after.is_checkmate());
        let (after, _) = play_moves(standard, ["e1g1"]).unwrap();
        assert_eq!(to_fen(&after), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    }

    #[test]
    fn accepts_four_field_and_shredder_fens() {
        assert!(parse_fen("8/8/8/8/8/8/8/Kk6 w - -").is_err(), "adjacent kings");
        let p = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1").unwrap();
        assert_eq!(to_fen(&p), "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let p = parse_fen("4k3/8/8/8/8/8/8/4K2R w K -").unwrap();
        assert_eq!(p.halfmoves(), 0);
    }

    #[test]
    fn clamps_huge_halfmove_clocks() {
        assert_eq!(parse_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 4294967295 1").unwrap().halfmoves(), MAX_HALFMOVES);
        assert_eq!(parse_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 1").unwrap().halfmoves(), 99);
    }

    #[test]
    fn accepts_impossible_checks() {
        assert!(parse_fen("4k3/8/8/6N1/8/1B1Bpn2/3K4/b7 w - - 0 1").is_ok());
    }

    #[test]
    fn rejects_bad_positions() {
        for bad in [
            "",
            "garbage",
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K2q b - - 0 1",
            "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 x - - 0 1",
        ] {
            assert!(parse_fen(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn plays_moves_and_rejects_illegal_ones() {
        let (p, h) = play_moves(Chess::default(), ["e2e4", "e7e5", "e1e2"]).unwrap();
        assert_eq!(h.len(), 1, "only the position after the last pawn move can recur");
        let (_, h) = play_moves(Chess::default(), ["g1f3", "g8f6", "f3g1", "f6g8"]).unwrap();
        assert_eq!(h.len(), 4);
        assert_eq!(h[0], Chess::default().zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0);
        assert_eq!(to_fen(&p), "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPPKPPP/RNBQ1BNR b kq - 1 2");
        assert_eq!(
            play_moves(Chess::default(), ["e2e4", "e2e4"]).unwrap_err(),
            SetupError::Move { uci: "e2e4".into(), index: 2 }
        );
        assert!(play_moves(Chess::default(), ["zz"]).is_err());
    }

    #[test]
    fn san_line_numbers_moves() {
        let p = Chess::default();
        let (_, _) = play_moves(p.clone(), ["e2e4"]).unwrap();
        let m: Vec<_> = ["e2e4", "e7e5"]
            .iter()
            .scan(p.clone(), |pos, u| {
                let m = u.parse::<UciMove>().unwrap().to_move(pos).unwrap();
                pos.play_unchecked(m);
                Some(m)
            })
            .collect();
        assert_eq!(san_line(&p, &m), "1. e4 e5");
    }
}
