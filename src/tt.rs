//! The transposition table: a fixed-size array of 2-entry buckets keyed by 64-bit hashes.
//!
//! Each entry records what is known about one key (position, attacker and clock context,
//! as the search builds keys): the working proof/disproof numbers for one remaining-depth
//! bound, and the proven range of the mate length, which holds for *every* bound. The
//! range only ever tightens.
//!
//! Replacement: a store goes to the entry with the same key, else to the entry of the
//! bucket (2 entries, one aligned 64-byte cache line) with the lowest keep value: empty
//! first, then entries of older searches, then the least work. Solved entries count as
//! far more work than any unsolved one, so proofs and disproofs survive long searches. A
//! probe or store looks at one bucket only, so a full table never hangs; it only forgets.
//!
//! The API hands out copies, never references. The table has one owner at a time (the
//! engine lends it to its search thread behind a mutex), so torn reads cannot occur.
//!
//! The table knows nothing of chess: keys are built by the search (`search::query`),
//! which also guarantees that no path-dependent result is stored.

use crate::search::mate_len::{MateRange, Plies};
use crate::search::movecode::MoveCode;

/// One table entry, 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Entry {
    /// Full 64-bit key; meaningful only when `generation != 0`.
    pub key: u64,
    /// Working proof number, valid for bound `bound` only.
    pub pn: u32,
    /// Working disproof number, valid for bound `bound` only.
    pub dn: u32,
    /// Nodes spent below this entry (saturating): the replacement weight.
    pub work: u32,
    /// The proven range of the mate length (valid for every bound).
    pub mate: MateRange,
    /// The remaining-depth bound that `pn` and `dn` belong to.
    pub bound: Plies,
    /// The best move known (the search's encoding).
    pub best: MoveCode,
    /// The search generation that last wrote the entry (0 = empty slot).
    pub generation: u8,
    _pad: [u8; 3],
}

impl Entry {
    const EMPTY: Entry = Entry {
        key: 0,
        pn: 0,
        dn: 0,
        work: 0,
        mate: MateRange::UNKNOWN,
        bound: Plies::ZERO,
        best: MoveCode::NONE,
        generation: 0,
        _pad: [0; 3],
    };

    /// True when a proof or a disproof is recorded.
    pub fn is_solved(&self) -> bool {
        self.mate != MateRange::UNKNOWN
    }

    fn is_empty(&self) -> bool {
        self.generation == 0
    }
}

/// What a search stores about one key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The bound the working numbers belong to.
    pub bound: Plies,
    /// Working proof number (replaces the stored one).
    pub pn: u32,
    /// Working disproof number (replaces the stored one).
    pub dn: u32,
    /// Proven mate lengths (tighten the stored range).
    pub mate: MateRange,
    /// Nodes spent (added to the stored work).
    pub work: u32,
    /// The best move, or [`MoveCode::NONE`] to keep the stored one.
    pub best: MoveCode,
}

const BUCKET: usize = 2;

/// One bucket, aligned to exactly one cache line, so a probe costs at most one miss.
/// (Two entries rather than DESIGN.md's four: equal results, about 15% more nodes per
/// second when measured.)
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Bucket([Entry; BUCKET]);

/// Asks the kernel to back the table with huge pages (fewer TLB misses on random probes).
/// Only advice: without it the table works the same, a little slower.
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + len) / HUGE * HUGE;
        if end > start {
            // SAFETY: the range lies inside one live allocation owned by the caller;
            // madvise(MADV_HUGEPAGE) changes no contents and no access rights.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}

/// The transposition table. See the module documentation.
pub struct Table {
    buckets: Vec<Bucket>,
    generation: u8,
    /// Buckets that received an entry since the last clear, while few: clearing after a
    /// small search then resets only these instead of the whole table.
    dirty: Vec<u32>,
    /// More buckets than `dirty` holds were written: the next clear resets everything.
    dirty_overflow: bool,
}

/// How many written buckets are remembered for a cheap clear.
const DIRTY_CAP: usize = 1 << 16;

impl Table {
    /// A table of about `mb` megabytes (at least one bucket).
    pub fn new(mb: usize) -> Table {
        let mut t = Table { buckets: Vec::new(), generation: 1, dirty: Vec::new(), dirty_overflow: false };
        t.resize(mb);
        t
    }

    /// Reallocates to about `mb` megabytes; forgets everything.
    pub fn resize(&mut self, mb: usize) {
        let bytes = mb.max(1) << 20;
        let n = (bytes / std::mem::size_of::<Bucket>()).max(1);
        self.buckets = Vec::new();
        let mut buckets = Vec::with_capacity(n);
        advise_huge_pages(buckets.as_mut_ptr() as *mut u8, n * std::mem::size_of::<Bucket>());
        buckets.resize(n, Bucket([Entry::EMPTY; BUCKET]));
        self.buckets = buckets;
        self.dirty.clear();
        self.dirty_overflow = false;
        self.generation = 1;
    }

    /// Forgets everything, keeping the size.
    pub fn clear(&mut self) {
        if self.dirty_overflow {
            self.buckets.fill(Bucket([Entry::EMPTY; BUCKET]));
        } else {
            for &b in &self.dirty {
                self.buckets[b as usize] = Bucket([Entry::EMPTY; BUCKET]);
            }
        }
        self.dirty.clear();
        self.dirty_overflow = false;
        self.generation = 1;
    }

    /// Starts a new search: older entries become preferred victims (their verdicts stay
    /// valid and usable).
    pub fn new_search(&mut self) {
        self.generation = if self.generation == u8::MAX { 1 } else { self.generation + 1 };
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (((key as u128) * (self.buckets.len() as u128)) >> 64) as usize
    }

    /// Hints the CPU to load the bucket of `key`.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let idx = self.bucket(key);
            // SAFETY: `idx` is in bounds (bucket() maps into 0..buckets.len()) and
            // prefetching never dereferences in the Rust sense.
            unsafe {
                std::arch::x86_64::_mm_prefetch(
                    self.buckets.as_ptr().add(idx) as *const i8,
                    std::arch::x86_64::_MM_HINT_T0,
                );
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// A copy of the entry for `key`, if present.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        self.buckets[b].0.iter().find(|e| e.key == key && !e.is_empty()).copied()
    }

    /// Records what a search learnt about `key`: the working numbers and bound replace
    /// the stored ones, the mate range tightens, the work adds up.
    pub fn store(&mut self, key: u64, r: &Record) {
        let b = self.bucket(key);
        let generation = self.generation;
        let bucket = &mut self.buckets[b].0;
        let slot = match bucket.iter().position(|e| e.key == key && !e.is_empty()) {
            Some(i) => i,
            None => {
                let victim = (0..BUCKET).min_by_key(|&i| Self::keep_value(&bucket[i], generation)).unwrap_or(0);
                if bucket[victim].is_empty() {
                    if self.dirty.len() < DIRTY_CAP {
                        self.dirty.push(b as u32);
                    } else {
                        self.dirty_overflow = true;
                    }
                }
                bucket[victim] = Entry { key, ..Entry::EMPTY };
                victim
            }
        };
        let e = &mut bucket[slot];
        e.generation = generation;
        e.pn = r.pn;
        e.dn = r.dn;
        e.bound = r.bound;
        e.mate.at_most = e.mate.at_most.min(r.mate.at_most);
        e.mate.at_least = e.mate.at_least.max(r.mate.at_least);
        e.work = e.work.saturating_add(r.work);
        if r.best != MoveCode::NONE {
            e.best = r.best;
        }
    }

    /// How much an entry is worth keeping; the lowest is replaced.
    fn keep_value(e: &Entry, generation: u8) -> u64 {
        if e.is_empty() {
            return 0;
        }
        let current = u64::from(e.generation == generation) << 40;
        let solved = u64::from(e.is_solved()) << 36;
        1 + current + solved + u64::from(e.work)
    }

    /// Occupancy in permille: the share of the first 500 entries (250 buckets) that this
    /// search generation wrote.
    pub fn hashfull(&self) -> u32 {
        let sample = self.buckets.len().min(250);
        let n = sample * BUCKET;
        let used = self.buckets[..sample]
            .iter()
            .flat_map(|b| b.0.iter())
            .filter(|e| !e.is_empty() && e.generation == self.generation)
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(bound: u16, pn: u32, dn: u32, work: u32) -> Record {
        Record { bound: Plies::new(bound), pn, dn, mate: MateRange::UNKNOWN, work, best: MoveCode::NONE }
    }

    fn proven(at_most: u16) -> Record {
        Record { mate: MateRange { at_most: Plies::new(at_most), ..MateRange::UNKNOWN }, ..open(3, 0, 1 << 30, 1) }
    }

    #[test]
    fn entry_is_32_bytes() {
        assert_eq!(std::mem::size_of::<Entry>(), 32);
    }

    #[test]
    fn store_probe_round_trip_and_tightening() {
        let mut t = Table::new(1);
        assert!(t.probe(42).is_none());
        t.store(42, &Record { best: MoveCode(99), ..open(7, 3, 4, 10) });
        let e = t.probe(42).unwrap();
        assert_eq!((e.pn, e.dn, e.bound, e.work, e.best), (3, 4, Plies::new(7), 10, MoveCode(99)));
        assert!(!e.is_solved());
        t.store(42, &Record { work: 5, ..proven(9) });
        let at_least_3 = MateRange { at_least: Plies::new(3), at_most: Plies::new(11) };
        t.store(42, &Record { mate: at_least_3, ..open(5, 1, 1, 5) });
        let e = t.probe(42).unwrap();
        assert_eq!(e.mate.at_most, Plies::new(9), "the upper end only tightens");
        assert_eq!(e.mate.at_least, Plies::new(3));
        assert_eq!(e.work, 20);
        assert_eq!(e.best, MoveCode(99), "a store without a move keeps the old one");
        let at_least_1 = MateRange { at_least: Plies::new(1), ..MateRange::UNKNOWN };
        t.store(42, &Record { mate: at_least_1, ..open(5, 1, 1, 0) });
        assert_eq!(t.probe(42).unwrap().mate.at_least, Plies::new(3), "the lower end only tightens");
    }

    #[test]
    fn full_table_keeps_solved_and_heavy_entries() {
        let mut t = Table::new(1);
        t.buckets.truncate(1);
        t.store(1, &proven(3));
        t.store(2, &open(3, 5, 5, 1000)); // heavy
        t.store(3, &open(3, 5, 5, 2)); // the bucket is full: the heavy unsolved entry goes
        assert!(t.probe(1).is_some(), "solved entries are protected");
        assert!(t.probe(2).is_none(), "an unsolved entry goes before a solved one");
        assert!(t.probe(3).is_some());
        t.store(4, &open(3, 5, 5, 1));
        assert!(t.probe(3).is_none() && t.probe(4).is_some());
        for k in 100..200 {
            t.store(k, &open(3, 5, 5, 1));
        }
        assert!(t.probe(1).is_some(), "solved entry survives a flood");
        t.new_search();
        t.store(7, &open(3, 5, 5, 1));
        t.store(8, &open(3, 5, 5, 1));
        assert!(t.probe(1).is_none(), "an old generation's entry goes first, even solved");
    }

    #[test]
    fn clear_forgets_everything_cheaply_or_fully() {
        let mut t = Table::new(8);
        for k in 1..100u64 {
            t.store(k.wrapping_mul(0x9E37_79B9_7F4A_7C15), &open(1, 1, 1, 1));
        }
        t.clear();
        assert!(t.buckets.iter().flat_map(|b| b.0.iter()).all(|e| e.is_empty()), "cheap clear");
        for k in 1..(DIRTY_CAP as u64 * 4) {
            t.store(k.wrapping_mul(0x9E37_79B9_7F4A_7C15), &open(1, 1, 1, 1));
        }
        assert!(t.dirty_overflow);
        t.clear();
        assert!(t.buckets.iter().flat_map(|b| b.0.iter()).all(|e| e.is_empty()), "full clear");
    }

    #[test]
    fn hashfull_counts_current_generation() {
        let mut t = Table::new(1);
        assert_eq!(t.hashfull(), 0);
        for k in 0..100_000u64 {
            t.store(k.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1, &open(1, 1, 1, 1));
        }
        assert!(t.hashfull() > 0);
        t.new_search();
        assert_eq!(t.hashfull(), 0);
    }
}
