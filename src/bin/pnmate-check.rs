//! pnmate-check: verifies a pnmate proof certificate without trusting pnmate.
//!
//! Usage: `pnmate-check [--syzygy DIRS] FILE...`. For each file it prints `valid: <claim>`
//! or `invalid: <first reason>` (prefixed by the file name when there are several) and
//! exits with status 1 when any file is invalid (2 when one cannot be read).
//!
//! This program reads the format that `src/proof/FORMAT.md` describes and uses shakmaty
//! for the rules of chess and of lichess's variants (and shakmaty-syzygy for the
//! tablebase leaves of a disproof, which need `--syzygy`) and nothing of the pnmate
//! library (a test enforces it), so a bug in the prover cannot hide in the check. It
//! re-derives every position from the root by playing the certificate's moves, so a
//! node's stored hash only names the position: a hash that names another position is
//! rejected, and a node reached from two parents must be the same position in full
//! (board, side to move, castling rights, en passant square, halfmove clock, and a
//! variant's pockets, promoted men and check counters).

use std::process::ExitCode;
use std::time::Instant;

use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, Move, MoveList, Position, Setup, fen::Fen, zobrist::Zobrist64,
};

use shakmaty_syzygy::{Tablebase, Wdl};

const MAGIC: &str = "pnmate-certificate 1";
/// The header line of a certificate with tablebase leaves.
const TABLEBASES: &str = "tablebases syzygy";
/// The edge count of a tablebase leaf.
const TABLEBASE_LEAF: u64 = 1023;
const RULES: &str = "pnmate-1";
/// The rules of a variant's certificate: its wins take the place of mate.
/// Version 1 lacked the racing kings leaf rule, which only raises leaf values: its
/// certificates are read with version 2's rules.
const VARIANT_RULES: &str = "pnmate-variant-2";
/// The rules of a chess problem's certificate: its stipulation's.
const PROBLEM_RULES: &str = "pnmate-problem-1";
const TRAILER: &[u8] = b"END\n";
/// The halfmove clock at which the game ends in a draw at the attacker's turn (75 moves).
const AUTOMATIC_DRAW_CLOCK: u32 = 150;
/// A disproof value: the attacker never mates from here.
const NEVER: u32 = u32::MAX;

type Verdict<T> = Result<T, String>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Proof,
    Disproof,
}

/// A section as the header announces it.
struct Shape {
    kind: Kind,
    attacker: Color,
    plies: u32,
    nodes: usize,
}

/// The parsed header.
struct Header {
    /// The root, in chess or the variant the header names.
    root: VariantPosition,
    /// Whether the certificate announces tablebase leaves.
    tablebases: bool,
    claim: (String, u32),
    shortest: Option<bool>,
    shapes: Vec<Shape>,
    /// A chess problem's stipulation.
    stipulation: Option<Stip>,
}

/// How a node's value starts, before its children.
#[derive(Clone, Copy)]
enum Base {
    /// Proof: the defender is checkmated here (0 plies to mate).
    Mated,
    /// Proof: one plus the child's plies (attacker) or the largest child's (defender).
    Inner,
    /// Disproof: the attacker can never mate from here.
    Never,
    /// Disproof: a tablebase leaf, still to be probed.
    Table,
    /// Disproof: a leaf, the attacker cannot mate within this many plies.
    Leaf(u32),
    /// Disproof: one plus the smallest child's value (attacker node) or the one listed
    /// reply's (defender node).
    Min,
}

fn main() -> ExitCode {
    let mut files: Vec<String> = std::env::args().skip(1).collect();
    let mut tables = None;
    if let Some(i) = files.iter().position(|f| f == "--syzygy") {
        let Some(dirs) = files.get(i + 1).cloned() else {
            eprintln!("--syzygy needs the tables' directories");
            return ExitCode::from(2);
        };
        files.drain(i..=i + 1);
        let mut tb = Tablebase::new();
        for dir in dirs.split(if cfg!(windows) { ';' } else { ':' }).filter(|d| !d.is_empty()) {
            if let Err(e) = tb.add_directory(dir) {
                eprintln!("cannot read Syzygy directory '{dir}': {e}");
                return ExitCode::from(2);
            }
        }
        tables = Some(tb);
    }
    if files.is_empty() || files.iter().any(|f| f == "-h" || f == "--help") {
        eprintln!(
            "usage: pnmate-check [--syzygy DIRS] FILE...\nVerifies pnmate proof certificates (see src/proof/FORMAT.md)."
        );
        return ExitCode::from(2);
    }
    let mut status = 0u8;
    for file in &files {
        let prefix = if files.len() > 1 { format!("{file}: ") } else { String::new() };
        let bytes = match std::fs::read(file) {
            Ok(b) => b,
            Err(e) => {
                println!("{prefix}error: cannot read {file}: {e}");
                status = status.max(2);
                continue;
            }
        };
        let start = Instant::now();
        let mut nodes = 0usize;
        match check(&bytes, tables.as_ref(), &mut nodes) {
            Ok(claim) => println!("{prefix}valid: {claim}"),
            Err(reason) => {
                println!("{prefix}invalid: {reason}");
                status = status.max(1);
            }
        }
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "{prefix}{nodes} nodes, {} bytes, {:.3} s, {:.0} nodes/s",
            bytes.len(),
            secs,
            nodes as f64 / secs.max(1e-9)
        );
    }
    ExitCode::from(status)
}

/// Checks a whole certificate; the claim in words when it holds.
fn check(bytes: &[u8], tables: Option<&Tablebase<Chess>>, nodes_seen: &mut usize) -> Verdict<String> {
    let mut r = Reader { bytes, at: 0 };
    let header = read_header(&mut r)?;
    let stm = header.root.turn();
    let (what, n) = (header.claim.0.as_str(), header.claim.1);
    if n == 0 {
        return Err("the claim's length must be at least 1".into());
    }
    let variant = header.root.variant();
    if let Some(stip) = &header.stipulation {
        return check_problem(&mut r, bytes, &header, stip, nodes_seen);
    }
    // The sections each claim needs: (kind, attacker, plies).
    let (needed, words) = match what {
        "mate" | "mated" if variant != Variant::Chess => {
            // A variant's win may fall on either side's move: the proof's plies say which,
            // and a shortest win refutes one ply less.
            let attacker = if what == "mate" { stm } else { !stm };
            let plies = header.shapes.first().map_or(0, |s| s.plies);
            if plies != 2 * n - 1 && plies != 2 * n {
                return Err(format!("a win in {n} takes {} or {} plies, the proof says {plies}", 2 * n - 1, 2 * n));
            }
            let shortest = header.shortest.ok_or("a win claim needs a `shortest` line")?;
            let mut needed = vec![(Kind::Proof, attacker, plies)];
            if shortest && plies > 1 {
                needed.push((Kind::Disproof, attacker, plies - 1));
            }
            let length =
                if what == "mate" { format!("{variant} win in {n}") } else { format!("{variant} loss in {n}") };
            (needed, format!("{length}, {}", if shortest { "shortest" } else { "upper bound only" }))
        }
        "nomate" if variant != Variant::Chess => {
            (vec![(Kind::Disproof, stm, 2 * n), (Kind::Disproof, !stm, 2 * n)], format!("no {variant} win within {n}"))
        }
        "mate" | "mated" => {
            let (attacker, plies) = if what == "mate" { (stm, 2 * n - 1) } else { (!stm, 2 * n) };
            let shortest = header.shortest.ok_or("a mate claim needs a `shortest` line")?;
            let mut needed = vec![(Kind::Proof, attacker, plies)];
            if shortest && n > 1 {
                needed.push((Kind::Disproof, attacker, plies - 2));
            }
            let length = if what == "mate" { format!("mate in {n}") } else { format!("mated in {n}") };
            (needed, format!("{length}, {}", if shortest { "shortest" } else { "upper bound only" }))
        }
        "nomate" => {
            (vec![(Kind::Disproof, stm, 2 * n - 1), (Kind::Disproof, !stm, 2 * n)], format!("no mate within {n}"))
        }
        _ => return Err(format!("unknown claim `{what}`")),
    };
    let announced: Vec<(Kind, Color, u32)> = header.shapes.iter().map(|s| (s.kind, s.attacker, s.plies)).collect();
    if announced != needed {
        return Err(format!("the sections do not match the claim `{what} {n}`"));
    }
    for (number, shape) in header.shapes.iter().enumerate() {
        let tag = r.take(1)?[0];
        if tag != if shape.kind == Kind::Proof { b'P' } else { b'D' } {
            return Err(format!("section {number}: wrong tag"));
        }
        let leaves = header.tablebases.then_some(tables);
        let value = check_section(&mut r, &header.root, shape, leaves).map_err(|e| format!("section {number}: {e}"))?;
        *nodes_seen += shape.nodes;
        match shape.kind {
            Kind::Proof if value > shape.plies => {
                return Err(format!(
                    "section {number}: the proof needs {value} plies, the claim allows {}",
                    shape.plies
                ));
            }
            Kind::Disproof if value < shape.plies => {
                return Err(format!(
                    "section {number}: the disproof shows no mate within {value} plies, the claim needs {}",
                    shape.plies
                ));
            }
            _ => {}
        }
    }
    if r.take(TRAILER.len())? != TRAILER {
        return Err("no END trailer after the last section".into());
    }
    if r.at != bytes.len() {
        return Err("bytes after the END trailer".into());
    }
    Ok(words)
}

fn read_header(r: &mut Reader) -> Verdict<Header> {
    if r.line()? != MAGIC {
        return Err(format!("the first line is not `{MAGIC}`"));
    }
    let rules = r.line()?;
    let mut stipulation = None;
    let variant = if rules == format!("rules {RULES}") {
        Variant::Chess
    } else if rules == format!("rules {PROBLEM_RULES}") {
        let line = r.line()?;
        let text = line.strip_prefix("stipulation ").ok_or("a problem's certificate names its stipulation next")?;
        stipulation = Some(Stip::parse(text).ok_or_else(|| format!("unknown stipulation `{text}`"))?);
        Variant::Chess
    } else if rules == format!("rules {VARIANT_RULES}") || rules == "rules pnmate-variant-1" {
        let line = r.line()?;
        let name = line.strip_prefix("variant ").ok_or("a variant certificate names its variant next")?;
        match Variant::from_uci(name) {
            Ok(Variant::Chess) | Err(_) => return Err(format!("unknown variant `{name}`")),
            Ok(v) => v,
        }
    } else {
        return Err(format!("unknown rules: `{rules}`"));
    };
    let fen = r.line()?;
    let fen = fen.strip_prefix("fen ").ok_or("the position must be given as `fen <FEN>`")?;
    let setup: Setup = fen.parse::<Fen>().map_err(|e| format!("bad FEN: {e}"))?.into_setup();
    let root = match VariantPosition::from_setup(variant, setup.clone(), CastlingMode::Standard) {
        Ok(pos) => pos,
        Err(_) => VariantPosition::from_setup(variant, setup, CastlingMode::Chess960)
            .map_err(|e| format!("illegal root position: {e}"))?,
    };
    if r.line()? != "history none" {
        return Err("only certificates without game history (`history none`) are supported".into());
    }
    let mut claim = r.line()?;
    let tablebases = claim == TABLEBASES;
    if tablebases {
        claim = r.line()?;
    }
    let claim = claim.strip_prefix("claim ").ok_or("the fifth line must be `claim ...`")?;
    let (what, n) = claim.split_once(' ').ok_or("bad claim line")?;
    let n: u32 = n.parse().map_err(|_| "bad claim length")?;
    if n > 100_000 {
        return Err("the claim's length is out of range".into());
    }
    let mut shortest = None;
    let mut shapes = Vec::new();
    loop {
        let line = r.line()?;
        if line == "data" {
            break;
        }
        if let Some(v) = line.strip_prefix("shortest ") {
            shortest = Some(match v {
                "yes" => true,
                "no" => false,
                _ => return Err("`shortest` must be yes or no".into()),
            });
        } else if let Some(v) = line.strip_prefix("section ") {
            let f: Vec<&str> = v.split(' ').collect();
            let [kind, who, plies, nodes] = f[..] else { return Err(format!("bad section line `{line}`")) };
            let kind = match kind {
                "proof" => Kind::Proof,
                "disproof" => Kind::Disproof,
                _ => return Err(format!("bad section kind `{kind}`")),
            };
            let attacker = match who {
                "white" => Color::White,
                "black" => Color::Black,
                _ => return Err(format!("bad attacker `{who}`")),
            };
            let plies = plies.parse().map_err(|_| "bad section plies")?;
            let nodes: usize = nodes.parse().map_err(|_| "bad section size")?;
            if nodes == 0 || nodes > u32::MAX as usize {
                return Err("a section needs between 1 and 2^32 - 1 nodes".into());
            }
            shapes.push(Shape { kind, attacker, plies, nodes });
        } else {
            return Err(format!("unknown header line `{line}`"));
        }
    }
    Ok(Header { root, tablebases, claim: (what.to_string(), n), shortest, shapes, stipulation })
}

/// A position as the rules see it: everything but the move number (board, side to
/// move, castling rights, en passant square when legal, halfmove clock, and a variant's
/// pockets, promoted men and check counters).
fn identity(pos: &VariantPosition) -> Setup {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.fullmoves = std::num::NonZeroU32::MIN;
    setup
}

/// How a game stands for `attacker` by the variant's rules: Some(true) when the attacker
/// has won, Some(false) when the game is over otherwise, None while it goes on.
fn ended(pos: &VariantPosition, legal: &MoveList, attacker: Color) -> Option<bool> {
    if let Some(known) = pos.variant_outcome().known() {
        return Some(known.winner() == Some(attacker));
    }
    if legal.is_empty() {
        return Some(pos.is_check() && pos.turn() != attacker);
    }
    None
}

/// Plies within which the rules alone rule out `attacker`'s win: in racing kings, a king
/// d ranks below the eighth needs d moves, which take 2d-1 plies from its own turn and 2d
/// from the other side's.
fn out_of_reach(pos: &VariantPosition, attacker: Color) -> u32 {
    let Some(king) = pos.board().king_of(attacker).filter(|_| pos.variant() == Variant::RacingKings) else {
        return 0;
    };
    let ranks = 7 - u32::from(king.rank());
    let least = if ranks == 0 {
        0
    } else if pos.turn() == attacker {
        2 * ranks - 1
    } else {
        2 * ranks
    };
    least.saturating_sub(1)
}

/// The code of a move (FORMAT.md, "Moves").
fn code(m: &Move) -> u16 {
    let (from, to, promotion) = match *m {
        Move::Normal { from, to, promotion, .. } => (from, to, promotion),
        Move::EnPassant { from, to } => (from, to, None),
        Move::Castle { king, rook } => (king, rook, None),
        Move::Put { role, to } => (to, to, Some(role)),
    };
    u16::from(from) | (u16::from(to) << 6) | (promotion.map_or(0, |r| r as u16) << 12)
}

/// The defender may claim a draw under the 50-move rule before moving: the clock is at
/// 100, or at 99 with a move that does not reset it.
fn fifty_move_claim(pos: &VariantPosition, legal: &MoveList) -> bool {
    let clock = pos.halfmoves();
    clock >= 100 || (clock >= 99 && legal.iter().any(|m| !m.is_zeroing()))
}

/// A section's nodes as read: each one's hash, where its edges start, the edges (move
/// code, child) and the tablebase leaves.
struct Nodes {
    hashes: Vec<u64>,
    starts: Vec<usize>,
    edges: Vec<(u16, u32)>,
    table_leaves: Vec<usize>,
}

/// Reads the nodes of a section; tablebase leaves only in a disproof that may have them.
fn read_nodes(r: &mut Reader, shape: &Shape, tablebases: bool) -> Verdict<Nodes> {
    let n = shape.nodes;
    if n > (r.bytes.len() - r.at) / 9 {
        return Err("the file is truncated (fewer bytes than the announced nodes need)".into());
    }
    let mut hashes = Vec::with_capacity(n);
    let mut starts = Vec::with_capacity(n + 1);
    let mut edges: Vec<(u16, u32)> = Vec::new();
    let mut table_leaves = Vec::new();
    for i in 0..n {
        hashes.push(u64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes")));
        starts.push(edges.len());
        let k = r.varint()?;
        if k == TABLEBASE_LEAF {
            if !tablebases || shape.kind != Kind::Disproof {
                return Err(format!("node {i}: a tablebase leaf where none may be"));
            }
            table_leaves.push(i);
            continue;
        }
        if k > 512 {
            return Err("a node with more than 512 edges".into());
        }
        for _ in 0..k {
            let code = u16::from_le_bytes(r.take(2)?.try_into().expect("2 bytes"));
            let child = r.varint()?;
            edges.push((code, u32::try_from(child).map_err(|_| "child index out of range")?));
        }
    }
    starts.push(edges.len());
    Ok(Nodes { hashes, starts, edges, table_leaves })
}

/// The values of a section's nodes, children first, from each one's base.
fn values_of(bases: &[Base], starts: &[usize], edges: &[(u16, u32)]) -> Vec<u32> {
    let mut values = vec![0u32; bases.len()];
    for i in 0..bases.len() {
        let children = edges[starts[i]..starts[i + 1]].iter().map(|&(_, c)| values[c as usize]);
        values[i] = match bases[i] {
            Base::Mated => 0,
            Base::Never | Base::Table => NEVER,
            Base::Leaf(v) => v,
            Base::Inner => children.max().expect("inner nodes have children").saturating_add(1),
            Base::Min => children.min().expect("inner nodes have children").saturating_add(1),
        };
    }
    values
}

/// Checks one section and returns its root's value: plies to mate (proof) or plies
/// within which the attacker cannot mate (disproof). `leaves` is Some when the header
/// announces tablebase leaves, with the tables to probe them when given.
fn check_section(
    r: &mut Reader,
    root: &VariantPosition,
    shape: &Shape,
    leaves: Option<Option<&Tablebase<Chess>>>,
) -> Verdict<u32> {
    let n = shape.nodes;
    let Nodes { hashes, starts, edges, table_leaves } = read_nodes(r, shape, leaves.is_some())?;

    // Top-down: every node's position from its parents (all of which come after it).
    let mut positions: Vec<Option<VariantPosition>> = vec![None; n];
    // In chess the defender never loses on its own move, so a defender's node of a
    // disproof shows one ply without mate; in a variant it may (antichess's last man
    // taken), so it shows none.
    let defender_leaf = if root.variant() == Variant::Chess { 1 } else { 0 };
    positions[n - 1] = Some(root.clone());
    let mut bases = vec![Base::Inner; n];
    for i in (0..n).rev() {
        let pos = positions[i].take().ok_or_else(|| format!("node {i} is not reached from the root"))?;
        if pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0 != hashes[i] {
            return Err(format!("node {i}: its hash names another position"));
        }
        let legal = pos.legal_moves();
        let mine = &edges[starts[i]..starts[i + 1]];
        let attacker_moves = pos.turn() == shape.attacker;
        let cannot_mate = pos.has_insufficient_material(shape.attacker);
        let at = |what: &str| format!("node {i} ({}): {what}", fen_of(&pos));
        if table_leaves.binary_search(&i).is_ok() {
            let tables = leaves.flatten().ok_or_else(|| at("a tablebase leaf: give --syzygy with the tables"))?;
            if pos.castles().any() {
                return Err(at("a tablebase leaf with castling rights"));
            }
            let VariantPosition::Chess(chess) = &pos else { return Err(at("a tablebase leaf outside chess")) };
            let wdl =
                tables.probe_wdl_after_zeroing(chess).map_err(|e| at(&format!("cannot probe the tables: {e}")))?;
            let attacker_wins = if attacker_moves { wdl == Wdl::Win } else { wdl == Wdl::Loss };
            if attacker_wins {
                return Err(at("a tablebase leaf where the tables say the attacker wins"));
            }
            bases[i] = Base::Table;
            continue;
        }
        let end = ended(&pos, &legal, shape.attacker);
        bases[i] = match (shape.kind, attacker_moves) {
            // The attacker has won: mate, or the variant's own win.
            (Kind::Proof, _) if end == Some(true) => Base::Mated,
            (Kind::Disproof, _) if end == Some(true) => {
                return Err(at(if defender_leaf == 1 {
                    "checkmate: the attacker mates here"
                } else {
                    "the attacker has won here"
                }));
            }
            (Kind::Proof, true) => {
                if legal.is_empty() {
                    return Err(at("the attacker has no legal move"));
                }
                if end.is_some() {
                    return Err(at("the game is over without the attacker's win"));
                }
                if pos.halfmoves() >= AUTOMATIC_DRAW_CLOCK || cannot_mate {
                    return Err(at("drawn (75-move rule or insufficient material)"));
                }
                if mine.len() != 1 {
                    return Err(at("an attacker node of a proof must give exactly one move"));
                }
                Base::Inner
            }
            (Kind::Proof, false) => {
                if legal.is_empty() {
                    return Err(at("stalemate, not checkmate"));
                } else if end.is_some() {
                    return Err(at("the game is over without the attacker's win"));
                } else {
                    if fifty_move_claim(&pos, &legal) {
                        return Err(at("the defender may claim a 50-move draw"));
                    }
                    if cannot_mate {
                        return Err(at("the attacker has insufficient mating material"));
                    }
                    if mine.len() != legal.len() {
                        return Err(at(&format!("lists {} of the {} legal replies", mine.len(), legal.len())));
                    }
                    Base::Inner
                }
            }
            (Kind::Disproof, true) => {
                if end.is_some() || pos.halfmoves() >= AUTOMATIC_DRAW_CLOCK || cannot_mate {
                    Base::Never
                } else if mine.is_empty() {
                    Base::Leaf(out_of_reach(&pos, shape.attacker))
                } else if mine.len() != legal.len() {
                    return Err(at(&format!("refutes {} of the attacker's {} legal moves", mine.len(), legal.len())));
                } else {
                    Base::Min
                }
            }
            (Kind::Disproof, false) => {
                if end.is_some() || fifty_move_claim(&pos, &legal) || cannot_mate {
                    Base::Never
                } else if mine.is_empty() {
                    Base::Leaf(defender_leaf.max(out_of_reach(&pos, shape.attacker)))
                } else if mine.len() > 1 {
                    return Err(at("a defender node of a disproof gives at most one reply"));
                } else {
                    Base::Min
                }
            }
        };
        if matches!(bases[i], Base::Mated | Base::Never) && !mine.is_empty() {
            return Err(at("a final position lists moves"));
        }
        for (m, child) in listed_moves(mine, &legal, "legal", i).map_err(|e| at(&e))? {
            let mut after = pos.clone();
            after.play_unchecked(*m);
            match &positions[child] {
                None => positions[child] = Some(after),
                Some(known) if identity(known) == identity(&after) => {}
                Some(_) => return Err(at(&format!("node {child} is reached as two different positions"))),
            }
        }
    }

    let values = values_of(&bases, &starts, &edges);
    Ok(values[n - 1])
}

/// Node `i`'s listed edges as (move, child): each code one of `moves` (the `what` ones:
/// legal or allowed), none twice, and each child listed before the node.
fn listed_moves<'m>(
    mine: &[(u16, u32)],
    moves: &'m [Move],
    what: &str,
    i: usize,
) -> Result<Vec<(&'m Move, usize)>, String> {
    let mut out: Vec<(&Move, usize)> = Vec::with_capacity(mine.len());
    for &(c, child) in mine {
        let m = moves.iter().find(|m| code(m) == c).ok_or_else(|| format!("move code {c} is not {what}"))?;
        if out.iter().any(|&(seen, _)| code(seen) == c) {
            return Err(format!("move {} is listed twice", uci(m)));
        }
        let child = child as usize;
        if child >= i {
            return Err(format!("child index {child} is not smaller than the node's"));
        }
        out.push((m, child));
    }
    Ok(out)
}

fn fen_of(pos: &VariantPosition) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

fn uci(m: &Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// Reads a certificate's bytes in order.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Verdict<&'b [u8]> {
        let s = self.bytes.get(self.at..self.at + n).ok_or("the file is truncated")?;
        self.at += n;
        Ok(s)
    }

    fn line(&mut self) -> Verdict<String> {
        let rest = &self.bytes[self.at..];
        let end = rest.iter().take(4096).position(|&b| b == b'\n').ok_or("the header is truncated")?;
        let text = std::str::from_utf8(&rest[..end]).map_err(|_| "the header is not UTF-8")?.to_string();
        self.at += end + 1;
        Ok(text)
    }

    fn varint(&mut self) -> Verdict<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a number longer than 64 bits".into())
    }
}

/// A chess problem's stipulation as the checker reads it (FORMAT.md, "Problems").
struct Stip {
    text: String,
    /// `s`, `r`, `h`, `ser-`, `ser-h` or empty (direct).
    play: &'static str,
    /// The goal: mate (else stalemate).
    mate: bool,
    moves: u32,
    /// `h#n.5`: White moves first.
    half: bool,
}

impl Stip {
    fn parse(text: &str) -> Option<Stip> {
        let t = text.to_ascii_lowercase();
        let play = ["ser-h", "ser-", "s", "r", "h"].into_iter().find(|p| t.starts_with(p)).unwrap_or("");
        let rest = &t[play.len()..];
        let mate = rest.starts_with('#');
        if !mate && !rest.starts_with('=') {
            return None;
        }
        let count = &rest[1..];
        let (count, half) = count.strip_suffix(".5").map_or((count, false), |c| (c, true));
        let moves: u32 = count.parse().ok().filter(|&n| (1..=1000).contains(&n))?;
        if (half && play != "h") || (play == "r" && !mate) || (play == "ser-" && !mate) {
            return None;
        }
        Some(Stip { text: text.to_string(), play, mate, moves, half })
    }

    /// The plies of the stipulation, the passes of a series counted.
    fn plies(&self) -> u32 {
        let n = self.moves;
        match self.play {
            "" | "ser-" => 2 * n - 1,
            "h" => 2 * n + u32::from(self.half),
            _ => 2 * n,
        }
    }

    fn first_mover(&self) -> Color {
        if (self.play == "h" && !self.half) || self.play == "ser-h" { Color::Black } else { Color::White }
    }

    fn victim(&self) -> Color {
        if self.play == "s" || self.play == "r" { Color::White } else { Color::Black }
    }

    fn cooperative(&self) -> bool {
        self.play == "h" || self.play == "ser-h"
    }

    fn series_side(&self) -> Option<Color> {
        match self.play {
            "ser-" => Some(Color::White),
            "ser-h" => Some(Color::Black),
            _ => None,
        }
    }

    /// Whether the game has ended in the goal at `pos`, whose legal moves are `legal`.
    fn met(&self, pos: &Chess, legal: &MoveList) -> bool {
        legal.is_empty() && pos.turn() == self.victim() && pos.is_check() == self.mate
    }

    /// How a problem stands at `pos` and the moves the stipulation allows there:
    /// Some(true) met, Some(false) no longer possible, None open.
    fn state(&self, pos: &Chess) -> (Option<bool>, Vec<Move>) {
        let legal = pos.legal_moves();
        let waiting = self.series_side().is_some_and(|s| s != pos.turn());
        if legal.is_empty() && (!waiting || pos.is_check()) {
            return (Some(self.met(pos, &legal)), Vec::new());
        }
        let mut allowed = Vec::new();
        if waiting {
            if !pos.is_check() {
                let king = pos.board().king_of(pos.turn()).expect("a king");
                allowed.push(Move::Put { role: shakmaty::Role::King, to: king });
            }
            if self.cooperative() {
                allowed.extend(legal.iter().copied().filter(|&m| {
                    let after = pos.clone().play(m).expect("a legal move");
                    self.met(&after, &after.legal_moves())
                }));
            }
        } else {
            let mates = |m: &Move| {
                let after = pos.clone().play(*m).expect("a legal move");
                after.is_checkmate()
            };
            if self.play == "r" && legal.iter().any(mates) {
                allowed.extend(legal.iter().copied().filter(mates));
            } else {
                allowed.extend(legal.iter().copied());
            }
        }
        if allowed.is_empty() { (Some(false), allowed) } else { (None, allowed) }
    }
}

/// Plays `m`, a move the stipulation allows, where a pass hands the move over.
fn play_problem(pos: &Chess, m: Move) -> Chess {
    match m {
        Move::Put { .. } => pos.clone().swap_turn().expect("a pass out of check"),
        m => pos.clone().play(m).expect("a legal move"),
    }
}

/// Checks a chess problem's certificate: `claim solution n` with the proof, or `claim
/// nosolution n` with the disproof, of the stipulation's plies from the first mover.
fn check_problem(
    r: &mut Reader,
    bytes: &[u8],
    header: &Header,
    stip: &Stip,
    nodes_seen: &mut usize,
) -> Verdict<String> {
    let VariantPosition::Chess(root) = &header.root else { return Err("a problem is set in chess".into()) };
    let (what, n) = (header.claim.0.as_str(), header.claim.1);
    if n != stip.moves {
        return Err(format!("the claim's length {n} is not the stipulation's {}", stip.moves));
    }
    if root.turn() != stip.first_mover() {
        return Err(format!("in {} the other side moves first", stip.text));
    }
    let kind = match what {
        "solution" => Kind::Proof,
        "nosolution" => Kind::Disproof,
        _ => return Err(format!("unknown claim `{what}` for a problem")),
    };
    let [shape] = &header.shapes[..] else { return Err("a problem's certificate has one section".into()) };
    if (shape.kind, shape.attacker, shape.plies) != (kind, stip.first_mover(), stip.plies()) {
        return Err(format!("the section does not match the claim `{what} {n}`"));
    }
    if header.tablebases {
        return Err("a problem's certificate has no tablebase leaves".into());
    }
    let tag = r.take(1)?[0];
    if tag != if kind == Kind::Proof { b'P' } else { b'D' } {
        return Err("section 0: wrong tag".into());
    }
    let value = check_problem_section(r, root, stip, shape).map_err(|e| format!("section 0: {e}"))?;
    *nodes_seen += shape.nodes;
    if kind == Kind::Proof && value > shape.plies {
        return Err(format!("the proof needs {value} plies, the stipulation allows {}", shape.plies));
    }
    if kind == Kind::Disproof && value < shape.plies {
        return Err(format!("the disproof covers {value} plies, the stipulation has {}", shape.plies));
    }
    if r.take(TRAILER.len())? != TRAILER || r.at != bytes.len() {
        return Err("no END trailer right after the section".into());
    }
    Ok(if kind == Kind::Proof { format!("{}: solution", stip.text) } else { format!("{}: no solution", stip.text) })
}

/// Checks a problem's section by its stipulation's rules and returns its root's value.
/// Every node is the attacker's choice in help play; otherwise the first mover chooses
/// and the other side's moves are all answered. No draw rule applies.
fn check_problem_section(r: &mut Reader, root: &Chess, stip: &Stip, shape: &Shape) -> Verdict<u32> {
    let n = shape.nodes;
    let Nodes { hashes, starts, edges, .. } = read_nodes(r, shape, false)?;
    let mut positions: Vec<Option<Chess>> = vec![None; n];
    positions[n - 1] = Some(root.clone());
    let mut bases = vec![Base::Inner; n];
    for i in (0..n).rev() {
        let pos = positions[i].take().ok_or_else(|| format!("node {i} is not reached from the root"))?;
        if pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0 != hashes[i] {
            return Err(format!("node {i}: its hash names another position"));
        }
        let at = |what: &str| format!("node {i} ({}): {what}", Fen::from_position(&pos, EnPassantMode::Legal));
        let mine = &edges[starts[i]..starts[i + 1]];
        let (end, allowed) = stip.state(&pos);
        let chooser = stip.cooperative() || pos.turn() == shape.attacker;
        bases[i] = match (shape.kind, end) {
            (Kind::Proof, Some(true)) => Base::Mated,
            (Kind::Proof, Some(false)) => return Err(at("the stipulation can no longer be met")),
            (Kind::Disproof, Some(true)) => return Err(at("the stipulation is met here")),
            (Kind::Disproof, Some(false)) => Base::Never,
            (Kind::Proof, None) if chooser && mine.len() != 1 => {
                return Err(at("a node of the attacker's choice in a proof gives exactly one move"));
            }
            (Kind::Proof, None) if !chooser && mine.len() != allowed.len() => {
                return Err(at(&format!("lists {} of the {} allowed replies", mine.len(), allowed.len())));
            }
            (Kind::Proof, None) => Base::Inner,
            (Kind::Disproof, None) if mine.is_empty() => Base::Leaf(0),
            (Kind::Disproof, None) if chooser && mine.len() != allowed.len() => {
                return Err(at(&format!("refutes {} of the {} allowed moves", mine.len(), allowed.len())));
            }
            (Kind::Disproof, None) if !chooser && mine.len() > 1 => {
                return Err(at("a defender's node of a disproof gives at most one reply"));
            }
            (Kind::Disproof, None) => Base::Min,
        };
        if matches!(bases[i], Base::Mated | Base::Never) && !mine.is_empty() {
            return Err(at("a final position lists moves"));
        }
        for (m, child) in listed_moves(mine, &allowed, "allowed", i).map_err(|e| at(&e))? {
            let after = play_problem(&pos, *m);
            let same = |known: &Chess| {
                let id = |p: &Chess| {
                    let mut s = p.to_setup(EnPassantMode::Legal);
                    s.fullmoves = std::num::NonZeroU32::MIN;
                    s
                };
                id(known) == id(&after)
            };
            match &positions[child] {
                None => positions[child] = Some(after),
                Some(known) if same(known) => {}
                Some(_) => return Err(at(&format!("node {child} is reached as two different positions"))),
            }
        }
    }
    Ok(values_of(&bases, &starts, &edges)[n - 1])
}
