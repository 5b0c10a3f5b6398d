//! Budgets in the run record: each declared limit checked against the figure the run measured
//! ([`BudgetCheck`]), and the bench binary's size ([`BinarySize`]), which a budget can limit.
//! Plain serde types: which budgets apply is `costbench-judge`'s to decide, the sizes are
//! `costbench-measure`'s to read.

use serde::{Deserialize, Serialize};

/// A declared budget: the protocol's type, shared by the library's listing and costbench.toml.
pub use costbench_protocol::Budget;

/// A figure a budget limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BudgetFigure {
    /// Instructions per op (`icount`).
    Instructions,
    /// Allocations per op (`memory`).
    Allocations,
    /// Bytes allocated per op (`memory`).
    Bytes,
    /// Peak live heap bytes of one run of the body (`memory`).
    PeakHeap,
    /// Executed checks per op (`census`).
    Checks,
    /// Bytes of the bench binary's loaded sections.
    BinarySize,
}

impl BudgetFigure {
    /// Every figure, in the order reports list them.
    pub const ALL: [BudgetFigure; 6] = [
        BudgetFigure::Instructions,
        BudgetFigure::Allocations,
        BudgetFigure::Bytes,
        BudgetFigure::PeakHeap,
        BudgetFigure::Checks,
        BudgetFigure::BinarySize,
    ];

    /// The key of `[[budget]]` and of the record: `instructions`, `peak-heap` ...
    pub fn name(self) -> &'static str {
        match self {
            BudgetFigure::Instructions => "instructions",
            BudgetFigure::Allocations => "allocations",
            BudgetFigure::Bytes => "bytes",
            BudgetFigure::PeakHeap => "peak-heap",
            BudgetFigure::Checks => "checks",
            BudgetFigure::BinarySize => "binary-size",
        }
    }

    /// The instrument that measures it (`None`: every run reads the binary's size).
    pub fn instrument(self) -> Option<&'static str> {
        match self {
            BudgetFigure::Instructions => Some("icount"),
            BudgetFigure::Allocations | BudgetFigure::Bytes | BudgetFigure::PeakHeap => {
                Some("memory")
            }
            BudgetFigure::Checks => Some("census"),
            BudgetFigure::BinarySize => None,
        }
    }

    /// A value of this figure with its unit: "2.0023 Ir/op", "0 allocs/op", "1200 B".
    pub fn fmt_value(self, v: f64) -> String {
        // Exact figures stay exact: up to four decimals, trailing zeros dropped.
        let n = format!("{v:.4}");
        let n = n.trim_end_matches('0').trim_end_matches('.');
        match self {
            BudgetFigure::Instructions => format!("{n} Ir/op"),
            BudgetFigure::Allocations => format!("{n} allocs/op"),
            BudgetFigure::Bytes => format!("{n} B/op"),
            BudgetFigure::PeakHeap => format!("{n} B peak"),
            BudgetFigure::Checks => format!("{n} checks/op"),
            BudgetFigure::BinarySize => format!("{n} B"),
        }
    }
}

impl std::fmt::Display for BudgetFigure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a budget check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BudgetStatus {
    /// The figure is within its limit.
    Within,
    /// The figure is above its limit: the budget fails.
    Exceeded,
    /// The run did not measure the figure (its instrument was not asked for, or failed for the
    /// id): the budget fails, since it could not be checked.
    Unmeasured,
}

/// One limit of one budget checked against one measured id (or, for the binary size, the
/// bench target).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetCheck {
    /// The measured id; for the binary size, `bench:NAME` (the bench target).
    pub id: String,
    /// The limited figure.
    pub figure: BudgetFigure,
    /// The limit.
    pub limit: f64,
    /// The measured figure, when measured.
    pub value: Option<f64>,
    /// The verdict.
    pub status: BudgetStatus,
    /// Where the budget was declared: `library` (`Suite::budget`) or `costbench.toml`.
    pub source: String,
    /// The budget's glob.
    pub scenario: String,
}

impl BudgetCheck {
    /// Whether this check fails the run.
    pub fn failed(&self) -> bool {
        self.status != BudgetStatus::Within
    }

    /// One line for people: "2.031 Ir/op, above the budget of 2 Ir/op (library)".
    pub fn message(&self) -> String {
        let f = self.figure;
        match (self.status, self.value) {
            (BudgetStatus::Unmeasured, _) | (_, None) => format!(
                "not measured, so the budget of {} ({}) could not be checked{}",
                f.fmt_value(self.limit),
                self.source,
                f.instrument()
                    .map(|i| format!(": add --instrument {i}"))
                    .unwrap_or_default()
            ),
            (BudgetStatus::Exceeded, Some(v)) => format!(
                "{}, above the budget of {} ({})",
                f.fmt_value(v),
                f.fmt_value(self.limit),
                self.source
            ),
            (BudgetStatus::Within, Some(v)) => format!(
                "{}, within the budget of {} ({})",
                f.fmt_value(v),
                f.fmt_value(self.limit),
                self.source
            ),
        }
    }
}

/// The size of a bench binary, from its ELF section headers and symbols.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BinarySize {
    /// Bytes of executable sections (`.text`, `.plt`, `.init` ...).
    pub text: u64,
    /// Bytes of loaded data sections (read-only data, initialised data, relocation tables ...)
    /// that take room in the file.
    pub data: u64,
    /// Bytes of zero-initialised data (`.bss`): memory at run time, not room in the file.
    pub bss: u64,
    /// `text + data`: what the binary loads from its file, debug info and symbols excluded.
    pub total: u64,
    /// Bytes of the file (debug info and symbol tables included).
    pub file: u64,
    /// The crates whose functions take the most code, largest first: symbol sizes summed by
    /// the crate that the demangled name starts with (`std`, `core`, `alloc`, the user's
    /// crates; `[other]` for symbols that name none, such as C functions).
    pub top_crates: Vec<CrateSize>,
}

/// Code bytes of one crate's functions in a binary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrateSize {
    /// The crate's name.
    pub krate: String,
    /// Bytes of its functions.
    pub bytes: u64,
}
