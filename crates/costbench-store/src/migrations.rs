//! The history schema as a list of numbered migrations, one SQL text per backend, so that SQLite
//! and PostgreSQL hold the same tables at the same version.
//!
//! Each database has a `schema_migrations` table with one row per applied migration (version,
//! description, when). Opening a database applies the missing ones in one transaction (on
//! PostgreSQL under an advisory lock, so that many CI jobs opening a fresh database at once
//! migrate it once); a database whose newest version is above [`LATEST`] was written by a newer
//! costbench and is refused with an error saying so, before anything is changed. SQLite files
//! from before migrations were tracked have a `meta` row `schema_version = 1`: they are taken as
//! version 1 and migrated from there.
//!
//! A new migration is a new entry at the end; entries already released never change.

/// One step of the schema.
#[derive(Debug)]
pub struct Migration {
    /// Its number: 1, 2, … in order.
    pub version: i64,
    /// What it does, kept in `schema_migrations`.
    pub description: &'static str,
    /// The SQL for SQLite.
    pub sqlite: &'static str,
    /// The SQL for PostgreSQL (run inside the `costbench` schema).
    pub postgres: &'static str,
}

/// The migrations, oldest first.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "runs, the per-op results index and walltime samples",
        sqlite: "
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
",
        postgres: "
CREATE TABLE runs (
    run_id       TEXT PRIMARY KEY,
    started_at   TEXT NOT NULL,
    commit_sha   TEXT,
    branch       TEXT,
    dirty        BOOLEAN NOT NULL,
    variant      TEXT NOT NULL,
    package      TEXT NOT NULL,
    bench        TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    rustc        TEXT,
    valgrind     TEXT,
    host_cpu     TEXT,
    record       TEXT NOT NULL
);
CREATE INDEX runs_by_branch ON runs (branch, variant, started_at);
CREATE TABLE results (
    run_id      TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    scenario_id TEXT NOT NULL,
    metric      TEXT NOT NULL,
    per_op      DOUBLE PRECISION NOT NULL,
    ops         BIGINT NOT NULL,
    unit        TEXT NOT NULL,
    PRIMARY KEY (run_id, scenario_id, metric)
);
CREATE INDEX results_by_id ON results (scenario_id, metric);
CREATE TABLE samples (
    run_id       TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    scenario_id  TEXT NOT NULL,
    iteration_ns TEXT NOT NULL,
    PRIMARY KEY (run_id, scenario_id)
);
",
    },
    Migration {
        version: 2,
        description: "when each run was recorded; runs by start time",
        // `recorded_at` tells a team when a CI job (or an import) wrote a run, which its start
        // time does not; the index serves `history` without a branch, the common listing.
        sqlite: "
ALTER TABLE runs ADD COLUMN recorded_at TEXT;
CREATE INDEX runs_by_time ON runs (started_at, run_id);
",
        postgres: "
ALTER TABLE runs ADD COLUMN recorded_at TEXT;
CREATE INDEX runs_by_time ON runs (started_at, run_id);
",
    },
    Migration {
        version: 3,
        description: "where each run's commit sits on its branch, its machine, and backfill",
        // Change detection and the dashboard read a branch in the order it has its commits
        // (first-parent position), per machine, and pass over commits a backfill could not
        // build: columns, so that a history of thousands of runs is read without decoding each
        // kept record.
        sqlite: "
ALTER TABLE runs ADD COLUMN position INTEGER;
ALTER TABLE runs ADD COLUMN parent TEXT;
ALTER TABLE runs ADD COLUMN author_date TEXT;
ALTER TABLE runs ADD COLUMN subject TEXT;
ALTER TABLE runs ADD COLUMN machine TEXT;
ALTER TABLE runs ADD COLUMN carried_from TEXT;
ALTER TABLE runs ADD COLUMN build_failed TEXT;
CREATE INDEX runs_by_commit ON runs (commit_sha);
",
        postgres: "
ALTER TABLE runs ADD COLUMN position BIGINT;
ALTER TABLE runs ADD COLUMN parent TEXT;
ALTER TABLE runs ADD COLUMN author_date TEXT;
ALTER TABLE runs ADD COLUMN subject TEXT;
ALTER TABLE runs ADD COLUMN machine TEXT;
ALTER TABLE runs ADD COLUMN carried_from TEXT;
ALTER TABLE runs ADD COLUMN build_failed TEXT;
CREATE INDEX runs_by_commit ON runs (commit_sha);
",
    },
];

/// The newest schema version this costbench knows.
pub const LATEST: i64 = MIGRATIONS[MIGRATIONS.len() - 1].version;

/// The table that lists applied migrations (the same on both backends).
pub(crate) const TABLE: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    version     BIGINT PRIMARY KEY,
    description TEXT NOT NULL,
    applied_at  TEXT NOT NULL
)";

/// The error for a database at `version`, newer than this costbench.
pub(crate) fn too_new(version: i64) -> anyhow::Error {
    anyhow::anyhow!(
        "written by a newer costbench (history schema version {version}; this costbench knows up to {LATEST}): \
         upgrade costbench, or use another --db"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_count_up_from_one() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version, i as i64 + 1, "{}", m.description);
        }
        assert_eq!(LATEST, MIGRATIONS.len() as i64);
    }
}
