//! Building certificates ([`crate::proof`]) from the table after a search, and writing them.
//!
//! A proof DAG is built like a forced line ([`crate::proof::line`]) but keeps every defence: at
//! an attacker node the child with the shortest known proof (re-proving when the table
//! lost it), at a defender node every legal reply. A disproof DAG is its mirror: every
//! attacker move, and one refuting reply (a child the table or a re-search disproves).
//! Both are built children first, each position (with its halfmove clock, which the
//! 50-move rule reads) stored once when one node serves every parent, so the size grows
//! with distinct positions, not with paths.
//!
//! Re-searches run in [`Cycles::Search`] mode: their disproofs never rest on a repetition
//! on the search path, which a certificate could not show. The extractor has a node
//! budget for re-searches and a size limit per section; a section that does not fit is
//! not written (for a mate, the certificate then says "upper bound only").

use rustc_hash::FxHashMap;
use shakmaty::{Chess, Color, Position};

use crate::chess::mate_len::Plies;
use crate::chess::node::Node;
use crate::chess::position::to_fen;
use crate::chess::rules::{AUTOMATIC_DRAW_CLOCK, can_claim_fifty, cannot_mate};
use crate::dfpn::monitor::{Control, Monitor};
use crate::dfpn::value::Verdict;
use crate::dfpn::{Question, Solver};
use crate::error::CertError;
use crate::knowledge::tablebase::Tables;
use crate::proof::certificate::{CertNode, Certificate, Claim, Kind, Section, Written, move_code};
use crate::tt::Table;

/// Nodes the first attempt of a re-search inside the extractor may spend.
const PER_CALL_BUDGET: u64 = 100_000;

/// A disproof's value for positions the attacker can never mate from.
const ESCAPE: u32 = u32::MAX;

/// How much a certificate may cost.
#[derive(Clone, Copy, Debug)]
pub struct CertLimits {
    /// Most nodes of one section (a DAG that needs more is not written).
    pub max_nodes: usize,
    /// Most nodes all re-searches together may spend.
    pub search_nodes: u64,
}

impl Default for CertLimits {
    /// 4 million nodes per section (about 60 MB of certificate at most) and 50 million
    /// nodes of re-search.
    fn default() -> Self {
        CertLimits { max_nodes: 4_000_000, search_nodes: 50_000_000 }
    }
}

/// Why a DAG was not built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fail {
    /// The node does not have the value asked for (as far as the table and the
    /// re-searches can tell).
    Not,
    /// The re-search budget ran out.
    Budget,
    /// The section outgrew its size limit.
    Size,
}

impl Fail {
    fn of(self, section: &'static str) -> CertError {
        match self {
            Fail::Not => CertError::NotRebuilt { section },
            Fail::Budget => CertError::Budget { section },
            Fail::Size => CertError::TooLarge { section },
        }
    }
}

/// One section under construction: nodes children first, and where each position is.
struct Dag {
    nodes: Vec<CertNode>,
    /// (hash, halfmove clock) -> (index, value): plies to mate for proofs, plies without
    /// mate for disproofs.
    index: FxHashMap<(u64, u32), (u32, u32)>,
    limit: usize,
}

impl Dag {
    fn new(limit: usize) -> Dag {
        Dag { nodes: Vec::new(), index: FxHashMap::default(), limit }
    }

    fn get(&self, node: &Node) -> Option<(u32, u32)> {
        self.index.get(&(node.hash, node.clock())).copied()
    }

    fn push(&mut self, node: &Node, edges: Vec<(u16, u32)>, value: u32) -> Result<(u32, u32), Fail> {
        self.push_node(node, CertNode { hash: node.hash, edges, tablebase: false }, value)
    }

    /// A tablebase leaf of a disproof: the attacker never mates from `node`.
    fn push_tablebase(&mut self, node: &Node) -> Result<(u32, u32), Fail> {
        self.push_node(node, CertNode { hash: node.hash, edges: Vec::new(), tablebase: true }, ESCAPE)
    }

    fn push_node(&mut self, node: &Node, cert: CertNode, value: u32) -> Result<(u32, u32), Fail> {
        if self.nodes.len() >= self.limit {
            return Err(Fail::Size);
        }
        let i = self.nodes.len() as u32;
        self.nodes.push(cert);
        self.index.insert((node.hash, node.clock()), (i, value));
        Ok((i, value))
    }
}

/// Builds the DAGs of one attacker over a solver.
struct Extractor<'s, 'a> {
    solver: &'s mut Solver<'a>,
    budget: u64,
    dag: Dag,
    /// The tables a disproof may end on (tablebase leaves), when given.
    tables: Option<&'a Tables>,
}

impl Extractor<'_, '_> {
    /// Whether the tables say the attacker cannot force mate from `node`.
    fn tables_refute(&self, node: &Node) -> bool {
        self.tables.is_some_and(|t| t.wins(node, self.solver.attacker()) == Some(false))
    }
}

impl Extractor<'_, '_> {
    fn attacker(&self) -> Color {
        self.solver.attacker()
    }

    /// Re-searches `node` with `plies` left: first with [`PER_CALL_BUDGET`] nodes, then
    /// with twice as many each time it ends unsolved, until the whole budget is spent.
    fn solve(&mut self, node: &Node, plies: u32) -> Result<Verdict, Fail> {
        let mut limit = PER_CALL_BUDGET;
        loop {
            if self.budget == 0 || self.solver.monitor.hard_stopped() {
                return Err(Fail::Budget);
            }
            match self.solver.solve_below(node, bound(plies), limit, &mut self.budget) {
                Verdict::Unknown => limit = limit.saturating_mul(2),
                v => return Ok(v),
            }
        }
    }

    /// A proof that the attacker mates from `node` within `plies`: (index, plies to mate).
    fn prove(&mut self, node: &Node, plies: u32) -> Result<(u32, u32), Fail> {
        if let Some((i, d)) = self.dag.get(node)
            && d <= plies
        {
            return Ok((i, d));
        }
        let moves = node.pos.legal_moves();
        let attacker = self.attacker();
        if cannot_mate(&node.pos, attacker) {
            return Err(Fail::Not);
        }
        if node.pos.turn() != attacker {
            if moves.is_empty() {
                return if node.pos.is_check() { self.dag.push(node, Vec::new(), 0) } else { Err(Fail::Not) };
            }
            if plies < 2 || can_claim_fifty(&node.pos, &moves) {
                return Err(Fail::Not);
            }
            let mut edges = Vec::with_capacity(moves.len());
            let mut longest = 0;
            for &m in &moves {
                let child = node.play(m);
                let known = match self.solver.lookup(&child, bound(plies - 1)) {
                    Some(v) if v.is_proven() => u32::from(v.mate.at_most.get()),
                    _ => plies - 1,
                };
                let (i, d) = match self.prove(&child, known) {
                    Err(Fail::Not) if known < plies - 1 => self.prove(&child, plies - 1)?,
                    other => other?,
                };
                edges.push((move_code(m), i));
                longest = longest.max(d);
            }
            return self.dag.push(node, edges, longest + 1);
        }
        if plies == 0 || moves.is_empty() || node.clock() >= AUTOMATIC_DRAW_CLOCK {
            return Err(Fail::Not);
        }
        // Children with a known proof first, shortest first; then the rest, the table's
        // move first, each re-searched.
        let hint = self.solver.best_move(node, bound(plies));
        let mut known = Vec::new();
        let mut rest = Vec::new();
        for &m in &moves {
            let child = node.play(m);
            if let Some((_, d)) = self.dag.get(&child)
                && d < plies
            {
                known.push((d, m, child));
                continue;
            }
            match self.solver.lookup(&child, bound(plies - 1)) {
                Some(v) if v.is_proven() => known.push((u32::from(v.mate.at_most.get()), m, child)),
                Some(v) if v.is_disproven() => {}
                _ => rest.push((Some(m) != hint, m, child)),
            }
        }
        known.sort_by_key(|k| k.0);
        rest.sort_by_key(|r| r.0);
        for (d, m, child) in known {
            match self.prove(&child, d.min(plies - 1)) {
                Ok((i, d)) => return self.dag.push(node, vec![(move_code(m), i)], d + 1),
                Err(Fail::Not) => continue,
                Err(e) => return Err(e),
            }
        }
        for (_, m, child) in rest {
            if let Verdict::Proven(p) = self.solve(&child, plies - 1)? {
                match self.prove(&child, u32::from(p.get())) {
                    Ok((i, d)) => return self.dag.push(node, vec![(move_code(m), i)], d + 1),
                    Err(Fail::Not) => continue,
                    Err(e) => return Err(e),
                }
            }
        }
        Err(Fail::Not)
    }

    /// A disproof: the attacker does not mate from `node` within `plies`. Returns (index,
    /// plies the DAG shows the attacker cannot mate within).
    fn refute(&mut self, node: &Node, plies: u32) -> Result<(u32, u32), Fail> {
        if let Some((i, s)) = self.dag.get(node)
            && s >= plies
        {
            return Ok((i, s));
        }
        let moves = node.pos.legal_moves();
        let attacker = self.attacker();
        if node.pos.turn() == attacker {
            if moves.is_empty() || node.clock() >= AUTOMATIC_DRAW_CLOCK || cannot_mate(&node.pos, attacker) {
                return self.dag.push(node, Vec::new(), ESCAPE);
            }
            if plies > 0 && self.tables_refute(node) {
                return self.dag.push_tablebase(node);
            }
            if plies == 0 {
                return self.dag.push(node, Vec::new(), 0);
            }
            let mut edges = Vec::with_capacity(moves.len());
            let mut shortest = ESCAPE;
            for &m in &moves {
                let (i, s) = self.refute(&node.play(m), plies - 1)?;
                edges.push((move_code(m), i));
                shortest = shortest.min(s);
            }
            return self.dag.push(node, edges, shortest.saturating_add(1));
        }
        if moves.is_empty() {
            return if node.pos.is_check() { Err(Fail::Not) } else { self.dag.push(node, Vec::new(), ESCAPE) };
        }
        if can_claim_fifty(&node.pos, &moves) || cannot_mate(&node.pos, attacker) {
            return self.dag.push(node, Vec::new(), ESCAPE);
        }
        if plies > 1 && self.tables_refute(node) {
            return self.dag.push_tablebase(node);
        }
        if plies <= 1 {
            // Only the defender moves within one ply.
            return self.dag.push(node, Vec::new(), 1);
        }
        let mut known = Vec::new();
        let mut rest = Vec::new();
        for &m in &moves {
            let child = node.play(m);
            if let Some((_, s)) = self.dag.get(&child)
                && s >= plies - 1
            {
                known.push((u32::MAX - s, m, child));
                continue;
            }
            match self.solver.lookup(&child, bound(plies - 1)) {
                Some(v) if v.is_disproven() => known.push((u32::MAX - u32::from(v.mate.at_least.get()), m, child)),
                Some(v) if v.is_proven() => {}
                _ => rest.push((m, child)),
            }
        }
        known.sort_by_key(|k| k.0);
        for (_, m, child) in known {
            match self.refute(&child, plies - 1) {
                Ok((i, s)) => return self.dag.push(node, vec![(move_code(m), i)], s.saturating_add(1)),
                Err(Fail::Not) => continue,
                Err(e) => return Err(e),
            }
        }
        for (m, child) in rest {
            if let Verdict::Disproven(_) = self.solve(&child, plies - 1)? {
                match self.refute(&child, plies - 1) {
                    Ok((i, s)) => return self.dag.push(node, vec![(move_code(m), i)], s.saturating_add(1)),
                    Err(Fail::Not) => continue,
                    Err(e) => return Err(e),
                }
            }
        }
        Err(Fail::Not)
    }
}

fn bound(plies: u32) -> Plies {
    Plies::new(plies.min(u32::from(Plies::MAX_BOUND.get())) as u16)
}

/// Builds one section for `attacker` from `root`.
fn section(
    root: &Node,
    tt: &Table,
    monitor: &mut Monitor,
    budget: &mut u64,
    (limits, tables): (CertLimits, Option<&Tables>),
    (kind, attacker, plies): (Kind, Color, u32),
) -> Result<Section, Fail> {
    let question = Question { attacker, root_moves: None, repetitions: None, tables };
    let mut solver = Solver::new(tt, monitor, question);
    let mut x = Extractor { solver: &mut solver, budget: *budget, dag: Dag::new(limits.max_nodes), tables };
    let built = match kind {
        Kind::Proof => x.prove(root, plies).map(|(_, d)| d <= plies),
        Kind::Disproof => x.refute(root, plies).map(|(_, s)| s >= plies),
    };
    *budget = x.budget;
    debug_assert!(built != Ok(false), "a DAG with the wrong value at its root");
    match built {
        Ok(true) => Ok(Section { kind, attacker, plies, nodes: x.dag.nodes }),
        Ok(false) => Err(Fail::Not),
        Err(e) => Err(e),
    }
}

/// What a certificate of `outcome` holds, and a note on what it leaves out.
pub struct Certified {
    /// The certificate.
    pub certificate: Certificate,
    /// Why the refutation of a shorter mate is missing, when it is.
    pub note: Option<String>,
}

impl Certified {
    /// Writes the certificate to `path`.
    pub fn write(&self, path: &std::path::Path) -> Result<Written, CertError> {
        let bytes = self.certificate.to_bytes();
        std::fs::write(path, &bytes)
            .map_err(|e| CertError::Write { path: path.display().to_string(), reason: e.to_string() })?;
        Ok(Written {
            nodes: self.certificate.node_count(),
            bytes: bytes.len(),
            claim: self.certificate.claim,
            shortest: self.certificate.shortest,
            note: self.note.clone(),
        })
    }
}

/// Builds the certificate of `claim` (with the refutation of a shorter mate when `exact`),
/// a result of searching `root` without game history or root-move restrictions, from what
/// `tt` holds (re-searching where it lost entries). With `tables`, a disproof ends where
/// the tables say the attacker cannot win (tablebase leaves, which `pnmate-check` verifies
/// given the same tables); a proof never rests on them. Err says why no certificate can
/// be written.
pub fn certify(
    root: &Chess,
    claim: Claim,
    exact: bool,
    tt: &Table,
    limits: CertLimits,
    tables: Option<&Tables>,
) -> Result<Certified, CertError> {
    let node = Node::new(root.clone());
    let stm = root.turn();
    let mut monitor = Monitor::new(Control::new(), None);
    let mut budget = limits.search_nodes;
    let mut build = |spec| section(&node, tt, &mut monitor, &mut budget, (limits, tables), spec);
    let fen = to_fen(root);
    let (attacker, plies) = match claim {
        Claim::Mate(moves) => (stm, 2 * moves - 1),
        Claim::Mated(moves) => (!stm, 2 * moves),
        Claim::NoMate(moves) => {
            let mut sections = Vec::new();
            for spec in [(Kind::Disproof, stm, 2 * moves - 1), (Kind::Disproof, !stm, 2 * moves)] {
                sections.push(build(spec).map_err(|e| e.of("disproof"))?);
            }
            let certificate = Certificate { fen, claim: Claim::NoMate(moves), shortest: false, sections };
            return Ok(Certified { certificate, note: None });
        }
    };
    // The refutation of one move less: none needed for a mate in 1 (nothing is shorter).
    let proof = (Kind::Proof, attacker, plies);
    let refutation = (exact && plies > 2).then(|| (Kind::Disproof, attacker, plies - 2));
    let mut sections = vec![build(proof).map_err(|e| e.of("proof"))?];
    let mut note = None;
    if let Some(spec) = refutation {
        match build(spec) {
            Ok(s) => sections.push(s),
            Err(e) => note = Some(e.of("refutation of a shorter mate").to_string()),
        }
    }
    let shortest = exact && note.is_none();
    Ok(Certified { certificate: Certificate { fen, claim, shortest, sections }, note })
}
