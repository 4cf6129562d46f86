//! What the header announces of each section: proof or disproof, whose win, how deep,
//! how many nodes.

use shakmaty::Color;

/// Whether a section proves the claim's win or refutes it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Proof,
    Disproof,
}

/// A section as the header announces it.
pub struct Shape {
    pub kind: Kind,
    pub attacker: Color,
    pub plies: u32,
    pub nodes: usize,
}
