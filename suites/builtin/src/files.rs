//! File I/O habits: opening a file for every read vs once (reading with `pread` so each run
//! reads the same bytes), and unbuffered writes vs `BufWriter`. Files live in the system's temp
//! directory under fixed-length names and are removed when their guard drops.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// A temporary file that is removed on drop.
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
}

impl TempFile {
    /// Creates `costbench-suite-PID-TAG` in the temp directory with `contents`. The process id
    /// is zero-padded so that the path's length (which the measured code handles) never varies.
    pub fn new(tag: &str, contents: &[u8]) -> io::Result<TempFile> {
        let path =
            std::env::temp_dir().join(format!("costbench-suite-{:010}-{tag}", std::process::id()));
        std::fs::write(&path, contents)?;
        Ok(TempFile { path })
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Opens `path` `n` times and reads its first 64 bytes each time; returns the bytes read.
#[inline(never)]
pub fn read_opening_each_time(path: &Path, n: usize) -> io::Result<usize> {
    let mut buf = [0u8; 64];
    let mut total = 0;
    for _ in 0..n {
        total += File::open(path)?.read(&mut buf)?;
    }
    Ok(total)
}

/// Reads the first 64 bytes of an already open `file` `n` times (with `pread`).
#[inline(never)]
pub fn read_opened_once(file: &File, n: usize) -> io::Result<usize> {
    let mut buf = [0u8; 64];
    let mut total = 0;
    for _ in 0..n {
        total += file.read_at(&mut buf, 0)?;
    }
    Ok(total)
}

/// Truncates `path` and writes every line with its own `write` system call.
#[inline(never)]
pub fn write_unbuffered(path: &Path, lines: &[String]) -> io::Result<()> {
    let mut f = File::create(path)?;
    for l in lines {
        f.write_all(l.as_bytes())?;
        f.write_all(b"\n")?;
    }
    Ok(())
}

/// Truncates `path` and writes every line through a `BufWriter`.
#[inline(never)]
pub fn write_buffered(path: &Path, lines: &[String]) -> io::Result<()> {
    let mut f = BufWriter::new(File::create(path)?);
    for l in lines {
        f.write_all(l.as_bytes())?;
        f.write_all(b"\n")?;
    }
    f.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_agree() {
        let t = TempFile::new("test-read", &[7u8; 100]).unwrap();
        assert_eq!(read_opening_each_time(t.path(), 3).unwrap(), 192);
        let f = File::open(t.path()).unwrap();
        assert_eq!(read_opened_once(&f, 3).unwrap(), 192);
        let lines: Vec<String> = (0..10).map(|i| format!("line {i}")).collect();
        let w = TempFile::new("test-write", b"").unwrap();
        write_unbuffered(w.path(), &lines).unwrap();
        let a = std::fs::read(w.path()).unwrap();
        write_buffered(w.path(), &lines).unwrap();
        assert_eq!(a, std::fs::read(w.path()).unwrap());
        let p = w.path().to_path_buf();
        drop(w);
        assert!(!p.exists());
    }
}
