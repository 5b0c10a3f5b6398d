//! Budgets: absolute limits a suite declares on its scenarios' figures ([`Budget`], with the
//! class of growth of a family of sized scenarios, [`Complexity`]), registered
//! with [`Suite::budget`](crate::Suite::budget)), which the runner checks after measuring like a
//! test: `costbench run` and `costbench check` fail when a figure is above its limit.
//!
//! This module only builds the declaration; it is sent to the runner in the listing
//! (`costbench_protocol::Budget`), and judging it is the runner's job.

/// Absolute limits on the figures of some scenarios: instructions, allocations and bytes per op,
/// peak heap, executed checks per op, and the bench binary's size. Register it with
/// [`Suite::budget`](crate::Suite::budget).
///
/// Each figure needs the instrument that measures it in the run (`icount` for instructions,
/// `memory` for allocations, bytes and peak heap, `census` for checks); a budget on a figure
/// the run did not measure fails, saying which instrument to add.
///
/// ```
/// use costbench::Budget;
/// // At most 900 instructions per lookup, and no allocation at all.
/// let b = Budget::new().instructions(900.0).allocations(0.0).bytes(0.0);
/// # let _ = b;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Budget(pub(crate) costbench_protocol::Budget);

impl Default for Budget {
    fn default() -> Self {
        Self::new()
    }
}

impl Budget {
    /// A budget that limits nothing yet.
    pub fn new() -> Budget {
        Budget(costbench_protocol::Budget::new("*"))
    }

    /// At most `per_op` instructions per op (callgrind's count of one run of the body, divided
    /// by its ops; the harness's residual of a few instructions included).
    #[must_use]
    pub fn instructions(mut self, per_op: f64) -> Budget {
        self.0.instructions = Some(per_op);
        self
    }

    /// At most `per_op` allocations per op (`0.0`: the body allocates nothing).
    #[must_use]
    pub fn allocations(mut self, per_op: f64) -> Budget {
        self.0.allocations = Some(per_op);
        self
    }

    /// At most `per_op` bytes allocated per op.
    #[must_use]
    pub fn bytes(mut self, per_op: f64) -> Budget {
        self.0.bytes = Some(per_op);
        self
    }

    /// At most `bytes` of live heap above the level at the start of one run of the body.
    #[must_use]
    pub fn peak_heap(mut self, bytes: u64) -> Budget {
        self.0.peak_heap = Some(bytes);
        self
    }

    /// At most `per_op` executed bounds, overflow and other panic checks per op.
    #[must_use]
    pub fn checks(mut self, per_op: f64) -> Budget {
        self.0.checks = Some(per_op);
        self
    }

    /// The class the family's per-op instruction counts grow with: register the budget for the
    /// family's name (`"sort"` for the ids `sort/100`, `sort/1000` ... of
    /// [`Suite::bench_params`](crate::Suite::bench_params) over sizes; three sizes or more). The
    /// run fails when the counts fit another class best.
    ///
    /// ```
    /// use costbench::{Budget, Complexity};
    /// let b = Budget::new().complexity(Complexity::NLogN);
    /// # let _ = b;
    /// ```
    #[must_use]
    pub fn complexity(mut self, class: Complexity) -> Budget {
        self.0.complexity = Some(class.name().to_string());
        self
    }

    /// At most `bytes` of code and data in the bench binary (register it for `"*"`).
    #[must_use]
    pub fn binary_size(mut self, bytes: u64) -> Budget {
        self.0.binary_size = Some(bytes);
        self
    }
}

/// A class of growth, for [`Budget::complexity`]: how the per-op instruction counts of a
/// family of sized scenarios grow with the size `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Complexity {
    /// O(1).
    Constant,
    /// O(log n).
    Log,
    /// O(n).
    Linear,
    /// O(n log n).
    NLogN,
    /// O(n²).
    Quadratic,
}

impl Complexity {
    /// As the runner reads it: `1`, `log n`, `n`, `n log n`, `n^2`.
    pub fn name(self) -> &'static str {
        match self {
            Complexity::Constant => "1",
            Complexity::Log => "log n",
            Complexity::Linear => "n",
            Complexity::NLogN => "n log n",
            Complexity::Quadratic => "n^2",
        }
    }
}
