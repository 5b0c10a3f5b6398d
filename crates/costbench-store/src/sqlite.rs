//! The embedded SQLite store (rusqlite with SQLite bundled).
//!
//! WAL journaling and a generous busy timeout let several processes record at once; every run is
//! written in one transaction, so a killed writer leaves either the whole run or none of it. A
//! `meta` table marks the file as a costbench history, so that pointing `--db` at some other
//! database is refused instead of modified.

use super::{Metric, RunQuery, RunSummary, SeriesPoint, Store};
use crate::model::{self, RunRecord};
use anyhow::{bail, Context, Result};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::{Path, PathBuf};
use std::time::Duration;

const APPLICATION: &str = "costbench-history";
const DB_SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id       TEXT PRIMARY KEY,
    started_at   TEXT NOT NULL,
    commit_sha   TEXT,
    branch       TEXT,
    dirty        INTEGER NOT NULL,
    variant      TEXT NOT NULL,
    package      TEXT NOT NULL,
    bench        TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    rustc        TEXT,
    valgrind     TEXT,
    host_cpu     TEXT,
    record       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_branch ON runs (branch, variant, started_at);
CREATE TABLE IF NOT EXISTS results (
    run_id      TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    scenario_id TEXT NOT NULL,
    metric      TEXT NOT NULL,
    per_op      REAL NOT NULL,
    ops         INTEGER NOT NULL,
    unit        TEXT NOT NULL,
    PRIMARY KEY (run_id, scenario_id, metric)
);
CREATE INDEX IF NOT EXISTS results_by_id ON results (scenario_id, metric);
CREATE TABLE IF NOT EXISTS samples (
    run_id       TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    scenario_id  TEXT NOT NULL,
    iteration_ns TEXT NOT NULL,
    PRIMARY KEY (run_id, scenario_id)
);
";

/// The history in one SQLite file (the default store).
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
}

impl SqliteStore {
    /// Opens (creating if needed) the history database at `path`.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create directory {}", dir.display()))?;
        }
        let existed = path.exists() && std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
        let conn = Connection::open(path)
            .with_context(|| format!("cannot open history database {}", path.display()))?;
        conn.busy_timeout(Duration::from_secs(60))?;
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
        if existed {
            // Look before touching: a database that is not ours must stay as it was.
            let has_meta: bool = self
                .conn
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                    [],
                    |r| r.get::<_, i64>(0),
                )
                .map(|n| n > 0)
                .context("not an SQLite database")?;
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
                bail!("not a costbench history database (no costbench marker); choose another --db path");
            }
            let version: i64 = self
                .conn
                .query_row(
                    "SELECT value FROM meta WHERE key = 'schema_version'",
                    [],
                    |r| r.get::<_, String>(0),
                )?
                .parse()
                .context("unreadable schema_version in meta")?;
            if version > DB_SCHEMA_VERSION {
                bail!(
                    "written by a newer costbench (history schema {version}; this costbench reads up to {DB_SCHEMA_VERSION})"
                );
            }
        }
        self.conn
            .pragma_update(None, "journal_mode", "WAL")
            .context("cannot switch to WAL journaling")?;
        self.conn.pragma_update(None, "foreign_keys", "ON")?;
        self.conn.execute_batch(&format!(
            "BEGIN IMMEDIATE; {SCHEMA}
             INSERT OR IGNORE INTO meta (key, value) VALUES ('application', '{APPLICATION}');
             INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '{DB_SCHEMA_VERSION}');
             COMMIT;"
        ))?;
        Ok(())
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn where_clause(q: &RunQuery) -> (String, Vec<String>) {
    let mut conds = Vec::new();
    let mut args = Vec::new();
    if let Some(b) = &q.branch {
        args.push(b.clone());
        conds.push(format!("runs.branch = ?{}", args.len()));
    }
    if let Some(v) = &q.variant {
        args.push(v.clone());
        conds.push(format!("runs.variant = ?{}", args.len()));
    }
    let w = if conds.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conds.join(" AND "))
    };
    (w, args)
}

impl Store for SqliteStore {
    fn record(&self, run: &RunRecord) -> Result<()> {
        let json = serde_json::to_string(run).expect("a run record always serialises");
        let git = run.environment.git.as_ref();
        // An unchecked transaction: &self is enough, and rusqlite rolls back on drop.
        let tx = self.conn.unchecked_transaction()?;
        tx.execute("DELETE FROM runs WHERE run_id = ?1", [&run.run_id])?;
        tx.execute(
            "INSERT INTO runs (run_id, started_at, commit_sha, branch, dirty, variant, package, bench,
                               tool_version, rustc, valgrind, host_cpu, record)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
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
            ],
        )?;
        {
            let mut res = tx.prepare(
                "INSERT INTO results (run_id, scenario_id, metric, per_op, ops, unit)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            let mut samples = tx.prepare(
                "INSERT INTO samples (run_id, scenario_id, iteration_ns) VALUES (?1, ?2, ?3)",
            )?;
            for r in &run.results {
                let ops = i64::try_from(r.ops).unwrap_or(i64::MAX);
                for (metric, value) in Metric::counters(r) {
                    res.execute(params![
                        run.run_id,
                        r.id,
                        metric.as_str(),
                        value,
                        ops,
                        r.unit
                    ])?;
                }
                if let Some(i) = &r.icount {
                    res.execute(params![
                        run.run_id,
                        r.id,
                        "icount",
                        i.ir_per_op,
                        ops,
                        r.unit
                    ])?;
                }
                if let Some(w) = &r.walltime {
                    res.execute(params![
                        run.run_id,
                        r.id,
                        "walltime",
                        w.ns_per_op.median,
                        ops,
                        r.unit
                    ])?;
                    samples.execute(params![
                        run.run_id,
                        r.id,
                        serde_json::to_string(&w.iteration_ns).expect("numbers serialise")
                    ])?;
                }
            }
        }
        tx.commit().with_context(|| {
            format!(
                "cannot record run {} in {}",
                run.run_id,
                self.path.display()
            )
        })
    }

    fn runs(&self, q: &RunQuery) -> Result<Vec<RunSummary>> {
        let (w, args) = where_clause(q);
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
                },
                r.get::<_, String>(8)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (mut s, record) = row?;
            if let Ok(rec) = serde_json::from_str::<RunRecord>(&record) {
                s.scenarios = rec.results.len();
                s.failures = rec.failed().count();
            }
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
        let Some(record) = record else {
            bail!(
                "no run with id {run_id:?} in {} (list them with `costbench history`)",
                self.path.display()
            );
        };
        let run: RunRecord = serde_json::from_str(&record)
            .with_context(|| format!("run {run_id} in {} is unreadable", self.path.display()))?;
        if run.schema_version > model::SCHEMA_VERSION {
            bail!(
                "run {run_id} was written by a newer costbench (schema version {})",
                run.schema_version
            );
        }
        Ok(run)
    }

    fn series(&self, id: &str, metric: Metric, q: &RunQuery) -> Result<Vec<SeriesPoint>> {
        let (w, mut args) = where_clause(q);
        args.push(id.to_string());
        let id_arg = args.len();
        args.push(metric.as_str().to_string());
        let metric_arg = args.len();
        let join_cond =
            format!("results.scenario_id = ?{id_arg} AND results.metric = ?{metric_arg}");
        let w = if w.is_empty() {
            format!("WHERE {join_cond}")
        } else {
            format!("{w} AND {join_cond}")
        };
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::*;

    pub(crate) fn record(run_id: &str, started_at: &str, branch: &str, ir: u64) -> RunRecord {
        RunRecord {
            schema: crate::model::SCHEMA.into(),
            schema_version: SCHEMA_VERSION,
            run_id: run_id.into(),
            started_at: started_at.into(),
            finished_at: None,
            interrupted: None,
            tool: Tool {
                name: "costbench".into(),
                version: "0.1.0".into(),
                protocol: 1,
            },
            suite: SuiteInfo {
                package: "p".into(),
                bench: "b".into(),
                library_version: "0.1.0".into(),
            },
            variant: "default".into(),
            environment: Environment {
                rustc: None,
                valgrind: None,
                host: Host {
                    cpu: None,
                    cores: 2,
                    os: None,
                    kernel: None,
                    arch: "x86_64".into(),
                },
                git: Some(Git {
                    commit: format!("c{run_id}"),
                    branch: Some(branch.into()),
                    dirty: false,
                }),
            },
            settings: Settings {
                instruments: vec!["icount".into()],
                filter: None,
                jobs: 1,
                timeout_secs: 1,
                samples: None,
                walltime_cpu: None,
                code_align: None,
            },
            skipped: vec![],
            harness_residual_ir: Some(2),
            results: vec![ScenarioResult {
                id: "s".into(),
                scenario: "s".into(),
                party: None,
                ops: 10,
                unit: "op".into(),
                icount: Some(Icount {
                    ir,
                    ir_per_op: ir as f64 / 10.0,
                    callgrind_out: "callgrind/s.out".into(),
                    placement: None,
                }),
                walltime: None,
                counters: Default::default(),
                census: None,
                failures: vec![],
            }],
        }
    }

    #[test]
    fn records_lists_loads_and_queries_series() {
        let dir = tempfile::tempdir().unwrap();
        let db = SqliteStore::open(&dir.path().join("h.sqlite")).unwrap();
        db.record(&record("r1", "2026-01-01T00:00:00Z", "main", 100))
            .unwrap();
        db.record(&record("r2", "2026-01-02T00:00:00Z", "main", 110))
            .unwrap();
        db.record(&record("r3", "2026-01-03T00:00:00Z", "feature", 120))
            .unwrap();
        let all = db.runs(&RunQuery::default()).unwrap();
        assert_eq!(
            all.iter().map(|r| r.run_id.as_str()).collect::<Vec<_>>(),
            ["r3", "r2", "r1"]
        );
        let main = RunQuery {
            branch: Some("main".into()),
            ..RunQuery::default()
        };
        let s = db.series("s", Metric::Icount, &main).unwrap();
        assert_eq!(s.iter().map(|p| p.per_op).collect::<Vec<_>>(), [10.0, 11.0]);
        let last = RunQuery {
            limit: Some(1),
            ..main
        };
        assert_eq!(
            db.series("s", Metric::Icount, &last).unwrap()[0].run_id,
            "r2"
        );
        assert_eq!(
            db.load("r2").unwrap(),
            record("r2", "2026-01-02T00:00:00Z", "main", 110)
        );
        let e = db.load("nope").unwrap_err().to_string();
        assert!(e.contains("no run with id \"nope\""), "{e}");
        // Recording the same id again replaces it.
        db.record(&record("r2", "2026-01-02T00:00:00Z", "main", 111))
            .unwrap();
        assert_eq!(db.runs(&RunQuery::default()).unwrap().len(), 3);
        assert_eq!(
            db.load("r2").unwrap().results[0]
                .icount
                .as_ref()
                .unwrap()
                .ir,
            111
        );
    }

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
    fn parallel_writers_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("h.sqlite");
        SqliteStore::open(&p).unwrap();
        let writers = 8;
        let per_writer = 25;
        std::thread::scope(|s| {
            for w in 0..writers {
                let p = &p;
                s.spawn(move || {
                    // Each writer has its own connection, as separate processes would.
                    let db = SqliteStore::open(p).unwrap();
                    for k in 0..per_writer {
                        let id = format!("w{w}-{k}");
                        db.record(&record(&id, "2026-01-01T00:00:00Z", "main", 100 + k))
                            .unwrap();
                    }
                });
            }
        });
        let db = SqliteStore::open(&p).unwrap();
        assert_eq!(
            db.runs(&RunQuery::default()).unwrap().len(),
            (writers * per_writer) as usize
        );
        let n: i64 = db
            .conn
            .query_row("SELECT count(*) FROM results", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, (writers * per_writer) as i64);
    }
}
