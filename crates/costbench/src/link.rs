//! Links between the parties of a multi-party scenario.
//!
//! A [`Link`] is a byte stream to one peer, readable and writable. Under instruction counting
//! each party is its own process and a link is a pair of OS pipes, used unbuffered through the raw
//! file descriptors (no `std::io::stdin` lock, no hidden buffering, so the counts do not depend on
//! buffer state). For wall time and smoke tests the parties are threads of one process and a link
//! is an in-memory pipe: a byte queue behind a mutex and condition variable, so that the time
//! measured is the parties' own work, not the kernel's pipe implementation.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::{Arc, Condvar, Mutex};

/// A bidirectional byte stream to one other party of a multi-party scenario.
///
/// Obtained with [`Bench::peer`](crate::Bench::peer) or
/// [`Bench::peer_named`](crate::Bench::peer_named). Reading returns 0 bytes once the peer has
/// finished and closed its side.
///
/// ```
/// use std::io::{Read, Write};
/// # fn demo(link: &mut costbench::Link) -> std::io::Result<()> {
/// link.write_all(&4u32.to_le_bytes())?;
/// let mut reply = [0u8; 4];
/// link.read_exact(&mut reply)?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Link {
    inner: Inner,
}

#[derive(Debug)]
enum Inner {
    Fd { read: File, write: File },
    Mem { read: MemReader, write: MemWriter },
}

impl Link {
    // Only Unix has descriptors for the runner to pass (see `child::fd_link`).
    #[cfg_attr(not(unix), allow(dead_code))]
    pub(crate) fn from_files(read: File, write: File) -> Link {
        Link {
            inner: Inner::Fd { read, write },
        }
    }

    /// Two connected in-memory links.
    pub(crate) fn mem_pair() -> (Link, Link) {
        let (r1, w1) = mem_pipe();
        let (r2, w2) = mem_pipe();
        (
            Link {
                inner: Inner::Mem {
                    read: r1,
                    write: w2,
                },
            },
            Link {
                inner: Inner::Mem {
                    read: r2,
                    write: w1,
                },
            },
        )
    }
}

impl Read for Link {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Fd { read, .. } => read.read(buf),
            Inner::Mem { read, .. } => read.read(buf),
        }
    }
}

impl Write for Link {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Fd { write, .. } => write.write(buf),
            Inner::Mem { write, .. } => write.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[derive(Debug, Default)]
struct PipeState {
    data: VecDeque<u8>,
    closed: bool,
}

#[derive(Debug, Default)]
struct Pipe {
    state: Mutex<PipeState>,
    ready: Condvar,
}

#[derive(Debug)]
struct MemReader(Arc<Pipe>);

#[derive(Debug)]
struct MemWriter(Arc<Pipe>);

fn mem_pipe() -> (MemReader, MemWriter) {
    let p = Arc::new(Pipe::default());
    (MemReader(p.clone()), MemWriter(p))
}

fn lock(p: &Pipe) -> std::sync::MutexGuard<'_, PipeState> {
    // A poisoned pipe means the peer thread panicked; the process is exiting anyway, and the
    // queue itself is always in a consistent state.
    p.state.lock().unwrap_or_else(|e| e.into_inner())
}

impl Read for MemReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let mut st = lock(&self.0);
        while st.data.is_empty() && !st.closed {
            st = self.0.ready.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        st.data.read(buf)
    }
}

impl Write for MemWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut st = lock(&self.0);
        st.data.extend(buf);
        drop(st);
        self.0.ready.notify_all();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for MemWriter {
    fn drop(&mut self) {
        lock(&self.0).closed = true;
        self.0.ready.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_links_carry_bytes_both_ways_and_close() {
        let (mut a, mut b) = Link::mem_pair();
        let t = std::thread::spawn(move || {
            let mut buf = [0u8; 5];
            b.read_exact(&mut buf).unwrap();
            b.write_all(b"pong").unwrap();
            buf
        });
        a.write_all(b"hello").unwrap();
        let mut reply = [0u8; 4];
        a.read_exact(&mut reply).unwrap();
        assert_eq!(&reply, b"pong");
        assert_eq!(&t.join().unwrap(), b"hello");
        // b is dropped: a reads end of stream.
        let mut rest = Vec::new();
        a.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty());
    }
}
