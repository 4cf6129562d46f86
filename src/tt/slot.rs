//! One entry in memory, shared by every thread without a lock: four atomic words under a
//! sequence lock of their own, and the bucket of entries one cache line holds.

use std::sync::atomic::{AtomicU64, Ordering, fence};

use super::entry::Entry;
use crate::chess::mate_len::{MateRange, Plies};
use crate::chess::movecode::MoveCode;

/// Entries per bucket.
pub(crate) const BUCKET: usize = 2;

/// One entry in memory: four atomic words. All zero is an empty entry.
///
/// - word 0: key
/// - word 1: pn (low 32 bits), dn (high 32)
/// - word 2: work (low 32), at_least (bits 32..48), at_most inverted (48..64, so that
///   zero reads as "no mate proven")
/// - word 3: bound (0..16), best move (16..32), generation (32..40), sequence (40..56)
#[repr(C)]
pub(crate) struct Slot(pub(crate) [AtomicU64; 4]);

const SEQ_SHIFT: u32 = 40;
const SEQ_ONE: u64 = 1 << SEQ_SHIFT;
const SEQ_MASK: u64 = 0xFFFF << SEQ_SHIFT;

/// How often a reader retries a copy that a writer disturbed before calling it a miss.
const READ_TRIES: usize = 8;

impl Slot {
    fn unpack(w: [u64; 4]) -> Entry {
        Entry {
            key: w[0],
            pn: w[1] as u32,
            dn: (w[1] >> 32) as u32,
            work: w[2] as u32,
            mate: MateRange {
                at_least: Plies::from_raw((w[2] >> 32) as u16),
                at_most: Plies::from_raw(!((w[2] >> 48) as u16)),
            },
            bound: Plies::from_raw(w[3] as u16),
            best: MoveCode((w[3] >> 16) as u16),
            generation: (w[3] >> 32) as u8,
            _pad: [0; 3],
        }
    }

    /// Words 1 to 3 of `e` (word 3 without the sequence).
    fn pack(e: &Entry) -> [u64; 3] {
        [
            u64::from(e.pn) | (u64::from(e.dn) << 32),
            u64::from(e.work) | (u64::from(e.mate.at_least.get()) << 32) | (u64::from(!e.mate.at_most.get()) << 48),
            u64::from(e.bound.get()) | (u64::from(e.best.0) << 16) | (u64::from(e.generation) << 32),
        ]
    }

    /// A consistent copy, or None when writers kept disturbing it. Always inlined: as a
    /// call, its copy came back through memory and the probe read it in other widths than
    /// it was written in, loads that wait for the stores to retire (store forwarding).
    #[inline(always)]
    pub(crate) fn read(&self) -> Option<Entry> {
        for _ in 0..READ_TRIES {
            let s1 = self.0[3].load(Ordering::Acquire);
            if s1 & SEQ_ONE != 0 {
                std::hint::spin_loop();
                continue;
            }
            let w0 = self.0[0].load(Ordering::Relaxed);
            let w1 = self.0[1].load(Ordering::Relaxed);
            let w2 = self.0[2].load(Ordering::Relaxed);
            fence(Ordering::Acquire);
            let s2 = self.0[3].load(Ordering::Relaxed);
            if s1 == s2 {
                return Some(Slot::unpack([w0, w1, w2, s1]));
            }
        }
        None
    }

    /// Takes the entry's lock; returns its word 3 as it was.
    #[inline]
    pub(crate) fn lock(&self) -> u64 {
        let mut spins = 0u32;
        loop {
            let w3 = self.0[3].load(Ordering::Relaxed);
            if w3 & SEQ_ONE == 0
                && self.0[3]
                    .compare_exchange_weak(w3, w3.wrapping_add(SEQ_ONE), Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                fence(Ordering::Release);
                return w3;
            }
            spins += 1;
            if spins.is_multiple_of(64) {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// Writes `e` into a locked entry whose word 3 was `old` and releases the lock.
    #[inline]
    pub(crate) fn write_unlock(&self, old: u64, e: &Entry) {
        let w = Slot::pack(e);
        self.0[0].store(e.key, Ordering::Relaxed);
        self.0[1].store(w[0], Ordering::Relaxed);
        self.0[2].store(w[1], Ordering::Relaxed);
        let seq = (old & SEQ_MASK).wrapping_add(2 * SEQ_ONE) & SEQ_MASK;
        self.0[3].store(w[2] | seq, Ordering::Release);
    }

    /// The entry of a locked slot (only the lock holder writes it).
    #[inline]
    pub(crate) fn locked_entry(&self, old: u64) -> Entry {
        let w = [0, 1, 2].map(|i| self.0[i].load(Ordering::Relaxed));
        Slot::unpack([w[0], w[1], w[2], old])
    }
}

/// One bucket, aligned to exactly one cache line, so a probe costs at most one miss.
/// Two entries rather than four: equal results, more nodes per second (docs/design.md).
#[repr(C, align(64))]
pub(crate) struct Bucket(pub(crate) [Slot; BUCKET]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_survive_packing() {
        let e = Entry {
            key: 0xDEAD_BEEF_0123_4567,
            pn: 123_456,
            dn: u32::MAX,
            work: 77,
            mate: MateRange { at_least: Plies::new(7), at_most: Plies::INFINITE },
            bound: Plies::new(1999),
            best: MoveCode(0xFFFF),
            generation: 200,
            _pad: [0; 3],
        };
        let w = Slot::pack(&e);
        assert_eq!(Slot::unpack([e.key, w[0], w[1], w[2] | (5 * SEQ_ONE)]), e);
    }
}
