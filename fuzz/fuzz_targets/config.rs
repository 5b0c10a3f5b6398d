//! `costbench.toml`: the run defaults and `check`'s thresholds and hard limits.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = costbench_measure::config::Config::parse(text);
    }
});
