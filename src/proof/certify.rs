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
//! Re-searches run in [`Cycles::Search`](crate::dfpn::Cycles::Search) mode: their
//! disproofs never rest on a repetition on the search path, which a certificate could
//! not show. The extractor has a node budget for re-searches and a size limit per
//! section; a section that does not fit is not written (for a mate, the certificate then
//! says "upper bound only").

use rustc_hash::FxHashMap;
use shakmaty::fen::Fen;
use shakmaty::variant::Variant;
use shakmaty::{Color, EnPassantMode, MoveList};

use crate::chess::game::Standing;
use crate::chess::mate_len::Plies;
use crate::chess::node::Node;
use crate::dfpn::expand::Expand;
use crate::dfpn::monitor::{Control, Monitor};
use crate::dfpn::value::{Value, Verdict};
use crate::dfpn::{Question, Solver};
use crate::error::CertError;
use crate::knowledge::oracle::Oracle;
use crate::proof::certificate::{CertNode, Certificate, Claim, Kind, MateClaim, Section, Written, move_code};
use crate::tt::TranspositionTable;

/// Nodes the first attempt of a re-search inside the extractor may spend.
const PER_CALL_BUDGET: u64 = 100_000;

/// A disproof's value for positions the attacker can never mate from.
const ESCAPE: u32 = u32::MAX;

/// How much a certificate may cost.
#[derive(Clone, Copy, Debug)]
pub struct CertBudget {
    /// Most nodes of one section (a DAG that needs more is not written).
    pub max_nodes: usize,
    /// Most nodes all re-searches together may spend.
    pub search_nodes: u64,
}

impl Default for CertBudget {
    /// 4 million nodes per section (about 60 MB of certificate at most) and 50 million
    /// nodes of re-search.
    fn default() -> Self {
        CertBudget { max_nodes: 4_000_000, search_nodes: 50_000_000 }
    }
}

/// Why a DAG was not built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fail {
    /// The node does not have the value asked for (as far as the table and the
    /// re-searches can tell).
    Not,
    /// The re-search budget ran out.
    Budget,
    /// The section outgrew its size limit.
    Size,
    /// A disproof in an ending its exact values decide: the search kept no tree to show.
    Exact,
}

impl Fail {
    /// The error of a section that failed so, named `section`.
    pub fn of(self, section: &'static str) -> CertError {
        match self {
            Fail::Not => CertError::NotRebuilt { section },
            Fail::Budget => CertError::Budget { section },
            Fail::Size => CertError::TooLarge { section },
            Fail::Exact => CertError::ExactDisproof { section },
        }
    }
}

/// The solver of one game as the extractor's prover, with the game's oracle, whose
/// tables a disproof may end on. One extractor builds the certificates of every game.
struct Prover<'s, 'a, G: Expand> {
    solver: &'s mut Solver<'a, G>,
    oracle: &'a G::Oracle,
}

impl<G: Expand> Prover<'_, '_, G> {
    /// The side that tries to win.
    fn attacker(&self) -> Color {
        self.solver.attacker()
    }

    /// A position's name in a section: its hash and halfmove clock.
    fn id(node: &Node<G>) -> (u64, u32) {
        (node.hash, node.clock())
    }

    /// How the game stands for the attacker at `node`, whose legal moves are `moves`:
    /// Some(true) won, Some(false) over for good without the attacker's win (the game's
    /// end, a draw the defender may claim, the attacker's insufficient material, the
    /// 75-move rule), None while it goes on.
    fn end(&self, node: &Node<G>, moves: &MoveList) -> Option<bool> {
        match node.pos.rule_end(moves, self.attacker()) {
            Standing::Won => Some(true),
            Standing::Over => Some(false),
            Standing::Open => None,
        }
    }

    /// What the table knows of `node` with `bound` plies left.
    fn lookup(&self, node: &Node<G>, bound: Plies) -> Option<Value> {
        self.solver.lookup(node, bound)
    }

    /// A re-search of `node` with `bound` plies left: at most `limit` nodes, taken from
    /// `budget`; its disproofs never rest on a repetition on the search path.
    fn solve(&mut self, node: &Node<G>, bound: Plies, limit: u64, budget: &mut u64) -> Verdict {
        self.solver.solve_below(node, bound, limit, budget)
    }

    /// Whether a hard limit stopped the search.
    fn hard_stopped(&self) -> bool {
        self.solver.monitor.hard_stopped()
    }

    /// Whether the game's tables say the attacker cannot win from `node`.
    fn tables_refute(&self, node: &Node<G>) -> bool {
        self.oracle.refutes(node, self.attacker())
    }

    /// Plies within which the rules alone rule out the attacker's win from `node`, as the
    /// checker reads them at a leaf of a disproof (0: none; racing kings only).
    fn out_of_reach(&self, node: &Node<G>) -> u32 {
        u32::from(node.pos.least_plies_to_win(self.attacker())).saturating_sub(1)
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

    fn get(&self, id: (u64, u32)) -> Option<(u32, u32)> {
        self.index.get(&id).copied()
    }

    fn push(&mut self, id: (u64, u32), edges: Vec<(u16, u32)>, value: u32) -> Result<(u32, u32), Fail> {
        self.push_node(id, CertNode { hash: id.0, edges, tablebase: false }, value)
    }

    /// A tablebase leaf of a disproof: the attacker never mates from `node`.
    fn push_tablebase(&mut self, id: (u64, u32)) -> Result<(u32, u32), Fail> {
        self.push_node(id, CertNode { hash: id.0, edges: Vec::new(), tablebase: true }, ESCAPE)
    }

    fn push_node(&mut self, id: (u64, u32), cert: CertNode, value: u32) -> Result<(u32, u32), Fail> {
        if self.nodes.len() >= self.limit {
            return Err(Fail::Size);
        }
        let i = self.nodes.len() as u32;
        self.nodes.push(cert);
        self.index.insert(id, (i, value));
        Ok((i, value))
    }
}

/// Builds the DAGs of one attacker over a prover.
struct Extractor<'s, 'a, G: Expand> {
    prover: Prover<'s, 'a, G>,
    budget: u64,
    dag: Dag,
}

impl<G: Expand> Extractor<'_, '_, G> {
    /// Re-searches `node` with `plies` left: first with [`PER_CALL_BUDGET`] nodes, then
    /// with twice as many each time it ends unsolved, until the whole budget is spent.
    fn solve(&mut self, node: &Node<G>, plies: u32) -> Result<Verdict, Fail> {
        let mut limit = PER_CALL_BUDGET;
        loop {
            if self.budget == 0 || self.prover.hard_stopped() {
                return Err(Fail::Budget);
            }
            match self.prover.solve(node, bound(plies), limit, &mut self.budget) {
                Verdict::Unknown => limit = limit.saturating_mul(2),
                v => return Ok(v),
            }
        }
    }

    /// A proof that the attacker wins from `node` within `plies`: (index, plies to win).
    fn prove(&mut self, node: &Node<G>, plies: u32) -> Result<(u32, u32), Fail> {
        let id = Prover::<G>::id(node);
        if let Some((i, d)) = self.dag.get(id)
            && d <= plies
        {
            return Ok((i, d));
        }
        let moves = node.pos.legal_moves();
        match self.prover.end(node, &moves) {
            Some(true) => return self.dag.push(id, Vec::new(), 0),
            Some(false) => return Err(Fail::Not),
            None => {}
        }
        if !node.pos.or_node(self.prover.attacker()) {
            if plies <= G::DEFENDER_LEAF {
                return Err(Fail::Not);
            }
            let mut edges = Vec::with_capacity(moves.len());
            let mut longest = 0;
            for &m in &moves {
                let child = node.play(m);
                let known = match self.prover.lookup(&child, bound(plies - 1)) {
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
            return self.dag.push(id, edges, longest + 1);
        }
        if plies == 0 {
            return Err(Fail::Not);
        }
        // Children with a known proof first, shortest first; then the rest, the table's
        // move first, each re-searched.
        let hint = self.prover.solver.best_move(node, bound(plies));
        let mut known = Vec::new();
        let mut rest = Vec::new();
        for &m in &moves {
            let child = node.play(m);
            if let Some((_, d)) = self.dag.get(Prover::<G>::id(&child))
                && d < plies
            {
                known.push((d, m, child));
                continue;
            }
            match self.prover.lookup(&child, bound(plies - 1)) {
                Some(v) if v.is_proven() => known.push((u32::from(v.mate.at_most.get()), m, child)),
                Some(v) if v.is_disproven() => {}
                _ => rest.push((Some(m) != hint, m, child)),
            }
        }
        known.sort_by_key(|k| k.0);
        rest.sort_by_key(|r| r.0);
        for (d, m, child) in known {
            match self.prove(&child, d.min(plies - 1)) {
                Ok((i, d)) => return self.dag.push(id, vec![(move_code(m), i)], d + 1),
                Err(Fail::Not) => continue,
                Err(e) => return Err(e),
            }
        }
        for (_, m, child) in rest {
            if let Verdict::Proven(p) = self.solve(&child, plies - 1)? {
                match self.prove(&child, u32::from(p.get())) {
                    Ok((i, d)) => return self.dag.push(id, vec![(move_code(m), i)], d + 1),
                    Err(Fail::Not) => continue,
                    Err(e) => return Err(e),
                }
            }
        }
        Err(Fail::Not)
    }

    /// A disproof: the attacker does not win from `node` within `plies`. Returns (index,
    /// plies the DAG shows the attacker cannot win within).
    fn refute(&mut self, node: &Node<G>, plies: u32) -> Result<(u32, u32), Fail> {
        let id = Prover::<G>::id(node);
        if let Some((i, s)) = self.dag.get(id)
            && s >= plies
        {
            return Ok((i, s));
        }
        let moves = node.pos.legal_moves();
        match self.prover.end(node, &moves) {
            Some(true) => return Err(Fail::Not),
            Some(false) => return self.dag.push(id, Vec::new(), ESCAPE),
            None => {}
        }
        let out_of_reach = self.prover.out_of_reach(node);
        if out_of_reach >= plies.max(1) {
            return self.dag.push(id, Vec::new(), out_of_reach);
        }
        if node.pos.or_node(self.prover.attacker()) {
            if plies > 0 && self.prover.tables_refute(node) {
                return self.dag.push_tablebase(id);
            }
            if plies == 0 {
                return self.dag.push(id, Vec::new(), 0);
            }
            let mut edges = Vec::with_capacity(moves.len());
            let mut shortest = ESCAPE;
            for &m in &moves {
                let (i, s) = self.refute(&node.play(m), plies - 1)?;
                edges.push((move_code(m), i));
                shortest = shortest.min(s);
            }
            return self.dag.push(id, edges, shortest.saturating_add(1));
        }
        if plies > G::DEFENDER_LEAF && self.prover.tables_refute(node) {
            return self.dag.push_tablebase(id);
        }
        if plies <= G::DEFENDER_LEAF {
            return self.dag.push(id, Vec::new(), G::DEFENDER_LEAF);
        }
        let mut known = Vec::new();
        let mut rest = Vec::new();
        for &m in &moves {
            let child = node.play(m);
            if let Some((_, s)) = self.dag.get(Prover::<G>::id(&child))
                && s >= plies - 1
            {
                known.push((u32::MAX - s, m, child));
                continue;
            }
            match self.prover.lookup(&child, bound(plies - 1)) {
                Some(v) if v.is_disproven() => known.push((u32::MAX - u32::from(v.mate.at_least.get()), m, child)),
                Some(v) if v.is_proven() => {}
                _ => rest.push((m, child)),
            }
        }
        known.sort_by_key(|k| k.0);
        for (_, m, child) in known {
            match self.refute(&child, plies - 1) {
                Ok((i, s)) => return self.dag.push(id, vec![(move_code(m), i)], s.saturating_add(1)),
                Err(Fail::Not) => continue,
                Err(e) => return Err(e),
            }
        }
        for (m, child) in rest {
            if let Verdict::Disproven(_) = self.solve(&child, plies - 1)? {
                match self.refute(&child, plies - 1) {
                    Ok((i, s)) => return self.dag.push(id, vec![(move_code(m), i)], s.saturating_add(1)),
                    Err(Fail::Not) => continue,
                    Err(e) => return Err(e),
                }
            }
        }
        Err(Fail::Not)
    }
}

/// The largest disproof built for an ending its exact values decide.
const EXACT_DISPROOF_NODES: usize = 200_000;

fn bound(plies: u32) -> Plies {
    Plies::new(plies.min(u32::from(Plies::MAX_BOUND.get())) as u16)
}

/// Builds one section for `attacker` from `root`, spending re-search nodes from `budget`.
pub fn section<G: Expand>(
    root: &Node<G>,
    tt: &TranspositionTable,
    monitor: &mut Monitor,
    budget: &mut u64,
    (limits, oracle): (CertBudget, &G::Oracle),
    (kind, attacker, plies): (Kind, Color, u32),
) -> Result<Section, Fail> {
    // The search kept no tree of a disproof its exact values decided; one is built for
    // the checker only where it stays small (a bare king's few lines, say).
    let exact = kind == Kind::Disproof && oracle.decides(root);
    let max_nodes = if exact { limits.max_nodes.min(EXACT_DISPROOF_NODES) } else { limits.max_nodes };
    let question = Question { attacker, root_moves: None, repetitions: None, oracle };
    let mut solver = Solver::new(tt, monitor, &root.pos, question);
    let prover = Prover { solver: &mut solver, oracle };
    let mut x = Extractor { prover, budget: *budget, dag: Dag::new(max_nodes) };
    let built = match kind {
        Kind::Proof => x.prove(root, plies).map(|(_, d)| d <= plies),
        Kind::Disproof => x.refute(root, plies).map(|(_, s)| s >= plies),
    };
    *budget = x.budget;
    debug_assert!(built != Ok(false), "a DAG with the wrong value at its root");
    match built {
        Ok(true) => Ok(Section { kind, attacker, plies, nodes: x.dag.nodes }),
        Ok(false) => Err(Fail::Not),
        Err(Fail::Size | Fail::Budget) if exact => Err(Fail::Exact),
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

/// Builds the certificate of `claim` (with the refutation of the next shorter win when
/// `exact`), a result of searching `root` (in any game) without game history or
/// root-move restrictions, from what `tt` holds (re-searching where it lost entries).
/// A win's proof section has `plies`, the plies of its line; the next shorter win is two
/// plies less in chess, one in a variant; "no win within N" refutes each side's N
/// moves. With `tables` (chess), a disproof ends where the tables say the attacker
/// cannot win (tablebase leaves, which `pnmate-check` verifies given the same tables); a
/// proof never rests on them. Err says why no certificate can be written.
pub fn certify<G: Expand>(
    root: &G,
    (claim, exact, plies): (MateClaim, bool, u32),
    tt: &TranspositionTable,
    limits: CertBudget,
    oracle: &G::Oracle,
) -> Result<Certified, CertError> {
    let node = Node::new(root.clone());
    let stm = root.turn();
    let either = root.certified_on_either_move();
    let mut monitor = Monitor::new(Control::new(), None);
    let mut budget = limits.search_nodes;
    let build = |spec| section(&node, tt, &mut monitor, &mut budget, (limits, oracle), spec);
    let step = if either { 1 } else { 2 };
    let win = |attacker| Plan::Win {
        proof: (Kind::Proof, attacker, plies),
        shorter: (exact && plies > step).then(|| (Kind::Disproof, attacker, plies - step)),
        exact,
    };
    let plan = match claim {
        MateClaim::Mate(_) => win(stm),
        MateClaim::Mated(_) => win(!stm),
        MateClaim::NoMate(moves) => {
            let own = if either { 2 * moves } else { 2 * moves - 1 };
            Plan::NoWin([(Kind::Disproof, stm, own), (Kind::Disproof, !stm, 2 * moves)])
        }
    };
    let fen = Fen::from_position(root, EnPassantMode::Legal).to_string();
    assemble(root.game_variant(), fen, claim.into(), plan, build)
}

/// One section to build: its kind, attacker and plies.
type Spec = (Kind, Color, u32);

/// The sections a claim needs.
enum Plan {
    /// "No mate within N": both refutations, each required.
    NoWin([Spec; 2]),
    /// A mate: its proof, and when it is proven shortest (`exact`) the refutation of a
    /// shorter one, if any can be shorter.
    Win { proof: Spec, shorter: Option<Spec>, exact: bool },
}

/// The certificate of `claim` from the sections of `plan`, each made by `build`. A
/// refutation of a shorter mate that cannot be built leaves the certificate without
/// `shortest`, and the note says why; any other section that cannot be built fails it.
fn assemble(
    variant: Variant,
    fen: String,
    claim: Claim,
    plan: Plan,
    mut build: impl FnMut(Spec) -> Result<Section, Fail>,
) -> Result<Certified, CertError> {
    let (proof, shorter, exact) = match plan {
        Plan::NoWin(specs) => {
            let mut sections = Vec::new();
            for spec in specs {
                sections.push(build(spec).map_err(|e| e.of("disproof"))?);
            }
            let certificate = Certificate { variant, fen, stipulation: None, claim, shortest: false, sections };
            return Ok(Certified { certificate, note: None });
        }
        Plan::Win { proof, shorter, exact } => (proof, shorter, exact),
    };
    let mut sections = vec![build(proof).map_err(|e| e.of("proof"))?];
    let mut note = None;
    if let Some(spec) = shorter {
        let what =
            if variant == Variant::Chess { "refutation of a shorter mate" } else { "refutation of a shorter win" };
        match build(spec) {
            Ok(s) => sections.push(s),
            Err(e) => note = Some(e.of(what).to_string()),
        }
    }
    let shortest = exact && note.is_none();
    Ok(Certified { certificate: Certificate { variant, fen, stipulation: None, claim, shortest, sections }, note })
}
