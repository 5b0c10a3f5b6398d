//! The variant matrix (`costbench-judge`'s [`variants`](costbench_judge::variants)) as text: a
//! terminal table and markdown, with each cell's ratio to the baseline variant, its mark (`*`
//! significant, `?` unresolved, `≈` placement) and each variant's price. Pure: the matrix comes
//! in judged.

use crate::escape::escape_cell;
use crate::table::{Align, TextTable};
use costbench_judge::compare::Verdict;
use costbench_judge::variants::{Cell, Matrix, Price};
use costbench_record::fmt::fmt_ratio_change;
use costbench_record::instrument::Figure;
use std::fmt::Write as _;

/// "(2↑ 0↓ of 12; 1 unresolved, 3 placement not priced)" with `up` and `down` as given.
fn price_counts(p: &Price, up: &str, down: &str) -> String {
    let mut s = format!(
        "({}{up} {}{down} of {}",
        p.regressions, p.improvements, p.compared
    );
    if p.unresolved + p.placement > 0 {
        let _ = write!(
            s,
            "; {} unresolved, {} placement not priced",
            p.unresolved, p.placement
        );
    }
    s.push(')');
    s
}

/// The binary size and build time of each column that has one: (variant, total with its ratio
/// to the baseline's, text, data, build seconds, the three largest crates). Empty when no column
/// has a size (matrices of older runs).
fn size_rows(m: &Matrix) -> Vec<[String; 6]> {
    use crate::budget::thousands;
    if m.columns.iter().all(|c| c.binary.is_none()) {
        return Vec::new();
    }
    let base = m
        .columns
        .iter()
        .find(|c| c.name == m.baseline)
        .and_then(|c| c.binary.as_ref());
    m.columns
        .iter()
        .filter(|c| c.build_error.is_none())
        .map(|c| {
            let (total, text, data, crates) = match &c.binary {
                Some(b) => {
                    let ratio = match base {
                        Some(x) if c.name != m.baseline && x.total > 0 => {
                            format!(" ({})", fmt_ratio_change(b.total as f64 / x.total as f64))
                        }
                        _ => String::new(),
                    };
                    let crates: Vec<String> = b
                        .top_crates
                        .iter()
                        .take(3)
                        .map(|k| format!("{} {}", k.krate, thousands(k.bytes)))
                        .collect();
                    (
                        format!("{}{ratio}", thousands(b.total)),
                        thousands(b.text),
                        thousands(b.data),
                        crates.join(", "),
                    )
                }
                None => ("-".into(), "-".into(), "-".into(), String::new()),
            };
            let build = c
                .build
                .as_ref()
                .map_or("-".to_string(), |b| format!("{:.1} s", b.seconds));
            [c.name.clone(), total, text, data, build, crates]
        })
        .collect()
}

const SIZE_HEAD: [&str; 6] = [
    "variant",
    "binary B",
    "text B",
    "data B",
    "build",
    "largest crates (code B)",
];

/// The measured columns, in order.
fn measured_names(m: &Matrix) -> Vec<&str> {
    m.rows
        .first()
        .map(|r| r.cells.iter().map(|c| c.variant.as_str()).collect())
        .unwrap_or_default()
}

fn cell_text(c: &Cell, inst: Figure) -> String {
    match c.figure(inst) {
        Some(f) => {
            let mut s = inst.fmt_value(f.per_op);
            if let Some(r) = f.ratio {
                let mark = match f.verdict {
                    Some(Verdict::Regression | Verdict::Improvement) => "*",
                    Some(Verdict::Unresolved) => "?",
                    Some(Verdict::Placement) => "≈",
                    Some(Verdict::Unchanged) | None => "",
                };
                let _ = write!(s, " ×{r:.3}{mark}");
            }
            s
        }
        None if !c.failed.is_empty() => "FAILED".into(),
        None => "-".into(),
    }
}

/// Whether any variant has something to show for row `r` under `inst` (a figure or a
/// failure): rows of another kind (a row that only another instrument measures) are left out
/// of that instrument's table.
fn has_cell(r: &costbench_judge::variants::MatrixRow, inst: Figure) -> bool {
    r.cells.iter().any(|c| cell_text(c, inst) != "-")
}

/// A column heading for an instrument's price.
fn short_title(inst: Figure) -> &'static str {
    inst.spec().short_title
}

fn instruments(m: &Matrix) -> Vec<Figure> {
    Figure::ALL
        .into_iter()
        .filter(|inst| {
            m.rows
                .iter()
                .any(|r| r.cells.iter().any(|c| c.figure(*inst).is_some()))
        })
        .collect()
}

/// The first column (names) left-aligned, figures right-aligned; no blanks at line ends.
fn align(rows: Vec<Vec<String>>) -> String {
    let mut rows = rows.into_iter();
    let mut t = TextTable::new(rows.next().unwrap_or_default(), &[Align::Left]).trim_end();
    for r in rows {
        t.row(r);
    }
    t.render()
}

/// The matrix for a terminal.
pub fn table(m: &Matrix) -> String {
    let mut out = String::new();
    let names = measured_names(m);
    for inst in instruments(m) {
        let _ = writeln!(
            out,
            "{} per op (×ratio to {}; * significant by compare's rules, ? unresolved, ≈ placement \
             effect: not a price)",
            inst.title(),
            m.baseline
        );
        let mut rows = vec![std::iter::once("scenario".to_string())
            .chain(std::iter::once("op".to_string()))
            .chain(names.iter().map(|n| n.to_string()))
            .collect::<Vec<_>>()];
        for r in m.rows.iter().filter(|r| has_cell(r, inst)) {
            rows.push(
                [r.id.clone(), r.unit.clone()]
                    .into_iter()
                    .chain(r.cells.iter().map(|c| cell_text(c, inst)))
                    .collect(),
            );
        }
        out.push_str(&align(rows));
        out.push('\n');
    }
    if !m.summary.is_empty() {
        let _ = writeln!(
            out,
            "Price of each variant against {} (geometric mean of per-op ratios, unresolved and \
             placement rows left out; significant changes up/down)",
            m.baseline
        );
        let insts = instruments(m);
        let mut rows = vec![["variant".to_string(), "settings".into()]
            .into_iter()
            .chain(insts.iter().map(|i| short_title(*i).to_string()))
            .collect::<Vec<_>>()];
        for s in &m.summary {
            let cell = |p: Option<&Price>| match p {
                Some(p) if p.compared > 0 => {
                    format!(
                        "{} {}",
                        p.geomean_ratio.map_or("-".into(), fmt_ratio_change),
                        price_counts(p, "↑", "↓")
                    )
                }
                _ => "-".to_string(),
            };
            rows.push(
                [s.variant.clone(), s.settings.clone()]
                    .into_iter()
                    .chain(insts.iter().map(|i| cell(s.prices.get(i.name()))))
                    .collect(),
            );
        }
        out.push_str(&align(rows));
    }
    let sizes = size_rows(m);
    if !sizes.is_empty() {
        let _ = writeln!(
            out,
            "\nBinary size (loaded code and data of the bench binary, ×ratio to {}) and build time",
            m.baseline
        );
        let rows = std::iter::once(SIZE_HEAD.map(String::from).to_vec())
            .chain(sizes.into_iter().map(|r| r.to_vec()))
            .collect();
        out.push_str(&align(rows));
    }
    for c in m.build_failures() {
        let _ = writeln!(
            out,
            "\nvariant {} ({}) did not build and was skipped:\n{}",
            c.name,
            c.settings,
            c.build_error.as_deref().unwrap_or_default()
        );
    }
    out
}

/// The matrix as GitHub-flavoured markdown (names escaped, as in compare's markdown).
pub fn markdown(m: &Matrix) -> String {
    let mut out = String::new();
    let names = measured_names(m);
    let _ = writeln!(
        out,
        "## Build variants against `{}`\n",
        escape_cell(&m.baseline).replace('`', "")
    );
    if !m.summary.is_empty() {
        let insts = instruments(m);
        out.push_str("| variant | settings |");
        for i in &insts {
            let _ = write!(out, " {} |", short_title(*i));
        }
        out.push_str("\n|---|---|");
        out.push_str(&"---:|".repeat(insts.len()));
        out.push('\n');
        for s in &m.summary {
            let cell = |p: Option<&Price>| match p {
                Some(p) if p.compared > 0 => {
                    format!(
                        "{} {}",
                        p.geomean_ratio.map_or("-".into(), fmt_ratio_change),
                        price_counts(p, " up,", " down")
                    )
                }
                _ => "–".to_string(),
            };
            let _ = write!(
                out,
                "| {} | {} |",
                escape_cell(&s.variant),
                escape_cell(&s.settings)
            );
            for i in &insts {
                let _ = write!(out, " {} |", cell(s.prices.get(i.name())));
            }
            out.push('\n');
        }
        out.push_str(
            "\nGeometric mean of per-op ratios to the baseline, leaving out rows compare could not \
             resolve and placement effects (same instructions, time moved); up/down count \
             significant changes.\n\n",
        );
    }
    for inst in instruments(m) {
        let _ = writeln!(
            out,
            "### {} per op\n\nRatio to {}; **bold**: significant by compare's rules; ?: \
             unresolved, ≈: placement effect (not a price).\n",
            inst.title(),
            escape_cell(&m.baseline)
        );
        out.push_str("| scenario | op |");
        for n in &names {
            let _ = write!(out, " {} |", escape_cell(n));
        }
        out.push_str("\n|---|---|");
        out.push_str(&"---:|".repeat(names.len()));
        out.push('\n');
        for r in m.rows.iter().filter(|r| has_cell(r, inst)) {
            let _ = write!(out, "| {} | {} |", escape_cell(&r.id), escape_cell(&r.unit));
            for c in &r.cells {
                let text = cell_text(c, inst).trim_end_matches('*').to_string();
                let significant = c
                    .figure(inst)
                    .and_then(|f| f.verdict)
                    .is_some_and(Verdict::is_significant);
                if significant {
                    let _ = write!(out, " **{}** |", escape_cell(&text));
                } else {
                    let _ = write!(out, " {} |", escape_cell(&text));
                }
            }
            out.push('\n');
        }
        out.push('\n');
    }
    let sizes = size_rows(m);
    if !sizes.is_empty() {
        let _ = writeln!(
            out,
            "### Binary size and build time\n\nLoaded code and data of the bench binary, ratio to {}.\n",
            escape_cell(&m.baseline)
        );
        let _ = writeln!(out, "| {} |", SIZE_HEAD.join(" | "));
        out.push_str("|---|---:|---:|---:|---:|---|\n");
        for r in sizes {
            let cells: Vec<String> = r.iter().map(|c| escape_cell(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out.push('\n');
    }
    for c in m.build_failures() {
        let _ = writeln!(
            out,
            "Variant **{}** ({}) did not build and was skipped:\n\n```\n{}\n```\n",
            escape_cell(&c.name),
            escape_cell(&c.settings),
            c.build_error
                .as_deref()
                .unwrap_or_default()
                .replace("```", "ʼʼʼ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_judge::testing;

    #[test]
    fn sizes_and_build_times_follow_the_matrix() {
        use costbench_record::model::budget::{BinarySize, CrateSize};
        use costbench_record::model::BuildInfo;
        let mut m = testing::ratios();
        assert!(!table(&m).contains("Binary size"), "no sizes, no section");
        let size = |total: u64| BinarySize {
            text: total - 100,
            data: 100,
            bss: 0,
            total,
            file: total * 4,
            top_crates: vec![CrateSize {
                krate: "std".into(),
                bytes: 1000,
            }],
        };
        m.columns[0].binary = Some(size(400_000));
        m.columns[0].build = Some(BuildInfo {
            seconds: 12.34,
            compiled: 3,
            fresh: 40,
        });
        m.columns[1].binary = Some(size(300_000));
        let t = table(&m);
        assert!(
            t.contains("Binary size (loaded code and data of the bench binary, ×ratio to base) and build time"),
            "{t}"
        );
        assert!(t.contains("400,000") && t.contains("12.3 s"), "{t}");
        assert!(t.contains("300,000 (-25.00 %)"), "{t}");
        let md = markdown(&m);
        assert!(
            md.contains("| base | 400,000 | 399,900 | 100 | 12.3 s | std 1,000 |"),
            "{md}"
        );
    }

    #[test]
    fn cells_show_ratios_marks_and_failed_builds() {
        let m = testing::ratios();
        let t = table(&m);
        assert!(t.contains("110.00 Ir ×1.100*"), "{t}");
        assert!(
            t.contains("200.1 Ir ×1.000") || t.contains("200.10 Ir ×1.000"),
            "{t}"
        );
        assert!(t.contains("variant broken (broken) did not build"), "{t}");
        assert!(t.contains("error[E0425]"), "{t}");
        let md = markdown(&m);
        costbench_record::testing::assert_snapshot!("variants_table_ratios", &t);
        costbench_record::testing::assert_snapshot!("variants_markdown_ratios", &md);
        assert!(md.contains("**110.00 Ir ×1.100**"), "{md}");
        assert!(md.contains("| oc | oc |"), "{md}");
    }

    #[test]
    fn each_instrument_shows_only_the_rows_it_measured() {
        let m = testing::service();
        let t = table(&m);
        let sections: Vec<&str> = t.split("per op (×ratio").collect();
        // Instruction counts: the two parties; under load: the load row alone, twice.
        assert_eq!(sections.len(), 4, "{t}");
        assert!(
            sections[1].contains("svc_server") && !sections[1].contains("svc@4c"),
            "{t}"
        );
        for s in &sections[2..] {
            assert!(s.contains("svc@4c") && !s.contains("svc_server"), "{t}");
        }
        assert!(
            t.contains("×1.100*"),
            "the 10 % slower rounds are a price: {t}"
        );
        let md = markdown(&m);
        assert!(!md.contains("| svc@4c | ops | - | - |"), "{md}");
    }

    #[test]
    fn placement_and_unresolved_ratios_are_marked() {
        let m = testing::marks();
        let t = table(&m);
        assert!(t.contains("≈"), "{t}");
        assert!(t.contains("?"), "{t}");
        assert!(
            t.contains("(1↑ 0↓ of 3; 1 unresolved, 1 placement not priced)"),
            "{t}"
        );
        let md = markdown(&m);
        assert!(
            md.contains("(1 up, 0 down of 3; 1 unresolved, 1 placement not priced)"),
            "{md}"
        );
        costbench_record::testing::assert_snapshot!("variants_table_marks", &t);
        costbench_record::testing::assert_snapshot!("variants_markdown_marks", &md);
    }
}
