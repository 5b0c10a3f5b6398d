//! Issue 29, the CI item: where `COSTBENCH_REQUIRE_TOOLS` is set (`.ci/run` sets it), a test whose
//! tool is missing fails instead of passing with a `SKIPPED` line. A file of its own: the test
//! sets the variable for its whole process.

mod common;

#[test]
#[should_panic(expected = "COSTBENCH_REQUIRE_TOOLS is set: a missing tool fails the test")]
fn a_missing_tool_fails_the_test_where_tools_are_required() {
    std::env::set_var("COSTBENCH_REQUIRE_TOOLS", "1");
    common::skip("frobnicator is not installed; this test needs it");
}
