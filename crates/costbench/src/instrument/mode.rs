//! The shape of one measuring mode of the child protocol, which each instrument's module gives
//! (`MODE`) and [`super::mode`] looks up by name.

use crate::child_args::{ChildArgs, ChildError};
use crate::suite::Scenario;

/// One measuring mode of the child protocol: its name on the command line and what it does with
/// the scenario asked for (the exit code, or why the request cannot be served).
pub(crate) struct ChildMode {
    pub(crate) name: &'static str,
    pub(crate) run: fn(&Scenario, &ChildArgs) -> Result<i32, ChildError>,
}
