//! On which sides of a comparison a function has a cost of its own: the function movers'
//! rows and the machine-code diffs both say it.

use serde::Serialize;

/// On which sides a function has a cost of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// In both profiles.
    #[default]
    Both,
    /// In the baseline's profile only: removed, renamed, or inlined into its callers in the
    /// candidate.
    BaselineOnly,
    /// In the candidate's profile only: new, renamed, or no longer inlined.
    CandidateOnly,
}

impl Presence {
    /// "baseline only", "candidate only", or `None` for both sides.
    pub fn label(self) -> Option<&'static str> {
        match self {
            Presence::Both => None,
            Presence::BaselineOnly => Some("baseline only"),
            Presence::CandidateOnly => Some("candidate only"),
        }
    }
}
