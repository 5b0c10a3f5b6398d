//! The registry's tests: the descriptors, figures and metrics it derives for every instrument,
//! what each instrument needs and brings, and when a result has every figure it was asked for.

use super::*;

#[test]
fn every_descriptor_sits_at_its_instruments_index() {
    for i in Instrument::ALL {
        assert_eq!(i.descriptor().instrument, i);
        assert_eq!(Instrument::from_name(i.name()), Some(i));
    }
    assert_eq!(Instrument::from_name("all"), None);
    let mut run = Instrument::RUN_ORDER;
    run.sort();
    assert_eq!(run, Instrument::ALL, "every instrument runs once");
    let mut ranks: Vec<u16> = Instrument::ALL
        .iter()
        .map(|i| i.descriptor().run_rank)
        .collect();
    ranks.sort_unstable();
    ranks.dedup();
    assert_eq!(ranks.len(), Instrument::ALL.len(), "no two run ranks alike");
}

/// Records already written name their kept files by these directories (`callgrind_out`,
/// `dhat_out`, ...), and readers find them there: a new instrument adds a directory, none
/// moves, and no two instruments share one.
#[test]
fn kept_files_stay_where_records_name_them() {
    let dir = |i: Instrument| i.descriptor().kept.map(|k| (k.dir, k.ext));
    assert_eq!(dir(Instrument::Icount), Some(("callgrind", "out")));
    assert_eq!(dir(Instrument::Cache), Some(("callgrind-cache", "out")));
    assert_eq!(dir(Instrument::Dhat), Some(("dhat", "json")));
    assert_eq!(dir(Instrument::ConstantTime), Some(("memcheck", "xml")));
    assert_eq!(dir(Instrument::Census), None, "it reads icount's");
    let keeping = Instrument::ALL
        .iter()
        .filter(|i| i.descriptor().kept.is_some())
        .count();
    assert_eq!(keeping, Instrument::kept_dirs().len(), "one directory each");
}

#[test]
fn each_figure_and_metric_belongs_to_the_instrument_that_lists_it() {
    for i in Instrument::ALL {
        for f in i.descriptor().figures {
            assert_eq!(f.instrument(), i, "{f}");
        }
        for m in i.descriptor().metrics {
            assert_eq!(m.instrument(), Some(i), "{}", m.as_str());
        }
    }
    let figures: Vec<Figure> = Instrument::ALL
        .iter()
        .flat_map(|i| i.descriptor().figures.iter().copied())
        .collect();
    assert_eq!(figures, Figure::ALL);
    let metrics: Vec<Metric> = Instrument::ALL
        .iter()
        .flat_map(|i| i.descriptor().metrics.iter().copied())
        .chain(Metric::RUN)
        .collect();
    assert_eq!(metrics, Metric::ALL);
    for m in Metric::RUN {
        assert_eq!(m.instrument(), None);
    }
}

/// Each figure and series its entry lists is described once by its instrument's slice, and
/// nothing else is; a figure's name is its name in JSON.
#[test]
fn each_slice_describes_the_figures_and_metrics_of_its_entry() {
    for i in Instrument::ALL {
        let figures: Vec<Figure> = i.slice().figures.iter().map(|s| s.figure).collect();
        let mut listed = i.descriptor().figures.to_vec();
        let mut described = figures.clone();
        listed.sort();
        described.sort();
        described.dedup();
        assert_eq!(described, listed, "{i}");
        assert_eq!(figures.len(), listed.len(), "{i}");
        let metrics: Vec<&str> = i.slice().metrics.iter().map(|s| s.name).collect();
        let mut listed: Vec<&str> = i.descriptor().metrics.iter().map(|m| m.as_str()).collect();
        let mut described = metrics.clone();
        listed.sort_unstable();
        described.sort_unstable();
        assert_eq!(described, listed, "{i}");
    }
    for f in Figure::ALL {
        assert_eq!(
            serde_json::to_string(&f).unwrap(),
            format!("\"{}\"", f.name())
        );
    }
    for m in Metric::ALL {
        assert_eq!(m.spec().metric, m);
    }
}

#[test]
fn figures_under_load_are_the_throughput_instruments() {
    let load: Vec<Figure> = Figure::ALL.into_iter().filter(|f| f.under_load()).collect();
    assert_eq!(load, [Figure::Throughput, Figure::P99]);
    assert_eq!(Figure::Rss.instrument(), Instrument::Memory);
    assert_eq!(Figure::Rss.to_string(), "rss");
}

#[test]
fn each_charted_figure_follows_a_series_of_its_own_instrument() {
    for f in Figure::ALL {
        if let Some(m) = f.history() {
            assert_eq!(m.instrument(), Some(f.instrument()), "{f}");
            assert_eq!(m.figure(), f, "{f}");
        }
    }
}

#[test]
fn the_census_brings_the_icount_run_and_valgrind_with_it() {
    let census: InstrumentSet = [Instrument::Census, Instrument::Walltime]
        .into_iter()
        .collect();
    assert!(census.runs(Instrument::Icount));
    assert!(!census.asked(Instrument::Icount));
    assert_eq!(census.names(), ["icount", "census", "walltime"]);
    assert_eq!(census.valgrind(), ["census", "icount"]);
    // The built-in instruments' run order; one added to the registry finds its place by its
    // `run_rank` without this test changing.
    const BUILT_IN: [&str; 9] = [
        "icount",
        "census",
        "cache",
        "dhat",
        "constant-time",
        "memory",
        "perf",
        "walltime",
        "throughput",
    ];
    let built_in = |names: Vec<&'static str>| -> Vec<&'static str> {
        names.into_iter().filter(|n| BUILT_IN.contains(n)).collect()
    };
    assert_eq!(built_in(InstrumentSet::ALL.names()), BUILT_IN);
    assert_eq!(
        built_in(InstrumentSet::ALL.valgrind()),
        ["census", "icount", "cache", "dhat", "constant-time"]
    );
    let in_process = InstrumentSet::of(Instrument::Memory).with(Instrument::Perf);
    assert!(in_process.valgrind().is_empty());
}

#[test]
fn the_valgrind_list_is_every_instrument_that_needs_valgrind() {
    let mut listed: Vec<Instrument> = InstrumentSet::ALL
        .valgrind()
        .into_iter()
        .map(|n| Instrument::from_name(n).unwrap())
        .collect();
    listed.sort();
    let needing: Vec<Instrument> = Instrument::ALL
        .into_iter()
        .filter(|i| i.needs(Need::Valgrind))
        .collect();
    assert_eq!(listed, needing);
}

/// The generic figures are one optional key: a result without them is written without it
/// (byte for byte as before), one with them round-trips, and a record without the key reads.
#[test]
fn figures_are_an_optional_key_of_the_result() {
    let plain = crate::testing::scenario("a");
    let json = serde_json::to_string(&plain).unwrap();
    assert!(!json.contains("figures"), "{json}");

    let mut r = plain.clone();
    r.counters.set(Instrument::Dhat, 7u64);
    r.counters.set(Instrument::Perf, 0.5);
    let json = serde_json::to_string(&r).unwrap();
    assert!(
        json.contains(r#""figures":{"dhat":7,"perf":0.5}"#),
        "{json}"
    );
    let back: ScenarioResult = serde_json::from_str(&json).unwrap();
    assert_eq!(back, r);
    assert_eq!(
        back.counters.figure(Instrument::Dhat),
        Some(FigureValue::Count(7))
    );
    assert_eq!(
        back.counters
            .figure(Instrument::Perf)
            .map(FigureValue::as_f64),
        Some(0.5)
    );
    assert_eq!(back.counters.figure(Instrument::Cache), None);

    let old: ScenarioResult =
        serde_json::from_str(&serde_json::to_string(&plain).unwrap()).unwrap();
    assert!(old.counters.figures.is_empty());
}

#[test]
fn finished_scenarios_need_every_instrument_of_every_party() {
    use crate::testing::{record, scenario, with_icount};
    let failed = |mut r: ScenarioResult, inst: &str| {
        r.failures.push(crate::model::Failure {
            instrument: inst.into(),
            kind: "crashed".into(),
            message: String::new(),
            stderr_tail: String::new(),
        });
        r
    };
    let party = |id: &str, s: &str| ScenarioResult {
        scenario: s.into(),
        ..scenario(id)
    };
    let mut run = record(
        "r",
        vec![
            with_icount(scenario("done"), 1.0),
            failed(scenario("failed"), "icount"),
            scenario("not_started"),
            with_icount(party("p/a", "p"), 1.0),
            party("p/b", "p"),
        ],
    );
    run.settings.instruments = vec!["icount".into(), "census".into()];
    assert_eq!(run.finished_scenarios(), (2, 4));
    run.settings.instruments.push("walltime".into());
    assert_eq!(run.finished_scenarios(), (0, 4));
}

#[test]
fn an_instrument_keeping_its_number_in_figures_finishes_only_with_it() {
    use crate::testing::{record, scenario, with_icount};
    let mut run = record("r", vec![with_icount(scenario("a"), 1.0)]);
    run.settings.instruments = vec!["icount".into(), "toy".into()];
    assert_eq!(run.finished_scenarios(), (0, 1));
    run.results[0]
        .counters
        .figures
        .insert("toy".into(), FigureValue::Count(7));
    assert_eq!(run.finished_scenarios(), (1, 1));
}
