//! `run.json`, read back by `compare`, `check`, `report` and `import`: the schema checks, then
//! the record, then what every reader derives from it first.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(run) = costbench_record::output::parse_run(text, Path::new("run.json")) {
        let _ = run.finished_scenarios();
        let _ = costbench_record::csv::icounts_csv(&run);
        let _ = costbench_record::csv::walltime_csv(&run);
        let _ = costbench_record::csv::counters_csv(&run);
        let _ = costbench_record::csv::memory_csv(&run);
        for r in &run.results {
            let _ = r.per_op_samples();
        }
    }
});
