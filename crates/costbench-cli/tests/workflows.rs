//! The CI workflows shipped in `docs/workflows/` (and shown in docs/github-actions.md), read as
//! YAML: the jobs and steps the page documents exist, they hand each other the same files and
//! artifacts, the trusted comment workflow never runs the pull request's code, and every
//! `costbench …` command line in them parses with the real clap definitions (`Cli`).
//! No network, no GitHub: what can be checked of a workflow without running it.

mod common;

use clap::{CommandFactory, Parser};
use costbench_cli::args::{Cli, Command, GithubArg};
use std::collections::BTreeMap;
use std::path::PathBuf;
use yaml_rust2::{Yaml, YamlLoader};

fn load(name: &str) -> (String, Yaml) {
    let path = common::workspace().join("docs/workflows").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut docs = YamlLoader::load_from_str(&text)
        .unwrap_or_else(|e| panic!("{name} is not valid YAML: {e}"));
    assert_eq!(docs.len(), 1, "{name}: one document");
    (text, docs.remove(0))
}

fn s(y: &Yaml) -> &str {
    y.as_str().unwrap_or_else(|| panic!("not a string: {y:?}"))
}

fn keys(y: &Yaml) -> Vec<&str> {
    y.as_hash()
        .unwrap_or_else(|| panic!("not a mapping: {y:?}"))
        .keys()
        .map(s)
        .collect()
}

fn steps(job: &Yaml) -> &[Yaml] {
    job["steps"].as_vec().expect("a job has steps")
}

/// The step named `name` (a prefix of its name).
fn step<'a>(job: &'a Yaml, name: &str) -> &'a Yaml {
    steps(job)
        .iter()
        .find(|st| st["name"].as_str().is_some_and(|n| n.starts_with(name)))
        .unwrap_or_else(|| panic!("no step {name:?}"))
}

/// The variables of a mapping (`env:`, `variables:`), with `${{ … }}` expressions replaced by
/// the values `expr` gives.
fn vars(y: &Yaml, expr: &dyn Fn(&str) -> String) -> BTreeMap<String, String> {
    let Some(h) = y.as_hash() else {
        return BTreeMap::new();
    };
    h.iter()
        .map(|(k, v)| {
            let v = match v {
                Yaml::String(s) => s.clone(),
                Yaml::Integer(i) => i.to_string(),
                other => panic!("{k:?}: {other:?}"),
            };
            (s(k).to_string(), substitute(&v, expr))
        })
        .collect()
}

/// `${{ expression }}` replaced by `expr(expression)`.
fn substitute(s: &str, expr: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${{") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("}}").expect("an expression ends") + i;
        out.push_str(&expr(rest[i + 3..end].trim()));
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A token of a shell script: a word (quotes removed, variables expanded) or an operator.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Op,
}

/// Splits a POSIX shell script into words and operators, as far as these workflows need:
/// quotes, backslashes, line continuations, comments, `$NAME`/`${NAME}` (from `env`, else the
/// placeholder `UNSET_NAME`) and `$(…)` (the placeholder `SUBSTITUTED`).
fn lex(script: &str, env: &BTreeMap<String, String>) -> Vec<Tok> {
    let chars: Vec<char> = script.replace("\\\n", " ").chars().collect();
    let mut toks = Vec::new();
    let mut word: Option<String> = None;
    let mut i = 0;
    let var = |name: &str| {
        env.get(name)
            .cloned()
            .unwrap_or_else(|| format!("UNSET_{name}"))
    };
    // `$…` at chars[i]; returns the expansion and the index after it.
    let dollar = |i: usize| -> (String, usize) {
        match chars.get(i + 1) {
            Some('{') => {
                let end = (i + 2..chars.len()).find(|&j| chars[j] == '}').unwrap();
                (var(&chars[i + 2..end].iter().collect::<String>()), end + 1)
            }
            Some('(') => {
                let mut depth = 0;
                let mut j = i + 1;
                loop {
                    match chars[j] {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                ("SUBSTITUTED".into(), j + 1)
            }
            Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
                let end = (i + 1..chars.len())
                    .find(|&j| !(chars[j].is_ascii_alphanumeric() || chars[j] == '_'))
                    .unwrap_or(chars.len());
                (var(&chars[i + 1..end].iter().collect::<String>()), end)
            }
            Some('?') => ("0".into(), i + 2),
            _ => ("$".into(), i + 1),
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' => {
                toks.extend(word.take().map(Tok::Word));
                i += 1;
            }
            '\n' | ';' | '|' | '&' | '>' | '<' | '(' | ')' => {
                toks.extend(word.take().map(Tok::Word));
                toks.push(Tok::Op);
                i += 1;
            }
            '#' if word.is_none() => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\'' => {
                let end = (i + 1..chars.len()).find(|&j| chars[j] == '\'').unwrap();
                word.get_or_insert_default().extend(&chars[i + 1..end]);
                i = end + 1;
            }
            '"' => {
                let w = word.get_or_insert_default();
                i += 1;
                while chars[i] != '"' {
                    match chars[i] {
                        '\\' if matches!(chars[i + 1], '"' | '\\' | '$' | '`') => {
                            w.push(chars[i + 1]);
                            i += 2;
                        }
                        '$' => {
                            let (v, next) = dollar(i);
                            w.push_str(&v);
                            i = next;
                        }
                        c => {
                            w.push(c);
                            i += 1;
                        }
                    }
                }
                i += 1;
            }
            '\\' => {
                word.get_or_insert_default().push(chars[i + 1]);
                i += 2;
            }
            '$' => {
                let (v, next) = dollar(i);
                word.get_or_insert_default().push_str(&v);
                i = next;
            }
            c => {
                word.get_or_insert_default().push(c);
                i += 1;
            }
        }
    }
    toks.extend(word.map(Tok::Word));
    toks
}

/// The simple commands of a script, as words.
fn commands(script: &str, env: &BTreeMap<String, String>) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    for t in lex(script, env).into_iter().chain([Tok::Op]) {
        match t {
            Tok::Word(w)
                if cur.is_empty() && ["if", "then", "else", "!", "{"].contains(&w.as_str()) => {}
            Tok::Word(w) => cur.push(w),
            Tok::Op => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
        }
    }
    out
}

/// The `costbench` command lines of a script.
fn costbench_lines(script: &str, env: &BTreeMap<String, String>) -> Vec<Vec<String>> {
    let lines: Vec<Vec<String>> = commands(script, env)
        .into_iter()
        .filter(|c| c[0] == "costbench")
        .collect();
    for l in &lines {
        assert!(
            !l.iter().any(|w| w.contains("UNSET_")),
            "a variable the step does not set: {l:?}"
        );
    }
    lines
}

/// Whether this branch's `costbench` has `merge` and `--shard` (another branch adds them).
fn sharding_landed() -> (bool, bool) {
    let cmd = Cli::command();
    let merge = cmd.find_subcommand("merge").is_some();
    let shard = cmd
        .find_subcommand("check")
        .is_some_and(|c| c.get_arguments().any(|a| a.get_long() == Some("shard")));
    (merge, shard)
}

/// A `costbench check` line parsed by the real definitions; returns the check's options and
/// its `--shard` value. Until `--shard` exists on this branch, the option is taken out of the
/// line (its value must look like K/N) and the rest parsed: TIGHTEN once sharding lands (the
/// test then parses the whole line, by itself).
fn parse_check(line: &[String]) -> (costbench_cli::args::CheckCmd, Option<String>) {
    let (_, shard_exists) = sharding_landed();
    let mut words = line.to_vec();
    let mut shard = None;
    if let Some(i) = words.iter().position(|w| w == "--shard") {
        shard = Some(words[i + 1].clone());
        if !shard_exists {
            words.drain(i..i + 2);
        }
    }
    let cli = Cli::try_parse_from(&words).unwrap_or_else(|e| panic!("{line:?}:\n{e}"));
    match cli.command {
        Command::Check(c) => (c, shard),
        other => panic!("not a check: {other:?}"),
    }
}

/// A `costbench merge` line: its input directories and --output. Parsed by the real definitions
/// once `merge` exists on this branch; until then its shape is asserted (TIGHTEN: the
/// definitions take over by themselves when sharding lands).
fn parse_merge(line: &[String]) -> (Vec<String>, String) {
    let (merge_exists, _) = sharding_landed();
    if merge_exists {
        Cli::try_parse_from(line).unwrap_or_else(|e| panic!("{line:?}:\n{e}"));
    }
    assert_eq!(line[1], "merge", "{line:?}");
    let mut dirs = Vec::new();
    let mut output = None;
    let mut i = 2;
    while i < line.len() {
        match line[i].as_str() {
            "--output-dir" | "--output" | "-o" => {
                output = Some(line[i + 1].clone());
                i += 2;
            }
            "--no-history" => i += 1,
            w if w.starts_with('-') => panic!("merge takes no {w}: {line:?}"),
            w => {
                dirs.push(w.to_string());
                i += 1;
            }
        }
    }
    assert!(!dirs.is_empty(), "merge needs directories: {line:?}");
    (dirs, output.expect("merge --output-dir"))
}

/// Every `run:` of a workflow: none may expand `${{ … }}` into the script (an expression of
/// untrusted text there is a script injection; values go through `env:`).
fn no_expressions_in_scripts(name: &str, wf: &Yaml) {
    for job in wf["jobs"].as_hash().unwrap().values() {
        for st in steps(job) {
            if let Some(run) = st["run"].as_str() {
                assert!(
                    !run.contains("${{"),
                    "{name}: an expression in a script: {run}"
                );
            }
        }
    }
}

fn pr_expressions(e: &str, shard: &str, total: &str) -> String {
    match e {
        "matrix.shard" => shard.into(),
        "strategy.job-total" => total.into(),
        "github.event.pull_request.base.sha" => "0123456789abcdef0123456789abcdef01234567".into(),
        "github.event.pull_request.number" => "42".into(),
        other => panic!("an expression the test does not know: {other}"),
    }
}

#[test]
fn the_pull_request_workflow_shards_merges_and_reports() {
    let (_, wf) = load("costbench.yml");
    no_expressions_in_scripts("costbench.yml", &wf);
    assert_eq!(s(&wf["name"]), "costbench");
    // Runs the pull request's code: only `pull_request`, never `pull_request_target`, and a
    // read-only token.
    assert_eq!(keys(&wf["on"]), ["pull_request"]);
    assert_eq!(keys(&wf["permissions"]), ["contents"]);
    assert_eq!(s(&wf["permissions"]["contents"]), "read");
    assert_eq!(keys(&wf["jobs"]), ["measure", "report"]);
    let top = vars(&wf["env"], &|e| panic!("{e}"));

    // measure: one job per shard, each a check of its shard, its output uploaded.
    let measure = &wf["jobs"]["measure"];
    let matrix: Vec<i64> = measure["strategy"]["matrix"]["shard"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(matrix, [1, 2, 3, 4]);
    assert_eq!(measure["strategy"]["fail-fast"].as_bool(), Some(false));
    assert!(s(&step(measure, "Check out")["uses"]).starts_with("actions/checkout@"));
    assert_eq!(
        step(measure, "Check out")["with"]["fetch-depth"].as_i64(),
        Some(0)
    );
    let total = matrix.len().to_string();
    let mut shards = Vec::new();
    let st = step(measure, "Measure this shard");
    let upload = step(measure, "Upload this shard's results");
    for k in &matrix {
        let k = k.to_string();
        let mut env = top.clone();
        env.extend(vars(&st["env"], &|e| pr_expressions(e, &k, &total)));
        let lines = costbench_lines(s(&st["run"]), &env);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let (c, shard) = parse_check(&lines[0]);
        assert_eq!(
            c.baseline_rev.as_deref(),
            Some("0123456789abcdef0123456789abcdef01234567")
        );
        assert_eq!(
            c.github,
            GithubArg::Off,
            "shards leave reporting to the report job"
        );
        assert_eq!(c.measure.output_dir, Some(PathBuf::from("results")));
        assert_eq!(
            s(&upload["with"]["path"]).trim_end_matches('/'),
            "results",
            "the shard's output directory is what it uploads"
        );
        shards.push(shard.expect("every measure job is a shard"));
        // Exit 3 of a shard does not fail it; the report job judges the whole suite.
        assert!(s(&st["run"]).contains("|| test $? -eq 3"));
    }
    assert_eq!(shards, ["1/4", "2/4", "3/4", "4/4"]);
    assert_eq!(
        s(&upload["with"]["name"]),
        "costbench-shard-${{ matrix.shard }}"
    );

    // report: needs every shard, merges them, checks the merged runs, uploads the report.
    let report = &wf["jobs"]["report"];
    assert_eq!(s(&report["needs"]), "measure");
    let download = step(report, "Download the shards");
    assert_eq!(s(&download["with"]["pattern"]), "costbench-shard-*");
    let shards_dir = s(&download["with"]["path"]);
    let merges = costbench_lines(s(&step(report, "Merge the shards")["run"]), &top);
    assert_eq!(merges.len(), 2, "{merges:?}");
    let mut merged = BTreeMap::new();
    for line in &merges {
        let (dirs, output) = parse_merge(line);
        assert_eq!(dirs.len(), 1, "one glob over the shards: {dirs:?}");
        let side = dirs[0]
            .strip_prefix(&format!("{shards_dir}/*/"))
            .unwrap_or_else(|| panic!("merge reads the downloaded shards: {line:?}"));
        merged.insert(side.to_string(), output);
    }
    let checks = costbench_lines(s(&step(report, "Check the merged runs")["run"]), &top);
    assert_eq!(checks.len(), 1);
    let (c, shard) = parse_check(&checks[0]);
    assert_eq!(shard, None);
    assert_eq!(c.baseline.as_ref(), merged.get("baseline"));
    assert_eq!(c.candidate.as_ref(), merged.get("candidate"));
    assert_eq!(c.github, GithubArg::Auto, "the job summary and annotations");
    assert_eq!(c.markdown, Some(PathBuf::from("costbench/report.md")));
    assert_eq!(c.junit, Some(PathBuf::from("costbench/junit.xml")));
    let pr = step(report, "Say which pull request");
    assert_eq!(s(&pr["if"]), "always()");
    assert_eq!(
        s(&pr["env"]["PR_NUMBER"]),
        "${{ github.event.pull_request.number }}"
    );
    assert!(s(&pr["run"]).contains("> costbench/pr-number"));
    let up = step(report, "Upload the report");
    assert_eq!(s(&up["with"]["name"]), "costbench-report");
    assert_eq!(s(&up["with"]["path"]), "costbench/");
    assert_eq!(s(&up["if"]), "always()");
}

#[test]
fn the_comment_workflow_is_trusted_and_runs_no_pull_request_code() {
    let (_, pr_wf) = load("costbench.yml");
    let (_, wf) = load("costbench-comment.yml");
    no_expressions_in_scripts("costbench-comment.yml", &wf);
    assert_eq!(keys(&wf["on"]), ["workflow_run"]);
    let workflows: Vec<&str> = wf["on"]["workflow_run"]["workflows"]
        .as_vec()
        .unwrap()
        .iter()
        .map(s)
        .collect();
    assert_eq!(workflows, [s(&pr_wf["name"])], "runs after the PR workflow");
    assert_eq!(
        wf["on"]["workflow_run"]["types"].as_vec().unwrap(),
        &[Yaml::String("completed".into())]
    );
    assert_eq!(keys(&wf["permissions"]), ["actions", "pull-requests"]);
    assert_eq!(s(&wf["permissions"]["pull-requests"]), "write");
    let job = &wf["jobs"]["comment"];
    assert!(s(&job["if"]).contains("github.event.workflow_run.event == 'pull_request'"));
    for st in steps(job) {
        if let Some(uses) = st["uses"].as_str() {
            assert!(
                uses.starts_with("actions/download-artifact@"),
                "only the artifact is fetched, never the code: {uses}"
            );
        }
        if let Some(run) = st["run"].as_str() {
            for c in commands(run, &BTreeMap::new()) {
                assert!(
                    ![
                        "costbench",
                        "cargo",
                        "git",
                        "make",
                        "bash",
                        "sh",
                        "source",
                        "."
                    ]
                    .contains(&c[0].as_str()),
                    "runs {c:?}"
                );
            }
        }
    }
    let download = step(job, "Download the report");
    assert_eq!(s(&download["with"]["name"]), "costbench-report");
    assert_eq!(
        s(&download["with"]["run-id"]),
        "${{ github.event.workflow_run.id }}"
    );
    let dir = s(&download["with"]["path"]);
    let post = step(job, "Create or update");
    let run = s(&post["run"]);
    assert!(run.contains(&format!("{dir}/pr-number")), "{run}");
    assert!(run.contains(&format!("{dir}/report.md")), "{run}");
    // One comment, found by its hidden marker among the bot's own, edited in place.
    assert!(run.contains("marker='<!-- costbench -->'"), "{run}");
    assert!(run.contains(r#"select(.user.login == "github-actions[bot]" and (.body | startswith("<!-- costbench -->")))"#), "{run}");
    assert!(
        run.contains("--method PATCH \"repos/$REPO/issues/comments/$id\""),
        "{run}"
    );
    assert!(
        run.contains("--method POST \"repos/$REPO/issues/$pr/comments\""),
        "{run}"
    );
    // The artifact's pull-request number is checked against the commit the run measured.
    assert!(run.contains(r#"case "$pr" in '' | *[!0-9]*)"#), "{run}");
    assert!(
        run.contains(r#"if [ "$head" != "$HEAD_SHA" ]; then"#),
        "{run}"
    );
    assert_eq!(
        s(&post["env"]["HEAD_SHA"]),
        "${{ github.event.workflow_run.head_sha }}"
    );
}

/// Issue 15: the variants workflow builds each shard's share of the preset's variants and merges
/// the shards into one matrix, every costbench line parsed by the real definitions.
#[test]
fn the_variants_workflow_shards_the_preset_and_merges_the_matrix() {
    let (_, wf) = load("costbench-variants.yml");
    no_expressions_in_scripts("costbench-variants.yml", &wf);
    assert_eq!(keys(&wf["on"]), ["schedule", "workflow_dispatch"]);
    assert_eq!(keys(&wf["permissions"]), ["contents"]);
    assert_eq!(s(&wf["permissions"]["contents"]), "read");
    assert_eq!(keys(&wf["jobs"]), ["measure", "matrix"]);
    let top = vars(&wf["env"], &|e| panic!("{e}"));

    let measure = &wf["jobs"]["measure"];
    let shards: Vec<i64> = measure["strategy"]["matrix"]["shard"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(shards, [1, 2, 3, 4]);
    let total = shards.len().to_string();
    let st = step(measure, "Build and measure this shard");
    let upload = step(measure, "Upload this shard's variants");
    assert_eq!(s(&upload["if"]), "always()");
    for k in &shards {
        let k = k.to_string();
        let mut env = top.clone();
        env.extend(vars(&st["env"], &|e| pr_expressions(e, &k, &total)));
        let lines = costbench_lines(s(&st["run"]), &env);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let cli = Cli::try_parse_from(&lines[0]).unwrap_or_else(|e| panic!("{:?}:\n{e}", lines[0]));
        let Command::Variants(v) = cli.command else {
            panic!("not variants: {:?}", lines[0]);
        };
        assert_eq!(v.variants.preset.as_deref(), Some("build-choices"));
        assert_eq!(v.measure.shard, Some(format!("{k}/4")));
        let output = v.measure.output_dir.expect("an output root");
        assert_eq!(
            s(&upload["with"]["path"]).trim_end_matches('/'),
            output.to_str().unwrap(),
            "the shard's root is what it uploads"
        );
        // Instruction counts only: one job measures the baseline (docs/sharding.md).
        use costbench_record::instrument::{Instrument, InstrumentSet};
        assert_eq!(
            v.measure.instrument,
            [
                InstrumentSet::of(Instrument::Icount),
                InstrumentSet::of(Instrument::Census)
            ]
        );
    }
    assert_eq!(
        s(&upload["with"]["name"]),
        "costbench-variants-${{ matrix.shard }}"
    );

    let job = &wf["jobs"]["matrix"];
    assert_eq!(s(&job["needs"]), "measure");
    let download = step(job, "Download the shards");
    assert_eq!(s(&download["with"]["pattern"]), "costbench-variants-*");
    let dir = s(&download["with"]["path"]);
    let merge_step = step(job, "Merge the shards");
    let lines = costbench_lines(s(&merge_step["run"]), &top);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let cli = Cli::try_parse_from(&lines[0]).unwrap_or_else(|e| panic!("{:?}:\n{e}", lines[0]));
    let Command::Merge(m) = cli.command else {
        panic!("not merge: {:?}", lines[0]);
    };
    // Every downloaded artifact is one shard's root.
    assert_eq!(
        m.dirs,
        [PathBuf::from(format!("{dir}/costbench-variants-*"))]
    );
    assert_eq!(m.format, costbench_report::render::Format::Markdown);
    assert!(s(&merge_step["run"]).contains(">> \"$GITHUB_STEP_SUMMARY\""));
    let up = step(job, "Upload the merged variants");
    assert_eq!(
        s(&up["with"]["path"]).trim_end_matches('/'),
        m.output_dir.unwrap().to_str().unwrap()
    );
}

#[test]
fn the_gitlab_job_parses() {
    let (_, wf) = load("gitlab-ci.yml");
    let job = &wf["costbench"];
    let mut env = vars(&job["variables"], &|e| panic!("{e}"));
    env.insert(
        "CI_MERGE_REQUEST_DIFF_BASE_SHA".into(),
        "0123456789abcdef".into(),
    );
    let mut checks = Vec::new();
    for line in job["script"].as_vec().unwrap() {
        checks.extend(costbench_lines(s(line), &env));
    }
    assert_eq!(checks.len(), 1);
    let (c, _) = parse_check(&checks[0]);
    assert_eq!(c.junit, Some(PathBuf::from("junit.xml")));
    assert_eq!(s(&job["artifacts"]["reports"]["junit"]), "junit.xml");
    assert_eq!(s(&job["variables"]["GIT_DEPTH"]), "0");
}

#[test]
fn the_page_shows_the_workflows_as_shipped() {
    let page = std::fs::read_to_string(common::workspace().join("docs/github-actions.md")).unwrap();
    for name in [
        "costbench.yml",
        "costbench-comment.yml",
        "costbench-variants.yml",
        "gitlab-ci.yml",
    ] {
        let (text, _) = load(name);
        assert!(
            page.contains(&format!("```yaml\n{text}```\n")),
            "docs/github-actions.md does not show docs/workflows/{name} as it is"
        );
    }
}

#[test]
fn the_shell_lexer() {
    let env: BTreeMap<String, String> =
        [("A".to_string(), "x y".to_string())].into_iter().collect();
    assert_eq!(
        commands(
            "costbench check --a \"$A\" '$A' \\\n  --b=${A}z || test $? -eq 3 # c\nif x; then echo \"q\\\"\"; fi",
            &env
        ),
        [
            vec!["costbench", "check", "--a", "x y", "$A", "--b=x yz"],
            vec!["test", "0", "-eq", "3"],
            vec!["x"],
            vec!["echo", "q\""],
            vec!["fi"],
        ]
    );
}
