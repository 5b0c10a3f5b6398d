//! DHAT's JSON output (`--tool=dhat`), read for the heap totals of a scenario process.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = costbench_measure::instrument::dhat::parse::totals(text);
    }
});
