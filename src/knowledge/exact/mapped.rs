//! A table's bytes: built in memory, or a stored file mapped read-only into memory.

use std::fs::File;
#[cfg(not(unix))]
use std::io::{Read, Seek, SeekFrom};

/// The bytes of a table: built in memory, or mapped from its stored file.
pub(crate) enum Bytes {
    Owned(Vec<u8>),
    Mapped(Mapping),
}

impl Bytes {
    pub fn is_mapped(&self) -> bool {
        matches!(self, Bytes::Mapped(_))
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Owned(v) => v,
            Bytes::Mapped(m) => m.bytes(),
        }
    }
}

/// A file mapped read-only into memory (read into memory where mapping is not available),
/// seen from byte `offset` on (past its header).
pub(crate) struct Mapping {
    offset: usize,
    #[cfg(unix)]
    ptr: *mut libc::c_void,
    #[cfg(unix)]
    len: usize,
    #[cfg(not(unix))]
    data: Vec<u8>,
}

// The mapping is read-only and private to its table: sharing it between threads is
// sharing a `&[u8]`.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps the whole of `file`, whose length is `len` (at least `offset`).
    #[cfg(unix)]
    pub fn new(file: &File, len: usize, offset: usize) -> std::io::Result<Mapping> {
        use std::os::unix::io::AsRawFd;
        // SAFETY: a read-only, private mapping of a file we opened; checked for failure.
        let ptr =
            unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, file.as_raw_fd(), 0) };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Mapping { offset, ptr, len })
    }

    #[cfg(not(unix))]
    pub fn new(file: &File, len: usize, offset: usize) -> std::io::Result<Mapping> {
        let mut data = Vec::with_capacity(len);
        (&*file).seek(SeekFrom::Start(0))?;
        (&*file).read_to_end(&mut data)?;
        Ok(Mapping { offset, data })
    }

    /// The whole file.
    fn all(&self) -> &[u8] {
        #[cfg(unix)]
        // SAFETY: `ptr` maps `len` readable bytes until `drop`. A file truncated under the
        // mapping would fault; files are only ever replaced by rename, never rewritten.
        return unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) };
        #[cfg(not(unix))]
        return &self.data;
    }

    pub fn bytes(&self) -> &[u8] {
        &self.all()[self.offset..]
    }
}

#[cfg(unix)]
impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps what `new` mapped, once.
        unsafe {
            libc::munmap(self.ptr, self.len);
        }
    }
}
