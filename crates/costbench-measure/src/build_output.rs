//! Running a cargo build whose stderr costbench both keeps and shows: cargo's status lines
//! (`Compiling ...`, `Finished ...`, the compiler's diagnostics) are copied to costbench's
//! stderr line by line as cargo writes them, so a long build is never silent, and the whole
//! text is returned for the error message or the variant matrix.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Output, Stdio};

/// Like [`Command::output`], with stderr also copied to this process's stderr as it comes.
pub fn output_echoing_stderr(cmd: &mut Command) -> std::io::Result<Output> {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let stderr = child.stderr.take().expect("stderr is piped");
    // Stderr on its own thread: cargo writes both streams, and a full pipe on either would stall
    // it while the other is being read.
    let echo = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut reader = BufReader::new(stderr);
        let mut line = Vec::new();
        while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
            // Best effort: a closed stderr must not stop the build.
            let _ = std::io::stderr().write_all(&line);
            kept.extend_from_slice(&line);
            line.clear();
        }
        kept
    });
    let mut stdout = Vec::new();
    let read = child
        .stdout
        .take()
        .expect("stdout is piped")
        .read_to_end(&mut stdout);
    let status = child.wait()?;
    read?;
    let stderr = echo.join().unwrap_or_default();
    Ok(Output {
        status,
        stdout,
        stderr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_streams_are_kept_whole() {
        let out = output_echoing_stderr(Command::new("sh").args([
            "-c",
            "for i in $(seq 1 2000); do echo out$i; echo err$i >&2; done; exit 3",
        ]))
        .unwrap();
        assert_eq!(out.status.code(), Some(3));
        let o = String::from_utf8(out.stdout).unwrap();
        let e = String::from_utf8(out.stderr).unwrap();
        assert_eq!(o.lines().count(), 2000);
        assert_eq!(e.lines().count(), 2000);
        assert!(e.ends_with("err2000\n"), "{e}");
    }
}
