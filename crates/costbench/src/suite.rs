//! Registration of scenarios: names, declared operations, parties.
//!
//! This module only records what the user declared and validates it; running is `child`'s job.

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
        let mut s = Suite {
            scenarios: Vec::new(),
        };
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
    pub fn bench<F>(&mut self, name: impl Into<String>, ops: Ops, f: F) -> &mut Suite
    where
        F: Fn(&mut Bench) + Send + Sync + 'static,
    {
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
        let f = Arc::new(f);
        for p in params {
            let o = ops(&p);
            let f = f.clone();
            self.bench(format!("{name}/{p}"), o, move |b| f(b, &p));
        }
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
    pub fn multi(&mut self, name: impl Into<String>, ops: Ops) -> Multi<'_> {
        self.push(Scenario {
            name: name.into(),
            ops,
            parties: Vec::new(),
            body: None,
            internal: false,
            service: None,
        });
        Multi { suite: self }
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
    pub fn service(&mut self, name: impl Into<String>, ops: Ops) -> Service<'_> {
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
            scenario: self.scenarios.last_mut().expect("just pushed"),
        }
    }

    fn push(&mut self, s: Scenario) {
        self.scenarios.push(s);
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
fn check_name(name: &str) -> Result<(), &'static str> {
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

/// Builder for the parties of a multi-party scenario, returned by [`Suite::multi`].
pub struct Multi<'a> {
    suite: &'a mut Suite,
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
    pub fn party<F>(self, name: impl Into<String>, f: F) -> Self
    where
        F: Fn(&mut Bench) + Send + Sync + 'static,
    {
        let s = self
            .suite
            .scenarios
            .last_mut()
            .expect("Multi is only created right after pushing its scenario");
        s.parties.push((name.into(), Arc::new(f)));
        self
    }
}

/// Builder of a service scenario, returned by [`Suite::service`].
pub struct Service<'a> {
    scenario: &'a mut Scenario,
}

impl std::fmt::Debug for Service<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("name", &self.scenario.name)
            .finish_non_exhaustive()
    }
}

impl Service<'_> {
    fn def(&mut self) -> &mut ServiceDef {
        self.scenario
            .service
            .as_mut()
            .expect("a Service builder is only made for a service scenario")
    }

    /// Rebuilds the parties and the per-run ops after a change.
    fn refresh(mut self) -> Self {
        let def = self.def().clone();
        self.scenario.parties = def.parties();
        self.scenario.ops = ops(
            def.ops_per_request.saturating_mul(def.requests_per_run),
            self.scenario.ops.unit().to_string(),
        );
        self
    }

    /// The server: `f` runs once per server (setup, not measured) and registers the handler
    /// with [`crate::Server::serve`].
    pub fn server<F>(mut self, f: F) -> Self
    where
        F: Fn(&mut crate::Server) + Send + Sync + 'static,
    {
        self.def().server = Some(Arc::new(f));
        self.refresh()
    }

    /// The clients: `f` runs once per client (setup, not measured) and registers the request
    /// maker with [`Client::request`].
    pub fn client<F>(mut self, f: F) -> Self
    where
        F: Fn(&mut crate::Client) + Send + Sync + 'static,
    {
        self.def().client = Some(Arc::new(f));
        self.refresh()
    }

    /// How many requests one run of the parties' measured bodies makes when the service is
    /// measured per request (instruction counts, wall time); default 100. Per-op figures divide
    /// by it, so it only trades the harness's share against the time one run takes.
    pub fn requests_per_run(mut self, n: u64) -> Self {
        self.def().requests_per_run = n.max(1);
        self.refresh()
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
        crate::child::once(sc);
        assert_eq!(ANSWERED.load(Ordering::Relaxed), 7);
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
