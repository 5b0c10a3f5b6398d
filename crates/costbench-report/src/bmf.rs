//! Bencher Metric Format: `{ "<benchmark>": { "<measure>": { "value": .., "lower_value": ..,
//! "upper_value": .. } } }`, so that Bencher can ingest costbench runs with
//! `bencher run --adapter json`. Measures: `instructions` (per op) and `latency` (nanoseconds per
//! op: median, with Q1 and Q3 as bounds). Every figure is per op.

use costbench_record::model::RunRecord;
use serde_json::{json, Map, Value};

/// The run as Bencher Metric Format JSON: per measured id, its per-op figures as measures.
pub fn bmf(run: &RunRecord) -> Value {
    let mut out = Map::new();
    for r in &run.results {
        let mut measures = Map::new();
        if let Some(i) = &r.icount {
            measures.insert("instructions".into(), json!({ "value": i.ir_per_op }));
        }
        if let Some(w) = &r.walltime {
            let s = &w.ns_per_op;
            measures.insert(
                "latency".into(),
                json!({ "value": s.median, "lower_value": s.q1, "upper_value": s.q3 }),
            );
        }
        if !measures.is_empty() {
            out.insert(r.id.clone(), Value::Object(measures));
        }
    }
    Value::Object(out)
}
