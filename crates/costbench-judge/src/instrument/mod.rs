//! The judge's slices of the instruments: one module per instrument that has something to judge
//! beyond its compared figures (which every figure's spec, in the record crate, says how to
//! judge), named like its folder in the registry (`costbench_record::for_each_instrument!`):
//! constant time's findings accepted by costbench.toml ([`consttime`]) and the census's diff of
//! the checks two runs executed ([`census`]), which explains a comparison's changes.
//! Nothing else in this crate names an instrument's findings.
//!
//! What the slices share with the layers ([`Allowances`]): the entries of costbench.toml that
//! accept an instrument's findings, which findings of a run they accept, and which entries
//! matched none. The layers hold them and call these hooks, naming no instrument. The sections
//! of costbench.toml the slices own are declared into the file's type by
//! [`with_instrument_sections!`](crate::with_instrument_sections!) and read by them, with the
//! lines their entries start on:
//!
//! ```toml
//! [[constant-time.allow]] # a reviewed constant-time finding: reported, not failing
//! scenario = "leak/*"     # glob over measured ids; default "*"
//! at = "benches/ct.rs:27" # FILE:LINE, FILE or a function name (see consttime)
//! kind = "address"        # optional: only "branch" or only "address" findings there
//! why = "reviewed: ..."   # required, shown in every report
//! ```

pub mod census;
pub mod consttime;

use costbench_record::model::RunRecord;

/// The entries of costbench.toml that accept the instruments' findings (reviewed ones: still
/// reported, never failing), each slice's own, as the file's reader read them.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Allowances {
    /// `[[constant-time.allow]]`.
    pub consttime: Vec<consttime::Allow>,
}

impl Allowances {
    /// Marks every finding of `record` that an entry matches as accepted (after measuring);
    /// what the record accepted before stands where no entry matches.
    pub fn accept(&self, record: &mut RunRecord) {
        consttime::accept(record, &self.consttime);
    }

    /// [`accept`](Self::accept) with these entries alone deciding (`check` on a record measured
    /// earlier): an entry removed since no longer accepts.
    pub fn decide(&self, record: &mut RunRecord) {
        consttime::decide(record, &self.consttime);
    }

    /// A warning for each entry that matched no finding of `record` although its instrument
    /// checked the ids it names: like an unfulfilled expectation, said, never failing.
    pub fn stale_warnings(&self, record: &RunRecord) -> Vec<String> {
        consttime::stale(record, &self.consttime)
            .into_iter()
            .map(consttime::stale_warning)
            .collect()
    }
}

/// Declares the type of costbench.toml (`struct NAME { BEFORE } { AFTER }`) with the sections
/// the instruments' slices own between the fields `BEFORE` and `AFTER` (the order serde's errors
/// list the keys in), and two methods on it: `allowances`, the entries that accept findings
/// ([`Allowances`]), and `read_sections(text, file_name)`, which names each entry after the line
/// of `text` its table starts on and validates it (an error names the entry so).
#[macro_export]
macro_rules! with_instrument_sections {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($before:tt)* } { $($after:tt)* }) => {
        $(#[$meta])*
        $vis struct $name {
            $($before)*
            /// `[constant-time]`: the `[[constant-time.allow]]` entries, each named
            /// `costbench.toml:LINE` after the line its table starts on.
            #[serde(default, rename = "constant-time")]
            pub constant_time: $crate::instrument::consttime::ConstantTimeConfig,
            $($after)*
        }

        impl $name {
            /// The entries that accept the instruments' findings, for the run's options and the
            /// gate.
            pub fn allowances(&self) -> $crate::instrument::Allowances {
                $crate::instrument::Allowances {
                    consttime: self.constant_time.allow.clone(),
                }
            }

            /// Names each entry of the instruments' sections after the line of `text` (the file
            /// `file_name`) its table starts on, and validates it.
            fn read_sections(&mut self, text: &str, file_name: &str) -> ::anyhow::Result<()> {
                $crate::instrument::consttime::read(&mut self.constant_time, text, file_name)
            }
        }
    };
}
