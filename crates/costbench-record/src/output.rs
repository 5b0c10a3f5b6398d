//! The output directory: `run.json`, the CSV files (rendered by [`crate::csv`], which says which
//! a run writes) and the files each instrument keeps (its descriptor's `kept`); and reading
//! `run.json` back ([`load_run`]), with its schema checks, beside the code that writes it.
//!
//! Every file is written atomically (a temporary file, then a rename), and the whole set is
//! rewritten after each scenario finishes, so an interrupted run leaves the results of every
//! scenario that completed and never a half-written file. Every temporary file of a run (these
//! and the children's raw outputs) lives in one directory, [`OutputDir::tmp_dir`]
//! (`.costbench-tmp-<pid>`), so that whoever cleans up after a killed run removes one directory;
//! [`OutputDir::prepare`] removes those of runs whose process is gone. Files are created with the
//! user's umask (not `tempfile`'s 0600).

use crate::csv::files::{CsvFile, Presence};
use crate::instrument::Instrument;
use crate::model::{RunRecord, SCHEMA, SCHEMA_VERSION};
use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

/// Bytes a run sets aside in its temporary directory for its last record ([`OutputDir::reserve`]).
pub const RESERVE_BYTES: usize = 4 << 20;
const RESERVE_FILE: &str = "reserve";

/// Name prefix of a run's temporary directory inside an output directory; the process id follows.
pub const TMP_DIR_PREFIX: &str = ".costbench-tmp-";

/// An output directory that [`prepare`](OutputDir::prepare) found writable; every result file
/// of a run goes into it.
#[derive(Debug, Clone)]
pub struct OutputDir {
    root: PathBuf,
    /// This process's temporary directory inside `root`.
    tmp: PathBuf,
}

impl OutputDir {
    /// Creates the directory (and `callgrind/`), removes the temporary directories of runs
    /// whose process is gone (a killed run's), and checks that it is writable, before anything
    /// is measured. Leaves no temporary directory of its own behind.
    pub fn prepare(root: &Path) -> Result<OutputDir> {
        let cg = root.join("callgrind");
        std::fs::create_dir_all(&cg)
            .with_context(|| format!("cannot create output directory {}", cg.display()))?;
        remove_stale_tmp_dirs(root);
        let out = OutputDir {
            root: root.to_path_buf(),
            tmp: root.join(format!("{TMP_DIR_PREFIX}{}", std::process::id())),
        };
        let existed = out.tmp.is_dir();
        out.tmp_dir()
            .and_then(|t| tempfile::NamedTempFile::new_in(t).map_err(Into::into))
            .with_context(|| format!("output directory {} is not writable", root.display()))?;
        if !existed {
            out.remove_tmp_dir();
        }
        Ok(out)
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// This process's temporary directory in the output directory, created if absent: every
    /// temporary file of a run goes here (on the same file system as the results, so that a
    /// rename publishes it). Removed by [`remove_tmp_dir`](Self::remove_tmp_dir) at the end of
    /// the run, or, after a run that was killed, by whoever cleans up for it.
    pub fn tmp_dir(&self) -> Result<&Path> {
        std::fs::create_dir_all(&self.tmp)
            .with_context(|| format!("cannot create {}", self.tmp.display()))?;
        Ok(&self.tmp)
    }

    /// The path of [`tmp_dir`](Self::tmp_dir), without creating it.
    pub fn tmp_dir_path(&self) -> &Path {
        &self.tmp
    }

    /// Sets aside [`RESERVE_BYTES`] in the temporary directory (a file of zeros: a sparse one
    /// would reserve nothing), so that a run whose disk fills up can still write the record
    /// that says so after [`release_reserve`](Self::release_reserve). Best effort: where there
    /// is not that much room, nothing is reserved and the run goes on.
    pub fn reserve(&self) {
        let path = self.tmp.join(RESERVE_FILE);
        let written = std::fs::File::create(&path).and_then(|mut f| {
            let zeros = vec![0u8; 64 * 1024];
            for _ in 0..RESERVE_BYTES / zeros.len() {
                f.write_all(&zeros)?;
            }
            f.sync_data()
        });
        if written.is_err() {
            let _ = std::fs::remove_file(&path);
        }
    }

    /// Bytes this process could still write to the directory's file system (what `statvfs`
    /// says is free to unprivileged users, or to root when running as root), or `None` where
    /// the file system cannot be asked.
    #[allow(clippy::useless_conversion)] // the statvfs fields are narrower on 32-bit targets
    pub fn space_left(&self) -> Option<u64> {
        let path = std::ffi::CString::new(self.root.as_os_str().as_encoded_bytes()).ok()?;
        // SAFETY: `path` is a NUL-terminated string and `st` a valid, writable statvfs.
        let st = unsafe {
            let mut st: libc::statvfs = std::mem::zeroed();
            if libc::statvfs(path.as_ptr(), &mut st) != 0 {
                return None;
            }
            st
        };
        // SAFETY: geteuid cannot fail.
        let blocks = if unsafe { libc::geteuid() } == 0 {
            st.f_bfree
        } else {
            st.f_bavail
        };
        Some(u64::from(blocks).saturating_mul(u64::from(st.f_frsize)))
    }

    /// Gives back the space [`reserve`](Self::reserve) set aside.
    pub fn release_reserve(&self) {
        let _ = std::fs::remove_file(self.tmp.join(RESERVE_FILE));
    }

    /// Removes this process's temporary directory and everything in it.
    pub fn remove_tmp_dir(&self) {
        let _ = std::fs::remove_dir_all(&self.tmp);
    }

    /// Where the raw output of `instrument` for `id` is kept, as its descriptor says
    /// ([`Descriptor::kept`](crate::instrument::Descriptor::kept)): (full path, path relative
    /// to the root), or `None` for an instrument that keeps no file.
    pub fn kept_paths(&self, instrument: Instrument, id: &str) -> Option<(PathBuf, String)> {
        let kept = instrument.descriptor().kept?;
        let rel = format!("{}/{}.{}", kept.dir, file_stem(id), kept.ext);
        Some((self.root.join(&rel), rel))
    }

    /// [`kept_paths`](Self::kept_paths), with the instrument's directory created.
    pub fn instrument_paths(&self, instrument: Instrument, id: &str) -> Result<(PathBuf, String)> {
        let (path, rel) = self
            .kept_paths(instrument, id)
            .with_context(|| format!("{instrument} keeps no output file"))?;
        let dir = path
            .parent()
            .expect("a kept file is in its instrument's directory");
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok((path, rel))
    }

    /// (Re)writes `run.json` and the CSV files of `run`, each atomically; the files not every
    /// run writes (counters, memory, an instrument's file of its own) only when some row has
    /// their figures (and such a file left by an earlier run into the directory is removed
    /// otherwise).
    /// Written outside a run (no temporary directory yet), the temporary directory is removed
    /// again afterwards.
    pub fn write_all(&self, run: &RunRecord) -> Result<()> {
        let in_run = self.tmp.is_dir();
        let r = self.write_files(run);
        if !in_run {
            self.remove_tmp_dir();
        }
        r
    }

    fn write_files(&self, run: &RunRecord) -> Result<()> {
        let tmp = self.tmp_dir()?;
        let write_atomic = |path: &Path, bytes: &[u8]| write_atomic_via(tmp, path, bytes);
        // Written with its completion and every row's state, so that a reader of a file a
        // killed run left knows what it holds.
        let json =
            serde_json::to_string_pretty(&run.settled()).expect("a run record always serialises");
        write_atomic(&self.root.join("run.json"), json.as_bytes())?;
        crate::fault::point("record-written");
        // Which CSV files a run writes, leaves or removes is the CSV module's to say.
        for file in CsvFile::all() {
            let path = self.root.join(file.file_name());
            match file.presence(run) {
                Presence::Write => {
                    write_atomic(&path, file.text(run).as_bytes())?;
                }
                Presence::Remove => match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(e)
                            .with_context(|| format!("cannot remove stale {}", path.display()));
                    }
                    _ => {}
                },
            }
        }
        Ok(())
    }
}

/// Just enough of a record to check what it is before reading it as a [`RunRecord`], so that a
/// newer record is refused for its version rather than for a field this version does not know.
#[derive(Deserialize)]
struct Header {
    schema: Option<String>,
    schema_version: Option<u64>,
}

/// Reads the run record of the output directory `dir` (its `run.json`); `dir` may also be the
/// `run.json` file itself. Refuses files that are not run records, and records written by a newer
/// costbench. Only reads.
pub fn load_run(dir: &Path) -> Result<RunRecord> {
    let path = if dir.is_file() {
        dir.to_path_buf()
    } else {
        dir.join("run.json")
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "not a costbench output directory: no run.json in {}",
            dir.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    parse_run(&text, &path)
}

/// Reads `text`, the content of the `run.json` at `path` (named in errors), as a run record,
/// with [`load_run`]'s checks.
pub fn parse_run(text: &str, path: &Path) -> Result<RunRecord> {
    let header: Header = serde_json::from_str(text).map_err(|e| {
        if e.is_data() {
            anyhow::anyhow!("{} is not a costbench run record: {e}", path.display())
        } else {
            anyhow::anyhow!("{} is not valid JSON: {e}", path.display())
        }
    })?;
    match header.schema.as_deref() {
        Some(SCHEMA) => {}
        Some(other) => bail!(
            "{} is not a costbench run record (schema {other:?}, expected {SCHEMA:?})",
            path.display()
        ),
        None => bail!(
            "{} is not a costbench run record (no \"schema\" field)",
            path.display()
        ),
    }
    match header.schema_version {
        Some(v) if v > u64::from(SCHEMA_VERSION) => bail!(
            "{} was written by a newer costbench (schema version {v}); this costbench reads up to {SCHEMA_VERSION}",
            path.display()
        ),
        Some(v) if v >= 1 => {}
        Some(v) => bail!("{} has unknown schema version {v}", path.display()),
        None => bail!("{} has no \"schema_version\" field", path.display()),
    }
    serde_json::from_str(text)
        .with_context(|| format!("{} is not a valid costbench run record", path.display()))
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_via(path.parent().unwrap_or(Path::new(".")), path, bytes)
}

/// Writes `bytes` to `path` through a temporary file in `tmp_dir` (which must be on the same
/// file system) and a rename. The file gets the mode a plain `File::create` would: 0666 less
/// the user's umask (the kernel applies it to the mode asked for at creation).
pub fn write_atomic_via(tmp_dir: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = tempfile::Builder::new()
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(tmp_dir)
        .with_context(|| format!("cannot create a temporary file in {}", tmp_dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_data())
        .with_context(|| format!("cannot write {}", path.display()))?;
    if path.file_name().is_some_and(|n| n == "run.json") {
        // Written but not yet in place: a kill here must leave the previous file whole.
        crate::fault::point("run-json-written");
    }
    tmp.persist(path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

/// Moves a file another program wrote (a child's raw output, which valgrind creates 0600) to
/// `dest`, with the mode of a file the user created: 0666 less the umask.
pub fn publish(tmp: &Path, dest: &Path) -> std::io::Result<()> {
    std::fs::set_permissions(tmp, std::fs::Permissions::from_mode(0o666 & !umask()))?;
    std::fs::rename(tmp, dest)
}

/// The process's umask, read from `/proc/self/status` (setting it to read it back would race
/// with the threads creating files); 0o022, the common default, where that cannot be read.
pub fn umask() -> u32 {
    static UMASK: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *UMASK.get_or_init(|| {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Umask:"))
                    .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
            })
            .unwrap_or(0o022)
    })
}

/// Removes the temporary directories in `root` of runs whose process no longer exists: a run
/// killed before it could clean up. A directory whose owner may be alive (or where that cannot
/// be told) is left alone.
pub fn remove_stale_tmp_dirs(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(TMP_DIR_PREFIX))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !process_exists(pid) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Whether process `pid` exists, from `/proc`; true where `/proc` is missing (cannot tell).
fn process_exists(pid: u32) -> bool {
    !Path::new("/proc/self").exists() || Path::new("/proc").join(pid.to_string()).exists()
}

/// A file name for a scenario id: ASCII letters, digits, `.`, `_` and `-` are kept, every
/// other byte becomes `%XX`, so distinct ids never share a file.
pub fn file_stem(id: &str) -> String {
    let mut s = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (b == b'.' && !s.is_empty()) {
            s.push(b as char);
        } else {
            let _ = write!(s, "%{b:02X}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{record, scenario, with_icount};

    #[test]
    fn file_stems_are_safe_and_distinct() {
        assert_eq!(file_stem("index/sum_checked"), "index%2Fsum_checked");
        assert_eq!(file_stem("a.b-c"), "a.b-c");
        assert_eq!(file_stem("../x"), "%2E.%2Fx");
        assert_ne!(file_stem("a/b"), file_stem("a_b"));
    }

    #[test]
    fn atomic_write_replaces_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn files_get_the_users_umask_and_temporaries_one_directory() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutputDir::prepare(dir.path()).unwrap();
        assert!(
            !out.tmp_dir_path().exists(),
            "prepare leaves no temporary directory"
        );
        out.write_all(&record("b", vec![])).unwrap();
        let mode = std::fs::metadata(dir.path().join("run.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o666 & !umask(), "mode {mode:o}");
        // Written outside a run, nothing temporary stays.
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
        // During a run the directory stays until the run removes it.
        let tmp = out.tmp_dir().unwrap().to_path_buf();
        out.write_all(&record("b", vec![])).unwrap();
        assert!(tmp.is_dir());
        out.remove_tmp_dir();
        assert!(!tmp.exists());
    }

    #[test]
    fn stale_temporary_directories_of_dead_runs_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        // A pid above the kernel's maximum (4194304) names no process; our own pid is alive.
        let dead = dir.path().join(format!("{TMP_DIR_PREFIX}99999999"));
        let alive = dir.path().join(format!("{TMP_DIR_PREFIX}1"));
        let other = dir.path().join(".costbench-tmp-x");
        for d in [&dead, &alive, &other] {
            std::fs::create_dir_all(d.join("sub")).unwrap();
            std::fs::write(d.join("sub/f"), "x").unwrap();
        }
        OutputDir::prepare(dir.path()).unwrap();
        assert!(!dead.exists());
        assert!(alive.exists() && other.exists());
    }

    #[test]
    fn published_files_get_the_users_umask() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("t");
        std::fs::write(&tmp, "x").unwrap();
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600)).unwrap();
        let dest = dir.path().join("d");
        publish(&tmp, &dest).unwrap();
        let mode = std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask());
    }

    #[test]
    fn unwritable_directory_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain-file");
        std::fs::write(&file, "x").unwrap();
        let e = OutputDir::prepare(&file.join("sub")).unwrap_err();
        assert!(
            format!("{e:#}").contains("cannot create output directory"),
            "{e:#}"
        );
    }

    /// Issue 29: `run --instrument memory`, then a plain run into the same directory, left the
    /// first run's memory.csv beside the second's run.json.
    #[test]
    fn issue_29_a_stale_memory_csv_is_removed_by_a_run_without_memory() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutputDir::prepare(dir.path()).unwrap();
        out.write_all(&crate::testing::every_figure()).unwrap();
        for file in ["memory.csv", "counters.csv"] {
            assert!(dir.path().join(file).exists(), "{file}");
        }
        out.write_all(&record("plain", vec![with_icount(scenario("a"), 1.0)]))
            .unwrap();
        for file in ["memory.csv", "counters.csv"] {
            assert!(!dir.path().join(file).exists(), "{file} stayed");
        }
    }

    /// Writes `content` (if any) as `run.json` in a fresh directory and loads it.
    fn load(content: Option<&str>) -> (tempfile::TempDir, Result<RunRecord>) {
        let dir = tempfile::tempdir().expect("tempdir");
        if let Some(c) = content {
            std::fs::write(dir.path().join("run.json"), c).expect("write run.json");
        }
        let r = load_run(dir.path());
        (dir, r)
    }

    #[test]
    fn load_run_reads_what_the_runner_writes() {
        let run = record("b", vec![with_icount(scenario("x"), 10.0)]);
        let json = serde_json::to_string_pretty(&run).unwrap();
        let (dir, loaded) = load(Some(&json));
        assert_eq!(loaded.unwrap(), run);
        // The file itself may be named instead of its directory.
        let file = dir.path().join("run.json");
        assert_eq!(load_run(&file).unwrap(), run);
        // Loading does not touch the input.
        assert_eq!(std::fs::read_to_string(&file).unwrap(), json);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_real_run_json_reads_and_writes_back_the_same() {
        // Written by `costbench run --instrument icount,walltime` on the selftest suite.
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/selftest-run.json");
        let run = load_run(&path).unwrap();
        assert_eq!(run.suite.bench, "selftest");
        assert_eq!(run.results.len(), 13);
        assert_eq!(run.finished_scenarios(), (12, 12));
        let again = serde_json::to_string_pretty(&run).unwrap();
        assert_eq!(parse_run(&again, &path).unwrap(), run);
    }

    #[test]
    fn load_run_errors_name_the_file_and_the_problem() {
        let valid = serde_json::to_value(record("b", vec![])).unwrap();
        let with = |key: &str, v: serde_json::Value| {
            let mut j = valid.clone();
            j[key] = v;
            j.to_string()
        };
        let without = |key: &str| {
            let mut j = valid.clone();
            j.as_object_mut().unwrap().remove(key);
            j.to_string()
        };
        let newer = {
            // A newer record may also have changed fields: the version is what is reported.
            let mut j = valid.clone();
            j["schema_version"] = 99.into();
            j.as_object_mut().unwrap().remove("results");
            j.to_string()
        };
        // (run.json content, or none; fragments the error must contain)
        let cases: Vec<(Option<String>, Vec<&str>)> = vec![
            (
                None,
                vec!["not a costbench output directory: no run.json in "],
            ),
            (
                Some("{\n  \"schema\": \"costbench-run\",\n  oops".into()),
                vec!["run.json is not valid JSON", "line 3 column 3"],
            ),
            (Some(String::new()), vec!["is not valid JSON", "EOF"]),
            (
                Some("[1, 2]".into()),
                vec!["run.json is not a costbench run record", "line 1 column"],
            ),
            (
                Some(with("schema", "criterion".into())),
                vec![
                    "not a costbench run record (schema \"criterion\", expected \"costbench-run\")",
                ],
            ),
            (
                Some(without("schema")),
                vec!["not a costbench run record (no \"schema\" field)"],
            ),
            (
                Some(newer),
                vec![
                    "run.json was written by a newer costbench (schema version 99); \
                     this costbench reads up to 2",
                ],
            ),
            (
                Some(with("schema_version", 0.into())),
                vec!["unknown schema version 0"],
            ),
            (
                Some(without("schema_version")),
                vec!["no \"schema_version\" field"],
            ),
            (
                Some(without("results")),
                vec![
                    "run.json is not a valid costbench run record",
                    "missing field `results`",
                ],
            ),
        ];
        for (content, wants) in cases {
            let (dir, r) = load(content.as_deref());
            let err = format!("{:#}", r.expect_err("must fail"));
            for want in wants {
                assert!(err.contains(want), "{err:?} lacks {want:?}");
            }
            let named = dir.path().display().to_string();
            assert!(err.contains(&named), "{err:?} does not name {named}");
        }
        // A directory that does not exist at all reads the same as one without run.json.
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("nope");
        let err = format!("{:#}", load_run(&gone).unwrap_err());
        assert!(
            err.contains("no run.json in") && err.contains("nope"),
            "{err}"
        );
    }
}
