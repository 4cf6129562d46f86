//! The positions on the current search path, for a call that ends repetitions as draws
//! ([`crate::dfpn::Cycles::Cut`]).
//!
//! A repetition is looked for at every node, and in a quiet ending the halfmove clock
//! lets it reach back dozens of plies. So the path also counts its positions by a few
//! bits of their hashes: a node whose count is its own has no earlier twin on the path,
//! and only the others are compared along it.

/// How many counts the hashes are spread over (a power of two).
const BUCKETS: usize = 1024;

/// The hashes of the positions on the search path, by ply, and how many of them fall in
/// each bucket.
pub struct Path {
    hashes: Vec<u64>,
    counts: Vec<u16>,
}

impl Default for Path {
    fn default() -> Path {
        Path { hashes: Vec::new(), counts: vec![0; BUCKETS] }
    }
}

#[inline]
fn bucket(hash: u64) -> usize {
    hash as usize & (BUCKETS - 1)
}

impl Path {
    /// Puts `hash` at `ply`, the positions of an earlier branch below `ply` dropped; the
    /// path above `ply` is the current node's ancestors.
    #[inline]
    pub fn enter(&mut self, ply: usize, hash: u64) {
        while self.hashes.len() > ply {
            let gone = self.hashes.pop().expect("longer than ply");
            self.counts[bucket(gone)] -= 1;
        }
        self.hashes.push(hash);
        self.counts[bucket(hash)] += 1;
    }

    /// Whether the position just entered at `ply` stands on the path an even number of
    /// plies up, from 4 to `reach` (the same side to move; a repetition needs four plies).
    #[inline]
    pub fn repeats(&self, ply: usize, reach: usize) -> bool {
        let hash = self.hashes[ply];
        reach >= 4
            && self.counts[bucket(hash)] > 1
            && self.hashes[ply - reach..=ply - 4].iter().rev().step_by(2).any(|&h| h == hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn a_repetition_is_found_as_a_walk_back_along_the_path_finds_it(
            steps in proptest::collection::vec((0usize..40, 0u64..6, 0usize..50), 1..400)
        ) {
            // Six distinct hashes in two buckets, paths that grow and shrink.
            let mut path = Path::default();
            let mut reference: Vec<u64> = Vec::new();
            for (ply, h, reach) in steps {
                let ply = ply.min(reference.len());
                let hash = (h % 2) | (h << 20);
                reference.truncate(ply);
                reference.push(hash);
                path.enter(ply, hash);
                let reach = reach.min(ply);
                let walk = (4..=reach).step_by(2).any(|back| reference[ply - back] == hash);
                proptest::prop_assert_eq!(path.repeats(ply, reach), walk);
            }
            for (i, &count) in path.counts.iter().enumerate() {
                proptest::prop_assert_eq!(usize::from(count), reference.iter().filter(|&&h| bucket(h) == i).count());
            }
        }
    }
}
