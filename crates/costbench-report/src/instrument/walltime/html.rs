//! Wall time's part of a scenario's section of the HTML page: its facts (the median and the
//! spread per op, the samples, the outliers, the clock) and the distribution of its samples per
//! op against the baseline's (`html::svg::distribution`).

use crate::html::svg;
use costbench_record::fmt::fmt_ns;
use costbench_record::model::{RunRecord, ScenarioResult};
use std::fmt::Write as _;

/// Its facts on the HTML page.
pub(super) fn facts(r: &ScenarioResult) -> Vec<(&'static str, String)> {
    let Some(w) = &r.walltime else {
        return Vec::new();
    };
    let s = &w.ns_per_op;
    let o = &s.outliers;
    vec![
        ("median time/op", fmt_ns(s.median)),
        ("min · p95", format!("{} · {}", fmt_ns(s.min), fmt_ns(s.p95))),
        (
            "mean ± sd",
            format!("{} ± {}", fmt_ns(s.mean), fmt_ns(s.stddev)),
        ),
        (
            "samples × iterations",
            format!("{} × {}", w.samples, w.iterations_per_sample),
        ),
        (
            "outliers (mild · severe)",
            format!(
                "{} · {}",
                o.low_mild + o.high_mild,
                o.low_severe + o.high_severe
            ),
        ),
        ("clock", w.clock.clone()),
    ]
}

/// Its chart: the distribution of the samples per op, the baseline's above the candidate's
/// when the baseline has a wall time.
pub(super) fn distribution(
    page: &mut String,
    r: &ScenarioResult,
    base: Option<(&RunRecord, &ScenarioResult)>,
) {
    let Some(wall) = &r.walltime else {
        return;
    };
    let samples = r.per_op_samples();
    let base_samples = base.map(|(_, b)| b.per_op_samples());
    let w = &wall.ns_per_op;
    let mut dist = Vec::new();
    if let (Some(bs), Some((brun, b))) = (&base_samples, base) {
        if let Some(bw) = &b.walltime {
            dist.push(svg::Distribution {
                label: &brun.variant,
                samples: bs,
                q1: bw.ns_per_op.q1,
                median: bw.ns_per_op.median,
                q3: bw.ns_per_op.q3,
            });
        }
    }
    let cand_label = if dist.is_empty() {
        "time/op"
    } else {
        "candidate"
    };
    if let Some(d) = dist.first_mut() {
        d.label = "baseline";
    }
    dist.push(svg::Distribution {
        label: cand_label,
        samples: &samples,
        q1: w.q1,
        median: w.median,
        q3: w.q3,
    });
    let _ = write!(
        page,
        "<figure><figcaption>Wall time per op: box from Q1 to Q3 with the median, whiskers \
         to the furthest samples within 1.5 IQR, every sample a dot</figcaption>{}</figure>",
        svg::distribution(&dist, fmt_ns)
    );
}
