//! Scenario globs of `costbench.toml` (`[[check.limit]]`, `[check] ignore`, `[[budget]]`):
//! `*` matches any run of characters, everything else itself. Shared by the gate's limits,
//! the budgets and the declared complexity classes.

/// Whether `glob` (`*` matches any run of characters, everything else itself) matches all of `s`.
pub fn glob_match(glob: &str, s: &str) -> bool {
    let parts: Vec<&str> = glob.split('*').collect();
    if parts.len() == 1 {
        return glob == s;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !s.starts_with(first) || s.len() < first.len() + last.len() || !s.ends_with(last) {
        return false;
    }
    let mut rest = &s[first.len()..s.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        for (g, s, m) in [
            ("*", "anything", true),
            ("index/*", "index/sum", true),
            ("index/*", "words/x", false),
            ("*/checked", "index/sum/checked", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxcyyb", false),
            ("ab*ba", "aba", false),
            ("exact", "exact", true),
            ("exact", "exactly", false),
        ] {
            assert_eq!(glob_match(g, s), m, "{g} {s}");
        }
    }
}
