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
        for file in costbench_record::csv::files::CsvFile::all() {
            let _ = file.text(&run);
        }
        for r in &run.results {
            let _ = r.per_op_samples();
        }
    }
});
