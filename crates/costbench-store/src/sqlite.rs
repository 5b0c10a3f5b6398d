//! The embedded SQLite store (rusqlite with SQLite bundled).
//!
//! Several processes may record at once (the CI jobs of one machine, or `costbench import` in a
//! loop): WAL journaling lets readers go on while one writes, a generous busy timeout makes
//! writers queue instead of failing, and every run is written in one `BEGIN IMMEDIATE`
//! transaction (the write lock taken up front, so that two writers never deadlock upgrading a
//! read), so a killed writer leaves either the whole run or none of it. A `meta` table marks the
//! file as a costbench history, so that pointing `--db` at some other database is refused instead
//! of modified; the schema is versioned by [`crate::migrations`].

use crate::migrations::{self, LATEST, MIGRATIONS};
use crate::store::{self, RunQuery, Store};
use anyhow::{bail, Context, Result};
use costbench_record::history::{Metric, RunSummary, SeriesPoint, Timeline};
use costbench_record::model::RunRecord;
use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;

const APPLICATION: &str = "costbench-history";

/// An SQL expression for "now" as RFC 3339 UTC, like the run records' own times.
const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/// The history in one SQLite file (the default store).
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
}

/// How long a writer waits for another's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// Puts the database in WAL mode (once per file: the mode is stored in it). Switching takes an
/// exclusive lock for a moment, and SQLite answers "database is locked" at once, without its
/// busy handler, when it would otherwise deadlock with another connection opening the same new
/// file; so this looks first and retries with a growing pause, for as long as the busy timeout.
fn switch_to_wal(conn: &Connection) -> Result<()> {
    let busy = |e: &rusqlite::Error| {
        matches!(
            e.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        )
    };
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    let mut pause = Duration::from_millis(2);
    loop {
        let attempt = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get::<_, String>(0))
            .and_then(|mode| {
                if mode.eq_ignore_ascii_case("wal") {
                    Ok(mode)
                } else {
                    conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
                }
            });
        match attempt {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(mode) => bail!("cannot switch to WAL journaling: SQLite kept journal mode {mode}"),
            Err(e) if busy(&e) && std::time::Instant::now() < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            Err(e) => return Err(e).context("cannot switch to WAL journaling"),
        }
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the history database at `path`, migrating an older schema.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create directory {}", dir.display()))?;
        }
        let existed = path.exists() && std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
        let conn = Connection::open(path)
            .with_context(|| format!("cannot open history database {}", path.display()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let store = SqliteStore {
            conn,
            path: path.to_path_buf(),
        };
        store
            .init(existed)
            .with_context(|| format!("history database {}", store.path.display()))?;
        Ok(store)
    }

    fn init(&self, existed: bool) -> Result<()> {
        // A file with no tables yet is new, even when it is not empty: another process creating
        // the same history at this moment may have written its header and not yet committed its
        // tables (reading it as foreign would fail that job).
        let tables: i64 = if existed {
            self.conn
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                    [],
                    |r| r.get(0),
                )
                .context("not an SQLite database")?
        } else {
            0
        };
        if tables > 0 {
            // Look before touching: a database that is not ours must stay as it was.
            let has_meta = table_exists(&self.conn, "meta")?;
            let app: Option<String> = if has_meta {
                self.conn
                    .query_row(
                        "SELECT value FROM meta WHERE key = 'application'",
                        [],
                        |r| r.get(0),
                    )
                    .optional()?
            } else {
                None
            };
            if app.as_deref() != Some(APPLICATION) {
                // The user named the wrong file: a usage error (exit 2).
                costbench_record::bad_input!(
                    "not a costbench history database (no costbench marker); choose another --db path"
                );
            }
            // A newer schema is refused before anything (even the journal mode) is changed.
            let version = schema_version(&self.conn)?;
            if version > LATEST {
                return Err(migrations::too_new(version));
            }
        }
        switch_to_wal(&self.conn)?;
        self.conn.pragma_update(None, "foreign_keys", "ON")?;
        if schema_version(&self.conn)? < LATEST {
            self.migrate()?;
        }
        Ok(())
    }

    /// Applies the missing migrations in one transaction holding the write lock, after reading
    /// the version again under it: another process may have migrated meanwhile.
    fn migrate(&self) -> Result<()> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let current = schema_version(&tx)?;
        if current > LATEST {
            return Err(migrations::too_new(current));
        }
        let tracked = table_exists(&tx, "schema_migrations")?;
        tx.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             {};",
            migrations::TABLE
        ))?;
        if !tracked {
            // A file from before migrations were tracked: its `meta` version was applied.
            for m in MIGRATIONS.iter().filter(|m| m.version <= current) {
                tx.execute(
                    "INSERT INTO schema_migrations (version, description, applied_at)
                     VALUES (?1, ?2, 'before migrations were tracked')",
                    params![m.version, m.description],
                )?;
            }
        }
        for m in MIGRATIONS.iter().filter(|m| m.version > current) {
            tx.execute_batch(m.sqlite)
                .with_context(|| format!("migration {} ({})", m.version, m.description))?;
            tx.execute(
                &format!(
                    "INSERT INTO schema_migrations (version, description, applied_at)
                     VALUES (?1, ?2, {NOW})"
                ),
                params![m.version, m.description],
            )?;
        }
        tx.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('application', ?1)",
            [APPLICATION],
        )?;
        // Kept for costbench releases from before `schema_migrations`, which read this row and
        // refuse a newer database instead of misreading it.
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?1)",
            [LATEST.to_string()],
        )?;
        tx.commit().context("cannot migrate the history schema")
    }

    /// The schema version: the newest applied migration (0 for a new file).
    pub fn schema_version(&self) -> Result<i64> {
        schema_version(&self.conn)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn table_exists(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [name],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// The newest applied migration; for a file from before `schema_migrations`, its `meta` row.
fn schema_version(conn: &Connection) -> Result<i64> {
    if table_exists(conn, "schema_migrations")? {
        let v: Option<i64> =
            conn.query_row("SELECT max(version) FROM schema_migrations", [], |r| {
                r.get(0)
            })?;
        if let Some(v) = v {
            return Ok(v);
        }
    }
    if table_exists(conn, "meta")? {
        let v: Option<String> = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'schema_version'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(v) = v {
            return v.parse().context("unreadable schema_version in meta");
        }
    }
    Ok(0)
}

impl Store for SqliteStore {
    fn record(&self, run: &RunRecord) -> Result<()> {
        let json = serde_json::to_string(run).expect("a run record always serialises");
        let git = run.environment.git.as_ref();
        let (rows, samples) = store::index_rows(run);
        let at = store::Placement::of(run);
        let write = || -> Result<()> {
            // The write lock up front (IMMEDIATE): concurrent writers queue on the busy timeout.
            // Rolled back on drop, so an error leaves nothing half-written.
            let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
            // Replacing (ON DELETE CASCADE drops the old index rows) makes a repeated import
            // idempotent.
            tx.execute("DELETE FROM runs WHERE run_id = ?1", [&run.run_id])?;
            tx.execute(
                &format!(
                    "INSERT INTO runs (run_id, started_at, commit_sha, branch, dirty, variant, package,
                                       bench, tool_version, rustc, valgrind, host_cpu, record, recorded_at,
                                       position, parent, author_date, subject, machine,
                                       carried_from, build_failed)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, {NOW},
                             ?14, ?15, ?16, ?17, ?18, ?19, ?20)"
                ),
                params![
                    run.run_id,
                    run.started_at,
                    git.map(|g| &g.commit),
                    git.and_then(|g| g.branch.as_ref()),
                    git.is_some_and(|g| g.dirty),
                    run.variant,
                    run.suite.package,
                    run.suite.bench,
                    run.tool.version,
                    run.environment.rustc,
                    run.environment.valgrind,
                    run.environment.host.cpu,
                    json,
                    at.position,
                    at.parent,
                    at.author_date,
                    at.subject,
                    at.machine,
                    at.carried_from,
                    at.build_failed,
                ],
            )?;
            {
                let mut res = tx.prepare(
                    "INSERT INTO results (run_id, scenario_id, metric, per_op, ops, unit)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )?;
                for (id, metric, value, ops, unit) in &rows {
                    let id: &str = id;
                    res.execute(params![run.run_id, id, metric, value, ops, unit])?;
                }
                let mut ins = tx.prepare(
                    "INSERT INTO samples (run_id, scenario_id, iteration_ns) VALUES (?1, ?2, ?3)",
                )?;
                for (id, ns) in &samples {
                    ins.execute(params![run.run_id, id, ns])?;
                }
            }
            costbench_record::fault::point("history-transaction");
            tx.commit()?;
            Ok(())
        };
        write().with_context(|| {
            format!(
                "cannot record run {} in {}",
                run.run_id,
                self.path.display()
            )
        })
    }

    fn runs(&self, q: &RunQuery) -> Result<Vec<RunSummary>> {
        let (w, args) = store::where_clause(q, None, |n| format!("?{n}"));
        let limit = q.limit.map_or(-1, |l| l as i64);
        let sql = format!(
            "SELECT run_id, started_at, commit_sha, branch, dirty, variant, package, bench, record
             FROM runs {w} ORDER BY started_at DESC, run_id DESC LIMIT {limit}"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(args.iter()), |r| {
            Ok((
                RunSummary {
                    run_id: r.get(0)?,
                    started_at: r.get(1)?,
                    commit: r.get(2)?,
                    branch: r.get(3)?,
                    dirty: r.get(4)?,
                    variant: r.get(5)?,
                    package: r.get(6)?,
                    bench: r.get(7)?,
                    scenarios: 0,
                    failures: 0,
                    unfinished: None,
                },
                r.get::<_, String>(8)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (mut s, record) = row?;
            store::summary_counts(&mut s, &record);
            out.push(s);
        }
        Ok(out)
    }

    fn load(&self, run_id: &str) -> Result<RunRecord> {
        let record: Option<String> = self
            .conn
            .query_row("SELECT record FROM runs WHERE run_id = ?1", [run_id], |r| {
                r.get(0)
            })
            .optional()?;
        store::decode_run(run_id, record, &self.path.display())
    }

    fn series(&self, id: &str, metric: Metric, q: &RunQuery) -> Result<Vec<SeriesPoint>> {
        let (w, args) = store::where_clause(q, Some((id, metric)), |n| format!("?{n}"));
        let limit = q.limit.map_or(-1, |l| l as i64);
        let sql = format!(
            "SELECT * FROM (
                SELECT runs.run_id, runs.started_at, runs.commit_sha, results.per_op
                FROM results JOIN runs ON runs.run_id = results.run_id {w}
                ORDER BY runs.started_at DESC, runs.run_id DESC LIMIT {limit}
             ) ORDER BY started_at ASC, run_id ASC"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(args.iter()), |r| {
            Ok(SeriesPoint {
                run_id: r.get(0)?,
                started_at: r.get(1)?,
                commit: r.get(2)?,
                per_op: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    fn timeline(&self, q: &RunQuery) -> Result<Timeline> {
        let (w, args) = store::where_clause(q, None, |n| format!("?{n}"));
        let kept = if w.is_empty() { "WHERE" } else { " AND" };
        let sql = format!(
            "SELECT {} FROM runs {w}{kept} build_failed IS NULL",
            store::TIMELINE_COLUMNS
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let runs = stmt
            .query_map(rusqlite::params_from_iter(args.iter()), |r| {
                Ok(store::timeline_run(
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let sql = format!(
            "SELECT results.run_id, results.scenario_id, results.metric, results.per_op,
                    results.ops
             FROM results JOIN runs ON runs.run_id = results.run_id {w}"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let values = stmt
            .query_map(rusqlite::params_from_iter(args.iter()), |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, f64>(3)?,
                    r.get::<_, i64>(4)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(Timeline::assemble(
            runs,
            values.into_iter().filter_map(|(run, id, m, v, ops)| {
                Some((run, id, store::metric_named(&m)?, v, ops.max(0) as u64))
            }),
        ))
    }

    fn commit_runs(&self, commit: &str) -> Result<Vec<RunRecord>> {
        let mut stmt = self
            .conn
            .prepare("SELECT run_id, record FROM runs WHERE commit_sha = ?1")?;
        let rows = stmt
            .query_map([commit], |r| Ok((r.get::<_, String>(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows.into_iter()
            .map(|(id, record)| store::decode_run(&id, Some(record), &self.path.display()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::record;

    #[test]
    fn foreign_databases_are_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("other.sqlite");
        {
            let c = Connection::open(&p).unwrap();
            c.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
                .unwrap();
        }
        let before = std::fs::read(&p).unwrap();
        let e = format!("{:#}", SqliteStore::open(&p).unwrap_err());
        assert!(e.contains("not a costbench history database"), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), before);

        let junk = dir.path().join("junk.sqlite");
        std::fs::write(
            &junk,
            b"this is not sqlite at all, just text that is long enough",
        )
        .unwrap();
        let e = format!("{:#}", SqliteStore::open(&junk).unwrap_err());
        assert!(e.contains("junk.sqlite"), "{e}");
    }

    #[test]
    fn old_files_are_migrated_and_newer_ones_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("v1.sqlite");
        {
            // A history as costbench wrote it before migrations were tracked: schema 1, a run.
            let c = Connection::open(&p).unwrap();
            c.execute_batch(&format!(
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 INSERT INTO meta VALUES ('application', '{APPLICATION}'), ('schema_version', '1');
                 {}",
                MIGRATIONS[0].sqlite
            ))
            .unwrap();
            let run = record("old", "2026-01-01T00:00:00Z", "main", 100);
            c.execute(
                "INSERT INTO runs VALUES ('old', ?1, 'c', 'main', 0, 'default', 'p', 'b', '0.1.0',
                                         NULL, NULL, NULL, ?2)",
                params![run.started_at, serde_json::to_string(&run).unwrap()],
            )
            .unwrap();
            c.execute(
                "INSERT INTO results VALUES ('old', 's', 'icount', 10.0, 10, 'op')",
                [],
            )
            .unwrap();
        }
        let db = SqliteStore::open(&p).unwrap();
        assert_eq!(db.schema_version().unwrap(), LATEST);
        let applied: Vec<(i64, String)> = db
            .conn
            .prepare("SELECT version, applied_at FROM schema_migrations ORDER BY version")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(applied.len() as i64, LATEST);
        assert_eq!(applied[0].1, "before migrations were tracked");
        assert!(applied[1].1.starts_with("20"), "{applied:?}");
        // The old run is still there, and new runs get the new column.
        assert_eq!(db.load("old").unwrap().run_id, "old");
        db.record(&record("new", "2026-01-02T00:00:00Z", "main", 110))
            .unwrap();
        let recorded: Option<String> = db
            .conn
            .query_row(
                "SELECT recorded_at FROM runs WHERE run_id = 'new'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(recorded.is_some_and(|t| t.ends_with('Z')));
        drop(db);

        // A database from a newer costbench is refused, and left as it was.
        Connection::open(&p)
            .unwrap()
            .execute(
                "INSERT INTO schema_migrations VALUES (99, 'from the future', 'then')",
                [],
            )
            .unwrap();
        let before = std::fs::read(&p).unwrap();
        let e = format!("{:#}", SqliteStore::open(&p).unwrap_err());
        assert!(e.contains("newer costbench") && e.contains("99"), "{e}");
        assert!(e.contains("v1.sqlite"), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), before);
    }
}
