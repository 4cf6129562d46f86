//! The transposition table: a fixed-size array of 2-entry buckets keyed by 64-bit hashes,
//! shared by all search threads without a lock.
//!
//! Each entry records what is known about one key (position, attacker and clock context,
//! as the search builds keys): the working proof/disproof numbers for one remaining-depth
//! bound, and the proven range of the mate length, which holds for *every* bound. The
//! range only ever tightens.
//!
//! Replacement: a store goes to the entry with the same key, else to the entry of the
//! bucket (2 entries, one aligned 64-byte cache line) with the lowest keep value: empty
//! first, then entries of older searches, then the least work. Solved entries count as
//! far more work than any unsolved one, so proofs and disproofs survive long searches,
//! and a proof of the last [`MAX_PROOF_AGE`] searches outranks even this search's
//! unsolved entries, so that the proofs below it, which its line is built from, stay
//! too. An older proof is dropped when read (a disproof never is): its subtree may be
//! gone. A probe or store looks at one bucket only, so a full table never hangs; it only
//! forgets.
//!
//! Sharing between threads. Every entry is four atomic words guarded by its own sequence
//! lock: a writer takes the entry by a compare-and-swap that makes the sequence odd,
//! writes, and releases it with the next even sequence; a reader copies the four words
//! and keeps the copy only when the sequence was even and unchanged around it. So
//! - a reader never sees a torn entry: key, numbers, lengths and move always come from one
//!   complete write (a copy it cannot get consistently is treated as a miss);
//! - a store is a read-modify-write under the entry's lock, so concurrent stores to one
//!   key cannot undo each other's tightening: the mate range only ever narrows, and each
//!   end of it was proven by some thread for this very key.
//!
//! A proof, a disproof or a length read from the table is therefore always one that was
//! stored for that key. The one exception to "only tightens" is [`TranspositionTable::forget_proof`],
//! which drops a proof whose subtree the table has lost (the line builder's call): a
//! reader then sees no proof, or the true one it replaced, never a false one. Two threads
//! may, rarely, place the same key in both slots of a bucket; both copies hold true
//! facts, and a probe returns the first.
//!
//! The API hands out copies, never references. `resize` and `clear` take `&mut self`:
//! the type system keeps them between searches, when no thread holds the table.
//! The memory is mapped zeroed, so a table of any size is ready at once; a thread faults
//! its pages in meanwhile, so that searches do not pay for first touches out of their
//! time. A size beyond the memory available, or a failed allocation, is an error, not an
//! abort, and leaves the previous table in place.
//!
//! The table knows nothing of chess: keys are built by the search (`search::query`),
//! which also guarantees that no path-dependent result is stored.

mod entry;
mod memory;
mod slot;

use std::sync::atomic::{AtomicU8, AtomicU32, Ordering};

pub use entry::{Entry, Record};
use memory::{Buckets, available_memory};
use slot::{BUCKET, Bucket};

use crate::chess::mate_len::Plies;
use crate::chess::movecode::MoveCode;

/// How many searches a proof stays usable after the search that stored it (or last
/// rewrote its entry); a disproof stays for good. A proof is only as good as the line the
/// builder can rebuild from the entries below it, which age with it: within the age a
/// proof outranks newer unsolved entries, so its subtree stays whole; past it the proof
/// is dropped when read (docs/design.md, "Proof age").
const MAX_PROOF_AGE: u8 = 4;

/// Why the table could not be resized.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot allocate a {mb} MB table: {reason}; keeping the {kept_mb} MB table")]
pub struct AllocError {
    /// The size asked for.
    pub mb: usize,
    /// The size kept.
    pub kept_mb: usize,
    /// What stood in the way.
    pub reason: String,
}

/// The transposition table. See the module documentation.
pub struct TranspositionTable {
    buckets: Buckets,
    generation: AtomicU8,
    /// Buckets that received an entry since the last clear, while few: clearing after a
    /// small search then resets only these instead of the whole table. `dirty_len` counts
    /// claims; past [`DIRTY_CAP`] the next clear resets everything.
    dirty: Box<[AtomicU32]>,
    dirty_len: AtomicU32,
}

/// How many written buckets are remembered for a cheap clear.
const DIRTY_CAP: usize = 1 << 16;

impl TranspositionTable {
    /// A table of about `mb` megabytes (at least one bucket); a smaller one when that
    /// much memory cannot be had.
    pub fn new(mb: usize) -> TranspositionTable {
        let mut t = TranspositionTable {
            buckets: Buckets::zeroed(1).expect("one bucket"),
            generation: AtomicU8::new(1),
            dirty: (0..DIRTY_CAP).map(|_| AtomicU32::new(0)).collect(),
            dirty_len: AtomicU32::new(0),
        };
        let mut mb = mb.max(1);
        while t.resize(mb).is_err() && mb > 1 {
            mb /= 2;
        }
        t
    }

    /// The table's size in MB (rounded down).
    pub fn size_mb(&self) -> usize {
        std::mem::size_of_val(&*self.buckets) >> 20
    }

    /// Reallocates to about `mb` megabytes (empty). On failure the table stays as it was.
    pub fn resize(&mut self, mb: usize) -> Result<(), AllocError> {
        let mb = mb.max(1);
        let bytes = mb << 20;
        let fail = |reason: String| AllocError { mb, kept_mb: self.size_mb(), reason };
        if let Some(avail) = available_memory() {
            let reclaimable = std::mem::size_of_val(&*self.buckets) as u64;
            if bytes as u64 > avail + reclaimable {
                return Err(fail(format!("only {} MB available", (avail + reclaimable) >> 20)));
            }
        }
        let n = (bytes / std::mem::size_of::<Bucket>()).max(1);
        // Free the old table first, so that memory is available to the new one; put a
        // one-bucket table in its place meanwhile.
        let old_n = self.buckets.len();
        self.buckets = Buckets::zeroed(1).ok_or_else(|| fail("out of memory".into()))?;
        match Buckets::zeroed(n) {
            Some(b) => self.buckets = b,
            None => {
                // Give back a table of the old size if possible (its contents are lost).
                if let Some(b) = Buckets::zeroed(old_n) {
                    self.buckets = b;
                }
                return Err(AllocError { mb, kept_mb: self.size_mb(), reason: "out of memory".into() });
            }
        }
        *self.dirty_len.get_mut() = 0;
        *self.generation.get_mut() = 1;
        Ok(())
    }

    /// Waits until every page of the table is backed by memory (see [`Buckets`]).
    pub fn finish_touching(&mut self) {
        self.buckets.finish_touching();
    }

    /// Waits at most `limit` until every page of the table is backed by memory. Past the
    /// limit the pages are still faulted in, beside whatever runs next.
    pub fn finish_touching_within(&mut self, limit: std::time::Duration) {
        self.buckets.finish_touching_within(limit);
    }

    /// Forgets everything, keeping the size.
    pub fn clear(&mut self) {
        let claimed = *self.dirty_len.get_mut() as usize;
        if claimed > DIRTY_CAP {
            // SAFETY: `&mut self` excludes every other access; all-zero bytes are empty
            // buckets.
            unsafe { std::ptr::write_bytes(self.buckets.as_mut_ptr(), 0, self.buckets.len()) };
        } else {
            // Through the atomics: a fresh table's pages may still be being faulted in,
            // which a clear of a few buckets need not wait for.
            for d in &self.dirty[..claimed] {
                let b = d.load(Ordering::Relaxed) as usize;
                for slot in &self.buckets[b].0 {
                    for w in &slot.0 {
                        w.store(0, Ordering::Relaxed);
                    }
                }
            }
        }
        *self.dirty_len.get_mut() = 0;
        *self.generation.get_mut() = 1;
    }

    /// Starts a new search: older entries become preferred victims (their verdicts stay
    /// valid and usable).
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation.store(if g == u8::MAX { 1 } else { g + 1 }, Ordering::Relaxed);
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

    /// A copy of the entry for `key`, if present. Always inlined, with the search's other
    /// small calls (docs/design.md, "The search's small calls inlined").
    #[inline(always)]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        // Look at the key word first: only a slot that may hold the key is copied. A
        // plain loop: as an iterator chain, its search stayed a call of its own.
        for slot in &self.buckets[b].0 {
            if slot.0[0].load(Ordering::Relaxed) == key
                && let Some(e) = slot.read()
                && e.key == key
                && !e.is_empty()
            {
                return Some(self.fresh(e));
            }
        }
        None
    }

    /// `e` as a search of this generation may use it: a proof stored more than
    /// [`MAX_PROOF_AGE`] searches ago is dropped.
    #[inline]
    fn fresh(&self, e: Entry) -> Entry {
        if self.age(e.generation) > MAX_PROOF_AGE { e.without_proof() } else { e }
    }

    /// How many searches ago `generation` was the current one (0: this search).
    #[inline]
    fn age(&self, generation: u8) -> u8 {
        let now = self.generation.load(Ordering::Relaxed);
        // Generations run 1..=255 and wrap to 1.
        if now >= generation { now - generation } else { now + (u8::MAX - generation) }
    }

    /// Records what a search learnt about `key`: the working numbers and bound replace
    /// the stored ones, the mate range tightens, the work adds up. Always inlined, with
    /// the search's other small calls (docs/design.md, "The search's small calls
    /// inlined").
    #[inline(always)]
    pub fn store(&self, key: u64, r: &Record) {
        let b = self.bucket(key);
        let generation = self.generation.load(Ordering::Relaxed);
        let bucket = &self.buckets[b].0;
        // The slot holding the key (checked again under the lock), else the victim.
        let slot = match bucket.iter().position(|s| s.0[0].load(Ordering::Relaxed) == key) {
            Some(i) => i,
            None => {
                (0..BUCKET).min_by_key(|&i| bucket[i].read().map_or(u64::MAX, |e| self.keep_value(&e))).unwrap_or(0)
            }
        };
        let old = bucket[slot].lock();
        let mut e = self.fresh(bucket[slot].locked_entry(old));
        if e.key != key || e.is_empty() {
            if e.is_empty() {
                self.mark_dirty(b);
            }
            e = Entry { key, ..Entry::EMPTY };
        }
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
        bucket[slot].write_unlock(old, &e);
    }

    /// Drops the proof recorded for `key`, with the working numbers and move that led to
    /// it; its disproofs stay. The line builder's answer to a proof whose subtree the
    /// table has lost: the search proves it again. Forgetting is sound with threads too:
    /// a fact the table no longer holds is searched again, never replaced by a false one.
    pub fn forget_proof(&self, key: u64) {
        for slot in &self.buckets[self.bucket(key)].0 {
            if slot.0[0].load(Ordering::Relaxed) != key {
                continue;
            }
            let old = slot.lock();
            let mut e = slot.locked_entry(old);
            if e.key == key && !e.is_empty() {
                e = e.without_proof();
            }
            slot.write_unlock(old, &e);
        }
    }

    fn mark_dirty(&self, bucket: usize) {
        if self.dirty_len.load(Ordering::Relaxed) as usize > DIRTY_CAP {
            return;
        }
        let i = self.dirty_len.fetch_add(1, Ordering::Relaxed) as usize;
        if i < DIRTY_CAP {
            self.dirty[i].store(bucket as u32, Ordering::Relaxed);
        }
    }

    /// How much an entry is worth keeping; the lowest is replaced. A proof within
    /// [`MAX_PROOF_AGE`] first, then this search's entries, then solved ones, then work.
    fn keep_value(&self, e: &Entry) -> u64 {
        if e.is_empty() {
            return 0;
        }
        let age = self.age(e.generation);
        let proof = u64::from(e.mate.at_most != Plies::INFINITE && age <= MAX_PROOF_AGE) << 41;
        let current = u64::from(age == 0) << 40;
        let solved = u64::from(e.is_solved()) << 36;
        1 + proof + current + solved + u64::from(e.work)
    }

    /// Occupancy in permille: the share of the first 500 entries (250 buckets) that this
    /// search generation wrote.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed);
        let sample = self.buckets.len().min(250);
        let used = self.buckets[..sample]
            .iter()
            .flat_map(|b| b.0.iter())
            .filter(|s| ((s.0[3].load(Ordering::Relaxed) >> 32) as u8) == generation)
            .count();
        (used * 1000 / (sample * BUCKET).max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::mate_len::MateRange;

    fn open(bound: u16, pn: u32, dn: u32, work: u32) -> Record {
        Record { bound: Plies::new(bound), pn, dn, mate: MateRange::UNKNOWN, work, best: MoveCode::NONE }
    }

    fn proven(at_most: u16) -> Record {
        Record { mate: MateRange { at_most: Plies::new(at_most), ..MateRange::UNKNOWN }, ..open(3, 0, 1 << 30, 1) }
    }

    fn all_empty(t: &TranspositionTable) -> bool {
        t.buckets.iter().flat_map(|b| b.0.iter()).all(|s| s.0.iter().all(|w| w.load(Ordering::Relaxed) == 0))
    }

    #[test]
    fn entries_are_32_bytes_and_buckets_one_cache_line() {
        assert_eq!(std::mem::size_of::<Entry>(), 32);
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
        assert_eq!(std::mem::align_of::<Bucket>(), 64);
    }

    #[test]
    fn impossible_sizes_are_refused_and_the_table_kept() {
        let mut t = TranspositionTable::new(2);
        t.store(5, &proven(3));
        let err = t.resize(1 << 40).unwrap_err();
        assert_eq!(err.kept_mb, 2, "{err}");
        assert!(t.probe(5).is_some(), "a refused size leaves the table as it was");
    }

    #[test]
    fn store_probe_round_trip_and_tightening() {
        let t = TranspositionTable::new(1);
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
    fn a_forgotten_proof_is_gone_and_the_disproofs_stay() {
        let t = TranspositionTable::new(1);
        let range = MateRange { at_least: Plies::new(3), at_most: Plies::new(9) };
        t.store(42, &Record { mate: range, best: MoveCode(99), ..open(9, 0, 1 << 30, 7) });
        t.store(43, &proven(5));
        t.forget_proof(42);
        let e = t.probe(42).unwrap();
        assert_eq!((e.mate.at_least, e.mate.at_most), (Plies::new(3), Plies::INFINITE));
        assert_eq!((e.pn, e.dn, e.bound, e.best), (1, 1, Plies::ZERO, MoveCode::NONE));
        assert_eq!(t.probe(43).unwrap().mate.at_most, Plies::new(5), "other keys keep theirs");
        t.forget_proof(44);
        assert!(t.probe(44).is_none(), "forgetting a key the table lacks stores nothing");
        t.store(42, &proven(11));
        assert_eq!(t.probe(42).unwrap().mate.at_most, Plies::new(11), "a new proof is kept");
    }

    #[test]
    fn full_table_keeps_solved_and_heavy_entries() {
        let mut t = TranspositionTable::new(1);
        t.buckets = Buckets::zeroed(1).unwrap();
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
        assert!(t.probe(1).is_some(), "a recent proof stays, its subtree with it");
        assert!(t.probe(7).is_none() && t.probe(8).is_some());
        let disproof =
            Record { mate: MateRange { at_least: Plies::new(9), ..MateRange::UNKNOWN }, ..open(9, 5, 5, 50) };
        t.store(9, &disproof);
        t.new_search();
        t.store(10, &open(3, 5, 5, 1));
        assert!(t.probe(9).is_none(), "an old generation's entry goes first, even a disproof");
        assert!(t.probe(1).is_some() && t.probe(10).is_some());
    }

    #[test]
    fn a_proof_is_trusted_for_max_proof_age_searches_and_a_disproof_for_ever() {
        let t = TranspositionTable::new(1);
        let range = MateRange { at_least: Plies::new(5), at_most: Plies::new(9) };
        t.store(42, &Record { mate: range, best: MoveCode(99), ..open(9, 0, 1 << 30, 7) });
        for _ in 0..MAX_PROOF_AGE {
            t.new_search();
        }
        assert_eq!(t.probe(42).unwrap().mate, range, "still whole {MAX_PROOF_AGE} searches on");
        t.new_search();
        let e = t.probe(42).unwrap();
        assert_eq!((e.mate.at_least, e.mate.at_most), (Plies::new(5), Plies::INFINITE), "the proof is dropped");
        assert_eq!((e.pn, e.dn, e.bound, e.best), (1, 1, Plies::ZERO, MoveCode::NONE), "with what led to it");
        t.store(42, &open(9, 3, 4, 1));
        let e = t.probe(42).unwrap();
        assert_eq!(e.mate.at_most, Plies::INFINITE, "rewriting the entry does not bring the old proof back");
        assert_eq!((e.mate.at_least, e.pn, e.dn), (Plies::new(5), 3, 4));
        for _ in 0..300 {
            t.new_search();
        }
        assert_eq!(t.probe(42).unwrap().mate.at_least, Plies::new(5), "across the generations' wrap");
    }

    /// How many of the table's pages are backed by memory of their own (not the shared
    /// zero page a read maps), of how many: the "exclusively mapped" bit of each page in
    /// /proc/self/pagemap.
    #[cfg(target_os = "linux")]
    fn own_pages(t: &TranspositionTable) -> (usize, usize) {
        use std::io::{Read, Seek, SeekFrom};
        const EXCLUSIVE: u64 = 1 << 56;
        let start = t.buckets.as_ptr() as u64 / 4096;
        let pages = std::mem::size_of_val(&*t.buckets).div_ceil(4096);
        let mut map = std::fs::File::open("/proc/self/pagemap").unwrap();
        map.seek(SeekFrom::Start(start * 8)).unwrap();
        let mut raw = vec![0u8; pages * 8];
        map.read_exact(&mut raw).unwrap();
        let own = raw.chunks_exact(8).filter(|e| u64::from_le_bytes((*e).try_into().unwrap()) & EXCLUSIVE != 0);
        (own.count(), pages)
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_new_table_is_backed_by_memory_and_keeps_what_was_stored_meanwhile() {
        let mut t = TranspositionTable::new(64);
        // These stores race with the thread faulting the pages in: each must survive it.
        // (Few of them, or they would fault in every huge page themselves.)
        let keys: Vec<u64> = (1..8u64).map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        for (i, &k) in keys.iter().enumerate() {
            t.store(k, &open(1, i as u32 + 1, 1, 1));
        }
        t.finish_touching();
        let (own, pages) = own_pages(&t);
        assert_eq!(own, pages, "every page backed once the touch is done");
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(t.probe(k).map(|e| e.pn), Some(i as u32 + 1), "key {i}");
        }
    }

    #[test]
    fn clear_forgets_everything_cheaply_or_fully() {
        let mut t = TranspositionTable::new(8);
        for k in 1..100u64 {
            t.store(k.wrapping_mul(0x9E37_79B9_7F4A_7C15), &open(1, 1, 1, 1));
        }
        t.clear();
        assert!(all_empty(&t), "cheap clear");
        for k in 1..(DIRTY_CAP as u64 * 4) {
            t.store(k.wrapping_mul(0x9E37_79B9_7F4A_7C15), &open(1, 1, 1, 1));
        }
        assert!(*t.dirty_len.get_mut() as usize > DIRTY_CAP);
        t.clear();
        assert!(all_empty(&t), "full clear");
    }

    #[test]
    fn hashfull_counts_current_generation() {
        let t = TranspositionTable::new(1);
        assert_eq!(t.hashfull(), 0);
        for k in 0..100_000u64 {
            t.store(k.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1, &open(1, 1, 1, 1));
        }
        assert!(t.hashfull() > 0);
        t.new_search();
        assert_eq!(t.hashfull(), 0);
    }
}
