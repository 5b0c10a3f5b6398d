//! rustls ci-bench's CSV files (`costbench import`): `name,count` and `name,ns_1,...,ns_N`, and the
//! run record built from them. The input is split at the first NUL byte: icounts, then wall times.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

// The CLI's importer itself, compiled here without the rest of the CLI (see Cargo.toml).
#[allow(dead_code)]
#[path = "../../crates/costbench-cli/src/import.rs"]
mod import;
fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (icounts, walltimes) = text.split_once('\0').unwrap_or((text, text));
    let _ = import::parse_icounts(icounts, "icounts.csv");
    let _ = import::parse_walltimes(walltimes, "walltime.csv");
    let _ = import::from_csv(
        Some((icounts, "icounts.csv")),
        Some((walltimes, "walltime.csv")),
        &import::ImportMeta::default(),
        Path::new("fuzz"),
    );
});
