//! The command core: what several commands need, in one place, so that the command files are
//! leaves that never import each other. It owns
//! - [`paths`]: the default paths under `TARGET_DIR/costbench` (results, check sides, variants,
//!   merged runs, the history database): the only place that computes them;
//! - [`history`]: where the history database is (`--db`, `COSTBENCH_DB`, else the default) and
//!   recording runs in it;
//! - [`session`]: a measuring command's session (the resolved bench target, its paths and
//!   history, `--shard`'s costs from history) and measuring with recording
//!   ([`session::Session::measure_and_record`]);
//! - [`sides`]: loading a run named on the command line, learning thresholds from history, and
//!   judging two runs with their function movers;
//! - [`page`]: what the HTML report shows (runs, their comparison, judged history series),
//!   gathered and judged for `report` and `run --html`;
//! - [`present`]: the presentations two commands share (a variant matrix, the list of scenarios).
//!
//! It must not parse the command line (that is `args` and `options`) nor choose a command's
//! exit code beyond what a shared presentation returns; the measuring, judging and store crates
//! below take the paths it computes as arguments.

pub(crate) mod changes;
pub(crate) mod history;
pub(crate) mod page;
pub(crate) mod paths;
pub(crate) mod present;
pub(crate) mod session;
mod shard;
pub(crate) mod sides;
