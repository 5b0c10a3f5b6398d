//! JUnit XML: a comparison (with the gate's verdict for `check`) as test cases, for CI systems
//! that show test reports. Written to a file (`--junit FILE`), not offered on `--format`.

use super::{ComparisonView, Hook, Renderer};

/// JUnit XML.
pub(super) struct Junit;

impl Renderer for Junit {
    fn comparison<'a>(&self) -> Option<Hook<ComparisonView<'a>>> {
        Hook::file_only(|v| crate::junit::junit(v.comparison, v.gate))
    }
}
