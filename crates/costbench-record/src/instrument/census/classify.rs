//! Which kind of check a panic entry point stands for, from the callee's demangled name.
//!
//! Pure: a name in, a kind out. The names cover current rustc (1.95: `panic_bounds_check`,
//! `slice_index_fail`, `panic_const_*`, `option::unwrap_failed`) and the older spellings of the
//! same failures (`slice_start_index_len_fail`, `slice_end_index_len_fail`,
//! `slice_index_order_fail`, `str::slice_error_fail`, `expect_failed`). Before about rustc 1.79
//! overflow failures called `core::panicking::panic` with a message; those land in `other-panic`,
//! since the name alone cannot tell them apart from any other `panic!`.

use serde::{Deserialize, Serialize};

/// What a guard checks. The order is the order of the reports, and breaks ties when a failing
/// block can reach several kinds of panic (the first kind wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// `v[i]` on a slice or array: `panic_bounds_check`.
    SliceIndex,
    /// `&v[a..b]` and friends, and slice length mismatches: `slice_index_fail` and the older
    /// `slice_*_fail` functions, `copy_from_slice`'s `len_mismatch_fail`.
    SliceRange,
    /// `&s[a..b]` on a `str` off a character boundary: `str::slice_error_fail`.
    StrBoundary,
    /// Arithmetic overflow with overflow checks on: `panic_const_{add,sub,mul,neg,shl,shr}_overflow`
    /// and the signed `MIN / -1` cases `panic_const_{div,rem}_overflow`.
    Overflow,
    /// Division or remainder by zero: `panic_const_{div,rem}_by_zero`.
    DivByZero,
    /// `unwrap`/`expect` on `None` or `Err`.
    Unwrap,
    /// Any other panic: `panic!`, `assert!`, `unreachable!`, `RefCell` borrow failures,
    /// allocation failures, older rustc's overflow panics.
    OtherPanic,
    /// `ud2`: a trap instead of a panic call (`panic = "immediate-abort"`, `core::intrinsics::abort`).
    Trap,
}

impl Kind {
    /// Every kind, in the order of the reports.
    pub const ALL: [Kind; 8] = [
        Kind::SliceIndex,
        Kind::SliceRange,
        Kind::StrBoundary,
        Kind::Overflow,
        Kind::DivByZero,
        Kind::Unwrap,
        Kind::OtherPanic,
        Kind::Trap,
    ];

    /// The name used in tables and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::SliceIndex => "slice-index",
            Kind::SliceRange => "slice-range",
            Kind::StrBoundary => "str-boundary",
            Kind::Overflow => "overflow",
            Kind::DivByZero => "div-by-zero",
            Kind::Unwrap => "unwrap",
            Kind::OtherPanic => "other-panic",
            Kind::Trap => "trap",
        }
    }

    /// Bounds checks in the everyday sense: indexing, range slicing, `str` boundaries.
    pub fn is_bounds(self) -> bool {
        matches!(
            self,
            Kind::SliceIndex | Kind::SliceRange | Kind::StrBoundary
        )
    }
}

/// Name fragments of functions that never return and report a failed check, with their kind.
/// Matched as substrings of the demangled name without its hash, most specific first.
const PANICS: &[(&str, Kind)] = &[
    ("core::panicking::panic_bounds_check", Kind::SliceIndex),
    ("core::slice::index::slice_index_fail", Kind::SliceRange),
    (
        "core::slice::index::slice_start_index_len_fail",
        Kind::SliceRange,
    ),
    (
        "core::slice::index::slice_end_index_len_fail",
        Kind::SliceRange,
    ),
    (
        "core::slice::index::slice_index_order_fail",
        Kind::SliceRange,
    ),
    (
        "core::slice::index::slice_start_index_overflow_fail",
        Kind::SliceRange,
    ),
    (
        "core::slice::index::slice_end_index_overflow_fail",
        Kind::SliceRange,
    ),
    ("::copy_from_slice::len_mismatch_fail", Kind::SliceRange),
    ("core::str::slice_error_fail", Kind::StrBoundary),
    ("panic_const::panic_const_div_by_zero", Kind::DivByZero),
    ("panic_const::panic_const_rem_by_zero", Kind::DivByZero),
    ("panic_const::panic_const_add_overflow", Kind::Overflow),
    ("panic_const::panic_const_sub_overflow", Kind::Overflow),
    ("panic_const::panic_const_mul_overflow", Kind::Overflow),
    ("panic_const::panic_const_neg_overflow", Kind::Overflow),
    ("panic_const::panic_const_shl_overflow", Kind::Overflow),
    ("panic_const::panic_const_shr_overflow", Kind::Overflow),
    ("panic_const::panic_const_div_overflow", Kind::Overflow),
    ("panic_const::panic_const_rem_overflow", Kind::Overflow),
    ("core::option::unwrap_failed", Kind::Unwrap),
    ("core::option::expect_failed", Kind::Unwrap),
    ("core::result::unwrap_failed", Kind::Unwrap),
    ("core::panicking::panic_const::", Kind::OtherPanic),
    ("core::panicking::panic", Kind::OtherPanic),
    ("core::panicking::assert_failed", Kind::OtherPanic),
    ("core::panicking::unreachable_display", Kind::OtherPanic),
    ("std::panicking::begin_panic", Kind::OtherPanic),
    ("std::panicking::rust_panic_with_hook", Kind::OtherPanic),
    ("core::cell::panic_already_borrowed", Kind::OtherPanic),
    (
        "core::cell::panic_already_mutably_borrowed",
        Kind::OtherPanic,
    ),
    ("alloc::raw_vec::capacity_overflow", Kind::OtherPanic),
    ("alloc::raw_vec::handle_error", Kind::OtherPanic),
    ("alloc::alloc::handle_alloc_error", Kind::OtherPanic),
    ("std::alloc::rust_oom", Kind::OtherPanic),
    ("std::process::abort", Kind::OtherPanic),
];

/// The kind of check a call to `name` (demangled, without hash) reports, or `None` when `name`
/// is not a panic entry point.
pub fn classify(name: &str) -> Option<Kind> {
    // Strip what rustc appends to the function it is really about: the runtime half of a
    // `const_eval_select` (`::do_panic::runtime`), closures, and symbol versions of C names.
    let name = name.split('@').next().unwrap_or(name);
    PANICS
        .iter()
        .find(|(fragment, _)| name.contains(fragment))
        .map(|&(_, kind)| kind)
        .or(match name {
            "abort" | "__rust_start_panic" | "rust_panic" => Some(Kind::OtherPanic),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_and_older_panic_entry_points() {
        let cases: &[(&str, Option<Kind>)] = &[
            (
                "core::panicking::panic_bounds_check",
                Some(Kind::SliceIndex),
            ),
            (
                "core::slice::index::slice_index_fail",
                Some(Kind::SliceRange),
            ),
            (
                "core::slice::index::slice_index_fail::do_panic::runtime",
                Some(Kind::SliceRange),
            ),
            (
                "core::slice::index::slice_end_index_len_fail",
                Some(Kind::SliceRange),
            ),
            (
                "core::slice::index::slice_start_index_len_fail",
                Some(Kind::SliceRange),
            ),
            (
                "core::slice::index::slice_index_order_fail",
                Some(Kind::SliceRange),
            ),
            (
                "core::slice::<impl [T]>::copy_from_slice::len_mismatch_fail",
                Some(Kind::SliceRange),
            ),
            ("core::str::slice_error_fail", Some(Kind::StrBoundary)),
            ("core::str::slice_error_fail_rt", Some(Kind::StrBoundary)),
            (
                "core::panicking::panic_const::panic_const_mul_overflow",
                Some(Kind::Overflow),
            ),
            (
                "core::panicking::panic_const::panic_const_add_overflow",
                Some(Kind::Overflow),
            ),
            (
                "core::panicking::panic_const::panic_const_div_overflow",
                Some(Kind::Overflow),
            ),
            (
                "core::panicking::panic_const::panic_const_div_by_zero",
                Some(Kind::DivByZero),
            ),
            (
                "core::panicking::panic_const::panic_const_rem_by_zero",
                Some(Kind::DivByZero),
            ),
            (
                "core::panicking::panic_const::panic_const_async_fn_resumed",
                Some(Kind::OtherPanic),
            ),
            ("core::option::unwrap_failed", Some(Kind::Unwrap)),
            ("core::option::expect_failed", Some(Kind::Unwrap)),
            ("core::result::unwrap_failed", Some(Kind::Unwrap)),
            ("core::panicking::panic", Some(Kind::OtherPanic)),
            ("core::panicking::panic_fmt", Some(Kind::OtherPanic)),
            ("core::panicking::panic_nounwind", Some(Kind::OtherPanic)),
            ("core::panicking::assert_failed", Some(Kind::OtherPanic)),
            ("std::panicking::begin_panic", Some(Kind::OtherPanic)),
            ("core::cell::panic_already_borrowed", Some(Kind::OtherPanic)),
            ("alloc::raw_vec::handle_error", Some(Kind::OtherPanic)),
            ("abort@GLIBC_2.2.5", Some(Kind::OtherPanic)),
            ("core::slice::index::slice_index_len", None),
            ("core::fmt::write", None),
            ("memcpy", None),
            ("my_crate::panic_handler_setup", None),
        ];
        for (name, kind) in cases {
            assert_eq!(classify(name), *kind, "{name}");
        }
    }

    #[test]
    fn bounds_family() {
        assert!(Kind::SliceIndex.is_bounds());
        assert!(Kind::StrBoundary.is_bounds());
        assert!(!Kind::Overflow.is_bounds());
        assert_eq!(
            serde_json::to_string(&Kind::DivByZero).unwrap(),
            "\"div-by-zero\""
        );
        for k in Kind::ALL {
            assert_eq!(
                serde_json::to_string(&k).unwrap(),
                format!("\"{}\"", k.as_str())
            );
        }
    }
}
