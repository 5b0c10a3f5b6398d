//! Which of a binary's listed scenarios a command runs: `--filter` over the listing, without the
//! library's internal scenarios. A pure function of the listing, shared by `run` and `miri`;
//! it spawns nothing and prints nothing.

use anyhow::{bail, Result};
use costbench_protocol::{Listing, ScenarioInfo};

/// The listed scenarios the filter selects (all but internal ones without a filter).
pub fn select<'a>(
    listing: &'a Listing,
    filter: Option<&regex::Regex>,
) -> Result<Vec<&'a ScenarioInfo>> {
    let user: Vec<&ScenarioInfo> = listing.scenarios.iter().filter(|s| !s.internal).collect();
    let selected: Vec<&ScenarioInfo> = user
        .iter()
        .copied()
        .filter(|s| filter.is_none_or(|f| f.is_match(&s.name)))
        .collect();
    if selected.is_empty() {
        let names: Vec<&str> = user.iter().map(|s| s.name.as_str()).collect();
        match filter {
            Some(f) => crate::bad_input!(
                "--filter {:?} matches no scenario; scenarios: {}",
                f.as_str(),
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            ),
            None => bail!("the bench target registers no scenarios"),
        }
    }
    Ok(selected)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(names: &[(&str, bool)]) -> Listing {
        Listing {
            protocol: costbench_protocol::PROTOCOL_VERSION,
            library_version: "0.1.0".into(),
            scenarios: names
                .iter()
                .map(|&(name, internal)| ScenarioInfo {
                    name: name.into(),
                    ops: 1,
                    unit: "op".into(),
                    parties: vec![],
                    internal,
                    service: None,
                })
                .collect(),
            capabilities: vec![],
            budgets: vec![],
        }
    }

    fn names(selected: &[&ScenarioInfo]) -> Vec<String> {
        selected.iter().map(|s| s.name.clone()).collect()
    }

    #[test]
    fn internal_scenarios_are_never_selected() {
        let l = listing(&[("a", false), ("costbench::residual", true), ("b", false)]);
        assert_eq!(names(&select(&l, None).unwrap()), ["a", "b"]);
        let all = regex::Regex::new(".").unwrap();
        assert_eq!(names(&select(&l, Some(&all)).unwrap()), ["a", "b"]);
    }

    #[test]
    fn the_filter_is_a_regex_over_names() {
        let l = listing(&[
            ("sort_small", false),
            ("sort_large", false),
            ("hash", false),
        ]);
        let f = regex::Regex::new("^sort_").unwrap();
        assert_eq!(
            names(&select(&l, Some(&f)).unwrap()),
            ["sort_small", "sort_large"]
        );
    }

    #[test]
    fn an_empty_selection_is_an_error_that_lists_the_scenarios() {
        let l = listing(&[("a", false), ("costbench::residual", true), ("b", false)]);
        let f = regex::Regex::new("zzz").unwrap();
        assert_eq!(
            select(&l, Some(&f)).unwrap_err().to_string(),
            "--filter \"zzz\" matches no scenario; scenarios: a, b"
        );
        // A wrong command line, which the runner reports as a usage error (issue 29).
        assert!(crate::error::is_bad_input(
            &select(&l, Some(&f)).unwrap_err()
        ));
        let only_internal = listing(&[("costbench::residual", true)]);
        assert_eq!(
            select(&only_internal, Some(&f)).unwrap_err().to_string(),
            "--filter \"zzz\" matches no scenario; scenarios: none"
        );
        assert_eq!(
            select(&only_internal, None).unwrap_err().to_string(),
            "the bench target registers no scenarios"
        );
    }
}
