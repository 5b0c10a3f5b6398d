//! Where the history is: an SQLite file or a PostgreSQL URL, as `--db` or `COSTBENCH_DB` name
//! it, and the one place that opens the matching [`Store`]. Its `Display` is the only way a
//! location reaches a message, and it never shows a password.

use crate::store::Store;
use crate::url::redact;
use anyhow::{Context, Result};
use std::fmt;
use std::path::{Path, PathBuf};

/// A history database: an SQLite file (the default) or a PostgreSQL server.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// An SQLite file, created on first use.
    Sqlite(PathBuf),
    /// A `postgres://` or `postgresql://` URL (libpq's URI form).
    Postgres(String),
}

impl Location {
    /// What `--db VALUE` names: a PostgreSQL URL when it starts with `postgres://` or
    /// `postgresql://`, a file path otherwise.
    pub fn parse(value: &Path) -> Location {
        match value.to_str() {
            Some(s) if is_postgres_url(s) => Location::Postgres(s.to_string()),
            _ => Location::Sqlite(value.to_path_buf()),
        }
    }

    /// Whether there is a history here to read. A file must exist; a server database is always
    /// taken to be there (opening it says why when it is not, and creates the schema when
    /// missing, which is harmless on a team's server).
    pub fn exists(&self) -> bool {
        match self {
            Location::Sqlite(p) => p.exists(),
            Location::Postgres(_) => true,
        }
    }

    /// Opens the store, creating or migrating its schema as needed (see [`crate::migrations`]).
    pub fn open(&self) -> Result<Box<dyn Store>> {
        Ok(match self {
            Location::Sqlite(p) => Box::new(crate::sqlite::SqliteStore::open(p)?),
            Location::Postgres(url) => Box::new(
                crate::postgres::PostgresStore::connect(url)
                    .with_context(|| format!("history database {self}"))?,
            ),
        })
    }
}

/// Whether `s` is a PostgreSQL URL rather than a path.
pub(crate) fn is_postgres_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(p) => write!(f, "{}", p.display()),
            Location::Postgres(url) => f.write_str(&redact(url)),
        }
    }
}

// By hand, so that `{:?}` (in a panic or a log) cannot show a password either.
impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(p) => f.debug_tuple("Sqlite").field(p).finish(),
            Location::Postgres(_) => f.debug_tuple("Postgres").field(&self.to_string()).finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_paths_are_told_apart() {
        assert_eq!(
            Location::parse(Path::new("postgres://h/db")),
            Location::Postgres("postgres://h/db".into())
        );
        assert_eq!(
            Location::parse(Path::new("postgresql:///db?host=/run/pg")),
            Location::Postgres("postgresql:///db?host=/run/pg".into())
        );
        assert_eq!(
            Location::parse(Path::new("target/h.sqlite")),
            Location::Sqlite("target/h.sqlite".into())
        );
        // Not a URL of ours: a (strange) file name, as before.
        assert!(matches!(
            Location::parse(Path::new("mysql://h/db")),
            Location::Sqlite(_)
        ));
    }

    #[test]
    fn passwords_never_show() {
        for (url, shown) in [
            (
                "postgres://ci:s3cret@db.example:5432/bench",
                "postgres://ci:***@db.example:5432/bench",
            ),
            (
                "postgresql://ci:p@ss/w@db/bench?sslmode=disable",
                "postgresql://ci:***@db/bench?sslmode=disable",
            ),
            (
                "postgres://db/bench?user=ci&password=s3cret",
                "postgres://db/bench?user=ci&password=***",
            ),
            ("postgres://ci@db/bench", "postgres://ci@db/bench"),
            (
                "postgres:///bench?host=/run/pg",
                "postgres:///bench?host=/run/pg",
            ),
        ] {
            let l = Location::parse(Path::new(url));
            assert_eq!(l.to_string(), shown);
            assert!(!format!("{l:?}").contains("s3cret"));
            assert!(!format!("{l:?}").contains("p@ss"));
        }
    }
}
