//! PostgreSQL URLs as they may be shown: every message and `Display` of a `--db` value goes
//! through [`redact`], so that a password never reaches a log. Used by `location` and
//! `postgres`; depends on neither.

/// `url` with the password of its user part and any `password=` parameter replaced by `***`.
pub(crate) fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (before_query, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    // The user part ends at the last `@` before the query: an unencoded `@` or `/` in a password
    // must not leak the password's tail.
    let before_query = match before_query.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}:***@{host}"),
            None => format!("{userinfo}@{host}"),
        },
        None => before_query.to_string(),
    };
    let query = query.map(|q| {
        q.split('&')
            .map(|kv| match kv.split_once('=') {
                Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                _ => kv.to_string(),
            })
            .collect::<Vec<_>>()
            .join("&")
    });
    match query {
        Some(q) => format!("{scheme}://{before_query}?{q}"),
        None => format!("{scheme}://{before_query}"),
    }
}
