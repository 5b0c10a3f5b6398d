//! Registration of scenarios: names, declared operations, parties.
//!
//! This module only records what the user declared and validates it; running is `child`'s job.
//!
//! In a process the runner started to run one scenario (`--costbench-child MODE ... NAME`), the
//! suite keeps only that scenario: every other registration is compared by name without
//! allocating and then forgotten, so that the heap the measured scenario's setup starts from does
//! not hold the rest of the suite (issue 32: one more registered scenario moved another's
//! instruction count by 1 %). What the user's own code allocated to register it (a `format!`ed
//! name, state captured by the closure) is leaked rather than freed: freeing a large block would
//! move glibc's dynamic mmap threshold, and what remains of small temporaries the child settles
//! before the setup begins ([`crate::placement`]).

use crate::bench::{Bench, BodyFn};
use crate::service::{ServiceDef, DEFAULT_REQUESTS_PER_RUN};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt::Display;
use std::sync::Arc;

/// The number of operations one run of a measured body performs, and what an operation is.
///
/// Every figure the runner reports is divided by `count`, so "Ir/op" means instructions per
/// lookup, per request, per byte: whatever `unit` says.
///
/// ```
/// let o = costbench::ops(4096, "bytes");
/// assert_eq!(o.count(), 4096);
/// assert_eq!(o.unit(), "bytes");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ops {
    count: u64,
    unit: Cow<'static, str>,
}

impl Ops {
    /// Operations per run of the body.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// What one operation is.
    pub fn unit(&self) -> &str {
        &self.unit
    }
}

/// Declares `count` operations of kind `unit` per run of the measured body.
///
/// ```
/// let per_packet = costbench::ops(64, "packets");
/// # assert_eq!(per_packet.count(), 64);
/// ```
pub fn ops(count: u64, unit: impl Into<Cow<'static, str>>) -> Ops {
    Ops {
        count,
        unit: unit.into(),
    }
}

pub(crate) struct Scenario {
    pub(crate) name: String,
    pub(crate) ops: Ops,
    /// Empty for a single-process scenario.
    pub(crate) parties: Vec<(String, BodyFn)>,
    /// Present for a single-process scenario.
    pub(crate) body: Option<BodyFn>,
    pub(crate) internal: bool,
    /// Present for a service scenario: its parties are made from it.
    pub(crate) service: Option<ServiceDef>,
}

/// The set of scenarios in one bench binary. Build it in `main`, then call [`Suite::main`].
///
/// ```no_run
/// use costbench::{ops, Suite};
///
/// let mut suite = Suite::new();
/// suite.bench("parse/u64", ops(1, "numbers"), |b| {
///     b.iter(|| costbench::black_box("18446744073709551615").parse::<u64>())
/// });
/// suite.main();
/// ```
pub struct Suite {
    pub(crate) scenarios: Vec<Scenario>,
    /// Declared budgets, in declaration order; kept only when listing (not in a child).
    pub(crate) budgets: Vec<costbench_protocol::Budget>,
    /// In a child that runs one scenario: its name. Other registrations are not kept.
    only: Option<String>,
}

impl std::fmt::Debug for Suite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Suite")
            .field(
                "scenarios",
                &self.scenarios.iter().map(|s| &s.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Default for Suite {
    fn default() -> Self {
        Self::new()
    }
}

impl Suite {
    /// An empty suite (plus the library's own empty scenario, which measures the harness
    /// residual and is hidden from listings).
    ///
    /// ```
    /// let suite = costbench::Suite::new();
    /// # let _ = suite;
    /// ```
    pub fn new() -> Suite {
        Suite::keeping(crate::child_args::only_scenario())
    }

    /// A suite that keeps only the scenario called `only` (all when `None`).
    pub(crate) fn keeping(only: Option<String>) -> Suite {
        let mut s = Suite {
            scenarios: Vec::new(),
            budgets: Vec::new(),
            only,
        };
        if !s.wanted(costbench_protocol::RESIDUAL_SCENARIO) {
            return s;
        }
        s.push(Scenario {
            name: costbench_protocol::RESIDUAL_SCENARIO.to_string(),
            ops: ops(1, "runs"),
            parties: Vec::new(),
            body: Some(Arc::new(|b: &mut Bench| b.iter(|| ()))),
            internal: true,
            service: None,
        });
        s
    }

    /// Registers a single-process scenario. `f` runs in the measured process: everything it
    /// does before calling [`Bench::iter`] is setup and is not measured.
    ///
    /// ```no_run
    /// use costbench::{black_box, ops, Suite};
    /// let mut suite = Suite::new();
    /// suite.bench("vec/push", ops(1000, "pushes"), |b| {
    ///     b.iter(|| {
    ///         let mut v = Vec::new();
    ///         for i in 0..1000u32 { v.push(black_box(i)); }
    ///         v
    ///     })
    /// });
    /// suite.main();
    /// ```
    pub fn bench<N, F>(&mut self, name: N, ops: Ops, f: F) -> &mut Suite
    where
        N: AsRef<str> + Into<String>,
        F: Fn(&mut Bench) + Send + Sync + 'static,
    {
        if !self.wanted(name.as_ref()) {
            forget((name, ops, f));
            return self;
        }
        self.push(Scenario {
            name: name.into(),
            ops,
            parties: Vec::new(),
            body: Some(Arc::new(f)),
            internal: false,
            service: None,
        });
        self
    }

    /// Registers one scenario per parameter, named `NAME/PARAM`, with operations that may
    /// depend on the parameter.
    ///
    /// ```no_run
    /// use costbench::{black_box, ops, Suite};
    /// let mut suite = Suite::new();
    /// suite.bench_params("sort", [100usize, 10_000], |n| ops(*n as u64, "elements"), |b, n| {
    ///     let data: Vec<u32> = (0..*n as u32).rev().collect();
    ///     b.iter_with_setup(|| data.clone(), |mut v| { v.sort_unstable(); v })
    /// });
    /// suite.main();
    /// ```
    pub fn bench_params<P, O, F>(
        &mut self,
        name: &str,
        params: impl IntoIterator<Item = P>,
        ops: O,
        f: F,
    ) -> &mut Suite
    where
        P: Display + Send + Sync + 'static,
        O: Fn(&P) -> Ops,
        F: Fn(&mut Bench, &P) + Send + Sync + 'static,
    {
        let mut body = Some(f);
        let mut shared = None;
        for p in params {
            if !self.wanted_fmt(format_args!("{name}/{p}")) {
                forget(p);
                continue;
            }
            let o = ops(&p);
            let f: Arc<F> = shared
                .get_or_insert_with(|| Arc::new(body.take().expect("taken once")))
                .clone();
            self.bench(format!("{name}/{p}"), o, move |b| f(b, &p));
        }
        // Not one of the parameters is kept.
        forget(body);
        self
    }

    /// Registers a multi-party scenario; add its parties with [`Multi::party`]. Each party runs
    /// in its own process under instruction counting (connected to the others by pipes) and in
    /// its own thread for wall time (connected by in-memory pipes), and is reported on its own as
    /// `NAME_PARTY`.
    ///
    /// ```no_run
    /// use std::io::{Read, Write};
    /// use costbench::{ops, Suite};
    /// let mut suite = Suite::new();
    /// suite
    ///     .multi("echo", ops(1, "round trips"))
    ///     .party("client", |b| {
    ///         let mut io = b.peer();
    ///         b.iter(move || {
    ///             io.write_all(b"ping").unwrap();
    ///             let mut r = [0; 4];
    ///             io.read_exact(&mut r).unwrap();
    ///         })
    ///     })
    ///     .party("server", |b| {
    ///         let mut io = b.peer();
    ///         b.iter(move || {
    ///             let mut r = [0; 4];
    ///             io.read_exact(&mut r).unwrap();
    ///             io.write_all(&r).unwrap();
    ///         })
    ///     });
    /// suite.main();
    /// ```
    pub fn multi<N>(&mut self, name: N, ops: Ops) -> Multi<'_>
    where
        N: AsRef<str> + Into<String>,
    {
        if !self.wanted(name.as_ref()) {
            forget((name, ops));
            return Multi { suite: None };
        }
        self.push(Scenario {
            name: name.into(),
            ops,
            parties: Vec::new(),
            body: None,
            internal: false,
            service: None,
        });
        Multi { suite: Some(self) }
    }

    /// Registers a service scenario: a server and its clients, with `ops` operations per
    /// request. Give it its sides with [`Service::server`] and [`Service::client`].
    ///
    /// It is measured two ways. As two parties, `client` and `server` (reported as
    /// `NAME_client` and `NAME_server`) connected by a pipe, one run of their bodies being
    /// [`Service::requests_per_run`] requests: instruction counts, the census of bounds checks,
    /// wall time and memory per op of each side. And under load, with the runner's
    /// `throughput` instrument: the server in a process of its own on loopback TCP, N clients
    /// in another, reporting operations per second and latency percentiles.
    ///
    /// ```no_run
    /// use std::io::{Read, Write};
    /// use std::sync::Arc;
    /// use costbench::{ops, Suite};
    /// let mut suite = Suite::new();
    /// suite
    ///     .service("kv/get", ops(1, "queries"))
    ///     .server(|s| {
    ///         let table: Arc<Vec<u64>> = Arc::new((0..1024).collect()); // setup
    ///         s.serve(move |conn| {
    ///             let mut key = [0u8; 8];
    ///             conn.read_exact(&mut key)?;
    ///             let v = table[u64::from_le_bytes(key) as usize % table.len()];
    ///             conn.write_all(&v.to_le_bytes())
    ///         })
    ///     })
    ///     .client(|c| {
    ///         let seed = u64::from(c.index());
    ///         c.request(move |conn, i| {
    ///             conn.write_all(&(seed * 7919 + i).to_le_bytes())?;
    ///             let mut v = [0u8; 8];
    ///             conn.read_exact(&mut v)
    ///         })
    ///     });
    /// suite.main();
    /// ```
    pub fn service<N>(&mut self, name: N, ops: Ops) -> Service<'_>
    where
        N: AsRef<str> + Into<String>,
    {
        if !self.wanted(name.as_ref()) {
            forget((name, ops));
            return Service { scenario: None };
        }
        let def = ServiceDef {
            server: None,
            client: None,
            ops_per_request: ops.count,
            requests_per_run: DEFAULT_REQUESTS_PER_RUN,
        };
        self.push(Scenario {
            name: name.into(),
            ops: Ops {
                count: ops.count.saturating_mul(def.requests_per_run),
                unit: ops.unit,
            },
            parties: Vec::new(),
            body: None,
            internal: false,
            service: Some(def),
        });
        Service {
            scenario: Some(self.scenarios.last_mut().expect("just pushed")),
        }
    }

    /// Declares a [`Budget`](crate::Budget) for every measured id that `scenario` matches (a
    /// glob: `*` matches any run of characters; a multi-party scenario's ids are `NAME_PARTY`).
    /// `costbench run` and `costbench check` fail when a figure is above its limit, naming the
    /// id, the figure and the limit. A `[[budget]]` of `costbench.toml` declared for the same id
    /// and figure overrides this one.
    ///
    /// ```no_run
    /// use costbench::{black_box, ops, Budget, Suite};
    /// let mut suite = Suite::new();
    /// suite.bench("parse/u64", ops(1, "numbers"), |b| {
    ///     b.iter(|| black_box("18446744073709551615").parse::<u64>())
    /// });
    /// suite.budget("parse/*", Budget::new().instructions(400.0).allocations(0.0));
    /// suite.main();
    /// ```
    ///
    /// # Panics
    /// On a budget that limits nothing, a negative limit, or a binary size limited for a
    /// `scenario` other than `"*"`.
    pub fn budget(&mut self, scenario: &str, budget: crate::Budget) -> &mut Suite {
        if self.only.is_some() {
            // A child measures; only the listing carries budgets.
            forget(budget);
            return self;
        }
        let mut b = budget.0;
        b.scenario = scenario.to_string();
        if let Err(e) = b.validate() {
            panic!("costbench: {e}");
        }
        self.budgets.push(b);
        self
    }

    pub(crate) fn push(&mut self, s: Scenario) {
        self.scenarios.push(s);
    }

    /// Whether a scenario called `name` is kept: always, except in a child that runs another.
    fn wanted(&self, name: &str) -> bool {
        self.only.as_deref().is_none_or(|only| only == name)
    }

    /// [`Suite::wanted`] of a name still to be formatted, compared piece by piece: a child that
    /// runs another scenario allocates nothing for it.
    fn wanted_fmt(&self, name: std::fmt::Arguments<'_>) -> bool {
        let Some(only) = self.only.as_deref() else {
            return true;
        };
        let mut m = Prefix {
            rest: only,
            ok: true,
        };
        std::fmt::Write::write_fmt(&mut m, name).is_ok() && m.ok && m.rest.is_empty()
    }

    pub(crate) fn find(&self, name: &str) -> Option<&Scenario> {
        self.scenarios.iter().find(|s| s.name == name)
    }

    /// Every problem with the registered scenarios, as messages naming the scenario.
    pub(crate) fn validate(&self) -> Vec<String> {
        let mut errors = Vec::new();
        let mut seen = BTreeSet::new();
        for s in &self.scenarios {
            if let Err(e) = check_name(&s.name) {
                errors.push(format!("scenario name {:?}: {e}", s.name));
            }
            if !seen.insert(s.name.as_str()) {
                errors.push(format!(
                    "scenario name {:?} is registered twice; names must be unique",
                    s.name
                ));
            }
            if s.ops.count == 0 {
                errors.push(format!(
                    "scenario {:?} declares 0 ops; declare how many operations one run of the body performs",
                    s.name
                ));
            }
            if s.ops.unit.trim().is_empty() || s.ops.unit.chars().any(char::is_control) {
                errors.push(format!(
                    "scenario {:?} has an empty or unprintable ops unit",
                    s.name
                ));
            }
            if let Some(def) = &s.service {
                if def.server.is_none() || def.client.is_none() {
                    errors.push(format!(
                        "service scenario {:?} needs both .server(f) and .client(f)",
                        s.name
                    ));
                }
                if def.ops_per_request == 0 {
                    errors.push(format!(
                        "scenario {:?} declares 0 ops; declare how many operations one request performs",
                        s.name
                    ));
                }
            } else if s.body.is_none() {
                if s.parties.len() < 2 {
                    errors.push(format!(
                        "multi-party scenario {:?} has {} part{}; add at least two with .party(NAME, f)",
                        s.name,
                        s.parties.len(),
                        if s.parties.len() == 1 { "y" } else { "ies" }
                    ));
                }
                let mut pseen = BTreeSet::new();
                for (p, _) in &s.parties {
                    if p.is_empty()
                        || !p
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    {
                        errors.push(format!(
                            "scenario {:?}: party name {p:?} must be non-empty ASCII letters, digits, '_' or '-'",
                            s.name
                        ));
                    }
                    if !pseen.insert(p.as_str()) {
                        errors.push(format!(
                            "scenario {:?}: party {p:?} is registered twice",
                            s.name
                        ));
                    }
                }
            }
        }
        errors
    }
}

/// Scenario names are ids that end up in file names, CSV and reports: printable, no commas
/// (rustls's `name,count` CSV has no quoting), no surrounding whitespace.
pub(crate) fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("is empty");
    }
    if name.len() > 200 {
        return Err("is longer than 200 bytes");
    }
    if name.trim() != name {
        return Err("starts or ends with whitespace");
    }
    if name.chars().any(|c| c.is_control()) {
        return Err("contains a control character");
    }
    if name.contains(',') {
        return Err("contains a comma, which the CSV outputs cannot hold");
    }
    Ok(())
}

/// Registration that a child running another scenario does not keep: leaked, not dropped (see
/// the module's docs). The process exits after its one scenario.
fn forget<T>(t: T) {
    std::mem::forget(t);
}

/// Compares formatted output with a string without allocating.
struct Prefix<'a> {
    rest: &'a str,
    ok: bool,
}

impl std::fmt::Write for Prefix<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        match self.rest.strip_prefix(s) {
            Some(rest) if self.ok => self.rest = rest,
            _ => self.ok = false,
        }
        Ok(())
    }
}

/// Builder for the parties of a multi-party scenario, returned by [`Suite::multi`].
pub struct Multi<'a> {
    /// `None` when this child does not keep the scenario.
    suite: Option<&'a mut Suite>,
}

impl std::fmt::Debug for Multi<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Multi").finish_non_exhaustive()
    }
}

impl Multi<'_> {
    /// Adds a party. `f` is the party's whole life: setup, then one call to [`Bench::iter`]
    /// (measured), with [`Bench::peer`] or [`Bench::peer_named`] giving the links to the others.
    ///
    /// ```no_run
    /// use std::io::{Read, Write};
    /// let mut suite = costbench::Suite::new();
    /// suite
    ///     .multi("upload", costbench::ops(65536, "bytes"))
    ///     .party("client", |b| {
    ///         let mut io = b.peer();
    ///         let data = vec![7u8; 65536];
    ///         b.iter(move || io.write_all(&data).unwrap())
    ///     })
    ///     .party("server", |b| {
    ///         let mut io = b.peer();
    ///         let mut buf = vec![0u8; 65536];
    ///         b.iter(move || io.read_exact(&mut buf).unwrap())
    ///     });
    /// suite.main();
    /// ```
    pub fn party<F>(mut self, name: impl Into<String>, f: F) -> Self
    where
        F: Fn(&mut Bench) + Send + Sync + 'static,
    {
        let Some(suite) = self.suite.as_mut() else {
            forget((name, f));
            return self;
        };
        let s = suite
            .scenarios
            .last_mut()
            .expect("Multi is only created right after pushing its scenario");
        s.parties.push((name.into(), Arc::new(f)));
        self
    }
}

/// Builder of a service scenario, returned by [`Suite::service`].
pub struct Service<'a> {
    /// `None` when this child does not keep the scenario.
    scenario: Option<&'a mut Scenario>,
}

impl std::fmt::Debug for Service<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("name", &self.scenario.as_ref().map(|s| &s.name))
            .finish_non_exhaustive()
    }
}

impl Service<'_> {
    /// Applies `change` to the service's definition and rebuilds its parties and per-run ops;
    /// leaks `keep` unused when this child does not keep the scenario.
    fn update<T>(mut self, keep: T, change: impl FnOnce(&mut ServiceDef, T)) -> Self {
        let Some(scenario) = self.scenario.as_mut() else {
            forget(keep);
            return self;
        };
        let def = scenario
            .service
            .as_mut()
            .expect("a Service builder is only made for a service scenario");
        change(def, keep);
        let def = def.clone();
        scenario.parties = def.parties();
        scenario.ops = ops(
            def.ops_per_request.saturating_mul(def.requests_per_run),
            scenario.ops.unit().to_string(),
        );
        self
    }

    /// The server: `f` runs once per server (setup, not measured) and registers the handler
    /// with [`crate::Server::serve`].
    pub fn server<F>(self, f: F) -> Self
    where
        F: Fn(&mut crate::Server) + Send + Sync + 'static,
    {
        self.update(f, |def, f| def.server = Some(Arc::new(f)))
    }

    /// The clients: `f` runs once per client (setup, not measured) and registers the request
    /// maker with [`Client::request`].
    ///
    /// [`Client::request`]: crate::Client::request
    pub fn client<F>(self, f: F) -> Self
    where
        F: Fn(&mut crate::Client) + Send + Sync + 'static,
    {
        self.update(f, |def, f| def.client = Some(Arc::new(f)))
    }

    /// How many requests one run of the parties' measured bodies makes when the service is
    /// measured per request (instruction counts, wall time); default 100. Per-op figures divide
    /// by it, so it only trades the harness's share against the time one run takes.
    pub fn requests_per_run(self, n: u64) -> Self {
        self.update(n, |def, n| def.requests_per_run = n.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        for (name, ok) in [
            ("a/b:c-1", true),
            ("with space", true),
            ("", false),
            (" lead", false),
            ("a,b", false),
            ("tab\there", false),
        ] {
            assert_eq!(check_name(name).is_ok(), ok, "{name:?}");
        }
    }

    #[test]
    fn validation_reports_duplicates_zero_ops_and_lonely_parties() {
        let mut s = Suite::new();
        s.bench("x", ops(1, "op"), |b| b.iter(|| ()));
        s.bench("x", ops(0, "op"), |b| b.iter(|| ()));
        s.multi("m", ops(1, "op")).party("only", |b| b.iter(|| ()));
        let errors = s.validate();
        assert_eq!(errors.len(), 3, "{errors:#?}");
        assert!(errors[0].contains("registered twice"));
        assert!(errors[1].contains("0 ops"));
        assert!(errors[2].contains("has 1 party"));
    }

    #[test]
    fn params_expand_to_named_scenarios() {
        let mut s = Suite::new();
        s.bench_params(
            "sort",
            [10u32, 20],
            |n| ops(u64::from(*n), "el"),
            |b, _| b.iter(|| ()),
        );
        let names: Vec<_> = s.scenarios.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["costbench::residual", "sort/10", "sort/20"]);
        assert_eq!(s.find("sort/20").unwrap().ops.count(), 20);
    }

    #[test]
    fn a_service_is_two_parties_with_ops_per_run_and_runs_once_over_links() {
        use std::io::{Read, Write};
        use std::sync::atomic::{AtomicU64, Ordering};
        static ANSWERED: AtomicU64 = AtomicU64::new(0);
        let mut s = Suite::new();
        s.service("svc", ops(3, "queries"))
            .requests_per_run(7)
            .server(|srv| {
                srv.serve(|conn| {
                    let mut q = [0u8; 1];
                    conn.read_exact(&mut q)?;
                    ANSWERED.fetch_add(1, Ordering::Relaxed);
                    conn.write_all(&[q[0] + 1])
                })
            })
            .client(|c| {
                assert_eq!((c.index(), c.clients()), (0, 1));
                c.request(|conn, i| {
                    conn.write_all(&[i as u8])?;
                    let mut r = [0u8; 1];
                    conn.read_exact(&mut r)?;
                    assert_eq!(r[0], i as u8 + 1);
                    Ok(())
                })
            });
        assert!(s.validate().is_empty(), "{:?}", s.validate());
        let sc = s.find("svc").unwrap();
        let parties: Vec<_> = sc.parties.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(parties, ["client", "server"]);
        assert_eq!(sc.ops.count(), 21, "3 ops per request, 7 requests per run");
        crate::body::once(sc);
        assert_eq!(ANSWERED.load(Ordering::Relaxed), 7);
    }

    #[test]
    fn a_child_that_runs_one_scenario_keeps_only_it() {
        let register = |s: &mut Suite| {
            s.bench("a", ops(1, "op"), |b| b.iter(|| ()));
            s.bench_params(
                "p",
                [1u32, 22],
                |n| ops(u64::from(*n), "el"),
                |b, _| b.iter(|| ()),
            );
            s.multi("m", ops(1, "op"))
                .party("x", |b| b.iter(|| ()))
                .party("y", |b| b.iter(|| ()));
            s.service("svc", ops(2, "q"))
                .server(|srv| srv.serve(|_| Ok(())))
                .client(|c| c.request(|_, _| Ok(())));
        };
        for (only, kept, parties) in [
            ("a", "a", 0),
            ("p/22", "p/22", 0),
            ("m", "m", 2),
            ("svc", "svc", 2),
            (
                costbench_protocol::RESIDUAL_SCENARIO,
                costbench_protocol::RESIDUAL_SCENARIO,
                0,
            ),
        ] {
            let mut s = Suite::keeping(Some(only.to_string()));
            register(&mut s);
            let names: Vec<_> = s.scenarios.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(names, [kept], "only {only:?}");
            assert_eq!(s.scenarios[0].parties.len(), parties, "only {only:?}");
            assert!(s.validate().is_empty(), "{:?}", s.validate());
        }
        let mut none = Suite::keeping(Some("p/2".to_string()));
        register(&mut none);
        assert!(
            none.scenarios.is_empty(),
            "p/2 is a prefix of p/22, not a match"
        );
        assert_eq!(none.find("p/22").map(|s| &s.name), None);
    }

    #[test]
    fn a_service_needs_both_sides() {
        let mut s = Suite::new();
        s.service("half", ops(1, "q"))
            .server(|srv| srv.serve(|_| Ok(())));
        let errors = s.validate();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("needs both .server(f) and .client(f)"));
    }
}
