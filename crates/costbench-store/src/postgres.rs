//! The PostgreSQL store: one history for a team's many CI runners (the synchronous `postgres`
//! crate of rust-postgres; costbench has no async runtime of its own to share, and one blocking
//! connection per command is all it needs).
//!
//! The tables live in their own PostgreSQL schema, `costbench`, so that a database shared with
//! other applications is not cluttered and tables of the same name elsewhere are never touched;
//! they are the same tables as SQLite's, versioned by [`crate::migrations`]. Concurrency is the
//! server's: every run is written in one transaction, and a run id recorded twice at once is an
//! upsert that locks its `runs` row, so the second writer waits for the first and then replaces
//! its index rows: no run is lost or doubled, and a repeated import is idempotent. Migrations run
//! under a transaction-scoped advisory lock, so that many jobs opening a new database at once
//! create it once.
//!
//! TLS is not built in (no TLS connector is linked): reach a remote server over a private network,
//! a unix socket or an SSH tunnel; a URL that requires TLS (`sslmode=require`) fails to connect
//! with the driver's error.

use crate::migrations::{self, LATEST, MIGRATIONS};
use crate::store::{self, RunQuery, Store};
use anyhow::{Context, Result};
use costbench_record::history::{Metric, RunSummary, SeriesPoint, Timeline};
use costbench_record::model::RunRecord;
use postgres::{Client, GenericClient, NoTls};
use std::str::FromStr;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

const APPLICATION: &str = "costbench-history";

/// The PostgreSQL schema (namespace) holding costbench's tables.
pub const SCHEMA: &str = "costbench";

/// The advisory lock key migrations hold ("costbenc" in ASCII): any fixed number, the same in
/// every costbench, so that concurrent migrators queue.
const MIGRATION_LOCK: i64 = 0x636f_7374_6265_6e63;

/// "now" as RFC 3339 UTC, like the run records' own times (and SQLite's `recorded_at`).
const NOW: &str =
    "to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')";

/// The history on a PostgreSQL server.
pub struct PostgresStore {
    client: Mutex<Client>,
    /// The URL without its password, for messages.
    shown: String,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("url", &self.shown)
            .finish_non_exhaustive()
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/db`, or a unix
    /// socket as `postgres:///db?host=/run/postgresql`), creating or migrating costbench's
    /// schema as needed.
    pub fn connect(url: &str) -> Result<PostgresStore> {
        let shown = crate::url::redact(url);
        // The driver's own parse error could quote the URL; this one does not.
        let mut config = postgres::Config::from_str(url).map_err(|e| {
            anyhow::anyhow!(
                "not a valid PostgreSQL URL ({}); the form is postgres://USER:PASSWORD@HOST:PORT/DATABASE",
                without(&e.to_string(), url)
            )
        })?;
        config.application_name("costbench");
        if config.get_connect_timeout().is_none() {
            // A server that is down should fail a CI job quickly, not hang it.
            config.connect_timeout(Duration::from_secs(15));
        }
        let mut client = config
            .connect(NoTls)
            .map_err(|e| anyhow::anyhow!("cannot connect: {}", without(&e.to_string(), url)))?;
        client.batch_execute(&format!("SET search_path TO {SCHEMA}"))?;
        let state = State::read(&mut client)?;
        state.refuse_foreign()?;
        if state.version > LATEST {
            return Err(migrations::too_new(state.version));
        }
        if state.version < LATEST {
            migrate(&mut client).context("cannot migrate the history schema")?;
        }
        Ok(PostgresStore {
            client: Mutex::new(client),
            shown,
        })
    }

    /// The schema version: the newest applied migration.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(State::read(&mut *self.client())?.version)
    }

    fn client(&self) -> MutexGuard<'_, Client> {
        // A panic while holding the connection leaves nothing half-done on the server (the
        // transaction is rolled back when dropped), so a poisoned lock is still usable.
        self.client.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `text` with any copy of `secret` cut out: driver messages must never carry a URL's password.
fn without(text: &str, secret: &str) -> String {
    text.replace(secret, "<the --db URL>")
}

/// What is in the `costbench` schema before opening.
struct State {
    /// Any table at all in the schema.
    tables: bool,
    /// `meta`'s application marker.
    marker: Option<String>,
    /// The newest applied migration (0 for none).
    version: i64,
}

impl State {
    fn read(c: &mut impl GenericClient) -> Result<State> {
        let tables: i64 = c
            .query_one(
                "SELECT count(*) FROM pg_tables WHERE schemaname = $1",
                &[&SCHEMA],
            )?
            .get(0);
        let has_meta = table_exists(c, "meta")?;
        let has_migrations = table_exists(c, "schema_migrations")?;
        let marker = if has_meta {
            c.query_opt("SELECT value FROM meta WHERE key = 'application'", &[])?
                .map(|r| r.get(0))
        } else {
            None
        };
        let version = if has_migrations {
            c.query_one(
                "SELECT coalesce(max(version), 0) FROM schema_migrations",
                &[],
            )?
            .get(0)
        } else {
            0
        };
        Ok(State {
            tables: tables > 0,
            marker,
            version,
        })
    }

    /// A `costbench` schema that something else made is left alone.
    fn refuse_foreign(&self) -> Result<()> {
        if self.tables && self.marker.as_deref() != Some(APPLICATION) {
            costbench_record::bad_input!(
                "the schema {SCHEMA:?} in this database holds tables that are not a costbench history \
                 (no costbench marker); use another database"
            );
        }
        Ok(())
    }
}

fn table_exists(c: &mut impl GenericClient, table: &str) -> Result<bool> {
    Ok(c.query_one(
        "SELECT to_regclass($1) IS NOT NULL",
        &[&format!("{SCHEMA}.{table}")],
    )?
    .get(0))
}

/// Applies the missing migrations in one transaction, under the advisory lock, after reading the
/// state again under it: another job may have migrated meanwhile.
fn migrate(client: &mut Client) -> Result<()> {
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    tx.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {SCHEMA}"))?;
    let state = State::read(&mut tx)?;
    state.refuse_foreign()?;
    if state.version > LATEST {
        return Err(migrations::too_new(state.version));
    }
    tx.batch_execute(&format!(
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
         {};",
        migrations::TABLE
    ))?;
    for m in MIGRATIONS.iter().filter(|m| m.version > state.version) {
        tx.batch_execute(m.postgres)
            .with_context(|| format!("migration {} ({})", m.version, m.description))?;
        tx.execute(
            &format!(
                "INSERT INTO schema_migrations (version, description, applied_at)
                 VALUES ($1, $2, {NOW})"
            ),
            &[&m.version, &m.description],
        )?;
    }
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ('application', $1) ON CONFLICT (key) DO NOTHING",
        &[&APPLICATION],
    )?;
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ('schema_version', $1)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        &[&LATEST.to_string()],
    )?;
    tx.commit()?;
    Ok(())
}

fn params(args: &[String]) -> Vec<&(dyn postgres::types::ToSql + Sync)> {
    args.iter()
        .map(|a| a as &(dyn postgres::types::ToSql + Sync))
        .collect()
}

fn limit(q: &RunQuery) -> String {
    q.limit.map_or("ALL".to_string(), |l| l.to_string())
}

impl Store for PostgresStore {
    fn record(&self, run: &RunRecord) -> Result<()> {
        let json = serde_json::to_string(run).expect("a run record always serialises");
        let git = run.environment.git.as_ref();
        let (rows, samples) = store::index_rows(run);
        let at = store::Placement::of(run);
        let mut client = self.client();
        let mut write = || -> Result<()> {
            let mut tx = client.transaction()?;
            // The upsert locks the run's row: a second writer of the same id waits here for the
            // first to commit, then replaces what it wrote.
            tx.execute(
                &format!(
                    "INSERT INTO runs (run_id, started_at, commit_sha, branch, dirty, variant, package,
                                       bench, tool_version, rustc, valgrind, host_cpu, record, recorded_at,
                                       position, parent, author_date, subject, machine,
                                       carried_from, build_failed)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, {NOW},
                             $14, $15, $16, $17, $18, $19, $20)
                     ON CONFLICT (run_id) DO UPDATE SET
                        started_at = EXCLUDED.started_at, commit_sha = EXCLUDED.commit_sha,
                        branch = EXCLUDED.branch, dirty = EXCLUDED.dirty, variant = EXCLUDED.variant,
                        package = EXCLUDED.package, bench = EXCLUDED.bench,
                        tool_version = EXCLUDED.tool_version, rustc = EXCLUDED.rustc,
                        valgrind = EXCLUDED.valgrind, host_cpu = EXCLUDED.host_cpu,
                        record = EXCLUDED.record, recorded_at = EXCLUDED.recorded_at,
                        position = EXCLUDED.position, parent = EXCLUDED.parent,
                        author_date = EXCLUDED.author_date, subject = EXCLUDED.subject,
                        machine = EXCLUDED.machine, carried_from = EXCLUDED.carried_from,
                        build_failed = EXCLUDED.build_failed"
                ),
                &[
                    &run.run_id,
                    &run.started_at,
                    &git.map(|g| &g.commit),
                    &git.and_then(|g| g.branch.as_ref()),
                    &git.is_some_and(|g| g.dirty),
                    &run.variant,
                    &run.suite.package,
                    &run.suite.bench,
                    &run.tool.version,
                    &run.environment.rustc,
                    &run.environment.valgrind,
                    &run.environment.host.cpu,
                    &json,
                    &at.position,
                    &at.parent,
                    &at.author_date,
                    &at.subject,
                    &at.machine,
                    &at.carried_from,
                    &at.build_failed,
                ],
            )?;
            tx.execute("DELETE FROM results WHERE run_id = $1", &[&run.run_id])?;
            tx.execute("DELETE FROM samples WHERE run_id = $1", &[&run.run_id])?;
            let res = tx.prepare(
                "INSERT INTO results (run_id, scenario_id, metric, per_op, ops, unit)
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )?;
            for (id, metric, value, ops, unit) in &rows {
                let id: &str = id;
                tx.execute(&res, &[&run.run_id, &id, metric, value, ops, unit])?;
            }
            let ins = tx.prepare(
                "INSERT INTO samples (run_id, scenario_id, iteration_ns) VALUES ($1, $2, $3)",
            )?;
            for (id, ns) in &samples {
                tx.execute(&ins, &[&run.run_id, id, ns])?;
            }
            tx.commit()?;
            Ok(())
        };
        write().with_context(|| format!("cannot record run {} in {}", run.run_id, self.shown))
    }

    fn runs(&self, q: &RunQuery) -> Result<Vec<RunSummary>> {
        let (w, args) = store::where_clause(q, None, |n| format!("${n}"));
        let sql = format!(
            "SELECT run_id, started_at, commit_sha, branch, dirty, variant, package, bench, record
             FROM runs {w} ORDER BY started_at DESC, run_id DESC LIMIT {}",
            limit(q)
        );
        let mut out = Vec::new();
        for r in self.client().query(&sql, &params(&args))? {
            let mut s = RunSummary {
                run_id: r.get(0),
                started_at: r.get(1),
                commit: r.get(2),
                branch: r.get(3),
                dirty: r.get(4),
                variant: r.get(5),
                package: r.get(6),
                bench: r.get(7),
                scenarios: 0,
                failures: 0,
                unfinished: None,
            };
            store::summary_counts(&mut s, r.get(8));
            out.push(s);
        }
        Ok(out)
    }

    fn load(&self, run_id: &str) -> Result<RunRecord> {
        let record: Option<String> = self
            .client()
            .query_opt("SELECT record FROM runs WHERE run_id = $1", &[&run_id])?
            .map(|r| r.get(0));
        store::decode_run(run_id, record, &self.shown)
    }

    fn series(&self, id: &str, metric: Metric, q: &RunQuery) -> Result<Vec<SeriesPoint>> {
        let (w, args) = store::where_clause(q, Some((id, metric)), |n| format!("${n}"));
        let sql = format!(
            "SELECT * FROM (
                SELECT runs.run_id, runs.started_at, runs.commit_sha, results.per_op
                FROM results JOIN runs ON runs.run_id = results.run_id {w}
                ORDER BY runs.started_at DESC, runs.run_id DESC LIMIT {}
             ) AS newest ORDER BY started_at ASC, run_id ASC",
            limit(q)
        );
        Ok(self
            .client()
            .query(&sql, &params(&args))?
            .iter()
            .map(|r| SeriesPoint {
                run_id: r.get(0),
                started_at: r.get(1),
                commit: r.get(2),
                per_op: r.get(3),
            })
            .collect())
    }

    fn timeline(&self, q: &RunQuery) -> Result<Timeline> {
        let (w, args) = store::where_clause(q, None, |n| format!("${n}"));
        let kept = if w.is_empty() { "WHERE" } else { " AND" };
        let sql = format!(
            "SELECT {} FROM runs {w}{kept} build_failed IS NULL",
            store::TIMELINE_COLUMNS
        );
        let mut client = self.client();
        let runs = client
            .query(&sql, &params(&args))?
            .iter()
            .map(|r| {
                store::timeline_run(
                    r.get(0),
                    r.get(1),
                    r.get(2),
                    r.get(3),
                    r.get(4),
                    r.get(5),
                    r.get(6),
                    r.get(7),
                    r.get(8),
                    r.get(9),
                )
            })
            .collect();
        let sql = format!(
            "SELECT results.run_id, results.scenario_id, results.metric, results.per_op,
                    results.ops
             FROM results JOIN runs ON runs.run_id = results.run_id {w}"
        );
        let values = client
            .query(&sql, &params(&args))?
            .iter()
            .filter_map(|r| {
                let metric = store::metric_named(r.get(2))?;
                let ops: i64 = r.get(4);
                Some((r.get(0), r.get(1), metric, r.get(3), ops.max(0) as u64))
            })
            .collect::<Vec<_>>();
        Ok(Timeline::assemble(runs, values))
    }

    fn commit_runs(&self, commit: &str) -> Result<Vec<RunRecord>> {
        self.client()
            .query(
                "SELECT run_id, record FROM runs WHERE commit_sha = $1",
                &[&commit],
            )?
            .iter()
            .map(|r| store::decode_run(r.get(0), Some(r.get(1)), &self.shown))
            .collect()
    }
}
