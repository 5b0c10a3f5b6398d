//! Callgrind's output format, as every reader of it takes it: the instruction total (icount), the
//! event totals (the cache simulation), the per-function profile (`compare --functions`) and the
//! per-instruction counts the census joins with the binary's guards.
#![no_main]
use costbench_measure::instrument::census::parse as census;
use costbench_measure::instrument::{cache, callgrind, icount};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = callgrind::total_ir(text);
    if let Ok(totals) = callgrind::totals(text) {
        let _ = cache::parse::figures(&totals, 1 + data.len() as u64 % 7, String::new());
    }
    let _ = icount::profile::parse(text);
    let _ = census::instruction_counts(text, |_| true);
});
