//! Wall time of several sides (the builds of `check --baseline-rev`, build variants) in
//! interleaved rounds: for every scenario, each round runs a short child of every side at once,
//! the children taking turns sample by sample through a token ring (who goes first alternates,
//! ABBA), so that the machine's drift and bursts of load hit every side alike. Multi-party
//! scenarios, and libraries too old for the ring, take turns round by round instead.
//!
//! Round `k` of side `s` runs its own code layout (`run::layout`), and the number of rounds is
//! adaptive ([`adaptive`], beside it): every scenario gets the first-look rounds, then the scenarios that
//! could not yet resolve the threshold get more rounds, one round of each in turn, up to the
//! maximum while the time budget lasts. Every side of a scenario always runs the same rounds.
//!
//! This module owns running the rounds and turning them into each side's figures; the sessions'
//! children and records are `run`'s.

use super::adaptive::{self, Rounds};
use crate::run::child;
use crate::run::layout::Layouts;
use crate::run::session::Session;
use crate::environment;
use crate::instrument::shape::{walltime_failure, ChildSamples, Stored};
use crate::instrument::walltime::parse as walltime;
use anyhow::Result;
use costbench_protocol::{ScenarioInfo, WalltimeSamples};
use std::path::PathBuf;
use std::time::Instant;

/// Every round's samples of one measured id so far, or the failure that ended its rounds.
type RoundsSoFar = std::result::Result<Vec<WalltimeSamples>, costbench_record::model::Failure>;

/// One scenario of the session and its rounds so far.
struct Scenario<'a> {
    name: &'a str,
    /// (side, the side's scenario), for every side that has it.
    on: Vec<(usize, &'a ScenarioInfo)>,
    /// Per entry of `on`: per measured id, every round's samples so far, or the first failure.
    got: Vec<Vec<(String, RoundsSoFar)>>,
    /// The sides take turns sample by sample.
    ring: bool,
    rounds: u32,
}

/// Wall time of several sides in interleaved rounds (see the module docs and
/// `run::measure_sides`).
pub(crate) fn walltime_interleaved(
    sessions: &[Session],
    selections: &[Vec<&ScenarioInfo>],
    rounds: &Rounds,
    lockstep: bool,
) -> Result<()> {
    let pairing = environment::new_run_id();
    let exes: Vec<&std::path::Path> = sessions.iter().map(|s| s.bin.exe.as_path()).collect();
    let layouts = Layouts::prepare(&exes, rounds.layouts);
    if let Some(note) = layouts
        .note()
        .filter(|_| rounds.layouts != crate::run::layout::LayoutMode::Off)
    {
        sessions[0].progress.suspend(|| eprintln!("note: {note}"));
    }
    // Scenarios in first-seen order over all sides; each runs on the sides that have it.
    let mut names: Vec<&str> = Vec::new();
    for sel in selections {
        for s in sel {
            if !names.contains(&s.name.as_str()) {
                names.push(&s.name);
            }
        }
    }
    let mut scenarios: Vec<Scenario> = names
        .into_iter()
        .map(|name| {
            let on: Vec<(usize, &ScenarioInfo)> = selections
                .iter()
                .enumerate()
                .filter_map(|(k, sel)| sel.iter().find(|s| s.name == name).map(|s| (k, *s)))
                .collect();
            let got = on
                .iter()
                .map(|(_, s)| {
                    s.measured_ids()
                        .into_iter()
                        .map(|id| (id, Ok(Vec::new())))
                        .collect()
                })
                .collect();
            // Parties of multi-party scenarios keep their own lockstep, so those sides take
            // turns round by round instead.
            let ring = lockstep && on.len() > 1 && on.iter().all(|(_, s)| s.parties.is_empty());
            Scenario {
                name,
                on,
                got,
                ring,
                rounds: 0,
            }
        })
        .collect();
    let comparisons: usize = scenarios.iter().map(|sc| comparisons(sc, rounds)).sum();
    let alpha = rounds.look_alpha(comparisons);
    let args = [
        "--samples".to_string(),
        rounds.samples_per_round.to_string(),
        "--warmup-ms".into(),
        rounds.warmup_ms.to_string(),
        "--max-ms".into(),
        "0".into(),
    ];
    // First look: every scenario its first rounds; its figures are written at once, so a late
    // failure loses nothing.
    let mut pending = Vec::new();
    for (i, sc) in scenarios.iter_mut().enumerate() {
        for _ in 0..rounds.rounds {
            run_round(sessions, sc, &layouts, &args)?;
        }
        store(sessions, sc, &layouts, rounds, &pairing, true)?;
        if rounds.max_rounds > rounds.rounds
            && all_ok(sc)
            && !adaptive::resolved(&log_ratios(sc, rounds), rounds.threshold_pct, alpha)
        {
            pending.push(i);
        }
    }
    // Second look: the unresolved scenarios one round each in turn, so that a budget that runs
    // out leaves them all with about as many rounds, rather than a few at the maximum.
    let start = Instant::now();
    let mut extended = vec![false; scenarios.len()];
    let mut stopped = vec![false; scenarios.len()];
    'rounds: for _ in rounds.rounds..rounds.max_rounds {
        pending.retain(|&i| !stopped[i]);
        if pending.is_empty() {
            break;
        }
        for &i in &pending {
            if start.elapsed() >= rounds.budget {
                break 'rounds;
            }
            let sc = &mut scenarios[i];
            let before: Vec<Vec<(String, RoundsSoFar)>> = sc.got.clone();
            run_round(sessions, sc, &layouts, &args)?;
            if !all_ok(sc) {
                // Rounds must stay paired: a side that failed in an extra round ends the
                // scenario's extra rounds, and the first look's figures stand.
                sessions[0].progress.suspend(|| {
                    eprintln!(
                        "warning: an extra wall-time round of {} failed; its first {} rounds stand",
                        sc.name, rounds.rounds
                    )
                });
                sc.got = before;
                sc.rounds = rounds.rounds;
                extended[i] = false;
                stopped[i] = true;
                continue;
            }
            extended[i] = true;
        }
    }
    for (i, sc) in scenarios.iter().enumerate() {
        if extended[i] {
            store(sessions, sc, &layouts, rounds, &pairing, false)?;
        }
    }
    let (relinked, relink_time) = layouts.relinked();
    let most = scenarios.iter().map(|sc| sc.rounds).max().unwrap_or(0);
    // One line on stderr (also under `check`, whose runs are quiet): what the rounds cost.
    let mut summary = format!(
        "wall time: {} scenarios, {} rounds each",
        scenarios.len(),
        rounds.rounds
    );
    let more = extended.iter().filter(|&&e| e).count();
    if more > 0 {
        summary += &format!(
            "; {more} still undecided got more rounds (up to {most}) in {:.1} s of a {} s budget",
            start.elapsed().as_secs_f64(),
            rounds.budget.as_secs(),
        );
    }
    if layouts.varied() {
        summary += &format!(
            "; {relinked} code layouts relinked in {:.1} s",
            relink_time.as_secs_f64()
        );
    }
    sessions[0].progress.suspend(|| eprintln!("{summary}"));
    Ok(())
}

/// How many paired comparisons a scenario adds to the session: its ids on every side judged
/// against the baseline side.
fn comparisons(sc: &Scenario, rounds: &Rounds) -> usize {
    let Some(base) = sc.on.iter().position(|(k, _)| *k == rounds.baseline_side) else {
        return 0;
    };
    (sc.on.len() - 1) * sc.got[base].len()
}

/// Per comparison (id on a side against the same id on the baseline side): the per-round log
/// ratios of the rounds' fastest samples.
fn log_ratios(sc: &Scenario, rounds: &Rounds) -> Vec<Vec<f64>> {
    let Some(b) = sc.on.iter().position(|(k, _)| *k == rounds.baseline_side) else {
        return Vec::new();
    };
    let figures = |i: usize, id: &str| -> Option<Vec<f64>> {
        let ops = sc.on[i].1.ops;
        let (_, r) = sc.got[i].iter().find(|(g, _)| g == id)?;
        r.as_ref().ok().map(|all| {
            all.iter()
                .map(|m| adaptive::round_min_ns_per_op(m, ops).unwrap_or(f64::NAN))
                .collect()
        })
    };
    let mut ds = Vec::new();
    for (id, _) in &sc.got[b] {
        let Some(base) = figures(b, id) else { continue };
        for i in (0..sc.on.len()).filter(|&i| i != b) {
            if let Some(cand) = figures(i, id) {
                ds.push(costbench_judge::compare::paired::log_ratios(&base, &cand));
            }
        }
    }
    ds
}

/// Whether every id of every side still has all its rounds.
fn all_ok(sc: &Scenario) -> bool {
    sc.got.iter().flatten().all(|(_, r)| r.is_ok())
}

/// The binary round `round` of `side` runs scenario `name` with: its code layout, or the
/// build itself (the bench target's that has `name`). Layouts are relinked from each side's
/// first bench target only: a scenario of another target (issue 41) runs in its plain build
/// on every side, so the sides still meet it alike.
fn exe_for(
    layouts: &Layouts,
    sessions: &[Session],
    side: usize,
    name: &str,
    round: u32,
) -> Result<PathBuf> {
    let bin = sessions[side].bin;
    let layout = match sessions.iter().all(|s| s.bin.on_first(name)) {
        true => layouts.exe(side, round)?,
        false => None,
    };
    Ok(layout.unwrap_or_else(|| bin.exe_for(name).to_path_buf()))
}

/// Runs the next round of `sc` on every side.
fn run_round(
    sessions: &[Session],
    sc: &mut Scenario,
    layouts: &Layouts,
    args: &[String],
) -> Result<()> {
    let round = sc.rounds;
    let order: Vec<usize> = if round.is_multiple_of(2) {
        (0..sc.on.len()).collect()
    } else {
        (0..sc.on.len()).rev().collect()
    };
    let label = format!("walltime {} (round {})", sc.name, round + 1);
    let exes = sc
        .on
        .iter()
        .map(|(k, s)| exe_for(layouts, sessions, *k, &s.name, round))
        .collect::<Result<Vec<_>>>()?;
    let results = if sc.ring {
        sessions[0].progress.set_message(label);
        walltime_ring(sessions, &sc.on, &exes, &order, args)?
    } else {
        let mut results = vec![Vec::new(); sc.on.len()];
        for &i in &order {
            let (k, s) = sc.on[i];
            if sc.got[i].iter().all(|(_, r)| r.is_err()) {
                continue;
            }
            sessions[k].progress.set_message(label.clone());
            results[i] = sessions[k].walltime_child(s, &exes[i], args)?;
        }
        results
    };
    for (i, side) in results.into_iter().enumerate() {
        for (id, r) in side {
            let slot = sc.got[i]
                .iter_mut()
                .find(|(gid, _)| *gid == id)
                .expect("the child reports the ids of its scenario");
            match (&mut slot.1, r) {
                (Ok(all), Ok(m)) => all.push(m),
                (Ok(_), Err(f)) => slot.1 = Err(f),
                (Err(_), _) => {}
            }
        }
    }
    sc.rounds += 1;
    Ok(())
}

/// Writes every side's figures of `sc` (the first time, failures too; later only the figures,
/// which replace the first look's).
fn store(
    sessions: &[Session],
    sc: &Scenario,
    layouts: &Layouts,
    rounds: &Rounds,
    pairing: &str,
    first: bool,
) -> Result<()> {
    for (i, (k, s)) in sc.on.iter().enumerate() {
        for (id, r) in &sc.got[i] {
            let figure = match r {
                Ok(all) => walltime::figures_from_rounds(all, s.ops, pairing, sc.ring)
                    .map(|mut w| {
                        if let Some(p) = &mut w.paired {
                            p.round_layouts = layouts.seeds(*k, all.len());
                            p.layout_note = layouts.note().map(str::to_string);
                            p.looks = Some(rounds.looks());
                        }
                        Box::new(w) as Box<dyn Stored>
                    })
                    .ok_or_else(|| walltime_failure("the child reported no samples", "")),
                Err(f) => Err(f.clone()),
            };
            if figure.is_err() && !first {
                continue;
            }
            sessions[*k].store(id, figure)?;
        }
        if first {
            sessions[*k].progress.done(&format!("walltime {}", s.name));
        }
    }
    Ok(())
}

/// One round of a single-process scenario on every side at once, in a token ring: the side
/// first in `order` takes the first sample, then the next, and so on around the ring, sample
/// after sample. Side `on[i]` runs `exes[i]`. Returns each side's results (in the order of `on`).
fn walltime_ring(
    sessions: &[Session],
    on: &[(usize, &ScenarioInfo)],
    exes: &[PathBuf],
    order: &[usize],
    args: &[String],
) -> Result<Vec<ChildSamples>> {
    // pipes[j] carries the token from the j-th side in `order` to the next one.
    let n = order.len();
    let pipes = child::token_ring(n)?;
    let mut running = Vec::new();
    let mut files = Vec::new();
    for (j, &i) in order.iter().enumerate() {
        let (k, s) = on[i];
        let read = &pipes[(j + n - 1) % n].0;
        let write = &pipes[j].1;
        let mut extra = args.to_vec();
        extra.extend(["--lockstep".to_string(), "3,4".to_string()]);
        let (r, f) = sessions[k].spawn_walltime(s, &exes[i], &extra, &[(read, 3), (write, 4)])?;
        running.push(r);
        files.push(f);
    }
    // Our copies of the ends must close, or a side whose peer died would wait forever.
    drop(pipes);
    let timeout = sessions[0].opts.timeout;
    let outcomes = child::wait_all(running, Instant::now(), timeout);
    let mut results = vec![Vec::new(); on.len()];
    for (j, &i) in order.iter().enumerate() {
        let (k, s) = on[i];
        results[i] = sessions[k].collect_walltime(s, &outcomes[j], &files[j]);
    }
    Ok(results)
}
