//! Whether a stipulation's goal can still be reached in the moves each side has left: a
//! sound bound that lets the prover give up a node long before its plies run out.
//!
//! Every final position of a mate has the victim's king on some square k, a man of the
//! mating side attacking k, and every square next to k either held by one of the victim's
//! men or attacked by the mating side; a stalemate has the same without the check. Each of
//! those men had to travel to its final square, and a man needs at least as many moves as
//! it needs on an empty board (captures and promotions counted). So if no choice of k,
//! checker, guards and blockers fits within the moves of each side, with each man used for
//! one final square, no line reaches the goal in time, whatever the other men do: the
//! node is lost for the goal within its plies. The search below looks for such a choice,
//! cheapest first; it gives up (and answers "reachable", which prunes nothing) after a
//! fixed number of steps. The order of moves is left out, and occupied squares count
//! only where they must be emptied or taken: each only makes a real line longer, never
//! shorter. Some consequences of a real mate are kept: a blocker may not stand where one
//! move of it would parry a single check ([`Defended`]); the men between the checker and
//! k must leave in the moves left ([`Search::line_blocked`]); a pawn that changes file
//! takes a man that stands, or comes, where it captures ([`capture_region`]).

use std::rc::Rc;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use shakmaty::attacks::{king_attacks, knight_attacks, pawn_attacks};
use shakmaty::{Bitboard, Board, CastlingSide, Chess, Color, Position, Role, Square};

/// A distance no man covers.
const FAR: u8 = u8::MAX / 2;

/// Costs kept apart: a square `LAST` or more moves away counts as `LAST` (a lower bound).
const LAST: usize = 7;

/// The squares a man reaches at each cost (the last: at that cost or more).
type Levels = [Bitboard; LAST + 1];

/// Steps of the search for a final position before it gives up (and prunes nothing).
const STEP_CAP: u32 = 300;

/// The moves each side may still make before the goal: upper bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moves {
    /// The side that gives the mate (or stalemate).
    pub mater: u8,
    /// The side that is mated (or stalemated).
    pub victim: u8,
}

/// The final position sought: whose king, mated or stalemated, and on which square when
/// the search is split by that square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Final {
    pub victim: Color,
    /// A mate (else a stalemate).
    pub mate: bool,
    /// The victim king's final square, if it is fixed.
    pub king: Option<Square>,
}

/// A man of the board, as the search moves it.
#[derive(Clone, Copy, Debug)]
struct Man {
    sq: Square,
    role: Role,
    color: Color,
    /// Where castling could put it in one move (the king, on either wing) or for free
    /// (the rook).
    castled: [Option<Square>; 2],
    /// A pawn's moves to each square of its last rank (by file), promotion included.
    promotion: [u8; 8],
}

impl Man {
    /// Where this man can end, as what, at each cost within `budget`: a pawn promoting on
    /// the way, a king or rook castling.
    fn ends(&self, budget: u8, out: &mut Vec<(Role, Levels)>) {
        out.clear();
        let mut own = *levels(self.role, self.color, self.sq);
        for c in self.castled.into_iter().flatten() {
            let castle_cost = u8::from(self.role == Role::King);
            add_shifted(&mut own, levels(self.role, self.color, c), castle_cost);
        }
        out.push((self.role, own));
        if self.role == Role::Pawn && self.promotion_moves() <= budget {
            let last = self.color.fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First);
            for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                let mut lv = [Bitboard::EMPTY; LAST + 1];
                for (file, &step) in shakmaty::File::ALL.into_iter().zip(&self.promotion) {
                    if step <= budget {
                        add_shifted(&mut lv, levels(role, self.color, Square::from_coords(file, last)), step);
                    }
                }
                out.push((role, lv));
            }
        }
    }
}

/// The squares each man of `role` (and `color`, for a pawn) on each square reaches at
/// each cost on an empty board.
fn levels(role: Role, color: Color, from: Square) -> &'static Levels {
    static TABLE: OnceLock<Vec<Levels>> = OnceLock::new();
    per_kind(&TABLE, role, color, from, |role, color, a| {
        let mut lv = [Bitboard::EMPTY; LAST + 1];
        for b in Square::ALL {
            let d = travel(role, color, a, b);
            if d < FAR {
                lv[usize::from(d).min(LAST)].add(b);
            }
        }
        lv
    })
}

/// `lv` with every cost raised by `by`, OR-ed into `into`.
fn add_shifted(into: &mut Levels, lv: &Levels, by: u8) {
    for (c, &bb) in lv.iter().enumerate() {
        into[(c + usize::from(by)).min(LAST)] |= bb;
    }
}

/// Knight distances on an empty board.
fn knight_distance(a: Square, b: Square) -> u8 {
    static TABLE: OnceLock<Vec<[u8; 64]>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..64u32)
            .map(|from| {
                let mut dist = [FAR; 64];
                let start = Square::new(from);
                dist[usize::from(start)] = 0;
                let mut frontier = Bitboard::from(start);
                let mut d = 0;
                while frontier.any() {
                    d += 1;
                    let mut next = Bitboard::EMPTY;
                    for sq in frontier {
                        for to in knight_attacks(sq) {
                            if dist[usize::from(to)] == FAR {
                                dist[usize::from(to)] = d;
                                next.add(to);
                            }
                        }
                    }
                    frontier = next;
                }
                dist
            })
            .collect()
    });
    table[usize::from(a)][usize::from(b)]
}

fn chebyshev(a: Square, b: Square) -> u8 {
    a.distance(b) as u8
}

/// The fewest moves a man of `role` and `color` needs from `a` to `b` on an empty board,
/// captures allowed wherever they help; FAR where it never gets there.
fn travel(role: Role, color: Color, a: Square, b: Square) -> u8 {
    if a == b {
        return 0;
    }
    let same_line = a.file() == b.file() || a.rank() == b.rank();
    let df = (i32::from(a.file() as u8) - i32::from(b.file() as u8)).abs();
    let dr = (i32::from(a.rank() as u8) - i32::from(b.rank() as u8)).abs();
    let same_diagonal = df == dr;
    match role {
        Role::King => chebyshev(a, b),
        Role::Knight => knight_distance(a, b),
        Role::Rook => {
            if same_line {
                1
            } else {
                2
            }
        }
        Role::Bishop => {
            if same_diagonal {
                1
            } else if a.is_light() == b.is_light() {
                2
            } else {
                FAR
            }
        }
        Role::Queen => {
            if same_line || same_diagonal {
                1
            } else {
                2
            }
        }
        Role::Pawn => pawn_travel(color, a, b),
    }
}

/// A pawn's fewest moves from `a` to `b`: forward only, one file aside per capture, one
/// double step from its first rank.
fn pawn_travel(color: Color, a: Square, b: Square) -> u8 {
    let forward = |sq: Square| {
        let r = i32::from(sq.rank() as u8);
        if color == Color::White { r } else { 7 - r }
    };
    let dr = forward(b) - forward(a);
    let df = (i32::from(a.file() as u8) - i32::from(b.file() as u8)).abs();
    if dr <= 0 || df > dr {
        return if a == b { 0 } else { FAR };
    }
    let straight = dr - df;
    let double = forward(a) == 1 && straight >= 2;
    (dr - i32::from(double)) as u8
}

impl Man {
    /// The fewest moves for this man to stand on `to` as `role` (a pawn promoting on the
    /// way where `role` is not a pawn).
    fn to(&self, to: Square, role: Role) -> u8 {
        if role == self.role {
            let direct = travel(role, self.color, self.sq, to);
            // The king castles in one move; a rook moves along for free.
            let castling = self.castled.into_iter().flatten().map(|c| match role {
                Role::King => 1 + chebyshev(c, to),
                _ => travel(role, self.color, c, to),
            });
            return castling.fold(direct, u8::min);
        }
        if self.role != Role::Pawn || matches!(role, Role::Pawn | Role::King) {
            return FAR;
        }
        let last = self.color.fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First);
        let mut best = FAR;
        for (file, &step) in shakmaty::File::ALL.into_iter().zip(&self.promotion) {
            if step < best {
                let p = Square::from_coords(file, last);
                best = best.min(step.saturating_add(travel(role, self.color, p, to)));
            }
        }
        best
    }

    /// What a man's options around `k` with `budget` moves depend on: its kind, square
    /// and castlings (a pawn's promotions follow from its square).
    fn key(&self, budget: u8, k: Square) -> u64 {
        let castled = |c: Option<Square>| c.map_or(64, u64::from);
        kind_index(self.role, self.color) as u64
            | u64::from(self.sq) << 3
            | castled(self.castled[0]) << 9
            | castled(self.castled[1]) << 16
            | u64::from(budget) << 23
            | u64::from(k) << 31
    }

    /// The fewest moves to a promotion.
    fn promotion_moves(&self) -> u8 {
        self.promotion.iter().copied().min().unwrap_or(FAR)
    }
}

/// The squares from which a man of `role` and `color` attacks `target` on an empty board.
fn attackers_of(role: Role, color: Color, target: Square) -> Bitboard {
    match role {
        Role::Pawn => pawn_attacks(!color, target),
        Role::Knight => knight_attacks(target),
        Role::King => king_attacks(target),
        Role::Bishop => shakmaty::attacks::bishop_attacks(target, Bitboard::EMPTY),
        Role::Rook => shakmaty::attacks::rook_attacks(target, Bitboard::EMPTY),
        Role::Queen => shakmaty::attacks::queen_attacks(target, Bitboard::EMPTY),
    }
}

/// What a man of one kind does around a king square k: the flights (bits in the order of
/// `king_attacks(k)`) it attacks from each square, the squares from which it checks, and
/// the squares where it matters (it attacks k or a flight, off k, a king not next to k).
struct Around {
    covers_from: [u8; 64],
    checking: Bitboard,
    relevant: Bitboard,
}

fn around(role: Role, color: Color, k: Square) -> &'static Around {
    static TABLE: OnceLock<Vec<Around>> = OnceLock::new();
    per_kind(&TABLE, role, color, k, |role, color, k| {
        let mut covers_from = [0u8; 64];
        let mut relevant = attackers_of(role, color, k);
        for (bit, f) in king_attacks(k).into_iter().enumerate() {
            relevant |= attackers_of(role, color, f);
            for s in attackers_of(role, color, f).without(f) {
                covers_from[usize::from(s)] |= 1 << bit;
            }
        }
        // Kings never stand side by side; no man stands on the king's square.
        relevant.discard(k);
        let checking = if role == Role::King {
            relevant &= !king_attacks(k);
            Bitboard::EMPTY
        } else {
            attackers_of(role, color, k)
        };
        Around { covers_from, checking, relevant }
    })
}

/// The entry of a man of `role` and `color` on `sq` in `table`, which is built once with
/// `build` for every kind of man and square.
fn per_kind<T>(
    table: &'static OnceLock<Vec<T>>,
    role: Role,
    color: Color,
    sq: Square,
    build: fn(Role, Color, Square) -> T,
) -> &'static T {
    let table = table.get_or_init(|| KINDS.iter().flat_map(|&(r, c)| Square::ALL.map(|s| build(r, c, s))).collect());
    &table[kind_index(role, color) * 64 + usize::from(sq)]
}

/// The kinds of men whose moves differ: the pieces, and a pawn of each colour.
const KINDS: [(Role, Color); 7] = [
    (Role::King, Color::White),
    (Role::Queen, Color::White),
    (Role::Rook, Color::White),
    (Role::Bishop, Color::White),
    (Role::Knight, Color::White),
    (Role::Pawn, Color::White),
    (Role::Pawn, Color::Black),
];

fn kind_index(role: Role, color: Color) -> usize {
    match role {
        Role::King => 0,
        Role::Queen => 1,
        Role::Rook => 2,
        Role::Bishop => 3,
        Role::Knight => 4,
        Role::Pawn => color.fold_wb(5, 6),
    }
}

/// The men of `color` in `pos`, with where castling takes them, into `men`.
fn men_of(pos: &Chess, color: Color, men: &mut Vec<Man>) {
    let board: &Board = pos.board();
    let castles = pos.castles().has_color(color);
    men.clear();
    for role in Role::ALL {
        for sq in board.by_piece(role.of(color)) {
            men.push(if castles { Man::at(pos, sq, role, color) } else { Man::new(sq, role, color) });
        }
    }
}

impl Man {
    /// A man that cannot castle.
    fn new(sq: Square, role: Role, color: Color) -> Man {
        let promotion = if role == Role::Pawn { *promotions(color, sq) } else { [FAR; 8] };
        Man { sq, role, color, castled: [None; 2], promotion }
    }

    /// The man of `role` and `color` on `sq` in `pos`, with where castling takes it.
    fn at(pos: &Chess, sq: Square, role: Role, color: Color) -> Man {
        let mut man = Man::new(sq, role, color);
        let castles = pos.castles();
        if castles.has_color(color) && matches!(role, Role::King | Role::Rook) {
            for (wing, side) in [CastlingSide::KingSide, CastlingSide::QueenSide].into_iter().enumerate() {
                match castles.rook(color, side) {
                    Some(_) if role == Role::King => man.castled[wing] = Some(side.king_to(color)),
                    Some(rook) if rook == sq => man.castled[wing] = Some(side.rook_to(color)),
                    _ => {}
                }
            }
        }
        man
    }
}

/// A pawn's moves from `sq` to each square of its last rank, by file.
fn promotions(color: Color, sq: Square) -> &'static [u8; 8] {
    static TABLE: OnceLock<Vec<[u8; 8]>> = OnceLock::new();
    per_kind(&TABLE, Role::Pawn, color, sq, |_, color, sq| {
        let last = color.fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First);
        shakmaty::File::ALL.map(|file| pawn_travel(color, sq, Square::from_coords(file, last)))
    })
}

/// The answer to the question `goal` within `moves` of the position with key `key`, from
/// this thread's recent answers, or from `answer` (then kept).
pub fn recent(key: u64, goal: Final, moves: Moves, answer: impl FnOnce() -> bool) -> bool {
    const SLOTS: usize = 1 << 16;
    thread_local! {
        static RECENT: std::cell::RefCell<Vec<(u64, bool)>> = std::cell::RefCell::new(vec![(0, false); SLOTS]);
    }
    let king = goal.king.map_or(0, |k| u64::from(k) + 1);
    let question = u64::from(moves.mater) << 9
        | u64::from(moves.victim) << 1
        | u64::from(goal.mate) << 17
        | (goal.victim as u64) << 18
        | king << 19;
    // The question's bits spread over the key, so that one position's questions differ.
    let id = (key ^ question.wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1;
    let slot = (id as usize) & (SLOTS - 1);
    if let Some(answer) = RECENT.with_borrow(|r| (r[slot].0 == id).then_some(r[slot].1)) {
        return answer;
    }
    let answer = answer();
    RECENT.with_borrow_mut(|r| r[slot] = (id, answer));
    answer
}

/// Whether some final position of the goal (a mate when `mate`, else a stalemate of
/// `victim`) fits within `moves`, by the relaxation in the module's documentation. True
/// when the search gives up.
pub fn reachable(pos: &Chess, goal: Final, moves: Moves) -> bool {
    search_with(pos, goal, moves, STEP_CAP, false)
}

/// Whether some final position fits after the victim passed, with the victim's men
/// seen only as holders of flights: [`reachable`] without the men that must clear a
/// check's line ([`Search::line_blocked`]) or stand to be taken by a pawn
/// ([`Search::charge_of`]), so that a victim's move that brings no man nearer to a
/// flight ([`nearer_to_hold`]) fits no more than the pass. True after `cap` steps.
pub fn reachable_after_pass(pos: &Chess, goal: Final, moves: Moves, cap: u32) -> bool {
    search_with(pos, goal, moves, cap, true)
}

/// The search for a final position, giving up (true) after `cap` steps; `holders_only`:
/// see [`reachable_after_pass`].
fn search_with(pos: &Chess, goal: Final, moves: Moves, cap: u32, holders_only: bool) -> bool {
    SCRATCH.with_borrow_mut(|search| {
        search.cap = cap;
        search.holders_only = holders_only;
        search.reachable(pos, goal, moves)
    })
}

thread_local! {
    /// Each thread's search, with what it knows of men.
    static SCRATCH: std::cell::RefCell<Search> = std::cell::RefCell::new(Search::default());
}

/// Whether the victim's man on `from` in `pos`, moved to `to` as `role` with `budget`
/// moves of its side left after the move, may hold some flight of k within the budget in
/// fewer moves than it may from where it stands. Where it may not, the bound after
/// the move fits no more final positions than after a pass: the bound's victim men only
/// hold flights, each at its cost and as allowed by its kind (a move that changes the
/// kind counts as nearer), and the move leaves every other man where it was (a capture
/// takes a man of the mating side away, which fits none more).
pub fn nearer_to_hold(pos: &Chess, k: Square, from: Square, to: Square, role: Role, budget: u8) -> bool {
    let board = pos.board();
    let (Some(color), Some(was)) = (board.color_at(from), board.role_at(from)) else { return true };
    // A rook that may castle could also hold a flight from its castled square; moved, it
    // castles no more.
    let (before, after) = (Man::at(pos, from, was, color), Man::new(to, role, color));
    SCRATCH.with_borrow_mut(|search| {
        if Defended::kind(&before, budget) != Defended::kind(&after, budget) {
            return true;
        }
        let (known, scratch) = (&mut search.known_holds, &mut search.scratch);
        // A cost beyond the budget is FAR already: it holds nothing.
        let (old, new) = (known.costs(&before, k, budget, scratch), known.costs(&after, k, budget, scratch));
        old.iter().zip(&new).any(|(&o, &n)| n < o)
    })
}

/// One way for a man of the mating side to end: its cost, the flights it attacks (bits
/// of `Search::flights`), whether it gives check, and if so which blockers it leaves
/// no room for ([`Defended`]), whether as a bishop, and the squares between it and k.
#[derive(Clone, Copy, Debug)]
struct Option_ {
    cost: u8,
    covers: u8,
    checks: bool,
    defended: Defended,
    bishop: bool,
    line: Bitboard,
    /// For a pawn that ends on another file, the squares where it may capture on the way
    /// (one capture at least); empty otherwise.
    capture: Bitboard,
}

/// The flights of k (bits) that a victim's man may not hold when the mate's check comes
/// from one square s: `any`, whatever the man is (s itself, which the checker holds, and
/// the squares between s and k, which must stay empty); `by_kind`, for each kind of
/// [`Defended::kind`], the flights from which it would capture the checker or step
/// between in one move with no square on the way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Defended {
    any: u8,
    by_kind: [u8; KINDS_DEFENDING],
}

/// The kinds of a victim's man that [`Defended::by_kind`] tells apart: queen, rook,
/// bishop, knight, and a white or a black pawn that cannot promote in time. A pawn that
/// may promote, whose kind at the end is not known, is refused only `any`.
const KINDS_DEFENDING: usize = 6;

impl Defended {
    /// Refuses no more than `other`.
    fn within(&self, other: &Defended) -> bool {
        self.any & !other.any == 0 && self.by_kind.iter().zip(&other.by_kind).all(|(a, b)| a & !b == 0)
    }

    /// The kind of the victim's `man` with `budget` moves of its side, in the order of
    /// [`Defended::by_kind`]; [`KINDS_DEFENDING`] for a pawn that may promote.
    fn kind(man: &Man, budget: u8) -> usize {
        match man.role {
            Role::Queen => 0,
            Role::Rook => 1,
            Role::Bishop => 2,
            Role::Knight => 3,
            Role::Pawn if man.promotion_moves() > budget => man.color.fold_wb(5, 4),
            _ => KINDS_DEFENDING,
        }
    }

    /// Where a blocker may not stand against a check of k from s. A blocker on flight f
    /// that may capture on s or step onto a square between s and k, by a move whose path
    /// crosses no other square, parries the check: the move is legal unless the man is
    /// pinned to k (the only line its move opens runs from k through f) or the check is
    /// double ([`Search::refused_against`]).
    fn of(k: Square, s: Square) -> &'static Defended {
        static TABLE: OnceLock<Vec<Defended>> = OnceLock::new();
        let table = TABLE.get_or_init(|| {
            let mut table = Vec::with_capacity(64 * 64);
            for k in Square::ALL {
                for s in Square::ALL {
                    let line = shakmaty::attacks::between(s, k);
                    let target = line.with(s);
                    let mut d = Defended::default();
                    for (bit, f) in king_attacks(k).into_iter().enumerate() {
                        if target.contains(f) {
                            d.any |= 1 << bit;
                            continue;
                        }
                        let near = king_attacks(f);
                        let straight = near & shakmaty::attacks::rook_attacks(f, Bitboard::EMPTY);
                        // A pawn steps between (the square ahead is empty there) or takes
                        // the checker; its double step crosses a square that may be taken.
                        let pawn = |color: Color| {
                            let ahead = f.offset(color.fold_wb(8, -8)).map_or(Bitboard::EMPTY, Bitboard::from);
                            (ahead & line) | (pawn_attacks(color, f) & Bitboard::from(s))
                        };
                        let steps = [
                            near,
                            straight,
                            near & !straight,
                            knight_attacks(f),
                            pawn(Color::Black),
                            pawn(Color::White),
                        ];
                        for (kind, reach) in d.by_kind.iter_mut().zip(steps) {
                            if (reach & target).any() {
                                *kind |= 1 << bit;
                            }
                        }
                    }
                    for kind in &mut d.by_kind {
                        *kind |= d.any;
                    }
                    table.push(d);
                }
            }
            table
        });
        &table[usize::from(k) * 64 + usize::from(s)]
    }
}

/// A man of the mating side around one king square: its ways to end that matter there,
/// none dominated by another (as cheap, covering and allowing as much), the cheapest
/// that covers each flight (and, as bits, the flights it covers at all), and its cheapest
/// check as a bishop and as another man.
struct Options {
    ways: Vec<Option_>,
    /// The ways that check, in the order of `ways`.
    checking: Vec<Option_>,
    cover: [u8; 8],
    covering: u8,
    check: [u8; 2],
}

/// The search for a final position around one king square k; kept between questions so
/// that its buffers are reused.
#[derive(Default)]
struct Search {
    /// The victim's men other than its king and what was made of them; and the set before,
    /// kept as a mating man's captures alternate with its other moves among siblings.
    victims: Victims,
    spare: Victims,
    /// Scratch for a man's ways to end.
    scratch: Vec<(Role, Levels)>,
    /// The victim's men's costs to hold flights, kept between questions.
    known_holds: KnownHolds,
    /// The victim king's squares within its moves, nearest first.
    squares: Vec<(u8, Square)>,
    mater: Vec<Man>,
    /// The victim's moves, its king's included.
    victim_budget: u8,
    steps: u32,
    /// The steps before it gives up.
    cap: u32,
    /// The flights of k.
    flights: Vec<Square>,
    /// Per man of the mating side: its options around k.
    options: Vec<Rc<Options>>,
    /// Options by [`Man::key`], kept between questions: most men stand still from a node
    /// to its children.
    known_options: FxHashMap<u64, Rc<Options>>,
    /// The squares of the mating side's men.
    mater_squares: Bitboard,
    /// Whether the victim is in check where the question is asked.
    in_check: bool,
    /// Men placed so far, as bits.
    used_mater: u32,
    used_victims: u32,
    /// The cheapest check of any man of the mating side, and of any man but that one: as
    /// a bishop, and as another man.
    checks: [[(u8, usize); 2]; 2],
    /// The checks of one man tried and failed.
    failed: Vec<Failed>,
    /// Per flight, as bits: the victim's men the check placed allows to hold it; the
    /// mating side's men that may guard it.
    holders: [u32; 8],
    guards: [u32; 8],
    /// Per flight and budget (up to `LAST`, which stands for more): the mating side's men
    /// that guard it within that many moves, as bits.
    guards_within: [[u32; LAST + 1]; 8],
    /// The mating side's men on the line of the check placed, as bits.
    on_line: u32,
    /// Whether the victim's men count only as holders ([`reachable_after_pass`]).
    holders_only: bool,
    /// Whether either side may still castle.
    castling: bool,
    /// The line of the check placed, else empty ([`Search::line_blocked`]); the moves of
    /// each man placed and of the victim's king, and the moves charged for captures
    /// ([`capture_region`]).
    line: Bitboard,
    mater_costs: [u8; 32],
    victim_costs: [u8; 32],
    king_cost: u8,
    charged: u32,
    /// The victim's king, and each side's men but its king.
    king: Option<Man>,
    victim_men: Bitboard,
    mater_men: Bitboard,
    /// The squares occupied, and the moves of both sides left: lines to clear.
    occupied: Bitboard,
    total_moves: u32,
    /// What the mating side's part of `prepare` was last made for: siblings in the search
    /// differ in one side's men only, so the other side's part is reused.
    mater_for: Option<(Side, Square, u8, bool)>,
}

/// A check as [`Search::checked`] compares it with the checks of its man that failed.
#[derive(Clone, Copy)]
struct Failed {
    cost: u8,
    covers: u8,
    /// The flights refused ([`Search::refused_against`]).
    refused: u64,
    /// The men on its line, and those the count of [`Search::line_blocked`] takes (none
    /// where it is off).
    men: Bitboard,
    counted: Bitboard,
    /// The victim's moves charged ([`Search::charge_of`]).
    charge: u8,
}

impl Failed {
    /// Whether `check` costs no less, covers no more, refuses no fewer flights, has no
    /// fewer men to clear and is charged no less than this failed check: then it fails.
    fn fails_too(&self, check: &Failed) -> bool {
        self.cost <= check.cost
            && self.covers & check.covers == check.covers
            && self.refused & check.refused == self.refused
            && self.men.is_subset(check.men)
            && self.counted.is_subset(check.counted)
            && self.charge <= check.charge
    }
}

/// The victim's men other than its king, and what `prepare` made of them.
#[derive(Default)]
struct Victims {
    men: Vec<Man>,
    /// The men these are.
    side: Option<Side>,
    /// The king square and the victim's moves (all, and those left after its king's)
    /// the rest was made for.
    made_for: Option<(Square, u8, u8)>,
    /// Per man: its cost to hold each flight.
    blocks: Vec<[u8; 8]>,
    /// The bytes of [`Search::refused_against`] that matter: those of the kinds present.
    present: u64,
    /// The men of each kind of [`Defended::kind`], as bits.
    of_kind: [u32; KINDS_DEFENDING + 1],
    /// Per flight, as bits: the men that may get there within the victim's moves.
    can_hold: [u32; 8],
    /// Per flight and budget (up to `LAST`, which stands for more): the men that get
    /// there within that many moves, as bits.
    holds_within: [[u32; LAST + 1]; 8],
}

/// One side's men as the bound sees them: where each kind stands, and its castlings.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Side([Bitboard; 7]);

impl Side {
    fn of(pos: &Chess, color: Color) -> Side {
        let board = pos.board();
        let mut side = [Bitboard::EMPTY; 7];
        for (bb, role) in side.iter_mut().zip(Role::ALL) {
            *bb = board.by_piece(role.of(color));
        }
        side[6] = pos.castles().castling_rights() & Bitboard::from(color.backrank());
        Side(side)
    }
}

/// The costs of [`hold_costs`] last worked out, by [`Man::key`] (direct-mapped): most men
/// stand still from a node to its children.
struct KnownHolds(Vec<(u64, [u8; 8])>);

impl Default for KnownHolds {
    fn default() -> KnownHolds {
        KnownHolds(vec![(u64::MAX, [FAR; 8]); 1 << 12])
    }
}

impl KnownHolds {
    /// [`hold_costs`], as known or worked out.
    fn costs(&mut self, man: &Man, k: Square, budget: u8, scratch: &mut Vec<(Role, Levels)>) -> [u8; 8] {
        let key = man.key(budget, k);
        let slot = &mut self.0[(key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 52) as usize];
        if slot.0 != key {
            *slot = (key, hold_costs(man, k, budget, scratch));
        }
        slot.1
    }
}

/// The fewest moves for the victim's `man` to stand on each flight of k (in the order
/// of `king_attacks(k)`), with `budget` moves of its side, FAR beyond it; read off the
/// empty-board levels, which is cheaper than remembering it. `scratch`: room for the
/// man's ways to end.
fn hold_costs(man: &Man, k: Square, budget: u8, scratch: &mut Vec<(Role, Levels)>) -> [u8; 8] {
    let plain = man.castled == [None; 2] && (man.role != Role::Pawn || man.promotion_moves() > budget);
    let all = if plain {
        *levels(man.role, man.color, man.sq)
    } else {
        man.ends(budget, scratch);
        let mut all = [Bitboard::EMPTY; LAST + 1];
        for (_, lv) in scratch.iter() {
            add_shifted(&mut all, lv, 0);
        }
        all
    };
    let flights = king_attacks(k);
    let mut costs = [FAR; 8];
    let mut left = flights;
    // A cost beyond the budget holds nothing: it stays FAR.
    for (c, &level) in all.iter().enumerate().take(usize::from(budget) + 1) {
        for f in level & left {
            // The flight's bit: the flights below it.
            costs[(flights.0 & ((1u64 << u32::from(f)) - 1)).count_ones() as usize] = c as u8;
        }
        left &= !level;
    }
    costs
}

/// Each of the first `flights` flights' men by cost made into its men within each cost.
fn cumulate(by_cost: &mut [[u32; LAST + 1]; 8], flights: usize) {
    for costs in &mut by_cost[..flights] {
        for c in 1..=LAST {
            costs[c] |= costs[c - 1];
        }
    }
}

/// The flights (as bits) whose cost in `costs` is at most `moves`: each byte, at most
/// FAR, plus FAR - moves carries into its top bit exactly when it exceeds `moves`.
fn within(costs: &[u8; 8], moves: u8) -> u8 {
    const TOPS: u64 = 0x8080_8080_8080_8080;
    let over = (u64::from_le_bytes(*costs) + u64::from_le_bytes([FAR - moves.min(FAR); 8])) & TOPS;
    // The top bit of byte i, moved to bit i.
    ((!over & TOPS) >> 7).wrapping_mul(0x0102_0408_1020_4080).to_le_bytes()[7]
}

/// The squares where a pawn of `color` going from `from` to `to` on another file may
/// capture (it needs one capture at least); empty where it stays on its file.
fn capture_region(color: Color, from: Square, to: Square) -> Bitboard {
    static TABLE: OnceLock<Vec<[Bitboard; 64]>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        [Color::White, Color::Black]
            .into_iter()
            .flat_map(|color| Square::ALL.map(|from| Square::ALL.map(|to| region_between(color, from, to))))
            .collect()
    });
    table[usize::from(color == Color::Black) * 64 + usize::from(from)][usize::from(to)]
}

/// One move of the other side where a pawn must capture in `region` and none of `prey`
/// stands there; none where it need not capture.
fn lacks_prey(region: Bitboard, prey: Bitboard) -> u8 {
    u8::from(region.any() && (region & prey).is_empty())
}

/// [`capture_region`], worked out: the squares ahead of `from` that a pawn may reach
/// and still get to `to` from (a pawn's file changes by one at most a rank, and a route
/// may go out to one side and come back).
fn region_between(color: Color, from: Square, to: Square) -> Bitboard {
    if from.file() == to.file() {
        return Bitboard::EMPTY;
    }
    // Ranks counted in the pawn's direction.
    let rank = |s: Square| color.fold_wb(i32::from(s.rank()), 7 - i32::from(s.rank()));
    let file = |s: Square| i32::from(s.file());
    Square::ALL
        .into_iter()
        .filter(|&x| {
            let (up, left) = (rank(x) - rank(from), rank(to) - rank(x));
            up > 0 && left >= 0 && (file(x) - file(from)).abs() <= up && (file(to) - file(x)).abs() <= left
        })
        .collect()
}

/// The indices of the set bits of a mask, lowest first.
struct Bits(u32);

impl Iterator for Bits {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        (self.0 != 0).then(|| {
            let i = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            i
        })
    }
}

/// The most entries of what `Search` knows of men before it forgets them.
const KNOWN: usize = 1 << 17;

impl Search {
    /// Whether some final position of the goal fits within `moves` ([`reachable`]).
    fn reachable(&mut self, pos: &Chess, goal: Final, moves: Moves) -> bool {
        let Final { victim, mate, king: only } = goal;
        if self.known_options.len() > KNOWN {
            self.known_options.clear();
        }
        let Some(king) = pos.board().king_of(victim) else { return true };
        let (victim_side, mater_side) = (Side::of(pos, victim), Side::of(pos, !victim));
        if self.victims.side != Some(victim_side) {
            std::mem::swap(&mut self.victims, &mut self.spare);
            if self.victims.side != Some(victim_side) {
                self.victims.side = Some(victim_side);
                self.victims.made_for = None;
                men_of(pos, victim, &mut self.victims.men);
                self.victims.men.retain(|m| m.role != Role::King);
            }
        }
        let king_man = Man::at(pos, king, Role::King, victim);
        let in_check = pos.turn() == victim && pos.is_check();
        if self.mater_for.is_none_or(|(side, .., check)| side != mater_side || check != in_check) {
            self.mater_for = None;
            men_of(pos, !victim, &mut self.mater);
            self.mater_squares = pos.board().by_color(!victim);
            self.in_check = in_check;
        }
        self.victim_budget = moves.victim;
        self.steps = 0;
        self.occupied = pos.board().occupied();
        self.castling = pos.castles().any();
        self.king = Some(king_man);
        self.victim_men = pos.board().by_color(victim) & !pos.board().kings();
        self.mater_men = pos.board().by_color(!victim) & !pos.board().kings();
        self.total_moves = u32::from(moves.mater) + u32::from(moves.victim);
        // The king's squares nearest first: a near final square is the likeliest to fit.
        self.squares.clear();
        let candidates = only.map_or(Bitboard::FULL, Bitboard::from);
        for k in candidates {
            let d = king_man.to(k, Role::King);
            if d <= moves.victim {
                self.squares.push((d, k));
            }
        }
        self.squares.sort_unstable_by_key(|&(d, _)| d);
        for i in 0..self.squares.len() {
            let (d, k) = self.squares[i];
            let budget = Moves { mater: moves.mater, victim: moves.victim - d };
            self.prepare(k, budget, mater_side);
            if !self.may_fit(budget, mate) {
                continue;
            }
            self.king_cost = d;
            self.charged = 0;
            self.line = Bitboard::EMPTY;
            let fits = if mate { self.checked(budget) } else { self.close(0, budget) };
            match fits {
                Some(true) | None => return true,
                Some(false) => {}
            }
        }
        false
    }

    /// Counts a step; None once the cap is reached.
    fn step(&mut self) -> Option<()> {
        self.steps += 1;
        (self.steps <= self.cap).then_some(())
    }

    /// A quick test before the search: a check of k within the mating side's moves, and
    /// every flight held or guarded by some man within its side's moves; the flights only
    /// a blocker can hold cost the victim at least their sum. Reads what `prepare` made
    /// with the same budget.
    fn may_fit(&self, budget: Moves, mate: bool) -> bool {
        if mate && self.checks.iter().all(|best| best[0].0 > budget.mater) {
            return false;
        }
        let mut blocks = 0u32;
        for bit in 0..self.flights.len() {
            if self.guards[bit] != 0 {
                continue;
            }
            let v = &self.victims;
            let Some(b) = Bits(v.can_hold[bit]).map(|j| v.blocks[j][bit]).min() else { return false };
            blocks += u32::from(b);
        }
        blocks <= u32::from(budget.victim)
    }

    /// Whether man `i` of the mating side, where it stands, may give the mate's check to
    /// k with `moves` moves of its side left. Before the mating move the victim (to be
    /// mated on k) was not in check, so the mating move made the check: a man that never
    /// moves checks only by a discovery, a man of its side leaving the line between it
    /// and k (there already, with one move left: two moves bring one there and away) or
    /// an en passant capture of a pawn that stepped onto it. A knight or a man next to k
    /// has no line to open. A victim in check now may be mated already: no such rule.
    fn may_check_standing(&self, i: usize, k: Square, moves: u8) -> bool {
        let man = &self.mater[i];
        // A pawn checks from next to k, with no line to open, and never comes back.
        if man.role == Role::Pawn {
            return self.in_check;
        }
        let line = shakmaty::attacks::between(man.sq, k);
        // Where the victim's pawns land with a double step.
        let passed = Bitboard::from(man.color.fold_wb(shakmaty::Rank::Fifth, shakmaty::Rank::Fourth));
        self.in_check || moves >= 2 || (moves >= 1 && (line & (self.mater_squares | passed)).any())
    }

    /// The flights of k and every man's ways to end around it; a side's part is kept
    /// where its men, k and its moves are those of the last call.
    fn prepare(&mut self, k: Square, budget: Moves, mater_side: Side) {
        self.flights.clear();
        self.flights.extend(king_attacks(k));
        if self.mater_for != Some((mater_side, k, budget.mater, self.in_check)) {
            self.prepare_mater(k, budget.mater);
            self.mater_for = Some((mater_side, k, budget.mater, self.in_check));
        }
        if self.victims.made_for != Some((k, self.victim_budget, budget.victim)) {
            self.prepare_victims(k, budget.victim);
            self.victims.made_for = Some((k, self.victim_budget, budget.victim));
        }
        self.holders = self.victims.can_hold;
        self.used_mater = 0;
        self.used_victims = 0;
    }

    /// The mating side's men's options around k, the flights each may guard and the
    /// cheapest checks, with `moves` moves of its side.
    fn prepare_mater(&mut self, k: Square, moves: u8) {
        self.options.clear();
        for i in 0..self.mater.len() {
            // The options differ with whether the man may check where it stands.
            let standing = self.may_check_standing(i, k, moves);
            let options = self.options_of(self.mater[i], k, moves, standing);
            self.options.push(options);
        }
        // Every way costs no more than the moves the options were made for.
        self.guards = [0; 8];
        self.guards_within = [[0; LAST + 1]; 8];
        for (i, options) in self.options.iter().enumerate() {
            for bit in Bits(u32::from(options.covering)) {
                self.guards[bit] |= 1 << i;
                self.guards_within[bit][usize::from(options.cover[bit])] |= 1 << i;
            }
        }
        cumulate(&mut self.guards_within, self.flights.len());
        self.checks = [[(FAR, usize::MAX); 2]; 2];
        for (i, o) in self.options.iter().enumerate() {
            for (best, &cost) in self.checks.iter_mut().zip(&o.check) {
                if cost < best[0].0 {
                    *best = [(cost, i), best[0]];
                } else if cost < best[1].0 {
                    best[1] = (cost, i);
                }
            }
        }
    }

    /// The victim's men's kinds and costs to hold each flight of k, and the men that may
    /// hold each flight with `moves` moves of its side left after its king's.
    fn prepare_victims(&mut self, k: Square, moves: u8) {
        let v = &mut self.victims;
        v.present = 0xff << (8 * KINDS_DEFENDING);
        v.of_kind = [0; KINDS_DEFENDING + 1];
        v.blocks.clear();
        v.can_hold = [0; 8];
        v.holds_within = [[0; LAST + 1]; 8];
        for (j, man) in v.men.iter().enumerate() {
            let kind = Defended::kind(man, self.victim_budget);
            v.present |= 0xff << (8 * kind);
            v.of_kind[kind] |= 1 << j;
            // A victim's man holds a flight as whatever it is by then: a pawn may
            // promote first, a rook may have castled.
            let costs = self.known_holds.costs(man, k, self.victim_budget, &mut self.scratch);
            for bit in Bits(u32::from(within(&costs, moves))) {
                v.can_hold[bit] |= 1 << j;
            }
            for bit in Bits(u32::from(within(&costs, LAST as u8))) {
                v.holds_within[bit][usize::from(costs[bit])] |= 1 << j;
            }
            v.blocks.push(costs);
        }
        cumulate(&mut v.holds_within, self.flights.len());
    }

    /// The ways of the mating side's `man` to end around k with `budget` moves (checking
    /// where it stands only if `standing`), as known or worked out. Most answers come
    /// from what is known of men on the same squares.
    fn options_of(&mut self, man: Man, k: Square, budget: u8, standing: bool) -> Rc<Options> {
        let known = man.key(budget, k) | u64::from(standing) << 40;
        if let Some(options) = self.known_options.get(&known) {
            return Rc::clone(options);
        }
        let mut ends = std::mem::take(&mut self.scratch);
        man.ends(budget, &mut ends);
        let top = usize::from(budget).min(LAST);
        let mut ways: Vec<Option_> = Vec::new();
        // The cheapest cost of each (covers, checks) pair found so far: a way that does
        // not check, seen again at no lower cost, is dominated.
        let mut seen = [FAR; 512];
        for &(role, ref lv) in &ends {
            let around = around(role, man.color, k);
            for (cost, level) in lv.iter().enumerate().take(top + 1) {
                for s in *level & around.relevant {
                    let covers = around.covers_from[usize::from(s)];
                    let checks = around.checking.contains(s) && (standing || cost > 0 || s != man.sq);
                    let pair = usize::from(covers) << 1 | usize::from(checks);
                    let cost = cost as u8;
                    // Checks from different squares differ in the blockers they allow.
                    if seen[pair] <= cost && !checks {
                        continue;
                    }
                    let capture =
                        if role == Role::Pawn { capture_region(man.color, man.sq, s) } else { Bitboard::EMPTY };
                    if capture.is_empty() {
                        seen[pair] = seen[pair].min(cost);
                    }
                    let defended = if checks { *Defended::of(k, s) } else { Defended::default() };
                    let bishop = checks && role == Role::Bishop;
                    let line = if checks { shakmaty::attacks::between(s, k) } else { Bitboard::EMPTY };
                    // A way that needs a capture is charged where no victim's man stands to
                    // be taken: it does as much only as one that needs one in fewer squares.
                    let dominated = ways.iter().any(|o| {
                        o.cost <= cost
                            && o.covers & covers == covers
                            && (o.checks || !checks)
                            && (!checks
                                || (o.defended.within(&defended) && (bishop || !o.bishop) && o.line.is_subset(line)))
                            && (o.capture.is_empty() || (capture.any() && capture.is_subset(o.capture)))
                    });
                    if !dominated {
                        ways.push(Option_ { cost, covers, checks, defended, bishop, line, capture });
                    }
                }
            }
        }
        self.scratch = ends;
        let cheapest =
            |bishop: bool| ways.iter().filter(|o| o.checks && o.bishop == bishop).map(|o| o.cost).min().unwrap_or(FAR);
        let check = [cheapest(true), cheapest(false)];
        let mut cover = [FAR; 8];
        for o in &ways {
            for (bit, c) in cover.iter_mut().enumerate() {
                if o.covers & (1 << bit) != 0 {
                    *c = (*c).min(o.cost);
                }
            }
        }
        let covering = ways.iter().fold(0, |bits, o| bits | o.covers);
        let checking = ways.iter().copied().filter(|o| o.checks).collect();
        let options = Rc::new(Options { ways, checking, cover, covering, check });
        self.known_options.insert(known, Rc::clone(&options));
        options
    }

    /// Some(fits) with a checker of k placed first; None: gave up.
    /// A check that costs no less, covers no more and allows no more blockers than one
    /// of the same man that failed fails as well: it is not tried.
    ///
    /// Two bishops never give a double check: the last move made one check at least. A
    /// bishop that moves off the other's line to k goes along the diagonal across it,
    /// which meets neither line to k again; a pawn that promotes to a bishop steps to a
    /// square of the other colour, or along the line it leaves, or across it; an en
    /// passant capture empties two squares of different colours, which two lines of
    /// bishops to one king cannot both cross; castling empties the king's square and
    /// either a square of the other colour or a corner, which no line crosses; any other
    /// move empties one square, which one line to the king crosses at most.
    fn checked(&mut self, budget: Moves) -> Option<bool> {
        for i in 0..self.mater.len() {
            self.failed.clear();
            for o in 0..self.options[i].checking.len() {
                let opt = self.options[i].checking[o];
                if opt.cost > budget.mater || self.line_too_full(opt.line) {
                    continue;
                }
                let charge = self.charge_of(&opt);
                if charge > budget.victim {
                    continue;
                }
                let refused = self.refused_against(i, &opt, budget.mater);
                let men = opt.line & self.occupied;
                let counted = if self.counts_line(opt.line) { men } else { Bitboard::EMPTY };
                let check = Failed { cost: opt.cost, covers: opt.covers, refused, men, counted, charge };
                if self.failed.iter().any(|f| f.fails_too(&check)) {
                    continue;
                }
                self.step()?;
                self.used_mater |= 1 << i;
                self.on_line = self.men_on(opt.line);
                self.line = opt.line;
                self.mater_costs[i] = opt.cost;
                self.charged += u32::from(charge);
                self.refuse(refused);
                let fits =
                    self.close(opt.covers, Moves { mater: budget.mater - opt.cost, victim: budget.victim - charge });
                self.charged -= u32::from(charge);
                self.line = Bitboard::EMPTY;
                self.on_line = 0;
                self.used_mater &= !(1 << i);
                if fits != Some(false) {
                    return fits;
                }
                self.failed.push(check);
            }
        }
        Some(false)
    }

    /// The mating side's men standing on `line`, as bits.
    fn men_on(&self, line: Bitboard) -> u32 {
        if (line & self.mater_squares).is_empty() {
            return 0;
        }
        self.mater.iter().enumerate().filter(|(_, m)| line.contains(m.sq)).fold(0, |bits, (i, _)| bits | 1 << i)
    }

    /// Whether the squares between a checker and k hold more men than the moves left can
    /// clear: they must all be empty at the end, and a move empties at most one of them
    /// (its man's square: a capture fills the square it empties), or two where en
    /// passant or castling may empty two squares of one rank.
    fn line_too_full(&self, line: Bitboard) -> bool {
        if self.holders_only {
            return false;
        }
        let men = (line & self.occupied).count() as u32;
        men > self.total_moves && (men > 2 * self.total_moves || !self.double_clearing(line))
    }

    /// Whether [`Search::line_blocked`] counts the men on `line`: not where castling
    /// moves a second man off any line, nor where one move empties two of its squares.
    fn counts_line(&self, line: Bitboard) -> bool {
        !self.holders_only && !self.castling && !self.double_clearing(line)
    }

    /// Whether one move may empty two squares of `line`: en passant along the fourth or
    /// fifth rank, castling along the first or last.
    fn double_clearing(&self, line: Bitboard) -> bool {
        if line.count() < 2 {
            return false;
        }
        let along = |rank| line.is_subset(Bitboard::from(rank));
        along(shakmaty::Rank::Fourth)
            || along(shakmaty::Rank::Fifth)
            || (self.castling && (along(shakmaty::Rank::First) || along(shakmaty::Rank::Eighth)))
    }

    /// The moves a way of the mating side needs of the victim beyond its men placed: one
    /// for a pawn that must capture where no victim's man stands to be taken (the man
    /// taken moves there, and is no man placed).
    fn charge_of(&self, way: &Option_) -> u8 {
        if self.holders_only {
            return 0;
        }
        lacks_prey(way.capture, self.victim_men)
    }

    /// The moves the victim's man `j` holding flight `bit` needs of the mating side: one
    /// for a pawn that must capture there where no man of the mating side stands to be
    /// taken ([`Search::charge_of`]).
    fn hold_charge(&self, j: usize, bit: usize) -> u8 {
        let man = &self.victims.men[j];
        if man.role != Role::Pawn || man.promotion_moves() <= self.victim_budget {
            return 0;
        }
        lacks_prey(capture_region(man.color, man.sq, self.flights[bit]), self.mater_men)
    }

    /// Whether the men on the check's line that no placed man accounts for are more than
    /// the moves can clear. A move empties a square of the line only as its man leaves
    /// it. A placed man stands on the line now and leaves it, or captures there on its
    /// way and leaves again: a man that makes c moves captures on the line at most c - 1
    /// times, and only men of the other side within c - 1 of its moves. Every other move,
    /// the charged ones included, empties one square at most.
    fn line_blocked(&self, budget: Moves) -> bool {
        let men = self.line & self.occupied;
        let mut can = u32::from(budget.mater) + u32::from(budget.victim) + self.charged;
        if men.count() as u32 <= can || !self.counts_line(self.line) {
            return false;
        }
        let Some(king) = &self.king else { return false };
        let mut placed = Bitboard::from(king.sq);
        for i in Bits(self.used_mater) {
            placed.add(self.mater[i].sq);
        }
        for j in Bits(self.used_victims) {
            placed.add(self.victims.men[j].sq);
        }
        let unplaced = men & !placed;
        let need = unplaced.count() as u32;
        if can >= need {
            return false;
        }
        // Captures on the way: the men taken, each within the moves before the last. A
        // pawn that may promote on the way may take more: then nothing is counted on.
        let taken = |man: &Man, cost: u8, prey: Bitboard| {
            let before = cost.saturating_sub(1);
            if man.role == Role::Pawn && man.promotion_moves() <= before {
                return None;
            }
            let within = (unplaced & prey).into_iter().filter(|&x| man.to(x, man.role) <= before).count() as u32;
            Some(within.min(u32::from(before)))
        };
        let placed_men = Bits(self.used_mater)
            .map(|i| (&self.mater[i], self.mater_costs[i], self.victim_men))
            .chain(Bits(self.used_victims).map(|j| (&self.victims.men[j], self.victim_costs[j], self.mater_men)));
        for (man, cost, prey) in std::iter::once((king, self.king_cost, self.mater_men)).chain(placed_men) {
            let Some(taken) = taken(man, cost, prey) else { return false };
            can += taken;
        }
        can < need
    }

    /// The flights a victim's man may not hold against the check of man `i` of the mating
    /// side by `check`, with `moves` moves of its side: [`Defended`], but a piece that
    /// would parry the check may hold its flight where another man may check as well (a
    /// double check, which no capture or step between parries). A pin needs no exception:
    /// the pinning man attacks the flight on an empty board, so the bound may as well
    /// let it guard the flight, at the same cost, with the piece left out. Two bishops
    /// never check at once ([`Search::checked`]). A byte per kind, the last for every
    /// man; only the bytes of the kinds the victim has are kept.
    fn refused_against(&self, i: usize, check: &Option_, moves: u8) -> u64 {
        let d = check.defended;
        let other = |best: &[(u8, usize); 2]| if best[0].1 == i { best[1].0 } else { best[0].0 };
        let [bishops, others] = &self.checks;
        let second = if check.bishop { other(others) } else { other(others).min(other(bishops)) };
        let double = u16::from(second) + u16::from(check.cost) <= u16::from(moves);
        let by_kind = |kind: usize| if double { d.any } else { d.by_kind[kind] };
        let refused = (0..KINDS_DEFENDING)
            .fold(u64::from(d.any) << (8 * KINDS_DEFENDING), |r, kind| r | u64::from(by_kind(kind)) << (8 * kind));
        refused & self.victims.present
    }

    /// Places a check that refuses `refused` ([`Search::refused_against`]): the victim's
    /// men that may hold each flight.
    fn refuse(&mut self, refused: u64) {
        // Without branches: the bits of a byte are too few to predict their loop.
        let mut out = [0u32; 8];
        for (kind, &men) in self.victims.of_kind.iter().enumerate() {
            let flights = (refused >> (8 * kind)) as u32;
            for (bit, out) in out.iter_mut().enumerate() {
                *out |= men & (flights >> bit & 1).wrapping_neg();
            }
        }
        for (holders, (can_hold, out)) in self.holders.iter_mut().zip(self.victims.can_hold.iter().zip(out)) {
            *holders = can_hold & !out;
        }
    }

    /// Some(fits) once every flight is held or guarded (`covered`: the bits done so far);
    /// None: gave up. Closes the open flight with the fewest ways first, and fails at once
    /// where one has none, or where the flights only blockers may hold cost the victim
    /// more than its moves.
    fn close(&mut self, covered: u8, budget: Moves) -> Option<bool> {
        let mut pick: Option<(u32, usize)> = None;
        // The victim's moves to the flights no man of the mating side may guard.
        let mut blocking = 0u32;
        // Costs are at most LAST or FAR: a budget of LAST or more allows every cost.
        let (victim, mater) = (usize::from(budget.victim).min(LAST), usize::from(budget.mater).min(LAST));
        let open = !u32::from(covered) & ((1 << self.flights.len()) - 1);
        for bit in Bits(open) {
            let holders = self.holders[bit] & !self.used_victims & self.victims.holds_within[bit][victim];
            let guards = (self.guards_within[bit][mater] & !self.used_mater).count_ones();
            let ways = holders.count_ones() + guards;
            if ways == 0 {
                return Some(false);
            }
            if guards == 0 {
                let block = Bits(holders).map(|j| self.victims.blocks[j][bit]).min().unwrap_or(FAR);
                blocking += u32::from(block);
                if blocking > u32::from(budget.victim) {
                    return Some(false);
                }
            }
            if pick.is_none_or(|(w, _)| ways < w) {
                pick = Some((ways, bit));
            }
        }
        let Some((_, bit)) = pick else {
            return Some(!self.line_blocked(budget));
        };
        // Held by one of the victim's men.
        for j in Bits(self.holders[bit] & !self.used_victims) {
            let cost = self.victims.blocks[j][bit];
            let charge = self.hold_charge(j, bit);
            if cost > budget.victim || charge > budget.mater {
                continue;
            }
            self.step()?;
            self.used_victims |= 1 << j;
            self.victim_costs[j] = cost;
            self.charged += u32::from(charge);
            let fits =
                self.close(covered | 1 << bit, Moves { mater: budget.mater - charge, victim: budget.victim - cost });
            self.charged -= u32::from(charge);
            self.used_victims &= !(1 << j);
            if fits != Some(false) {
                return fits;
            }
        }
        // Guarded by a man of the mating side not placed yet.
        for i in Bits(self.guards[bit] & !self.used_mater) {
            for o in 0..self.options[i].ways.len() {
                let opt = self.options[i].ways[o];
                // A man on the check's line moves off it.
                let cost = if self.on_line & (1 << i) != 0 { opt.cost.max(1) } else { opt.cost };
                if opt.covers & (1 << bit) == 0 || cost > budget.mater {
                    continue;
                }
                let charge = self.charge_of(&opt);
                if charge > budget.victim {
                    continue;
                }
                self.step()?;
                self.used_mater |= 1 << i;
                self.mater_costs[i] = cost;
                self.charged += u32::from(charge);
                let fits = self
                    .close(covered | opt.covers, Moves { mater: budget.mater - cost, victim: budget.victim - charge });
                self.charged -= u32::from(charge);
                self.used_mater &= !(1 << i);
                if fits != Some(false) {
                    return fits;
                }
            }
        }
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Move};

    const BLACK_MATED: Final = Final { victim: Color::Black, mate: true, king: None };

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn each_kind_of_man_has_its_own_index() {
        for (i, &(role, color)) in KINDS.iter().enumerate() {
            assert_eq!(kind_index(role, color), i);
        }
        assert_eq!(kind_index(Role::Knight, Color::Black), kind_index(Role::Knight, Color::White));
    }

    #[test]
    fn within_marks_the_flights_a_budget_reaches() {
        let costs = [0, 1, 2, FAR, 3, 0, LAST as u8, 1];
        assert_eq!(within(&costs, 0), 0b0010_0001);
        assert_eq!(within(&costs, 1), 0b1010_0011);
        assert_eq!(within(&costs, 3), 0b1011_0111);
        assert_eq!(within(&costs, 63), 0b1111_0111);
        assert_eq!(within(&[FAR; 8], 63), 0);
    }

    #[test]
    fn travel_counts_moves_on_an_empty_board() {
        assert_eq!(travel(Role::Knight, Color::White, Square::A1, Square::B3), 1);
        assert_eq!(travel(Role::Knight, Color::White, Square::A1, Square::H8), 6);
        assert_eq!(travel(Role::Bishop, Color::White, Square::A1, Square::A2), FAR);
        assert_eq!(travel(Role::Bishop, Color::White, Square::A1, Square::C1), 2);
        assert_eq!(travel(Role::Pawn, Color::White, Square::E2, Square::E4), 1);
        assert_eq!(travel(Role::Pawn, Color::White, Square::E2, Square::F4), 2);
        assert_eq!(travel(Role::Pawn, Color::White, Square::E3, Square::E2), FAR);
        assert_eq!(travel(Role::Pawn, Color::Black, Square::E7, Square::E5), 1);
        assert_eq!(travel(Role::Pawn, Color::Black, Square::E7, Square::C5), 2);
        let mut men = Vec::new();
        men_of(&pos("k7/P7/8/8/8/8/8/K7 w - - 0 1"), Color::White, &mut men);
        let pawn = men.into_iter().find(|m| m.role == Role::Pawn).unwrap();
        assert_eq!(pawn.to(Square::H1, Role::Queen), 2, "a8=Q, then along the diagonal");
        assert_eq!(pawn.to(Square::B8, Role::Knight), 1, "a7xb8=S");
    }

    #[test]
    fn a_king_far_from_any_mate_is_out_of_reach() {
        // K+R v K: a mate needs the black king on an edge. From the middle it takes Black
        // three moves; with two it cannot get there.
        let p = pos("8/8/8/3k4/8/8/8/R3K3 b - - 0 1");
        assert!(!reachable(&p, BLACK_MATED, Moves { mater: 3, victim: 2 }));
        assert!(reachable(&p, BLACK_MATED, Moves { mater: 3, victim: 3 }));
        // A helpmate in one: Ka8 is held by nothing, so Black must first go to the edge.
        let p = pos("k7/8/1K6/8/8/8/8/7R w - - 0 1");
        assert!(reachable(&p, BLACK_MATED, Moves { mater: 1, victim: 0 }), "Rh8#");
        let p = pos("8/k7/8/1K6/8/8/8/7R w - - 0 1");
        assert!(!reachable(&p, BLACK_MATED, Moves { mater: 1, victim: 0 }));
    }

    #[test]
    fn a_king_with_both_castlings_may_castle_on_either_wing() {
        // BEISPIEL/intell.inp's h#3 `1.0-0 Se3-d5 2.Qb2-h8 Bf1-c4 3.Bh6-g7 Sd5-f6#`: the
        // king ends on g8 after castling short, though it may castle long as well.
        let p = pos("r3k2r/p7/7b/n7/8/4N3/1q3pK1/5B2 b kq - 0 1");
        let g8 = Final { king: Some(Square::G8), ..BLACK_MATED };
        assert!(reachable(&p, g8, Moves { mater: 3, victim: 3 }));
    }

    #[test]
    fn an_answer_does_not_depend_on_the_questions_asked_before() {
        // The bound keeps what it worked out for men on squares between questions; each
        // answer must still be the one a fresh search gives, whatever came before.
        let positions = [
            "r3k2r/p7/7b/n7/8/4N3/1q3pK1/5B2 b kq - 0 1",
            "8/8/8/8/4B3/8/p4K2/7k b - - 0 1",
            "6r1/3B2p1/1p4r1/p2p2p1/2k1Nbpq/np3pnR/4P2K/1b6 b - - 0 1",
            // Its children after Bd7-e6 (the same victim's men) and Qh4-h5 (the same men
            // of the mating side): the side that did not move keeps its part.
            "6r1/6p1/1p2B1r1/p2p2p1/2k1Nbpq/np3pnR/4P2K/1b6 b - - 0 1",
            "6r1/3B2p1/1p4r1/p2p2pq/2k1Nbp1/np3pnR/4P2K/1b6 w - - 0 1",
            "8/8/8/3k4/8/8/8/R3K3 b - - 0 1",
        ];
        let mut questions = Vec::new();
        for fen in positions {
            for (mater, victim) in [(0, 3), (1, 0), (1, 1), (2, 2), (3, 3), (5, 4)] {
                for king in [None, Some(Square::A1), Some(Square::C4), Some(Square::G8), Some(Square::H1)] {
                    questions.push((fen, Final { king, ..BLACK_MATED }, Moves { mater, victim }));
                }
            }
        }
        let fresh: Vec<bool> =
            questions.iter().map(|&(fen, goal, moves)| Search::default().reachable(&pos(fen), goal, moves)).collect();
        assert!(fresh.iter().any(|&a| a) && fresh.iter().any(|&a| !a));
        // Forward (small budgets before large ones), backward, strided, and each question
        // of every position in turn (the same king square and moves, other men).
        let n = questions.len();
        let per = n / positions.len();
        let orders: [Vec<usize>; 4] = [
            (0..n).collect(),
            (0..n).rev().collect(),
            (0..n).map(|i| i * 7 % n).collect(),
            (0..n).map(|i| i % positions.len() * per + i / positions.len()).collect(),
        ];
        for order in orders {
            let mut kept = Search::default();
            for i in order {
                let (fen, goal, moves) = questions[i];
                assert_eq!(kept.reachable(&pos(fen), goal, moves), fresh[i], "{fen} {goal:?} {moves:?}");
            }
        }
    }

    #[test]
    fn a_man_that_stands_still_checks_only_by_a_discovery() {
        // Sf7 attacks h8, where the bound would have the king go, from where it stands;
        // its check cannot be made in one move (the black king may not step into it, and
        // the knight reaches neither f7 nor g6 again), and nothing else of White's ever
        // checks h8: out of reach with one move each, in reach with two for White.
        let p = pos("6k1/5Npp/8/8/2B5/8/8/K7 b - - 0 1");
        let h8 = Final { king: Some(Square::H8), ..BLACK_MATED };
        assert!(!reachable(&p, h8, Moves { mater: 1, victim: 1 }));
        assert!(reachable(&p, h8, Moves { mater: 2, victim: 1 }));
        // Rh8's line to a8 is shut by White's own knight, whose one move opens it and
        // guards a7: a mate in one by discovery (Sd8-c6#).
        let p = pos("k2N3R/1p6/8/8/8/8/8/K7 w - - 0 1");
        assert!(reachable(&p, Final { king: Some(Square::A8), ..BLACK_MATED }, Moves { mater: 1, victim: 0 }));
        // A mate already given (ser-h#3's short solution 1.Kd6-c5 Qb1-b4#) is in reach
        // whatever moves are left: its check was made by the move before.
        let p = pos("8/1B6/8/2k5/KQ6/8/8/8 b - - 2 2");
        assert!(reachable(&p, Final { king: Some(Square::C5), ..BLACK_MATED }, Moves { mater: 1, victim: 2 }));
    }

    #[test]
    fn a_victim_move_brings_its_man_nearer_only_within_the_budget() {
        // The black king on a8 has the flights a7, b7 and b8.
        let p = pos("k7/8/8/8/8/4K3/1p6/7r b - - 0 1");
        let near = |from, to, role, budget| nearer_to_hold(&p, Square::A8, from, to, role, budget);
        // Rh1 needs two moves to any flight: Rh7 brings it to one, Rh2 does not.
        assert!(near(Square::H1, Square::H7, Role::Rook, 1));
        assert!(!near(Square::H1, Square::H2, Role::Rook, 1));
        // With no move left after it, only a move onto a flight holds one.
        assert!(!near(Square::H1, Square::H7, Role::Rook, 0));
        assert!(near(Square::H1, Square::H8, Role::Rook, 1));
        // The pawn never gets up the board; promoted on b1, a queen gets to b7 or b8. A
        // move that changes what the man is counts as nearer, whatever the budget.
        assert!(near(Square::B2, Square::B1, Role::Queen, 1));
        assert!(near(Square::B2, Square::B1, Role::Queen, 0));
    }

    #[test]
    fn a_blocker_that_would_parry_the_check_holds_no_flight() {
        // K+B v K+R: the rook could hold a flight only beside the line of the bishop's
        // check, from where it steps between; with no second checker and nothing to pin
        // it, no mate exists in any number of moves (Popeye 4.104: no h#13).
        // The bound is asked once per final square of the king, as the search asks it.
        // With two bishops as well: they never check at once (Popeye 4.104: no h#13).
        for fen in ["8/Bk6/8/r7/2K5/8/8/8 b - - 0 1", "B7/8/8/8/8/3K3B/8/r1k5 b - - 0 1"] {
            let p = pos(fen);
            for k in Square::ALL {
                let goal = Final { king: Some(k), ..BLACK_MATED };
                assert!(!reachable(&p, goal, Moves { mater: 13, victim: 13 }), "{fen}: {k}");
            }
        }
        // Double check: the queen on b8 parries Ra1's check (to a7) and Bd5's (to b7),
        // but not both at once.
        let p = pos("kq6/8/8/8/8/8/B7/R6K w - - 0 1");
        assert!(reachable(&p, BLACK_MATED, Moves { mater: 1, victim: 0 }));
        let mate =
            Move::Normal { role: Role::Bishop, from: Square::A2, capture: None, to: Square::D5, promotion: None };
        assert!(p.play(mate).unwrap().is_checkmate());
    }

    #[test]
    fn a_victim_pawn_may_promote_to_hold_a_flight() {
        // Be4 checks h1, Kf2 holds g1 and g2; only a black man on h2 stops the king, and
        // the a-pawn gets there as a rook: a1=R, Ra1-a2 (or -h1), -h2.
        let p = pos("8/8/8/8/4B3/8/p4K2/7k b - - 0 1");
        assert!(reachable(&p, BLACK_MATED, Moves { mater: 0, victim: 3 }));
        assert!(!reachable(&p, BLACK_MATED, Moves { mater: 0, victim: 2 }));
    }

    #[test]
    fn a_pawn_takes_only_a_man_that_stands_or_comes_there() {
        // Cxb7+ is the only check in one move, with Rb1 guarding b8: a black man must
        // stand on b7 to be taken, or spend a move to get there.
        let p = pos("k7/pp6/2P5/8/8/8/8/1R5K w - - 0 1");
        assert!(reachable(&p, BLACK_MATED, Moves { mater: 1, victim: 0 }));
        let p = pos("k7/p7/2P5/8/8/8/8/1R5K w - - 0 1");
        assert!(!reachable(&p, BLACK_MATED, Moves { mater: 1, victim: 0 }));
        assert!(reachable(&p, BLACK_MATED, Moves { mater: 1, victim: 1 }));
        // A pawn's route may take on a file beside both ends: c2xb3xc4xd5-d6.
        assert!(capture_region(Color::White, Square::C2, Square::D6).contains(Square::B3));
        assert_eq!(capture_region(Color::White, Square::C2, Square::D3), Bitboard::from(Square::D3));
        assert_eq!(capture_region(Color::Black, Square::C7, Square::C5), Bitboard::EMPTY);
    }

    #[test]
    fn the_men_on_a_check_s_line_must_leave_it_in_the_moves_left() {
        // Ra8# needs b8 to g8 empty: one black man there is cleared with Black's move,
        // two are not.
        let goal = Final { king: Some(Square::H8), ..BLACK_MATED };
        assert!(reachable(&pos("7k/6pp/8/8/8/8/8/R5K1 w - - 0 1"), goal, Moves { mater: 1, victim: 0 }));
        assert!(reachable(&pos("2n4k/6pp/8/8/8/8/8/R5K1 w - - 0 1"), goal, Moves { mater: 1, victim: 1 }));
        assert!(!reachable(&pos("2n1b2k/6pp/8/8/8/8/8/R5K1 w - - 0 1"), goal, Moves { mater: 1, victim: 1 }));
    }
}
