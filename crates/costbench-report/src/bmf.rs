//! Bencher Metric Format: `{ "<benchmark>": { "<measure>": { "value": .., "lower_value": ..,
//! "upper_value": .. } } }`, so that Bencher can ingest costbench runs with
//! `bencher run --adapter json`. Measures: `instructions` (per op) and `latency` (nanoseconds per
//! op: median, with Q1 and Q3 as bounds). Every figure is per op.

use costbench_record::model::RunRecord;
use serde_json::{Map, Value};

/// The run as Bencher Metric Format JSON: per measured id, its per-op figures as measures (the
/// instruments' slices give them).
pub fn bmf(run: &RunRecord) -> Value {
    let mut out = Map::new();
    for r in &run.results {
        let measures: Map<String, Value> = crate::instrument::bmf(r)
            .into_iter()
            .map(|(name, measure)| (name.to_string(), measure))
            .collect();
        if !measures.is_empty() {
            out.insert(r.id.clone(), Value::Object(measures));
        }
    }
    Value::Object(out)
}
