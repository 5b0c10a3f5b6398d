//! The messages that a scenario binary (built with the `costbench` library) and the `costbench`
//! runner exchange, and the command line the runner uses to drive a scenario binary.
//!
//! This crate owns the wire format only: it has no behaviour beyond (de)serialising and checking
//! the protocol version. Both sides refuse to talk to a peer of another [`PROTOCOL_VERSION`]; the
//! runner decodes what a child sent with [`Listing::from_stdout`] and [`read_result`], which
//! check it, so that no message is read without its version.
//!
//! # The child command line
//!
//! The runner starts a scenario binary as `BIN --costbench-child MODE ...`:
//!
//! | mode | arguments | what the child does |
//! |---|---|---|
//! | `list` | `--protocol V` | prints a [`Listing`] as JSON on stdout |
//! | `icount` | `--protocol V SCENARIO [--party P] [--peer NAME=RFD,WFD]... [--perturb N]` | runs setup, then the measured body once inside [`MEASURED_REGION_SYMBOL`]; exits 0 on success |
//! | `walltime` | `--protocol V SCENARIO --result FILE [--samples N] [--warmup-ms MS] [--sample-target-us US] [--max-ms MS] [--lockstep RFD,WFD]` | writes a [`WalltimeResult`] as JSON to `FILE`; with `--lockstep`, waits for a byte on `RFD` before each sample and writes one to `WFD` after it (a token ring between builds measured together) |
//! | `once` | `--protocol V SCENARIO [--perturb N]` | runs setup and the body once, in process (a smoke test) |
//! | `memory` | `--protocol V SCENARIO --result FILE [--party P] [--peer NAME=RFD,WFD]... [--perturb N]` | runs setup, then the body once between two readings of the allocation counters; writes a [`CountersResult`] with [`MemoryCounts`] to `FILE` |
//! | `perf` | `--protocol V SCENARIO --result FILE [--party P] [--peer NAME=RFD,WFD]... [--perturb N]` | runs setup, then the body once with hardware counters (`perf_event_open`) enabled around it; writes a [`CountersResult`] with [`PerfCounts`] to `FILE` |
//! | `serve` | `--protocol V SCENARIO --listen-fd FD` | a service scenario's server: runs its setup, then accepts connections on the inherited listening TCP socket `FD`, one thread per connection, until it is killed |
//! | `load` | `--protocol V SCENARIO --connect ADDR --clients N --result FILE [--warmup-ms MS] [--slice-ms MS] [--slices K] [--rate REQUESTS] [--lockstep RFD,WFD]` | a service scenario's load: `N` client threads, one connection each, run their setup, warm up, then measure `K` time slices (waiting for the token before each slice and passing it after, with `--lockstep`); writes a [`LoadResult`] to `FILE` |
//!
//! `--perturb N` (N >= 1; listed as [`CAPABILITY_PERTURB`]) shifts the data placement that setup
//! and body start from: before setup the child allocates a heap block whose size depends on `N`
//! (another size class and another offset modulo 64 for every `N`, so later allocations land
//! elsewhere) and keeps it until the body has run, and runs setup and body in a stack frame
//! lowered by an `N`-dependent amount that is never a multiple of 64 bytes. The runner compares
//! counts under several `N` to see how far a count moves with data placement alone. Without it
//! the child runs exactly as before. `walltime` refuses it.
//!
//! `memory` and `perf` were added in protocol 1 without changing any earlier message: a runner
//! only asks for them when the user asks for those instruments, and an older binary answers
//! "unknown mode".
//!
//! In `icount` mode nothing is written by the child: the count comes from callgrind's output file,
//! and the child's argument list and environment are kept free of run-specific paths so that the
//! measured process is the same from run to run. Parties of a multi-party scenario talk over the
//! inherited pipe file descriptors named by `--peer`.

#![warn(missing_docs)]

mod instrument;
mod version;

pub use instrument::*;
pub use version::{check_version, Versioned, PROTOCOL_VERSION};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;
use version::mismatch_message;

/// First argument that switches a scenario binary into child mode.
pub const CHILD_FLAG: &str = "--costbench-child";

/// Name of the function that wraps every measured body. Callgrind's `--toggle-collect` is pointed
/// at it, so that exactly the measured body (plus the function's own two instructions) is counted.
pub const MEASURED_REGION_SYMBOL: &str = "costbench_measured_region";

/// Exit code a child uses when it was called with another protocol version.
pub const EXIT_PROTOCOL_MISMATCH: i32 = 64;
/// Exit code a child uses when its arguments name an unknown scenario or party, or are malformed.
pub const EXIT_BAD_REQUEST: i32 = 65;
/// Exit code a child uses when the scenario ran but broke the library's rules (for example it
/// never called `iter`).
pub const EXIT_SCENARIO_MISUSE: i32 = 66;

/// What a scenario binary contains, as printed by `BIN --costbench-child list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Listing {
    /// [`PROTOCOL_VERSION`] of the library that built the binary.
    pub protocol: u32,
    /// Version of the `costbench` library that built the binary.
    pub library_version: String,
    /// Every scenario, in registration order.
    pub scenarios: Vec<ScenarioInfo>,
    /// Optional abilities of this library version that a runner may use, such as
    /// [`CAPABILITY_LOCKSTEP`]; absent in listings of older libraries.
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// Budgets the suite declared (`Suite::budget`), in declaration order; absent in listings
    /// of older libraries and of suites that declare none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub budgets: Vec<Budget>,
}

/// Absolute limits on the figures of every measured id that `scenario` matches: declared by a
/// suite (`Suite::budget`) or by a `[[budget]]` table of `costbench.toml`, which share this
/// shape. A limit that is absent limits nothing; a figure above its limit breaks the budget.
///
/// Unknown keys are refused: a budget that a runner cannot enforce must not pass silently.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Budget {
    /// Glob over measured ids (`*` matches any run of characters); default `*`.
    #[serde(default = "every_id")]
    pub scenario: String,
    /// Instructions per op (callgrind's count divided by the scenario's ops).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<f64>,
    /// Allocations per op (`alloc` and `alloc_zeroed` calls; needs the memory instrument).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocations: Option<f64>,
    /// Bytes allocated per op (needs the memory instrument).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<f64>,
    /// Peak of live heap bytes during one run of the body, above its level at the start (not
    /// per op; needs the memory instrument).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_heap: Option<u64>,
    /// Executed bounds, overflow and other panic checks per op (needs the census).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<f64>,
    /// Bytes of the bench binary's loaded sections (code and data, debug info excluded): a
    /// limit on the bench target, not on a scenario, so only in an entry whose `scenario` is `*`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary_size: Option<u64>,
    /// The class the per-op instruction counts of the family `scenario` names (its ids
    /// `scenario/N`) grow with: `1`, `log n`, `n`, `n log n` or `n^2` (the runner reads the
    /// class and refuses others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complexity: Option<String>,
}

fn every_id() -> String {
    "*".into()
}

impl Budget {
    /// A budget over the ids `scenario` matches that limits nothing yet.
    pub fn new(scenario: impl Into<String>) -> Budget {
        Budget {
            scenario: scenario.into(),
            instructions: None,
            allocations: None,
            bytes: None,
            peak_heap: None,
            checks: None,
            binary_size: None,
            complexity: None,
        }
    }

    /// Refuses a budget that limits nothing, a limit that is negative or not a number, and a
    /// binary size limited for some scenarios only; the message says which and what to do.
    pub fn validate(&self) -> Result<(), String> {
        let per_op = [
            ("instructions", self.instructions),
            ("allocations", self.allocations),
            ("bytes", self.bytes),
            ("checks", self.checks),
        ];
        if per_op.iter().all(|(_, v)| v.is_none())
            && self.peak_heap.is_none()
            && self.binary_size.is_none()
            && self.complexity.is_none()
        {
            return Err(format!(
                "the budget for {:?} limits nothing: set instructions, allocations, bytes, \
                 peak-heap, checks, binary-size or complexity",
                self.scenario
            ));
        }
        for (name, v) in per_op {
            if let Some(v) = v.filter(|v| !(v.is_finite() && *v >= 0.0)) {
                return Err(format!(
                    "the budget for {:?}: {name} must be a per-op figure of at least 0, not {v}",
                    self.scenario
                ));
            }
        }
        if self.binary_size.is_some() && self.scenario != "*" {
            return Err(format!(
                "the budget for {:?}: binary-size limits the bench binary, not a scenario; \
                 declare it in a budget without a scenario (or with scenario \"*\")",
                self.scenario
            ));
        }
        Ok(())
    }
}

/// The child understands `--perturb N` in `icount`, `memory`, `perf` and `once` modes.
pub const CAPABILITY_PERTURB: &str = "perturb";

/// One registered scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioInfo {
    /// Stable identifier of the scenario, unique within the binary.
    pub name: String,
    /// Operations performed by one run of the measured body.
    pub ops: u64,
    /// What one operation is ("lookups", "bytes", "requests").
    pub unit: String,
    /// Names of the parties for a multi-party scenario, in registration order; empty for a
    /// single-process scenario.
    pub parties: Vec<String>,
    /// Scenarios the library adds for its own checks (the empty body that measures the harness
    /// residual). Runners measure them but do not list them among the user's scenarios.
    #[serde(default)]
    pub internal: bool,
    /// Present for a service scenario (a server and its clients, `Suite::service`), which the
    /// throughput instrument can put under load; its `parties` are then `client` and `server`,
    /// and `ops` counts a whole run of `requests_per_run` requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<ServiceInfo>,
}

/// How a service scenario's requests relate to its ops.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceInfo {
    /// Operations one request performs (the declared `ops`).
    pub ops_per_request: u64,
    /// Requests one run of the parties' measured bodies makes (instruction counts, wall time):
    /// the listing's `ops` is `ops_per_request * requests_per_run`.
    pub requests_per_run: u64,
}

impl ScenarioInfo {
    /// The names under which this scenario's figures are reported: the scenario name for a
    /// single-process scenario, `NAME_PARTY` for each party of a multi-party one.
    pub fn measured_ids(&self) -> Vec<String> {
        if self.parties.is_empty() {
            vec![self.name.clone()]
        } else {
            self.parties
                .iter()
                .map(|p| party_id(&self.name, p))
                .collect()
        }
    }
}

/// Reported name of one party of a multi-party scenario.
pub fn party_id(scenario: &str, party: &str) -> String {
    format!("{scenario}_{party}")
}

/// Name of the empty scenario every binary carries, used to report the harness residual.
pub const RESIDUAL_SCENARIO: &str = "costbench::residual";

impl Versioned for Listing {
    fn protocol(&self) -> u32 {
        self.protocol
    }
}

/// Why a message from a child could not be used. Each variant's text is the cause alone (the
/// I/O or JSON error's own text, or the version mismatch); the caller says which message of
/// which child it was.
#[derive(Debug)]
pub enum DecodeError {
    /// The result file could not be read.
    Io(std::io::Error),
    /// The result file is not JSON of the expected message.
    Json(serde_json::Error),
    /// No line of the child's stdout is a [`Listing`]: the binary does not speak the protocol
    /// (its `main` does not hand over to the library).
    NoListing,
    /// The message decoded, but its sender speaks another protocol version.
    Version {
        /// The sender's version.
        peer: u32,
    },
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Io(e) => e.fmt(f),
            DecodeError::Json(e) => e.fmt(f),
            DecodeError::NoListing => f.write_str("no line of the output is a costbench listing"),
            DecodeError::Version { peer } => f.write_str(&mismatch_message(*peer)),
        }
    }
}

impl std::error::Error for DecodeError {
    /// The wrapped error's own cause: its text is already this error's text, so returning the
    /// wrapped error itself would print it twice in a chain of causes.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DecodeError::Io(e) => e.source(),
            DecodeError::Json(e) => e.source(),
            DecodeError::NoListing | DecodeError::Version { .. } => None,
        }
    }
}

/// `Ok(message)` if its sender speaks this side's protocol version.
fn checked<T: Versioned>(message: T) -> Result<T, DecodeError> {
    match message.protocol() {
        PROTOCOL_VERSION => Ok(message),
        peer => Err(DecodeError::Version { peer }),
    }
}

impl Listing {
    /// The listing a `list` child printed: the last line of its stdout that decodes as one
    /// (whatever the binary prints before the library's answer is skipped), checked for its
    /// protocol version. Invalid UTF-8 is read lossily.
    ///
    /// ```
    /// use costbench_protocol::{DecodeError, Listing};
    /// let out = b"hello\n{\"protocol\":1,\"library_version\":\"0.1.0\",\"scenarios\":[]}\n";
    /// assert_eq!(Listing::from_stdout(out).unwrap().library_version, "0.1.0");
    /// assert!(matches!(Listing::from_stdout(b"hello\n"), Err(DecodeError::NoListing)));
    /// ```
    pub fn from_stdout(stdout: &[u8]) -> Result<Listing, DecodeError> {
        let listing: Listing = String::from_utf8_lossy(stdout)
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l).ok())
            .ok_or(DecodeError::NoListing)?;
        checked(listing)
    }
}

/// Reads the result file a child wrote (`--result FILE`), decodes it and checks its protocol
/// version. A message that decodes but comes from another version is [`DecodeError::Version`];
/// one that does not decode is [`DecodeError::Json`], whatever its version.
pub fn read_result<T: DeserializeOwned + Versioned>(
    path: impl AsRef<Path>,
) -> Result<T, DecodeError> {
    let bytes = std::fs::read(path).map_err(DecodeError::Io)?;
    decode_result(&bytes)
}

/// A result file's bytes as message `T`, checked for the sender's protocol version: the pure
/// half of [`read_result`], for callers that read the file themselves.
pub fn decode_result<T: DeserializeOwned + Versioned>(bytes: &[u8]) -> Result<T, DecodeError> {
    let message: T = serde_json::from_slice(bytes).map_err(DecodeError::Json)?;
    checked(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_ids_name_parties() {
        let single = ScenarioInfo {
            name: "a".into(),
            ops: 1,
            unit: "op".into(),
            parties: vec![],
            internal: false,
            service: None,
        };
        assert_eq!(single.measured_ids(), vec!["a"]);
        let multi = ScenarioInfo {
            parties: vec!["client".into(), "server".into()],
            ..single
        };
        assert_eq!(multi.measured_ids(), vec!["a_client", "a_server"]);
    }

    #[test]
    fn listing_round_trips() {
        let l = Listing {
            protocol: PROTOCOL_VERSION,
            library_version: "0.1.0".into(),
            scenarios: vec![],
            capabilities: vec![CAPABILITY_LOCKSTEP.into()],
            budgets: vec![Budget {
                instructions: Some(900.0),
                allocations: Some(0.0),
                ..Budget::new("parse/*")
            }],
        };
        let s = serde_json::to_string(&l).unwrap();
        assert_eq!(serde_json::from_str::<Listing>(&s).unwrap(), l);
    }

    #[test]
    fn budgets_are_validated_and_typos_refused() {
        let ok = Budget {
            checks: Some(0.0),
            ..Budget::new("index/*")
        };
        assert_eq!(ok.validate(), Ok(()));
        for (b, needle) in [
            (Budget::new("a"), "limits nothing"),
            (
                Budget {
                    bytes: Some(-1.0),
                    ..Budget::new("a")
                },
                "bytes must be",
            ),
            (
                Budget {
                    binary_size: Some(1),
                    ..Budget::new("a/*")
                },
                "not a scenario",
            ),
        ] {
            let e = b.validate().unwrap_err();
            assert!(e.contains(needle), "{e}");
        }
        let e = serde_json::from_str::<Budget>(r#"{"instrutions": 1}"#).unwrap_err();
        assert!(e.to_string().contains("instrutions"), "{e}");
        let b: Budget = serde_json::from_str(r#"{"peak-heap": 0}"#).unwrap();
        assert_eq!((b.scenario.as_str(), b.peak_heap), ("*", Some(0)));
    }

    fn listing_line(protocol: u32) -> String {
        serde_json::to_string(&Listing {
            protocol,
            library_version: "0.1.0".into(),
            scenarios: vec![],
            capabilities: vec![],
            budgets: vec![],
        })
        .unwrap()
    }

    #[test]
    fn the_last_listing_line_of_stdout_is_the_answer() {
        let out = format!(
            "a line of the user's\n{}\n{}\ntrailing noise\n",
            listing_line(7),
            listing_line(PROTOCOL_VERSION)
        );
        let l = Listing::from_stdout(out.as_bytes()).unwrap();
        assert_eq!(l.protocol, PROTOCOL_VERSION);
        // Invalid UTF-8 before the answer does not hide it.
        let mut bytes = b"\xff\xfe\n".to_vec();
        bytes.extend_from_slice(listing_line(PROTOCOL_VERSION).as_bytes());
        assert_eq!(Listing::from_stdout(&bytes).unwrap(), l);
    }

    #[test]
    fn a_stdout_without_a_listing_is_no_listing() {
        for out in ["", "hello\n", "{\"protocol\":1}\n"] {
            assert!(
                matches!(
                    Listing::from_stdout(out.as_bytes()),
                    Err(DecodeError::NoListing)
                ),
                "{out:?}"
            );
        }
    }

    #[test]
    fn a_listing_of_another_version_is_refused_with_the_mismatch_message() {
        let e = Listing::from_stdout(listing_line(PROTOCOL_VERSION + 1).as_bytes()).unwrap_err();
        assert!(matches!(e, DecodeError::Version { peer } if peer == PROTOCOL_VERSION + 1));
        assert_eq!(
            e.to_string(),
            check_version(PROTOCOL_VERSION + 1).unwrap_err()
        );
        assert!(std::error::Error::source(&e).is_none());
    }

    fn walltime(protocol: u32) -> WalltimeResult {
        WalltimeResult {
            protocol,
            scenario: "s".into(),
            measurements: vec![WalltimeSamples {
                party: None,
                clock: Clock::Monotonic,
                iterations_per_sample: 2,
                sample_ns: vec![10, 11],
                warmup_iterations: 3,
                clock_overhead_ns: 20.5,
            }],
        }
    }

    /// A temporary result file holding `contents` (removed when dropped).
    fn result_file(contents: &[u8]) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), contents).unwrap();
        f
    }

    #[test]
    fn result_files_decode_and_are_version_checked() {
        let file = result_file(&serde_json::to_vec(&walltime(PROTOCOL_VERSION)).unwrap());
        assert_eq!(
            read_result::<WalltimeResult>(file.path()).unwrap(),
            walltime(PROTOCOL_VERSION)
        );

        let file = result_file(&serde_json::to_vec(&walltime(PROTOCOL_VERSION + 1)).unwrap());
        let e = read_result::<WalltimeResult>(file.path()).unwrap_err();
        assert!(matches!(e, DecodeError::Version { .. }));
        assert_eq!(
            e.to_string(),
            check_version(PROTOCOL_VERSION + 1).unwrap_err()
        );

        let counters = CountersResult {
            protocol: PROTOCOL_VERSION,
            scenario: "s".into(),
            party: Some("client".into()),
            memory: None,
            perf: None,
        };
        let file = result_file(&serde_json::to_vec(&counters).unwrap());
        assert_eq!(
            read_result::<CountersResult>(file.path()).unwrap(),
            counters
        );
    }

    #[test]
    fn unreadable_result_files_say_why_in_the_cause_s_own_words() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("result.json");
        let e = read_result::<WalltimeResult>(&missing).unwrap_err();
        let io = std::fs::read(&missing).unwrap_err();
        assert!(matches!(e, DecodeError::Io(_)));
        assert_eq!(e.to_string(), io.to_string());

        // Undecodable is a JSON error even when a version can be seen: the message's shape is
        // checked before its version.
        let file = result_file(b"{\"protocol\": 99, \"scenario\": 3}");
        let e = read_result::<WalltimeResult>(file.path()).unwrap_err();
        let json = serde_json::from_slice::<WalltimeResult>(b"{\"protocol\": 99, \"scenario\": 3}")
            .unwrap_err();
        assert!(matches!(e, DecodeError::Json(_)));
        assert_eq!(e.to_string(), json.to_string());
        assert!(std::error::Error::source(&e).is_none());
    }
}
