//! Proof certificates: a claim of the prover with the whole proof behind it, in a file a
//! stranger can check without trusting pnmate (the format: `FORMAT.md` beside this file;
//! the independent checker: `src/bin/pnmate-check.rs`).
//!
//! This module holds the certificate as data and its encoding. The DAGs themselves are
//! extracted from the search's table by `certify`, which also writes them.

use shakmaty::variant::Variant;
use shakmaty::{Color, Move};

use crate::chess::movecode::MoveCode;
use crate::error::CertError;

/// What writing one certificate produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Nodes over all sections.
    pub nodes: usize,
    /// Bytes of the file.
    pub bytes: usize,
    /// The claim written.
    pub claim: Claim,
    /// Whether the refutation of a shorter mate is included.
    pub shortest: bool,
    /// Why the refutation is missing from a mate proven shortest, when it is.
    pub note: Option<String>,
}

/// The first line of every certificate.
pub const MAGIC: &str = "pnmate-certificate 1";
/// The rules a certificate is checked under (FORMAT.md, "Rules").
pub const RULES: &str = "pnmate-1";
/// The rules of a variant's certificate (FORMAT.md, "Variants").
pub const VARIANT_RULES: &str = "pnmate-variant-2";
/// The rules of a chess problem's certificate (FORMAT.md, "Problems").
pub const PROBLEM_RULES: &str = "pnmate-problem-1";
/// The most edges a node may have: every legal move of a crazyhouse position fits.
pub const MAX_EDGES: usize = 512;
/// The bytes after the last section: a file that lacks them is truncated.
pub const TRAILER: &[u8; 4] = b"END\n";
/// The header line of a certificate with tablebase leaves.
pub const TABLEBASES: &str = "tablebases syzygy";
/// The edge count that marks a tablebase leaf (no edges follow).
pub const TABLEBASE_LEAF: u64 = 1023;

/// What a certificate claims about its root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The side to move mates in this many moves.
    Mate(u32),
    /// The side to move is mated in this many moves.
    Mated(u32),
    /// Neither side mates within this many moves.
    NoMate(u32),
    /// A chess problem's stipulation of this many moves is met.
    Solution(u32),
    /// It cannot be met.
    NoSolution(u32),
}

impl std::fmt::Display for Claim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Claim::Mate(m) => write!(f, "mate {m}"),
            Claim::Mated(m) => write!(f, "mated {m}"),
            Claim::NoMate(n) => write!(f, "nomate {n}"),
            Claim::Solution(n) => write!(f, "solution {n}"),
            Claim::NoSolution(n) => write!(f, "nosolution {n}"),
        }
    }
}

/// What a search of a mate proved, as its certificate claims it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MateClaim {
    /// The side to move mates in this many moves.
    Mate(u32),
    /// The side to move is mated in this many moves.
    Mated(u32),
    /// Neither side mates within this many moves.
    NoMate(u32),
}

impl From<MateClaim> for Claim {
    fn from(c: MateClaim) -> Claim {
        match c {
            MateClaim::Mate(m) => Claim::Mate(m),
            MateClaim::Mated(m) => Claim::Mated(m),
            MateClaim::NoMate(n) => Claim::NoMate(n),
        }
    }
}

/// A section's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The attacker mates within the section's plies: one move at attacker nodes, every
    /// legal reply at defender nodes, checkmates at the leaves.
    Proof,
    /// The attacker does not mate within the section's plies: every legal move at attacker
    /// nodes, one reply (or none) at defender nodes.
    Disproof,
}

/// One node of a section: its position's name and its edges (move code, child index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertNode {
    /// The Polyglot Zobrist hash of the node's position (shakmaty's `Zobrist64`, the en
    /// passant square counted only when a capture there is legal).
    pub hash: u64,
    /// The node's moves and the index of the node each one leads to (always smaller than
    /// this node's own index).
    pub edges: Vec<(u16, u32)>,
    /// A tablebase leaf of a disproof: the tables say the attacker cannot force mate from
    /// this position (FORMAT.md, "Tablebase leaves"). It has no edges.
    pub tablebase: bool,
}

/// A proof or disproof DAG, children before parents: the root is the last node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Proof or disproof.
    pub kind: Kind,
    /// The side that tries to mate.
    pub attacker: Color,
    /// Proof: the attacker mates within this many plies. Disproof: it does not.
    pub plies: u32,
    /// The nodes, root last.
    pub nodes: Vec<CertNode>,
}

/// A certificate: header and sections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The game's rules: chess, or one of the variants.
    pub variant: Variant,
    /// The root position (FEN with clocks).
    pub fen: String,
    /// A chess problem's stipulation (`s#3`), checked under [`PROBLEM_RULES`].
    pub stipulation: Option<String>,
    /// The claim.
    pub claim: Claim,
    /// For mate claims: whether the sections include the refutation of one move less.
    pub shortest: bool,
    /// The sections (see FORMAT.md for which claim needs which).
    pub sections: Vec<Section>,
}

/// The 16-bit code of a move in a certificate: from square (bits 0-5), to square (6-11;
/// for castling the rook's square), promotion role (12-14: 0 none, 2 knight ... 5 queen).
pub fn move_code(m: Move) -> u16 {
    MoveCode::of(m).portable()
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Reads the binary part of a certificate.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn line(&mut self) -> Result<&'b str, CertError> {
        let rest = &self.bytes[self.at..];
        let end = rest.iter().position(|&b| b == b'\n').ok_or(CertError::Format("header ends early"))?;
        self.at += end + 1;
        std::str::from_utf8(&rest[..end]).map_err(|_| CertError::Format("header is not UTF-8"))
    }

    fn take(&mut self, n: usize) -> Result<&'b [u8], CertError> {
        let s = self.bytes.get(self.at..self.at + n).ok_or(CertError::Format("truncated"))?;
        self.at += n;
        Ok(s)
    }

    fn varint(&mut self) -> Result<u64, CertError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(CertError::Format("bad varint"))
    }
}

impl Certificate {
    /// The header lines (text, each ending in a newline, the last one `data`).
    fn header(&self) -> String {
        let sections: Vec<String> = self
            .sections
            .iter()
            .map(|s| {
                let kind = if s.kind == Kind::Proof { "proof" } else { "disproof" };
                let who = if s.attacker == Color::White { "white" } else { "black" };
                format!("{kind} {who} {} {}", s.plies, s.nodes.len())
            })
            .collect();
        let rules = match (&self.stipulation, self.variant) {
            (Some(stip), _) => format!("rules {PROBLEM_RULES}\nstipulation {stip}"),
            (None, Variant::Chess) => format!("rules {RULES}"),
            (None, v) => format!("rules {VARIANT_RULES}\nvariant {}", v.uci()),
        };
        let mut h = format!("{MAGIC}\n{rules}\nfen {}\nhistory none\n", self.fen);
        if self.sections.iter().any(|s| s.nodes.iter().any(|n| n.tablebase)) {
            h.push_str(&format!("{TABLEBASES}\n"));
        }
        h.push_str(&format!("claim {}\n", self.claim));
        if matches!(self.claim, Claim::Mate(_) | Claim::Mated(_)) {
            h.push_str(if self.shortest { "shortest yes\n" } else { "shortest no\n" });
        }
        for s in sections {
            h.push_str(&format!("section {s}\n"));
        }
        h.push_str("data\n");
        h
    }

    /// The certificate as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.header().into_bytes();
        for s in &self.sections {
            out.push(if s.kind == Kind::Proof { b'P' } else { b'D' });
            for node in &s.nodes {
                out.extend_from_slice(&node.hash.to_le_bytes());
                put_varint(&mut out, if node.tablebase { TABLEBASE_LEAF } else { node.edges.len() as u64 });
                for &(code, child) in &node.edges {
                    out.extend_from_slice(&code.to_le_bytes());
                    put_varint(&mut out, u64::from(child));
                }
            }
        }
        out.extend_from_slice(TRAILER);
        out
    }

    /// Distinct nodes over all sections.
    pub fn node_count(&self) -> usize {
        self.sections.iter().map(|s| s.nodes.len()).sum()
    }

    /// Reads a certificate written by [`Certificate::to_bytes`] (for tools and tests; it
    /// checks the layout only, nothing of the chess: that is `pnmate-check`'s work).
    pub fn from_bytes(bytes: &[u8]) -> Result<Certificate, CertError> {
        let mut r = Reader { bytes, at: 0 };
        if r.line()? != MAGIC {
            return Err(CertError::Format("not a pnmate certificate"));
        }
        let (mut fen, mut claim, mut shortest, mut shapes) = (None, None, false, Vec::new());
        let mut variant = Variant::Chess;
        let mut stipulation = None;
        loop {
            let l = r.line()?;
            let (key, value) = l.split_once(' ').unwrap_or((l, ""));
            match key {
                "data" => break,
                "fen" => fen = Some(value.to_string()),
                "variant" => variant = Variant::from_uci(value).map_err(|_| CertError::Format("bad variant"))?,
                "stipulation" => stipulation = Some(value.to_string()),
                "claim" => {
                    let (what, n) = value.split_once(' ').ok_or(CertError::Format("bad claim"))?;
                    let n: u32 = n.parse().map_err(|_| CertError::Format("bad claim"))?;
                    claim = Some(match what {
                        "mate" => Claim::Mate(n),
                        "mated" => Claim::Mated(n),
                        "nomate" => Claim::NoMate(n),
                        "solution" => Claim::Solution(n),
                        "nosolution" => Claim::NoSolution(n),
                        _ => return Err(CertError::Format("bad claim")),
                    });
                }
                "shortest" => shortest = value == "yes",
                "section" => {
                    let f: Vec<&str> = value.split(' ').collect();
                    let [kind, who, plies, count] = f[..] else { return Err(CertError::Format("bad section line")) };
                    let kind = if kind == "proof" { Kind::Proof } else { Kind::Disproof };
                    let attacker = if who == "white" { Color::White } else { Color::Black };
                    let plies = plies.parse().map_err(|_| CertError::Format("bad plies"))?;
                    let count: usize = count.parse().map_err(|_| CertError::Format("bad count"))?;
                    shapes.push((kind, attacker, plies, count));
                }
                _ => {}
            }
        }
        let mut sections = Vec::new();
        for (kind, attacker, plies, count) in shapes {
            r.take(1)?;
            let mut nodes = Vec::with_capacity(count);
            for _ in 0..count {
                let hash = u64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes"));
                let n = r.varint()?;
                let tablebase = n == TABLEBASE_LEAF;
                let n = if tablebase { 0 } else { n.min(MAX_EDGES as u64) };
                let mut edges = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let code = u16::from_le_bytes(r.take(2)?.try_into().expect("2 bytes"));
                    edges.push((code, r.varint()? as u32));
                }
                nodes.push(CertNode { hash, edges, tablebase });
            }
            sections.push(Section { kind, attacker, plies, nodes });
        }
        if r.take(4)? != TRAILER || r.at != bytes.len() {
            return Err(CertError::Format("no trailer"));
        }
        Ok(Certificate {
            variant,
            fen: fen.ok_or(CertError::Format("no fen"))?,
            stipulation,
            claim: claim.ok_or(CertError::Format("no claim"))?,
            shortest,
            sections,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Position, Role, Square, fen::Fen};

    #[test]
    fn move_codes_are_unique_and_decode_back() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
        ] {
            let pos: shakmaty::Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            let moves = pos.legal_moves();
            let mut codes: Vec<u16> = moves.iter().map(|&m| move_code(m)).collect();
            codes.sort_unstable();
            codes.dedup();
            assert_eq!(codes.len(), moves.len(), "{fen}");
        }
        let promotion = Move::Normal {
            role: Role::Pawn,
            from: Square::B7,
            capture: None,
            to: Square::B8,
            promotion: Some(Role::Knight),
        };
        assert_eq!(move_code(promotion), 49 | (57 << 6) | (2 << 12));
    }

    #[test]
    fn bytes_round_trip() {
        let cert = Certificate {
            variant: Variant::Chess,
            stipulation: None,
            fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
            claim: Claim::Mate(2),
            shortest: true,
            sections: vec![Section {
                kind: Kind::Proof,
                attacker: Color::White,
                plies: 3,
                nodes: vec![
                    CertNode { hash: 1, edges: vec![], tablebase: false },
                    CertNode { hash: u64::MAX, edges: vec![(4095, 0), (300, 0)], tablebase: false },
                ],
            }],
        };
        let bytes = cert.to_bytes();
        assert_eq!(Certificate::from_bytes(&bytes), Ok(cert.clone()));
        assert!(Certificate::from_bytes(&bytes[..bytes.len() - 3]).is_err());
        // A tablebase leaf, and the header line that announces it.
        let mut leaf = cert;
        leaf.sections[0].kind = Kind::Disproof;
        leaf.sections[0].nodes[0].tablebase = true;
        let bytes = leaf.to_bytes();
        assert!(String::from_utf8_lossy(&bytes).contains("\ntablebases syzygy\nclaim mate 2\n"));
        assert_eq!(Certificate::from_bytes(&bytes), Ok(leaf));
    }
}
