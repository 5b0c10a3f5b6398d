//! Per-function costs from a callgrind output file: each function's self cost (what its own
//! instructions cost) and inclusive cost (self plus its calls), for the first event (`Ir`), and
//! the calls into each function; and loading the profile a run kept for one scenario.
//! The format itself (name compression, positions, `calls=` and the inclusive cost line after
//! it) is read by [`super::super::callgrind::format`]; this module only sums what it reports.
//!
//! Only functions that ran inside the measured region have self costs: callgrind counts nothing
//! outside it, so the callers that lead to the region (`main`, `lang_start`) show only
//! inclusive costs.

use super::super::callgrind::format::{Reader, Record};
use anyhow::{bail, Context, Result};
use costbench_record::model::RunRecord;
use costbench_record::profile::{CallEdge, Profile, ScenarioProfile};
use std::path::Path;

/// Reads and parses the callgrind output at `path`.
pub fn read(path: &Path) -> Result<Profile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read callgrind output {}", path.display()))?;
    parse(&text).with_context(|| format!("in callgrind output {}", path.display()))
}

/// The profile of scenario `id` in `run`, with the ops it counted, read from the callgrind
/// output the run kept in its output directory `dir` (`None` for a run loaded from history, which
/// keeps none). The error says why there is none, for the comparison's "unavailable" note.
pub fn load(run: &RunRecord, dir: Option<&Path>, id: &str) -> Result<ScenarioProfile, String> {
    let r = run.results.iter().find(|r| r.id == id).ok_or("no result")?;
    let ic = r.icount.as_ref().ok_or("no instruction count")?;
    let dir = dir.ok_or("the run was loaded from history, which keeps no callgrind output")?;
    read(&dir.join(&ic.callgrind_out))
        .map(|p| (p, r.ops))
        .map_err(|e| format!("{e:#}"))
}

/// [`load`] for both sides of a comparison. The baseline's error wins when both sides have
/// none.
pub fn load_both(
    id: &str,
    base: &RunRecord,
    base_dir: Option<&Path>,
    cand: &RunRecord,
    cand_dir: Option<&Path>,
) -> Result<(ScenarioProfile, ScenarioProfile), String> {
    match (load(base, base_dir, id), load(cand, cand_dir, id)) {
        (Ok(b), Ok(c)) => Ok((b, c)),
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

/// Both sides' profiles ([`load_both`]) of every id whose instruction count per op differs
/// between `base` and `cand`, read before the comparison is judged, so that the judge's
/// `compare::functions::attach` gets data rather than a loader: only a changed count can be a
/// significant change or a placement, which are the rows it attaches functions to.
pub fn load_changed(
    base: &RunRecord,
    base_dir: Option<&Path>,
    cand: &RunRecord,
    cand_dir: Option<&Path>,
) -> ChangedProfiles {
    let ir = |run: &RunRecord, id: &str| {
        run.results
            .iter()
            .find(|r| r.id == id)
            .and_then(|r| r.icount.as_ref())
            .map(|i| i.ir_per_op)
    };
    let mut out = ChangedProfiles::new();
    for r in &base.results {
        let (Some(b), Some(c)) = (ir(base, &r.id), ir(cand, &r.id)) else {
            continue;
        };
        if b != c && !out.contains_key(&r.id) {
            let both = load_both(&r.id, base, base_dir, cand, cand_dir);
            out.insert(r.id.clone(), both);
        }
    }
    out
}

/// Both sides' profiles per measured id, or why they cannot be had ([`load_changed`]).
pub type ChangedProfiles =
    std::collections::HashMap<String, Result<(ScenarioProfile, ScenarioProfile), String>>;

/// Parses the text of a callgrind output file.
pub fn parse(text: &str) -> Result<Profile> {
    let mut reader = Reader::new(text);
    let mut profile = Profile::default();
    while let Some(record) = reader.read()? {
        match record {
            Record::Function => {
                let f = reader.function().expect("a fn= record names its function");
                profile.functions.entry(f.to_string()).or_default();
            }
            Record::Calls { count } => {
                if let Some(c) = reader.callee() {
                    add(
                        profile.calls.entry(c.to_string()).or_default(),
                        count,
                        &reader,
                    )?;
                    if let Some(f) = reader.function() {
                        let edge = edge_of(&mut profile, f, c);
                        add(&mut edge.calls, count, &reader)?;
                    }
                }
            }
            Record::Cost(line) => {
                let Some(f) = reader.function() else {
                    bail!("line {}: cost line before any fn=", line.line_no);
                };
                // The first event: the one the profile is of.
                let cost = line.event(0)?;
                if line.call {
                    if let Some(c) = reader.callee() {
                        add(&mut edge_of(&mut profile, f, c).inclusive, cost, &reader)?;
                    }
                }
                let entry = profile.functions.entry(f.to_string()).or_default();
                add(&mut entry.inclusive, cost, &reader)?;
                // A call's cost line is the callee's inclusive cost: the caller's inclusive only.
                if !line.call {
                    add(&mut entry.self_cost, cost, &reader)?;
                    add(&mut profile.total, cost, &reader)?;
                    if let Some(file) = reader.file() {
                        let files = profile.sources.entry(f.to_string()).or_default();
                        if !files.contains(file) {
                            files.insert(file.to_string());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if reader.events().is_none() {
        bail!("no `events:` line: not a callgrind output file");
    }
    Ok(profile)
}

/// The edge from `caller` to `callee`, created empty.
fn edge_of<'p>(profile: &'p mut Profile, caller: &str, callee: &str) -> &'p mut CallEdge {
    profile
        .edges
        .entry(caller.to_string())
        .or_default()
        .entry(callee.to_string())
        .or_default()
}

/// `sum += v`, or an error naming the line: costs that overflow 64 bits come from a damaged file,
/// and must not panic (nor wrap into a plausible figure).
fn add(sum: &mut u64, v: u64, reader: &Reader) -> Result<()> {
    *sum = sum.checked_add(v).with_context(|| {
        format!(
            "line {}: costs add up to more than 64 bits: a damaged file",
            reader.line_no()
        )
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::profile::FunctionCost;

    /// Only ids whose count changed are read, each once; a side without a directory (loaded
    /// from history) says so.
    #[test]
    fn profiles_are_read_for_changed_counts_only() {
        use costbench_record::testing::{record, scenario, with_icount};
        let base = record(
            "b",
            vec![
                with_icount(scenario("same"), 100.0),
                with_icount(scenario("moved"), 100.0),
                scenario("uncounted"),
            ],
        );
        let cand = record(
            "c",
            vec![
                with_icount(scenario("same"), 100.0),
                with_icount(scenario("moved"), 120.0),
            ],
        );
        let got = load_changed(&base, None, &cand, None);
        assert_eq!(got.keys().collect::<Vec<_>>(), ["moved"]);
        let e = got["moved"].as_ref().unwrap_err();
        assert!(e.contains("loaded from history"), "{e}");
    }

    #[test]
    fn costs_that_overflow_are_an_error() {
        // Found writing the fuzz target `callgrind`: these sums panicked in debug builds.
        let text = format!("events: Ir\nfn=(1) f\n1 {max}\n2 1\n", max = u64::MAX);
        let e = parse(&text).unwrap_err();
        assert!(format!("{e:#}").contains("line 4: costs add up"), "{e:#}");
        let calls = format!(
            "events: Ir\nfn=(1) f\ncfn=(2) g\ncalls={} 1\n1 1\ncalls=1 1\n1 1\n",
            u64::MAX
        );
        assert!(parse(&calls).is_err());
    }

    /// Issue 32: the files a function's own instructions came from, inlined code's included,
    /// tell whether a pull request touched the code that moved.
    #[test]
    fn each_functions_own_code_names_its_source_files() {
        let text =
            "events: Ir\nfl=(1) /r/a.rs\nfn=(1) main\n1 5\nfi=(2) /r/b.rs\n2 3\nfe=(1)\n3 1\n\
                    cfl=(3) /r/c.rs\ncfn=(2) work\ncalls=1 0\n4 7\nfl=(3)\nfn=(2)\n1 7\n";
        let p = parse(text).unwrap();
        let files = |f: &str| p.sources[f].iter().map(String::as_str).collect::<Vec<_>>();
        assert_eq!(files("main"), ["/r/a.rs", "/r/b.rs"]);
        assert_eq!(files("work"), ["/r/c.rs"]);
    }

    #[test]
    fn self_and_inclusive_costs() {
        let text = "\
version: 1
positions: line
events: Ir
summary: 60

ob=(1) /bin/x
fl=(1) a.rs
fn=(1) main
cfn=(2) work
calls=1 10
5 50
6 10

fn=(2)
10 30
+1 10
cfn=(3) leaf
calls=2 20
* 10

fn=(3) leaf
20 10
";
        let p = parse(text).unwrap();
        assert_eq!(p.total, 60);
        assert_eq!(
            p.functions["main"],
            FunctionCost {
                self_cost: 10,
                inclusive: 60
            }
        );
        assert_eq!(
            p.functions["work"],
            FunctionCost {
                self_cost: 40,
                inclusive: 50
            }
        );
        assert_eq!(
            p.functions["leaf"],
            FunctionCost {
                self_cost: 10,
                inclusive: 10
            }
        );
    }

    #[test]
    fn instr_positions_and_errors() {
        let text = "positions: instr line\nevents: Ir\nfn=(1) f\n0x10 3 7\n+2 * 5\n";
        let p = parse(text).unwrap();
        assert_eq!(p.functions["f"].self_cost, 12);
        assert!(parse("hello").is_err());
        let e = parse("events: Ir\nfn=(4)\n").unwrap_err();
        assert!(format!("{e:#}").contains("used before"), "{e:#}");
        let e = parse("events: Ir\n5 10\n").unwrap_err();
        assert!(format!("{e:#}").contains("before any fn="), "{e:#}");
    }

    #[test]
    fn real_output_sums_to_its_total() {
        let p = parse(include_str!("testdata/sort.callgrind.out")).unwrap();
        let summary: u64 = include_str!("testdata/sort.callgrind.out")
            .lines()
            .find_map(|l| l.strip_prefix("summary: "))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(p.total, summary);
        let top = p.functions.iter().max_by_key(|(_, c)| c.self_cost).unwrap();
        assert!(top.0.contains("sort"), "{top:?}");
    }
}

/// The per-function diff of `compare::functions` over profiles read by [`parse`]: these tests
/// need both, so they live in the runner, the one crate that has both.
#[cfg(test)]
mod diff_tests {
    use super::parse;
    use costbench_judge::compare::functions::{diff, placement_note, top_changes};
    use costbench_judge::compare::Presence;

    #[test]
    fn a_change_with_more_calls_into_the_allocator_is_real_work() {
        // The same calls into malloc, more instructions inside it: placement.
        let p = |calls: u64, inside: u64| {
            parse(&format!(
                "events: Ir\nfn=(1) main\n1 10\ncfn=(2) malloc\ncalls={calls} 1\n1 {inside}\nfn=(2)\n1 {inside}\n"
            ))
            .unwrap()
        };
        assert!(placement_note(&p(4, 100), &p(4, 120), 1, 1).is_some());
        // One more call: more allocations, not placement.
        assert!(placement_note(&p(4, 100), &p(5, 120), 1, 1).is_none());
        assert_eq!(p(4, 100).calls["malloc"], 4);
    }

    #[test]
    fn largest_self_change_first_per_op() {
        let base = parse("events: Ir\nfn=(1) main\ncfn=(2) a\ncalls=1 1\n1 30\n1 10\nfn=(2)\n1 30\nfn=(3) same\n1 5\n").unwrap();
        let cand = parse("events: Ir\nfn=(1) main\ncfn=(2) a\ncalls=1 1\n1 50\n1 10\nfn=(2)\n1 40\ncfn=(4) new\ncalls=1 1\n1 10\nfn=(4)\n1 10\nfn=(3) same\n1 5\n").unwrap();
        let top = top_changes(&base, &cand, 10, 10, 10);
        let names: Vec<&str> = top.iter().map(|d| d.name.as_str()).collect();
        // a: self 30 -> 40; new: 0 -> 10 (ties on self change: by name). main's inclusive cost
        // moved (40 -> 60) with its callees', its own did not: not listed; same: unchanged.
        assert_eq!(names, ["a", "new"]);
        assert_eq!(top[0].base_self, 3.0);
        assert_eq!(top[0].cand_inclusive, 5.0);
        // Calls per op on both sides, and half of the change each.
        assert_eq!((top[0].base_calls, top[0].cand_calls), (0.1, 0.1));
        assert_eq!((top[1].base_calls, top[1].cand_calls), (0.0, 0.1));
        assert_eq!(top[0].share, Some(0.5));
        assert_eq!(top[1].presence, Presence::CandidateOnly);
        assert_eq!(top[0].presence, Presence::Both);
        assert_eq!(top_changes(&base, &cand, 10, 10, 1).len(), 1);
        assert_eq!(placement_note(&base, &cand, 10, 10), None);
    }

    /// Issue 27: on the real profile of a scenario, a change confined to one function lists
    /// that function alone: none of the callers whose inclusive cost moved with it
    /// (`(below main)`, `main`, the harness's frames).
    #[test]
    fn callers_of_a_changed_function_are_not_listed() {
        let text = include_str!("testdata/sort.callgrind.out");
        let base = parse(text).unwrap();
        let (name, cost) = base
            .functions
            .iter()
            .max_by_key(|(_, c)| c.self_cost)
            .map(|(n, c)| (n.clone(), *c))
            .unwrap();
        let mut cand = base.clone();
        cand.functions.get_mut(&name).unwrap().self_cost = cost.self_cost + 1_000;
        cand.total += 1_000;
        let c = diff("sort".into(), &base, 10, &cand, 10);
        let names: Vec<&str> = c.top.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, [name.as_str()]);
        assert_eq!(c.change, 100.0);
        assert_eq!(c.top[0].share, Some(1.0));
        assert_eq!(c.omitted, None);
        // The same profile on both sides: nothing moved, nothing listed.
        assert!(diff("sort".into(), &base, 10, &base, 10).top.is_empty());
    }

    #[test]
    fn a_change_inside_allocator_and_memcmp_paths_is_noted() {
        // (base profile, candidate profile, expected note or None); main calls malloc 5 times and
        // memcmp 10 times on every side.
        let base = "events: Ir\nfn=(1) main\n1 1000\ncfn=(2) _int_malloc\ncalls=5 1\n1 500\ncfn=(3) __memcmp_avx2_movbe\ncalls=10 1\n1 300\nfn=(2) _int_malloc\n1 500\nfn=(3) __memcmp_avx2_movbe\n1 300\nfn=(4) work\n1 100\n";
        let cases = [
            // Only malloc and memcmp moved: all of it.
            (
                "events: Ir\nfn=(1) main\n1 1000\ncfn=(2) _int_malloc\ncalls=5 1\n1 500\ncfn=(3) __memcmp_avx2_movbe\ncalls=10 1\n1 300\nfn=(2) _int_malloc\n1 530\nfn=(3) __memcmp_avx2_movbe\n1 290\nfn=(4) work\n1 100\n",
                Some("all of the change is in allocator and mem*/str* paths entered as often on both sides, whose work per call depends on data placement: _int_malloc +30 Ir per run (glibc malloc internal, 5 calls on both sides); __memcmp_avx2_movbe -10 Ir per run (-3.3 % per call, 10 calls on both sides)"),
            ),
            // 40 of 42 changed instructions in placement-dependent paths: 95 %.
            (
                "events: Ir\nfn=(1) main\n1 1000\ncfn=(2) _int_malloc\ncalls=5 1\n1 500\ncfn=(3) __memcmp_avx2_movbe\ncalls=10 1\n1 300\nfn=(2) _int_malloc\n1 540\nfn=(3) __memcmp_avx2_movbe\n1 300\nfn=(4) work\n1 102\n",
                Some("95 % of the change is in allocator paths entered as often on both sides, whose work per call depends on data placement: _int_malloc +40 Ir per run (glibc malloc internal, 5 calls on both sides)"),
            ),
            // Half of it in the scenario's own code: no note.
            (
                "events: Ir\nfn=(1) main\n1 1000\ncfn=(2) _int_malloc\ncalls=5 1\n1 500\ncfn=(3) __memcmp_avx2_movbe\ncalls=10 1\n1 300\nfn=(2) _int_malloc\n1 510\nfn=(3) __memcmp_avx2_movbe\n1 300\nfn=(4) work\n1 110\n",
                None,
            ),
        ];
        let base = parse(base).unwrap();
        for (cand, want) in cases {
            let got = placement_note(&base, &parse(cand).unwrap(), 1, 1);
            assert_eq!(got.as_deref(), want);
        }
    }

    /// Issue 27, on recorded real profiles (`testdata/`, the built-in suite, rustc 1.95,
    /// valgrind 3.19): the judge's movers list only functions whose own cost per op changed.
    /// An unrelated pull request (`unrelated-new-scenario`: a scenario registered first, as
    /// scripts/unrelated-kinds.sh's `new` kind does; the binaries differ, so do the profiles'
    /// addresses and lines) lists none in the three scenarios such an edit used to move. The
    /// added bounds check (`added-check`, docs/explain.md) lists the one function that changed,
    /// though callers' inclusive costs moved with it.
    #[test]
    fn movers_of_real_profiles_are_the_functions_whose_own_cost_changed() {
        use costbench_judge::compare::functions::movers;
        use costbench_record::profile::Profile;
        use std::path::Path;
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/instrument/icount/testdata");
        let pair = |case: &str, id: &str| {
            let side = |s: &str| dir.join(case).join(format!("{s}-{id}.out"));
            let texts = [side("baseline"), side("candidate")]
                .map(|p| std::fs::read_to_string(&p).expect("recorded profile"));
            assert_ne!(texts[0], texts[1], "{case} {id}: two different binaries");
            (parse(&texts[0]).unwrap(), parse(&texts[1]).unwrap())
        };
        let own = |p: &Profile, name: &str| p.functions.get(name).map(|f| f.self_cost);
        for id in [
            "alloc_word_count_borrowed",
            "pipe_request_response_client",
            "index_sum_indirect_unchecked",
        ] {
            let (b, c) = pair("unrelated-new-scenario", id);
            assert_eq!(b.total, c.total, "{id}");
            let (listed, change) = movers(&b, &c, 1, 1);
            assert!(listed.is_empty(), "{id}: {listed:?}");
            assert_eq!(change, 0.0, "{id}");
        }
        let (b, c) = pair("added-check", "index_sum_indirect_unchecked");
        let (listed, change) = movers(&b, &c, 10_000, 10_000);
        for d in &listed {
            assert_ne!(own(&b, &d.name), own(&c, &d.name), "{} listed", d.name);
        }
        let names: Vec<&str> = listed.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["costbench_suite::index::sum_indirect_unchecked"]);
        // 23,788 -> 70,029 Ir per run over 10,000 lookups, all of it in that function.
        assert!((change - 4.6241).abs() < 1e-9, "{change}");
        let callers_moved: Vec<&String> = b
            .functions
            .iter()
            .filter(|(n, f)| {
                c.functions
                    .get(*n)
                    .is_some_and(|g| g.self_cost == f.self_cost && g.inclusive != f.inclusive)
            })
            .map(|(n, _)| n)
            .collect();
        assert!(
            !callers_moved.is_empty(),
            "callers whose inclusive cost moved"
        );
    }
}

/// The differential flame graph's call tree (`compare::flame`) over a real callgrind output read
/// by [`parse`]: the edges this reader keeps are what the tree is built from.
#[cfg(test)]
mod flame_tests {
    use super::parse;
    use costbench_judge::compare::flame::{self, CallTree, FrameChange, ROOT};

    #[test]
    fn the_call_tree_of_a_real_output_holds_the_whole_region() {
        let p = parse(include_str!("testdata/sort.callgrind.out")).unwrap();
        // The edges as written: the region's one call, into the shim, with its inclusive cost.
        let region = &p.edges[ROOT];
        assert_eq!(region.len(), 1);
        let shim = &region["costbench::region::shim"];
        assert_eq!((shim.calls, shim.inclusive), (1, 1_226_145));
        let t = CallTree::build(&p, ROOT).unwrap();
        // The root is everything callgrind counted (its own instruction and the shim's call).
        assert_eq!(t.nodes[0].inclusive, 1_226_146.0);
        assert_eq!(p.total, 1_226_146);
        // Every frame's own cost and its callees' add up to its width, so the folded stacks sum
        // to the whole: nothing is lost or counted twice by splitting.
        let folded = t.folded();
        let sum: f64 = folded.iter().map(|f| f.1).sum();
        assert!((sum - 1_226_146.0).abs() < 1e-6, "{sum}");
        for n in &t.nodes {
            let callees: f64 = n.children.iter().map(|&c| t.nodes[c].inclusive).sum();
            assert!(callees <= n.inclusive * (1.0 + 1e-12), "{}", n.name);
        }
        // A function on one call path only keeps its profile's inclusive cost exactly.
        let shim = t
            .nodes
            .iter()
            .find(|n| n.name == "costbench::region::shim")
            .unwrap();
        assert_eq!(shim.inclusive, 1_226_145.0);
        // The heaviest stack runs from the region through the shim to the sort.
        let (heaviest, _) = folded.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        assert!(
            heaviest.starts_with("costbench_measured_region;costbench::region::shim;")
                && heaviest.contains("sort"),
            "{heaviest}"
        );
        // Each function's own cost over all its paths is at most the profile's: splitting
        // among callers makes none (this output has no path too small to expand, whose cost
        // would stay with its caller).
        let mut own = std::collections::HashMap::<&str, f64>::new();
        for n in &t.nodes {
            *own.entry(n.name.as_str()).or_default() += n.self_cost(&t);
        }
        for (name, cost) in own {
            assert!(
                cost <= p.functions[name].self_cost as f64 * (1.0 + 1e-9) + 1e-6
                    || t.nodes
                        .iter()
                        .any(|n| n.name == name && !n.children.is_empty()),
                "{name}: {cost} > {}",
                p.functions[name].self_cost
            );
        }
    }

    /// The other committed outputs (a census run with `--dump-instr=yes`, so instruction
    /// positions, and one with the cache simulation, so several events): each tree holds every
    /// instruction of the region, in the first event.
    #[test]
    fn every_committed_output_folds_to_its_region() {
        for text in [
            include_str!("../census/testdata/indirect.callgrind.out"),
            include_str!("../cache/testdata/callgrind-cache-sim.out"),
        ] {
            let p = parse(text).unwrap();
            let t = CallTree::build(&p, ROOT).unwrap();
            assert!(t.nodes.len() >= 2, "{t:?}");
            let sum: f64 = t.folded().iter().map(|f| f.1).sum();
            assert!((sum - t.nodes[0].inclusive).abs() < 1e-6 * sum, "{sum}");
            // Collection is toggled on the region: everything counted is inside it.
            assert_eq!(t.nodes[0].inclusive, p.total as f64);
        }
    }

    #[test]
    fn a_real_output_against_itself_changes_nothing() {
        let p = parse(include_str!("testdata/sort.callgrind.out")).unwrap();
        let d = flame::diff("sort/10000".into(), &p, 10_000, &p, 10_000);
        assert!(d.frames.len() > 10, "{}", d.frames.len());
        assert!(d
            .frames
            .iter()
            .all(|f| f.kind() == FrameChange::Same && f.change() == 0.0));
        assert_eq!(d.frames[0].cand, 122.6146);
    }
}
