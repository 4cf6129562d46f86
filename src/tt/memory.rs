//! The table's memory: zeroed buckets mapped from the system, advised onto huge pages, and
//! faulted in by a thread of their own so that no search pays for the first touches.

#[cfg(not(unix))]
use std::alloc::{Layout, alloc_zeroed};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::slot::Bucket;

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

/// Memory the system says it can still give, in bytes (Linux: MemAvailable plus free
/// swap); None where unknown.
pub(crate) fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = info.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb * 1024)
    };
    Some(field("MemAvailable:")? + field("SwapFree:").unwrap_or(0))
}

/// Zeroed memory for the buckets, owned. On Unix it is an anonymous mapping, which reads
/// as zeros (the global allocator would have to clear memory aligned to a cache line
/// itself).
///
/// Every page is faulted in when the table is made, by a thread of its own for a table of
/// a huge page or more ([`Toucher`]): the first touch of a page costs a fault, and that of
/// a huge page may stall for a memory compaction (5 to 120 ms on the first search with a
/// 64 MB table, measured on a shared VM). Left to the search, that is taken from a move's
/// time; done here, a `setoption name Hash` still returns at once, and a search that
/// starts before the touch is done only faults the pages not yet reached.
pub(crate) struct Buckets {
    ptr: std::ptr::NonNull<Bucket>,
    len: usize,
    toucher: Option<Toucher>,
}

// SAFETY: `Buckets` owns its memory like a Box<[Bucket]>; Bucket is Sync (atomics).
unsafe impl Send for Buckets {}
// SAFETY: as above; shared access only ever goes through the atomics.
unsafe impl Sync for Buckets {}

/// Bytes from which the pages are faulted in by a thread rather than at once.
const TOUCH_IN_THREAD: usize = 2 << 20;

/// The thread faulting in the pages of fresh buckets: it writes each page's first word
/// with an atomic compare-exchange of the value it holds, which keeps whatever a search
/// may have stored there meanwhile (a writer's store between its load and its exchange
/// makes the exchange fail, changing nothing). [`Buckets`] stops and joins it before the
/// memory is unmapped, and waits for it before any exclusive access.
struct Toucher {
    cancel: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<()>,
}

/// The buckets' address, for the toucher's thread.
struct BucketsPtr(*const Bucket);

// SAFETY: the toucher only reaches the buckets through their atomics, and is joined
// before the memory goes (see `Toucher`).
unsafe impl Send for BucketsPtr {}

/// Faults in the pages of `len` buckets at `ptr`, until done or `cancel` is set.
fn touch_pages(ptr: &BucketsPtr, len: usize, cancel: &AtomicBool) {
    const PAGE_BUCKETS: usize = 4096 / std::mem::size_of::<Bucket>();
    for i in (0..len).step_by(PAGE_BUCKETS) {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        // SAFETY: `i < len`, and the buckets stay mapped until the toucher is joined.
        let word = unsafe { &(*ptr.0.add(i)).0[0].0[0] };
        // A write of the value there (an idempotent `fetch_or(0)` is compiled to a load,
        // which maps the shared zero page instead).
        let v = word.load(Ordering::Relaxed);
        let _ = word.compare_exchange(v, v, Ordering::Relaxed, Ordering::Relaxed);
    }
}

impl Buckets {
    /// `n` (at least 1) empty buckets, or None when the memory cannot be had.
    pub(crate) fn zeroed(n: usize) -> Option<Buckets> {
        let n = n.max(1);
        let bytes = n.checked_mul(std::mem::size_of::<Bucket>())?;
        #[cfg(unix)]
        // SAFETY: an anonymous private mapping of `bytes` bytes; it is page aligned (more
        // than Bucket's 64) and reads as zeros, a valid empty Bucket.
        let ptr = unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if p == libc::MAP_FAILED { std::ptr::null_mut() } else { p as *mut Bucket }
        };
        #[cfg(not(unix))]
        // SAFETY: a nonzero-size layout; all-zero bytes are a valid Bucket.
        let ptr = unsafe { alloc_zeroed(Layout::array::<Bucket>(n).ok()?) as *mut Bucket };
        let ptr = std::ptr::NonNull::new(ptr)?;
        advise_huge_pages(ptr.as_ptr() as *mut u8, bytes);
        let mut buckets = Buckets { ptr, len: n, toucher: None };
        let at = BucketsPtr(ptr.as_ptr());
        if bytes < TOUCH_IN_THREAD {
            touch_pages(&at, n, &AtomicBool::new(false));
            return Some(buckets);
        }
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let spawned = std::thread::Builder::new().name("pnmate-tt-touch".into()).spawn(move || {
            touch_pages(&at, n, &flag);
        });
        // Without a thread the pages are faulted in by the searches, as they reach them.
        buckets.toucher = spawned.ok().map(|handle| Toucher { cancel, handle });
        Some(buckets)
    }

    /// Waits until every page is faulted in.
    pub(crate) fn finish_touching(&mut self) {
        if let Some(t) = self.toucher.take() {
            let _ = t.handle.join();
        }
    }

    /// Waits at most `limit` for every page to be faulted in.
    pub(crate) fn finish_touching_within(&mut self, limit: std::time::Duration) {
        let start = std::time::Instant::now();
        while self.toucher.as_ref().is_some_and(|t| !t.handle.is_finished()) {
            if start.elapsed() >= limit {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        self.finish_touching();
    }
}

impl std::ops::Deref for Buckets {
    type Target = [Bucket];
    fn deref(&self) -> &[Bucket] {
        // SAFETY: `ptr` points to `len` initialised buckets owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for Buckets {
    fn deref_mut(&mut self) -> &mut [Bucket] {
        self.finish_touching();
        // SAFETY: as in deref; `&mut self` and the toucher's end make the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Buckets {
    fn drop(&mut self) {
        if let Some(t) = &self.toucher {
            t.cancel.store(true, Ordering::Relaxed);
        }
        self.finish_touching();
        let bytes = self.len * std::mem::size_of::<Bucket>();
        // SAFETY: the memory was obtained in `zeroed` with exactly this size, and no one
        // uses it after this (the toucher has ended).
        unsafe {
            #[cfg(unix)]
            libc::munmap(self.ptr.as_ptr() as *mut libc::c_void, bytes);
            #[cfg(not(unix))]
            std::alloc::dealloc(self.ptr.as_ptr() as *mut u8, Layout::from_size_align_unchecked(bytes, 64));
        }
    }
}
