//! GitHub-flavoured markdown of a comparison, fit for a pull-request comment. Pure: a function
//! from a [`Comparison`] to text.
//!
//! Everything that comes from a run record (scenario ids, units, run ids, branches, failure
//! messages) is untrusted and goes through [`escape_cell`], so that it can neither break the
//! table it sits in nor inject HTML into the comment. The comment stays short: significant
//! changes are shown, negligible ones are folded, so 100 scenarios fit in a few hundred lines.

use crate::escape::{escape_cell, truncate};
use costbench_judge::compare::{Comparison, NotCompared, Row, Side, Verdict};
use costbench_record::fmt::{fmt_change, fmt_threshold};
use costbench_record::instrument::Figure;
use std::fmt::Write as _;

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The scenario cell: the id, with what an op is when it is not the default, and any note.
fn scenario_cell(r: &Row) -> String {
    let mut extra = Vec::new();
    if r.unit != "op" {
        extra.push(format!("unit: {}", r.unit));
    }
    extra.extend(r.note.clone());
    let mut cell = escape_cell(&r.id);
    if !extra.is_empty() {
        let _ = write!(cell, " ({})", escape_cell(&extra.join("; ")));
    }
    cell
}

/// A table of rows; `evidence` adds what backs each verdict (for the significant ones).
fn table(out: &mut String, rows: &[&Row], evidence: bool) {
    if evidence {
        out.push_str(
            "| scenario | baseline /op | candidate /op | change | threshold | evidence |\n",
        );
        out.push_str("|:--|--:|--:|--:|--:|:--|\n");
    } else {
        out.push_str("| scenario | baseline /op | candidate /op | change | threshold |\n");
        out.push_str("|:--|--:|--:|--:|--:|\n");
    }
    for r in rows {
        let change = match r.verdict {
            Verdict::Regression => format!("**{}** regression", fmt_change(r.change_pct)),
            Verdict::Improvement => format!("{} improvement", fmt_change(r.change_pct)),
            Verdict::Unchanged => fmt_change(r.change_pct),
            Verdict::Unresolved => format!("{} unresolved", fmt_change(r.change_pct)),
            Verdict::Placement => format!("{} placement", fmt_change(r.change_pct)),
        };
        let threshold = fmt_threshold(r.threshold_pct) + &crate::instrument::threshold_note(r);
        let _ = write!(
            out,
            "| {} | {} | {} | {} | {} |",
            scenario_cell(r),
            r.instrument.fmt_value(r.base),
            r.instrument.fmt_value(r.cand),
            change,
            threshold,
        );
        if evidence {
            let _ = write!(out, " {} |", escape_cell(&r.evidence));
        }
        out.push('\n');
    }
}

/// Rows neither gated nor unchanged (unresolved, placement): one short line each, folded when
/// there are many, so the reader knows what this comparison could not settle.
fn not_gated(out: &mut String, rows: &[&Row]) {
    if rows.is_empty() {
        return;
    }
    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
    let what = [Verdict::Unresolved, Verdict::Placement]
        .into_iter()
        .filter(|v| count(*v) > 0)
        .map(|v| format!("{} {}", count(v), v.name()))
        .collect::<Vec<_>>()
        .join(", ");
    let fold = rows.len() > NOT_GATED_INLINE;
    if fold {
        let _ = writeln!(out, "\n<details><summary>{what} (not gated)</summary>\n");
    } else {
        let _ = writeln!(out, "\n**Not gated** ({what}):\n");
    }
    // Rows sharing a reason (two separate runs without history give every row of a timed figure
    // the same one) are said once.
    let mut groups: Vec<(Verdict, &str, Vec<&Row>)> = Vec::new();
    for r in rows {
        match groups
            .iter_mut()
            .find(|(v, why, _)| *v == r.verdict && *why == r.reason)
        {
            Some(g) => g.2.push(r),
            None => groups.push((r.verdict, &r.reason, vec![r])),
        }
    }
    for (verdict, reason, rows) in groups {
        let ids: Vec<String> = rows
            .iter()
            .map(|r| format!("{} {}", escape_cell(&r.id), fmt_change(r.change_pct)))
            .collect();
        let _ = writeln!(
            out,
            "- {} {verdict}: {}",
            ids.join(", "),
            escape_cell(&truncate(reason, 240))
        );
    }
    if fold {
        out.push_str("\n</details>\n");
    }
}

/// More unresolved and placement rows than this are folded.
const NOT_GATED_INLINE: usize = 5;

fn id_list(ids: &[&str]) -> String {
    ids.iter()
        .map(|s| escape_cell(s))
        .collect::<Vec<_>>()
        .join(", ")
}

fn section(out: &mut String, c: &Comparison, inst: Figure, not_compared: &[&NotCompared]) {
    let rows = c.sorted_rows(inst);
    if rows.is_empty() && not_compared.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n### {}\n", inst.title());
    let (significant, rest): (Vec<&Row>, Vec<&Row>) =
        rows.iter().partition(|r| r.verdict.is_significant());
    let (negligible, open): (Vec<&Row>, Vec<&Row>) =
        rest.iter().partition(|r| r.verdict == Verdict::Unchanged);
    if significant.is_empty() {
        out.push_str("No significant change.\n");
    } else {
        table(out, &significant, true);
    }
    not_gated(out, &open);
    if !negligible.is_empty() {
        let why = format!("within {}", crate::instrument::markdown_within(c, inst));
        let _ = writeln!(
            out,
            "\n<details><summary>{} ({why})</summary>\n",
            plural(negligible.len(), "negligible change", "negligible changes")
        );
        table(out, &negligible, false);
        out.push_str("\n</details>\n");
    }
    for side in [Side::Baseline, Side::Candidate] {
        let ids: Vec<&str> = not_compared
            .iter()
            .filter(|n| n.measured_in == side)
            .map(|n| n.id.as_str())
            .collect();
        if !ids.is_empty() {
            let _ = writeln!(
                out,
                "\nMeasured in the {side} only ({}): {}",
                ids.len(),
                id_list(&ids)
            );
        }
    }
}

/// The report of `costbench check`: the gate's verdict and its violations first, then the
/// comparison.
pub fn check(c: &Comparison, gate: &costbench_judge::check::Gate) -> String {
    let mut out = String::new();
    unfinished(&mut out, c);
    if gate.passed() {
        out.push_str("### costbench check: passed\n\n");
    } else if gate.broken() == 0 && gate.not_reached.is_empty() {
        out.push_str("### costbench check: failed (an instrument asked for could not run)\n\n");
    } else {
        let _ = writeln!(
            out,
            "### costbench check: failed ({})\n",
            plural(gate.broken(), "violation", "violations")
        );
        out.push_str("| scenario | instrument | why |\n|:--|:--|:--|\n");
        for v in &gate.violations {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                escape_cell(&v.id),
                v.instrument.title(),
                escape_cell(&v.message)
            );
        }
        out.push_str(&crate::budget::markdown_rows(&gate.budgets));
        out.push_str(&crate::budget::complexity_markdown_rows(&gate.complexity));
        for f in &gate.findings {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                escape_cell(&f.id),
                f.spec().title,
                escape_cell(&f.line)
            );
        }
        if !gate.not_reached.is_empty() {
            let ids: Vec<&str> = gate.not_reached.iter().map(String::as_str).collect();
            let _ = writeln!(
                out,
                "Not reached (never measured, so never passed): {}",
                id_list(&ids)
            );
        }
        out.push('\n');
    }
    // The accepted findings: one table per instrument that has some, in the registry's order.
    for i in costbench_record::instrument::Instrument::ALL {
        let accepted: Vec<_> = gate
            .findings_accepted
            .iter()
            .filter(|f| f.instrument == i)
            .collect();
        let Some(spec) = accepted.first().map(|f| f.spec()) else {
            continue;
        };
        let _ = write!(
            out,
            "Accepted by costbench.toml (`{}`, not failing):\n\n\
             | scenario | {} | finding |\n|:--|:--|:--|\n",
            spec.allow, spec.title
        );
        for f in accepted {
            let _ = writeln!(
                out,
                "| {} | accepted | {} |",
                escape_cell(&f.id),
                escape_cell(&f.line)
            );
        }
        out.push('\n');
    }
    for n in &gate.missing {
        let _ = writeln!(
            out,
            "{}\n",
            escape_cell(&crate::check::missing_line(n, gate.missing_allowed))
        );
    }
    if !gate.ignored.is_empty() {
        let ids: Vec<&str> = gate.ignored.iter().map(String::as_str).collect();
        let _ = writeln!(out, "Ignored by costbench.toml: {}\n", id_list(&ids));
    }
    if !gate.notes.is_empty() {
        let n = |v: Verdict| gate.notes.iter().filter(|x| x.verdict == v).count();
        let _ = writeln!(
            out,
            "Not gated: {} unresolved (the measurement could not tell), {} placement (same \
             instructions, time moved with code or data placement); listed under each instrument \
             below.\n",
            n(Verdict::Unresolved),
            n(Verdict::Placement)
        );
    }
    out.push_str(&comparison_body(c));
    out
}

/// The comparison as a PR comment: a one-line summary, one section per instrument (significant
/// changes in a table, largest first; negligible ones folded), then missing, new, failed and
/// changed scenarios.
pub fn comparison(c: &Comparison) -> String {
    let mut out = String::new();
    unfinished(&mut out, c);
    out + &comparison_body(c)
}

/// A side that did not finish, as a blockquote before anything else.
fn unfinished(out: &mut String, c: &Comparison) {
    for u in &c.unfinished {
        let _ = writeln!(out, "> **Unfinished**: {}\n", escape_cell(&u.note));
    }
}

/// [`comparison`] without what it says first (`check` says that above its verdict).
fn comparison_body(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "**costbench**: {}\n", c.summary());
    // The binaries' sizes and builds, when the runs recorded them, on a line of their own.
    let binaries = costbench_judge::compare::RunLabel::binaries(&c.base, &c.cand)
        .map_or(String::new(), |l| format!("  \n{}", escape_cell(&l)));
    let _ = writeln!(
        out,
        "Baseline: {}  \nCandidate: {}{binaries}",
        escape_cell(&c.base.describe()),
        escape_cell(&c.cand.describe())
    );
    for inst in Figure::ALL {
        let nc: Vec<&NotCompared> = c
            .not_compared
            .iter()
            .filter(|n| n.instrument == inst)
            .collect();
        section(&mut out, c, inst, &nc);
    }
    crate::movers::markdown(&mut out, &c.functions);
    for e in crate::instrument::explains() {
        (e.markdown)(&mut out, c);
    }
    crate::asm::markdown(&mut out, &c.asm);

    let anything_else = !(c.missing_in_cand.is_empty()
        && c.new_in_cand.is_empty()
        && c.failed.is_empty()
        && c.setup_changes.is_empty());
    if anything_else {
        out.push_str("\n### Scenarios\n");
    }
    let list = |out: &mut String, what: &str, ids: &[String]| {
        if !ids.is_empty() {
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            let _ = writeln!(out, "\n**{what}** ({}): {}", ids.len(), id_list(&ids));
        }
    };
    list(&mut out, "Missing in candidate", &c.missing_in_cand);
    list(&mut out, "New in candidate", &c.new_in_cand);
    if !c.failed.is_empty() {
        let _ = writeln!(out, "\n**Failed** ({}):\n", c.failed.len());
        out.push_str("| scenario | run | instrument | failure |\n|:--|:--|:--|:--|\n");
        for f in &c.failed {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {}: {} |",
                escape_cell(&f.id),
                f.side,
                escape_cell(&f.instrument),
                escape_cell(&f.kind),
                escape_cell(&truncate(&f.message, 160))
            );
        }
    }
    if !c.setup_changes.is_empty() {
        let _ = writeln!(
            out,
            "\n**Setup changed** ({}; per-op figures compared anyway):\n",
            c.setup_changes.len()
        );
        out.push_str("| scenario | change |\n|:--|:--|\n");
        for s in &c.setup_changes {
            let _ = writeln!(
                out,
                "| {} | {} |",
                escape_cell(&s.id),
                escape_cell(&s.changes.join(", "))
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_judge::compare::{compare, CompareOptions};
    use costbench_judge::testing::*;
    use costbench_record::testing::*;

    /// Table rows whose cell count (raw `|` separators) is not the header's.
    fn broken_rows(md: &str) -> Vec<&str> {
        let mut bad = Vec::new();
        let mut expected = None;
        for line in md.lines() {
            if !line.starts_with('|') {
                expected = None;
                continue;
            }
            let pipes = line.matches('|').count();
            match expected {
                None => expected = Some(pipes),
                Some(n) if n != pipes => bad.push(line),
                Some(_) => {}
            }
        }
        bad
    }

    #[test]
    fn escaping_neutralises_nasty_names() {
        let cases = [
            ("plain_name-1.2", "plain\\_name-1.2"),
            ("a|b", "a&#124;b"),
            ("`x`", "&#96;x&#96;"),
            (
                "<script>alert(1)</script>",
                "&lt;script&gt;alert(1)&lt;/script&gt;",
            ),
            ("line\nbreak", "line break"),
            ("cr\r\nlf", "cr  lf"),
            ("**bold**", "\\*\\*bold\\*\\*"),
            ("[link](http://x)", "\\[link\\](http://x)"),
            ("a & b", "a &amp; b"),
            ("&lt;", "&amp;lt;"),
            ("back\\slash|", "back\\\\slash&#124;"),
            ("~~strike~~ $x$", "\\~\\~strike\\~\\~ \\$x\\$"),
            ("bell\u{7}", "bell\u{fffd}"),
            ("rtl\u{202e}gnp.exe", "rtl\u{fffd}gnp.exe"),
            ("para\u{2028}sep", "para\u{fffd}sep"),
            ("µs ✓", "µs ✓"),
        ];
        for (input, want) in cases {
            let got = escape_cell(input);
            assert_eq!(got, want, "{input:?}");
            for raw in ['|', '<', '>', '`', '\n', '\r'] {
                assert!(!got.contains(raw), "{input:?} -> {got:?} keeps {raw:?}");
            }
        }
    }

    fn nasty_comparison() -> Comparison {
        let names = [
            "a|b",
            "`x`",
            "<script>alert(1)</script>",
            "line\nbreak",
            "**bold**",
        ];
        let base = record(
            "b",
            names
                .iter()
                .map(|n| with_icount(scenario(n), 1000.0))
                .chain([with_icount(scenario("gone|<b>"), 5.0)])
                .collect(),
        );
        let cand = record(
            "c",
            names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let r = with_ops(scenario(n), 1, "by|te<s>");
                    with_icount(r, 1000.0 + 100.0 * i as f64)
                })
                .chain([with_failure(
                    scenario("new`|"),
                    "walltime",
                    "panicked<img src=x>",
                )])
                .collect(),
        );
        compare(&base, &cand, &CompareOptions::default())
    }

    #[test]
    fn nasty_names_stay_in_their_cells() {
        let md = comparison(&nasty_comparison());
        assert_eq!(broken_rows(&md), Vec::<&str>::new(), "{md}");
        for bad in [
            "<script",
            "<b>",
            "<img",
            "`x`",
            "**bold**",
            "line\nbreak",
            "by|te",
        ] {
            assert!(!md.contains(bad), "raw {bad:?} in:\n{md}");
        }
        // The only tags are the ones this module writes.
        let tags: Vec<&str> = md.match_indices('<').map(|(i, _)| &md[i..]).collect();
        for t in tags {
            assert!(
                ["<details>", "<summary>", "</summary>", "</details>"]
                    .iter()
                    .any(|ok| t.starts_with(ok)),
                "unexpected tag at {t:?}"
            );
        }
        assert!(md.contains("a&#124;b"), "{md}");
        assert!(md.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{md}");
    }

    #[test]
    fn exact_output_of_a_small_comparison() {
        let base = record(
            "b",
            vec![
                with_icount(scenario("parse"), 2003.0),
                with_icount(scenario("lookup"), 100.0),
                with_icount(scenario("hash"), 50.0),
                with_icount(with_ops(scenario("copy"), 1024, "bytes"), 1.5),
                with_icount(scenario("old"), 1.0),
            ],
        );
        let cand = record(
            "c",
            vec![
                with_icount(scenario("parse"), 2103.0),
                with_icount(scenario("lookup"), 90.0),
                with_icount(scenario("hash"), 50.05),
                with_icount(with_ops(scenario("copy"), 2048, "bytes"), 1.5),
                with_failure(scenario("fresh"), "icount", "timed-out"),
            ],
        );
        let md = comparison(&compare(&base, &cand, &CompareOptions::default()));
        let want = "\
**costbench**: 1 regression, 1 improvement, 2 unchanged, 1 failed, 1 missing in candidate, 1 new in candidate

Baseline: run b (commit b012345678, branch main, variant release)  
Candidate: run c (commit c012345678, branch main, variant release)

### Instruction counts

| scenario | baseline /op | candidate /op | change | threshold | evidence |
|:--|--:|--:|--:|--:|:--|
| lookup | 100.00 Ir | 90.00 Ir | -10.00 % improvement | 0.2 % | exact instruction counts |
| parse | 2003 Ir | 2103 Ir | **+4.99 %** regression | 0.2 % | exact instruction counts |

<details><summary>2 negligible changes (within 0.2 %)</summary>

| scenario | baseline /op | candidate /op | change | threshold |
|:--|--:|--:|--:|--:|
| hash | 50.00 Ir | 50.05 Ir | +0.10 % | 0.2 % |
| copy (unit: bytes; ops 1024 → 2048) | 1.500 Ir | 1.500 Ir | +0.00 % | 0.2 % |

</details>

### Scenarios

**Missing in candidate** (1): old

**New in candidate** (1): fresh

**Failed** (1):

| scenario | run | instrument | failure |
|:--|:--|:--|:--|
| fresh | candidate | icount | timed-out: icount timed-out |

**Setup changed** (1; per-op figures compared anyway):

| scenario | change |
|:--|:--|
| copy | ops 1024 → 2048 |
";
        assert_eq!(md, want, "got:\n{md}");
    }

    #[test]
    fn walltime_section_shows_the_interval() {
        let base = record(
            "b",
            vec![
                with_walltime(scenario("slower"), &noisy(100.0, 0.1, 100, 1)),
                with_walltime(scenario("same"), &noisy(100.0, 0.1, 100, 2)),
            ],
        );
        let cand = record(
            "c",
            vec![
                with_walltime(scenario("slower"), &noisy(120.0, 0.1, 100, 3)),
                with_walltime(scenario("same"), &noisy(100.0, 0.1, 100, 4)),
            ],
        );
        // Separate runs: judged only with thresholds from history (issue 13).
        let mut h = costbench_judge::compare::noise::HistoricThresholds::default();
        for id in ["slower", "same"] {
            h.set(id, Figure::Walltime, 5.0, 20);
        }
        let opts = CompareOptions::default();
        let md = comparison(&costbench_judge::compare::compare_with(
            &base, &cand, &opts, &h,
        ));
        assert!(md.contains("### Wall time"), "{md}");
        assert!(!md.contains("### Instruction counts"), "{md}");
        let slower = md
            .lines()
            .find(|l| l.starts_with("| slower"))
            .expect("slower row");
        assert!(slower.contains("regression"), "{slower}");
        assert!(slower.contains("5 %, CI [1.1"), "{slower}");
        assert!(slower.contains(" ns |"), "{slower}");
        assert!(
            slower.contains("| separate runs: between-run noise from 20 consecutive changes"),
            "{slower}"
        );
        let details = md.find("<details>").expect("folded rows");
        assert!(md.find("| same").expect("same row") > details, "{md}");
        // Without history neither row is judged; one line says why, and what to run.
        let md = comparison(&compare(&base, &cand, &opts));
        assert!(md.contains("0 unchanged, 2 unresolved"), "{md}");
        let line = md
            .lines()
            .find(|l| l.starts_with("- slower"))
            .expect("unresolved line");
        assert!(
            line.starts_with("- slower +")
                && line.contains(", same ")
                && line.contains(" unresolved: separate runs"),
            "{line}"
        );
        assert!(md.contains("**Not gated** (2 unresolved):"), "{md}");
    }

    #[test]
    fn unresolved_and_placement_rows_are_listed_not_gated() {
        use costbench_record::testing::{rounds_pair, with_rounds};
        let tight: Vec<f64> = (0..12).map(|k| 0.002 * ((k % 5) as f64 - 2.0)).collect();
        let wide: Vec<f64> = (0..12).map(|k| 0.06 * ((k % 5) as f64 - 2.0)).collect();
        // Side 0 is the baseline, 1 the candidate.
        let side = |pick: usize| {
            let v = |ratio: f64, w: &[f64]| {
                let (b, c) = rounds_pair(ratio, w);
                if pick == 0 {
                    b
                } else {
                    c
                }
            };
            let moved = with_rounds(
                with_icount(scenario("moved"), 1000.0),
                &v(1.08, &tight),
                true,
                1,
            );
            let wide = with_rounds(
                with_icount(scenario("wide"), 500.0),
                &v(1.02, &wide),
                true,
                1,
            );
            vec![moved, wide]
        };
        let base = record("b", side(0));
        let cand = record("c", side(1));
        let c = compare(&base, &cand, &CompareOptions::default());
        let md = comparison(&c);
        assert!(
            md.starts_with("**costbench**: 0 regressions, 0 improvements, 2 unchanged, 1 unresolved, 1 placement\n"),
            "{md}"
        );
        assert!(
            md.contains("**Not gated** (1 unresolved, 1 placement):"),
            "{md}"
        );
        let moved = md
            .lines()
            .find(|l| l.starts_with("- moved"))
            .expect("moved");
        assert!(
            moved.starts_with("- moved +7.9")
                && moved.contains(" placement: same instructions (+0.00 %); time +7.9")
                && moved.ends_with(" %: placement or memory effect, not gated"),
            "{moved}"
        );
        let wide = md.lines().find(|l| l.starts_with("- wide")).expect("wide");
        assert!(
            wide.contains("unresolved: cannot resolve 3 %: ratio \\["),
            "{wide}"
        );
        assert!(
            wide.contains("over 12 rounds; smallest detectable change"),
            "{wide}"
        );
        assert!(wide.contains("layout-sensitive: rounds spread ±"), "{wide}");
        assert_eq!(broken_rows(&md), Vec::<&str>::new());
        // The check's report says the gate passed and what it left open.
        let cfg = costbench_judge::check::CheckConfig::default();
        let gate = costbench_judge::check::evaluate(&c, &cand, &cfg);
        assert!(gate.passed());
        assert_eq!(gate.notes.len(), 2);
        let md = check(&c, &gate);
        assert!(
            md.starts_with("### costbench check: passed\n\nNot gated: 1 unresolved"),
            "{md}"
        );
    }

    #[test]
    fn a_hundred_scenarios_stay_short() {
        let make = |run: &str, factor: f64, seed: u64| {
            record(
                run,
                (0..100)
                    .map(|i| {
                        let id = format!("scenario_{i:03}");
                        let r = with_icount(scenario(&id), 1000.0 * factor);
                        with_walltime(r, &noisy(50.0 * factor, 0.05, 30, seed + i))
                    })
                    .collect(),
            )
        };
        let c = compare(
            &make("b", 1.0, 0),
            &make("c", 1.01, 1000),
            &CompareOptions::default(),
        );
        let md = comparison(&c);
        let lines = md.lines().count();
        assert!(lines < 260, "{lines} lines");
        assert_eq!(broken_rows(&md), Vec::<&str>::new());
    }

    #[test]
    fn instrument_measured_on_one_side_only() {
        let base = record("b", vec![with_icount(scenario("x"), 10.0)]);
        let cand = record(
            "c",
            vec![with_walltime(scenario("x"), &noisy(10.0, 0.1, 20, 1))],
        );
        let md = comparison(&compare(&base, &cand, &CompareOptions::default()));
        assert!(md.contains("Measured in the baseline only (1): x"), "{md}");
        assert!(md.contains("Measured in the candidate only (1): x"), "{md}");
    }

    #[test]
    fn comparison_snapshot() {
        let c = costbench_judge::testing::every_verdict();
        costbench_record::testing::assert_snapshot!("compare_markdown", &comparison(&c));
    }
}
