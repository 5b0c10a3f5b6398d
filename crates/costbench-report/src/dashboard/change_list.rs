//! The dashboard's list of change points and their explanations. Change points are grouped by
//! the commit of the first run that carries them, newest commit first: one commit that moved
//! ten series is one heading, not ten. Each row is the anchor `change-K` (K: the change's index
//! in the input, which the charts' markers link to) and says what moved, by how much, whether
//! the step is narrowed to one commit, how it was found, and whether it is acknowledged; an
//! explained change links to its block `explain-K` in the explanations section.

use super::{day, short, DashboardInput, Facts};
use crate::html::escape::escape;
use costbench_judge::changes::{ChangePoint, Method};
use costbench_record::fmt::{fmt_change, fmt_js_number};
use costbench_record::history::{Timeline, TimelineRun};
use std::fmt::Write as _;

/// The indices of the change points grouped by the commit that carries them (a run without a
/// commit is a group of its own), newest first, each group in series order.
fn by_commit(t: &Timeline, changes: &[ChangePoint]) -> Vec<(usize, Vec<usize>)> {
    let mut order: Vec<usize> = (0..changes.len()).collect();
    order.sort_by(|&a, &b| {
        (changes[b].run, changes[a].series).cmp(&(changes[a].run, changes[b].series))
    });
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for i in order {
        let run = changes[i].run;
        let same = |g: &(usize, Vec<usize>)| match (&t.runs[g.0].commit, &t.runs[run].commit) {
            (Some(a), Some(b)) => a == b,
            _ => g.0 == run,
        };
        match groups.iter_mut().find(|g| same(g)) {
            Some(g) => g.1.push(i),
            None => groups.push((run, vec![i])),
        }
    }
    groups
}

fn commit_heading(r: &TimelineRun) -> String {
    let mut s = match &r.commit {
        Some(c) => format!("<code title=\"{}\">{}</code>", escape(c), escape(short(c))),
        None => format!("run {}", escape(&r.run_id)),
    };
    if let Some(subject) = &r.subject {
        let _ = write!(s, " <span class=\"subject\">{}</span>", escape(subject));
    }
    if let Some(date) = &r.author_date {
        let _ = write!(
            s,
            " <span class=\"date\" title=\"{}\">{}</span>",
            escape(date),
            escape(day(date))
        );
    }
    s
}

/// "exact commit", or the two measured commits the step lies between and how many commits
/// that leaves, when the run before it did not measure the parent.
fn where_found(t: &Timeline, c: &ChangePoint, exact_commit: bool) -> String {
    if exact_commit {
        return "<span class=\"exact\">exact commit</span>".into();
    }
    let (before, after) = (&t.runs[c.previous_run], &t.runs[c.run]);
    let name = |r: &TimelineRun| match &r.commit {
        Some(c) => format!("<code>{}</code>", escape(short(c))),
        None => format!("run {}", escape(&r.run_id)),
    };
    let span = match (before.position, after.position) {
        (Some(a), Some(b)) if b > a + 1 => format!(" ({} commits)", b - a),
        _ => String::new(),
    };
    format!("between {} and {}{span}", name(before), name(after))
}

fn how(c: &ChangePoint) -> String {
    match (c.method, c.p_value) {
        (Method::TTest, Some(p)) => format!("t-test, p = {p:.1e}"),
        (Method::TTest, None) => "t-test".into(),
        (Method::Exact, _) if !c.confirmed => "exact; newest run, not yet confirmed".into(),
        (Method::Exact, _) => "exact".into(),
        (Method::Paired, _) => "paired with the previous measured commit".into(),
    }
}

/// The class of a change cell: more of any figure the history keeps is worse.
pub(super) fn direction(pct: f64) -> &'static str {
    if pct > 0.0 {
        "regression"
    } else if pct < 0.0 {
        "improvement"
    } else {
        ""
    }
}

/// The series' id with, where the history has several, its machine and variant.
pub(super) fn series_cell(input: &DashboardInput, facts: &Facts, series: usize) -> String {
    let s = &input.timeline.series[series];
    let mut cell = format!(
        "<td class=\"text\"><a href=\"#series-{series}\">{}</a>",
        escape(&s.id)
    );
    let mut sub = Vec::new();
    if facts.several_machines() {
        sub.push(escape(&s.machine));
    }
    if facts.several_variants() {
        sub.push(escape(&s.variant));
    }
    if !sub.is_empty() {
        let _ = write!(cell, "<span class=\"sub\">{}</span>", sub.join(" · "));
    }
    cell.push_str("</td>");
    cell
}

/// The change points section.
pub(super) fn section(page: &mut String, input: &DashboardInput, facts: &Facts) {
    let t = input.timeline;
    let changes = input.changes;
    page.push_str("<h2 id=\"changes\">Change points</h2>");
    if changes.is_empty() {
        page.push_str(
            "<p class=\"note\">No change points: every series kept its level over these runs.</p>",
        );
        return;
    }
    let groups = by_commit(t, changes);
    let acknowledged = input
        .notes
        .iter()
        .filter(|n| n.acknowledged.is_some())
        .count();
    let _ = write!(
        page,
        "<p class=\"note\">{} change point(s) at {} commit(s), newest first; {acknowledged} \
         acknowledged. A change point is the first run at a lasting new level; the commit that \
         caused it is that run's own when the run before measured its parent (exact commit), \
         else one of the commits between the two.</p>",
        changes.len(),
        groups.len()
    );
    for (run, list) in groups {
        let _ = write!(
            page,
            "<section class=\"commit\"><h3>{}</h3><table class=\"changes\"><thead><tr>\
             <th class=\"text\">series</th><th class=\"text\">metric</th><th>before → after</th>\
             <th>change</th><th class=\"text\">where</th><th class=\"text\">found by</th>\
             <th class=\"text\">notes</th></tr></thead><tbody>",
            commit_heading(&t.runs[run])
        );
        for i in list {
            row(page, input, facts, i);
        }
        page.push_str("</tbody></table></section>");
    }
}

fn row(page: &mut String, input: &DashboardInput, facts: &Facts, i: usize) {
    let t = input.timeline;
    let c = &input.changes[i];
    let s = &t.series[c.series];
    let none = super::ChangeNote::default();
    let n = input.notes.get(i).unwrap_or(&none);
    let mut notes = Vec::new();
    if let Some(why) = &n.acknowledged {
        notes.push(format!(
            "<span class=\"ack\">acknowledged</span>: {}",
            escape(why)
        ));
    }
    if let Some(m) = &n.merged {
        notes.push(escape(&crate::changes::merged_words(m)));
    }
    if n.explanation.is_some() {
        notes.push(format!("<a href=\"#explain-{i}\">explanation</a>"));
    }
    // Digits enough that before and after differ (a small change of an exact count).
    let (before, after) = crate::changes::before_after(s.metric, c.before, c.after);
    let _ = write!(
        page,
        "<tr id=\"change-{i}\" data-s=\"{}\"{}>{}<td class=\"text\">{}</td><td>{} → {}</td>\
         <td class=\"{}\" data-v=\"{}\">{}</td><td class=\"text\">{}</td>\
         <td class=\"text\">{}</td><td class=\"text\">{}</td></tr>",
        c.series,
        if n.acknowledged.is_some() {
            " class=\"acknowledged\""
        } else {
            ""
        },
        series_cell(input, facts, c.series),
        s.metric.as_str(),
        escape(&before),
        escape(&after),
        direction(c.change_pct),
        fmt_js_number(c.change_pct),
        fmt_change(c.change_pct),
        where_found(t, c, n.exact_commit),
        how(c),
        notes.join("; ")
    );
}

/// The explanations of the change points that have one, in the list's order, each linking
/// back to its row.
pub(super) fn explanations(page: &mut String, input: &DashboardInput) {
    let t = input.timeline;
    let explained: Vec<usize> = by_commit(t, input.changes)
        .into_iter()
        .flat_map(|g| g.1)
        .filter(|&i| input.notes.get(i).is_some_and(|n| n.explanation.is_some()))
        .collect();
    if explained.is_empty() {
        return;
    }
    page.push_str(
        "<h2 id=\"explanations\">Explanations</h2><p class=\"note\">Why each change point \
         moved, from the profiles of the runs on either side of it: the functions whose own \
         cost changed.</p>",
    );
    for i in explained {
        let c = &input.changes[i];
        let s = &t.series[c.series];
        let commit = t.runs[c.run].commit.as_deref().map_or("-", short);
        let _ = write!(
            page,
            "<section class=\"explanation\" id=\"explain-{i}\" data-s=\"{}\"><h3>\
             <a href=\"#change-{i}\" title=\"back to the change point\">↑</a> <code>{}</code> \
             {} · {}: {}</h3><pre>{}</pre></section>",
            c.series,
            escape(commit),
            escape(&s.id),
            s.metric.as_str(),
            fmt_change(c.change_pct),
            escape(input.notes[i].explanation.as_deref().unwrap_or_default())
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::branch;
    use super::super::{render, ChangeNote, DashboardInput};

    fn page(
        t: &costbench_record::history::Timeline,
        c: &[costbench_judge::changes::ChangePoint],
        n: &[ChangeNote],
    ) -> String {
        render(&DashboardInput {
            title: "t",
            generated_at: "now",
            timeline: t,
            changes: c,
            notes: n,
            drift: &[],
            reference: None,
        })
    }

    #[test]
    fn newest_first_with_where_how_and_acknowledgement() {
        let (t, mut c, mut n, _) = branch(30, 10);
        // An older change of a second commit, and a t-test one.
        let mut older = c[0].clone();
        older.run = 5;
        older.previous_run = 2;
        older.method = costbench_judge::changes::Method::TTest;
        older.p_value = Some(0.00012);
        older.change_pct = -12.5;
        c.push(older);
        n.push(ChangeNote::default());
        let html = page(&t, &c, &n);
        let newest = html.find("id=\"change-0\"").unwrap();
        let oldest = html
            .find(&format!("id=\"change-{}\"", c.len() - 1))
            .unwrap();
        assert!(newest < oldest, "newest commit first");
        // Two commits, two headings, each with its subject and author date.
        assert_eq!(html.matches("<section class=\"commit\">").count(), 2);
        assert!(html.contains("<span class=\"subject\">Change number 20</span>"));
        assert!(html.contains(
            "<span class=\"date\" title=\"2023-01-21T10:00:00+01:00\">2023-01-21</span>"
        ));
        assert!(html.contains("<span class=\"exact\">exact commit</span>"));
        // Runs 2 and 5 are positions 3 and 6: three commits could have done it.
        assert!(html.contains("between <code>"), "{html}");
        assert!(html.contains(" (3 commits)"));
        assert!(html.contains("t-test, p = 1.2e-4"));
        assert!(html.contains("<td class=\"improvement\" data-v=\"-12.5\">-12.50 %</td>"));
        assert!(html.contains("<span class=\"ack\">acknowledged</span>: expected: new hashing"));
        let acknowledged = format!(
            "<tr id=\"change-1\" data-s=\"{}\" class=\"acknowledged\">",
            c[1].series
        );
        assert!(html.contains(&acknowledged), "{html}");
        assert!(html.contains("<a href=\"#explain-0\">explanation</a>"));
        // The explanation keeps its lines, escaped.
        assert!(html.contains("<pre>own cost moved:\n  hash::mix +000 Ir/op</pre>"));
    }

    #[test]
    fn explanation_text_is_escaped() {
        let (t, c, mut n, _) = branch(30, 5);
        n[0].explanation = Some("<script>alert(1)</script>\n& <b>bold</b>".into());
        let html = page(&t, &c, &n);
        assert!(html.contains(
            "<pre>&lt;script&gt;alert(1)&lt;/script&gt;\n&amp; &lt;b&gt;bold&lt;/b&gt;</pre>"
        ));
        assert!(!html.contains("<b>bold"));
    }
}
