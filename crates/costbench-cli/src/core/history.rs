//! Where the history database is. One rule for every command: `--db`
//! (or `COSTBENCH_DB`, which clap reads into it) names a file or a PostgreSQL URL; otherwise the
//! default SQLite file under the target directory ([`super::paths::Paths::history`]).

use super::paths::Paths;
use anyhow::Result;
use costbench_store::Location;
use std::path::Path;

/// The database `db` names, else the default under `paths`.
pub(crate) fn location(db: Option<&Path>, paths: &Paths) -> Location {
    match db {
        Some(db) => Location::parse(db),
        None => Location::Sqlite(paths.history()),
    }
}

/// The database `db` names, else the default under the target directory of `manifest_path`
/// (found through cargo only when it is needed).
pub(crate) fn database(db: Option<&Path>, manifest_path: Option<&Path>) -> Result<Location> {
    if let Some(db) = db {
        return Ok(Location::parse(db));
    }
    Ok(location(None, &Paths::of_manifest(manifest_path)?))
}
