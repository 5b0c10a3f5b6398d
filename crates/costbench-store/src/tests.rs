//! The store's behaviour, one suite run against both backends: SQLite in a temporary file and
//! PostgreSQL in a throwaway cluster ([`crate::pg_cluster`]), so that what `history`, `compare`,
//! `check` and the report read is the same whichever `--db` a team uses.

use crate::pg_cluster::PgCluster;
use crate::{Location, RunQuery, Store};
use costbench_record::history::Metric;
use costbench_record::model::*;
use costbench_record::testing;
use std::collections::BTreeSet;

/// A run of one scenario `s` (10 ops, `ir` instructions) of variant `default`, started at
/// `started_at` on `branch` at commit `c{run_id}`: the record crate's fixture, with what the
/// store indexes set.
pub(crate) fn record(run_id: &str, started_at: &str, branch: &str, ir: u64) -> RunRecord {
    let s = ScenarioResult {
        icount: Some(Icount {
            ir,
            ir_per_op: ir as f64 / 10.0,
            callgrind_out: "callgrind/s.out".into(),
            placement: None,
        }),
        ..ScenarioResult::empty("s", "s", None, 10, "op")
    };
    let mut r = testing::record(run_id, vec![s]);
    r.started_at = started_at.into();
    r.finished_at = None;
    r.variant = "default".into();
    r.harness_residual_ir = Some(2);
    r.environment.git = Some(Git {
        commit: format!("c{run_id}"),
        branch: Some(branch.into()),
        dirty: false,
        ..Default::default()
    });
    r
}

/// A fresh SQLite history in `dir`.
fn sqlite(dir: &tempfile::TempDir) -> Location {
    Location::Sqlite(dir.path().join("h.sqlite"))
}

fn records_lists_loads_and_queries_series(at: &Location) {
    let db = at.open().unwrap();
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
    assert_eq!((all[0].scenarios, all[0].failures), (1, 0));
    assert_eq!(all[0].branch.as_deref(), Some("feature"));
    assert_eq!(all[0].commit.as_deref(), Some("cr3"));
    assert!(!all[0].dirty);
    let main = RunQuery {
        branch: Some("main".into()),
        ..RunQuery::default()
    };
    let s = db.series("s", Metric::Icount, &main).unwrap();
    assert_eq!(s.iter().map(|p| p.per_op).collect::<Vec<_>>(), [10.0, 11.0]);
    assert_eq!(s[0].commit.as_deref(), Some("cr1"));
    let last = RunQuery {
        limit: Some(1),
        ..main.clone()
    };
    assert_eq!(
        db.series("s", Metric::Icount, &last).unwrap()[0].run_id,
        "r2"
    );
    assert_eq!(db.runs(&last).unwrap().len(), 1);
    let other_variant = RunQuery {
        variant: Some("release".into()),
        ..RunQuery::default()
    };
    assert!(db.runs(&other_variant).unwrap().is_empty());
    assert!(db.series("s", Metric::Walltime, &main).unwrap().is_empty());
    assert_eq!(
        db.load("r2").unwrap(),
        record("r2", "2026-01-02T00:00:00Z", "main", 110)
    );
    let e = db.load("nope").unwrap_err();
    // Issue 41: a run id that is not there is the caller's mistake (exit 2 in the runner).
    assert!(costbench_record::error::is_bad_input(&e), "{e:#}");
    let e = e.to_string();
    assert!(e.contains("no run with id \"nope\""), "{e}");
    // Recording the same id again replaces it: one run, one set of index rows.
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
    assert_eq!(
        db.series("s", Metric::Icount, &main)
            .unwrap()
            .iter()
            .map(|p| p.per_op)
            .collect::<Vec<_>>(),
        [10.0, 11.1]
    );
}

/// Issue 15's target: 8 writers × 100 runs at once, each writer with its own connection, and
/// every writer also re-recording 10 runs of its neighbour while the neighbour writes them (the
/// same import from two jobs): 800 runs, none lost, none doubled.
fn concurrent_writers_lose_and_double_nothing(at: &Location) {
    const WRITERS: usize = 8;
    const RUNS: usize = 100;
    at.open().unwrap(); // created (or migrated) once, as a first CI job would
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            s.spawn(move || {
                let db = at.open().unwrap();
                for k in 0..RUNS {
                    let id = format!("w{w}-{k:03}");
                    db.record(&record(&id, "2026-01-01T00:00:00Z", "main", 100 + k as u64))
                        .unwrap();
                    if k % 10 == 0 {
                        let twin = format!("w{}-{k:03}", (w + 1) % WRITERS);
                        db.record(&record(
                            &twin,
                            "2026-01-01T00:00:00Z",
                            "main",
                            100 + k as u64,
                        ))
                        .unwrap();
                    }
                }
            });
        }
    });
    let db = at.open().unwrap();
    let runs = db.runs(&RunQuery::default()).unwrap();
    let ids: BTreeSet<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
    assert_eq!(runs.len(), WRITERS * RUNS, "runs listed");
    assert_eq!(ids.len(), WRITERS * RUNS, "distinct run ids");
    let series = db
        .series("s", Metric::Icount, &RunQuery::default())
        .unwrap();
    assert_eq!(series.len(), WRITERS * RUNS, "index rows (one per run)");
}

/// Many jobs opening a history that does not exist yet, at the same moment: one history is
/// created (once migrated), and every job's run is in it.
fn concurrent_first_opens_create_one_history(at: &Location) {
    const JOBS: usize = 8;
    let start = std::sync::Barrier::new(JOBS);
    std::thread::scope(|s| {
        for j in 0..JOBS {
            let start = &start;
            s.spawn(move || {
                start.wait();
                let db = at.open().unwrap_or_else(|e| panic!("job {j}: {e:#}"));
                db.record(&record(
                    &format!("j{j}"),
                    "2026-01-01T00:00:00Z",
                    "main",
                    100,
                ))
                .unwrap();
            });
        }
    });
    assert_eq!(
        at.open().unwrap().runs(&RunQuery::default()).unwrap().len(),
        JOBS
    );
}

fn same_schema_version(at: &Location) {
    at.open().unwrap();
    let v = match at {
        Location::Sqlite(p) => crate::sqlite::SqliteStore::open(p)
            .unwrap()
            .schema_version(),
        Location::Postgres(u) => crate::postgres::PostgresStore::connect(u)
            .unwrap()
            .schema_version(),
    };
    assert_eq!(v.unwrap(), crate::migrations::LATEST);
}

/// Issue 28: a run's bench binary size and build time are series of their own, under
/// `bench:NAME`; a run without them (an older record) adds no point.
fn binary_size_and_build_time_are_series(at: &Location) {
    let db = at.open().unwrap();
    for (k, (total, seconds)) in [(1000u64, 20.5), (1200, 3.25)].into_iter().enumerate() {
        let mut r = record(
            &format!("r{k}"),
            &format!("2026-01-0{}T00:00:00Z", k + 1),
            "main",
            100,
        );
        r.binary = Some(budget::BinarySize {
            text: total - 100,
            data: 100,
            bss: 0,
            total,
            file: 4 * total,
            top_crates: Vec::new(),
        });
        r.build = Some(BuildInfo {
            seconds,
            compiled: 3,
            fresh: 1,
        });
        db.record(&r).unwrap();
    }
    db.record(&record("r9", "2026-01-09T00:00:00Z", "main", 100))
        .unwrap();
    let id = Metric::run_id(&record("x", "", "main", 1));
    let q = RunQuery::default();
    let values = |m| -> Vec<f64> {
        db.series(&id, m, &q)
            .unwrap()
            .iter()
            .map(|p| p.per_op)
            .collect()
    };
    assert_eq!(values(Metric::BinarySize), [1000.0, 1200.0]);
    assert_eq!(values(Metric::BuildSeconds), [20.5, 3.25]);
}

/// A timeline is in branch order (first-parent position, whenever each run was recorded),
/// split by machine, leaves out commits a backfill could not build, and marks carried runs;
/// `commit_runs` finds a commit's runs, the failed one included.
fn timeline_orders_by_position_and_splits_machines(at: &Location) {
    let db = at.open().unwrap();
    let placed = |id: &str, started: &str, position: u64, ir: u64, cpu: &str| {
        let mut r = record(id, started, "main", ir);
        let g = r.environment.git.as_mut().unwrap();
        g.position = Some(position);
        g.subject = Some(format!("commit {position}"));
        r.environment.host.cpu = Some(cpu.into());
        r
    };
    // Recorded out of order: a backfill measures the past after main's newest commit.
    db.record(&placed("r3", "2026-01-01T00:00:00Z", 3, 120, "A"))
        .unwrap();
    db.record(&placed("r1", "2026-01-02T00:00:00Z", 1, 100, "A"))
        .unwrap();
    let mut carried = placed("r2", "2026-01-03T00:00:00Z", 2, 100, "A");
    carried.backfill = Some(Backfill {
        carried_from: Some("cr1".into()),
        failed: None,
    });
    db.record(&carried).unwrap();
    let mut failed = placed("r4", "2026-01-04T00:00:00Z", 4, 0, "A");
    failed.results.clear();
    failed.backfill = Some(Backfill {
        carried_from: None,
        failed: Some("does not build".into()),
    });
    db.record(&failed).unwrap();
    db.record(&placed("b1", "2026-01-05T00:00:00Z", 1, 90, "B"))
        .unwrap();
    let t = db.timeline(&RunQuery::default()).unwrap();
    let order: Vec<&str> = t.runs.iter().map(|r| r.run_id.as_str()).collect();
    assert_eq!(order, ["r1", "b1", "r2", "r3"]);
    assert_eq!(t.runs[2].carried_from.as_deref(), Some("cr1"));
    assert_eq!(t.runs[0].subject.as_deref(), Some("commit 1"));
    let icount: Vec<_> = t
        .series
        .iter()
        .filter(|s| s.metric == Metric::Icount)
        .collect();
    assert_eq!(icount.len(), 2, "one series per machine");
    let a = icount.iter().find(|s| s.machine.starts_with("A ")).unwrap();
    assert_eq!(a.points, [(0, 10.0), (2, 10.0), (3, 12.0)]);
    let runs = db.commit_runs("cr4").unwrap();
    assert_eq!(runs.len(), 1);
    assert!(runs[0].backfill.as_ref().unwrap().failed.is_some());
    assert!(db.commit_runs("nothing").unwrap().is_empty());
}

/// The suite, against one backend.
fn suite(fresh: &mut dyn FnMut() -> Location) {
    records_lists_loads_and_queries_series(&fresh());
    timeline_orders_by_position_and_splits_machines(&fresh());
    binary_size_and_build_time_are_series(&fresh());
    concurrent_writers_lose_and_double_nothing(&fresh());
    same_schema_version(&fresh());
    for _ in 0..5 {
        concurrent_first_opens_create_one_history(&fresh());
    }
}

#[test]
fn suite_on_sqlite() {
    let dirs: std::cell::RefCell<Vec<tempfile::TempDir>> = Default::default();
    suite(&mut || {
        let d = tempfile::tempdir().unwrap();
        let at = sqlite(&d);
        dirs.borrow_mut().push(d);
        at
    });
}

#[test]
fn suite_on_postgres() {
    let Some(pg) = PgCluster::start_or_skip("suite_on_postgres") else {
        return;
    };
    suite(&mut || Location::Postgres(pg.new_database()));
}

#[test]
fn postgres_migrates_old_databases_and_refuses_newer_ones() {
    let Some(pg) =
        PgCluster::start_or_skip("postgres_migrates_old_databases_and_refuses_newer_ones")
    else {
        return;
    };
    let url = pg.new_database();
    {
        // A database at schema 1, as a costbench with only the first migration left it.
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let m = &crate::migrations::MIGRATIONS[0];
        c.batch_execute(&format!(
            "CREATE SCHEMA costbench; SET search_path TO costbench;
             CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             INSERT INTO meta VALUES ('application', 'costbench-history'), ('schema_version', '1');
             {}; {};
             INSERT INTO schema_migrations VALUES (1, 'v1', '2026-01-01T00:00:00Z');",
            crate::migrations::TABLE,
            m.postgres
        ))
        .unwrap();
        let run = record("old", "2026-01-01T00:00:00Z", "main", 100);
        c.execute(
            "INSERT INTO runs VALUES ('old', $1, 'c', 'main', false, 'default', 'p', 'b', '0.1.0',
                                     NULL, NULL, NULL, $2)",
            &[&run.started_at, &serde_json::to_string(&run).unwrap()],
        )
        .unwrap();
    }
    let db = crate::postgres::PostgresStore::connect(&url).unwrap();
    assert_eq!(db.schema_version().unwrap(), crate::migrations::LATEST);
    assert_eq!(db.load("old").unwrap().run_id, "old");
    db.record(&record("new", "2026-01-02T00:00:00Z", "main", 110))
        .unwrap();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let recorded: Option<String> = c
        .query_one(
            "SELECT recorded_at FROM costbench.runs WHERE run_id = 'new'",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(recorded.is_some_and(|t| t.ends_with('Z')));
    let versions: Vec<i64> = c
        .query(
            "SELECT version FROM costbench.schema_migrations ORDER BY version",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        versions,
        (1..=crate::migrations::LATEST).collect::<Vec<_>>()
    );

    // From a newer costbench: refused, nothing changed.
    c.batch_execute("INSERT INTO costbench.schema_migrations VALUES (99, 'future', 'then')")
        .unwrap();
    let e = format!(
        "{:#}",
        Location::Postgres(url.clone())
            .open()
            .err()
            .expect("refused")
    );
    assert!(e.contains("newer costbench") && e.contains("99"), "{e}");
    let n: i64 = c
        .query_one("SELECT count(*) FROM costbench.runs", &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 2);

    // A `costbench` schema made by something else is left alone.
    let other = pg.new_database();
    let mut c = postgres::Client::connect(&other, postgres::NoTls).unwrap();
    c.batch_execute("CREATE SCHEMA costbench; CREATE TABLE costbench.runs (x int)")
        .unwrap();
    let e = format!(
        "{:#}",
        Location::Postgres(other).open().err().expect("refused")
    );
    assert!(e.contains("not a costbench history"), "{e}");
}

#[test]
fn postgres_errors_never_show_the_password() {
    let Some(pg) = PgCluster::start_or_skip("postgres_errors_never_show_the_password") else {
        return;
    };
    let sock = pg.socket_dir();
    for url in [
        // A database that does not exist on a server that is there.
        format!(
            "postgres://costbench:hunter2@/nonexistent?host={}",
            sock.display()
        ),
        format!(
            "postgresql:///nonexistent?host={}&user=costbench&password=hunter2",
            sock.display()
        ),
        // No server at all there.
        "postgres://ci:hunter2@/db?host=/nonexistent-dir&connect_timeout=2".to_string(),
        // Not a URL the driver can read.
        "postgres://ci:hunter2@db:notaport/db".to_string(),
    ] {
        let at = Location::parse(std::path::Path::new(&url));
        let e = format!("{:#} {:?}", at.open().err().expect("refused"), at);
        assert!(!e.contains("hunter2"), "{e}");
        assert!(e.contains("history database postgres"), "{e}");
    }
}
