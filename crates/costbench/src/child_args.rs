//! The command line of the child protocol (`--costbench-child MODE ... NAME`): parsing it into
//! [`ChildArgs`], and the errors a malformed one answers with. Both the child ([`crate::child`],
//! which serves the request) and the suite (which keeps only the scenario asked for, see
//! [`only_scenario`]) read it, so it sits below both. It runs nothing and knows no suite.
//!
//! The parsing is deliberately tiny and dependency-free: the library must stay light, and the
//! runner is the only caller of the child protocol.

use crate::instrument::walltime::sample::{Lockstep, WalltimeConfig};
use costbench_protocol::{self as proto, EXIT_BAD_REQUEST};
use std::time::Duration;

/// Why a request cannot be served: the exit code and the message the child prints.
pub(crate) struct ChildError(pub(crate) i32, pub(crate) String);

/// A malformed request: exit [`EXIT_BAD_REQUEST`] with `msg`.
pub(crate) fn bad(msg: impl Into<String>) -> ChildError {
    ChildError(EXIT_BAD_REQUEST, msg.into())
}

/// `--peer` and `--lockstep` pass inherited pipe file descriptors, which only Unix has.
fn fds_available(flag: &str) -> Result<(), ChildError> {
    if cfg!(unix) {
        Ok(())
    } else {
        Err(bad(format!(
            "{flag} passes inherited pipe file descriptors, which only Unix has: not available on this OS"
        )))
    }
}

/// Parsed `--costbench-child MODE ...` arguments.
#[derive(Debug, Default, Clone)]
pub(crate) struct ChildArgs {
    pub(crate) mode: String,
    pub(crate) protocol: Option<u32>,
    pub(crate) scenario: Option<String>,
    pub(crate) party: Option<String>,
    pub(crate) peers: Vec<(String, i32, i32)>,
    pub(crate) result: Option<String>,
    pub(crate) config: WalltimeConfig,
    /// `--perturb N`: shift the heap and stack placement setup and body start from.
    pub(crate) perturb: Option<u32>,
    /// `serve --listen-fd FD`.
    pub(crate) listen_fd: Option<i32>,
    /// `load`'s options (its warm-up is `config.warmup`, its token ring `config.lockstep`).
    pub(crate) load: crate::instrument::throughput::load::LoadConfig,
    pub(crate) warmup_given: bool,
}

fn parse_num<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, ChildError> {
    v.parse()
        .map_err(|_| bad(format!("{flag} takes a number, got {v:?}")))
}

pub(crate) fn parse_child_args(args: &[String]) -> Result<ChildArgs, ChildError> {
    let mut it = args.iter();
    let mut a = ChildArgs {
        mode: it.next().ok_or_else(|| bad("missing mode"))?.clone(),
        ..ChildArgs::default()
    };
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| bad(format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--protocol" => a.protocol = Some(parse_num(arg, &value()?)?),
            "--party" => a.party = Some(value()?),
            "--result" => a.result = Some(value()?),
            "--samples" => a.config.samples = parse_num(arg, &value()?)?,
            "--warmup-ms" => {
                a.config.warmup = Duration::from_millis(parse_num(arg, &value()?)?);
                a.warmup_given = true;
            }
            "--listen-fd" => {
                fds_available(arg)?;
                a.listen_fd = Some(parse_num(arg, &value()?)?);
            }
            "--connect" => a.load.connect = value()?,
            "--clients" => {
                let n: u32 = parse_num(arg, &value()?)?;
                if n == 0 {
                    return Err(bad("--clients takes a number of at least 1"));
                }
                a.load.clients = n;
            }
            "--slice-ms" => a.load.slice = Duration::from_millis(parse_num(arg, &value()?)?),
            "--slices" => a.load.slices = parse_num(arg, &value()?)?,
            "--rate" => {
                let r: f64 = parse_num(arg, &value()?)?;
                if !(r.is_finite() && r > 0.0) {
                    return Err(bad(format!(
                        "--rate takes a positive number of ops per second, got {r}"
                    )));
                }
                a.load.rate = Some(r);
            }
            "--sample-target-us" => {
                a.config.sample_target = Duration::from_micros(parse_num(arg, &value()?)?)
            }
            "--max-ms" => {
                let ms: u64 = parse_num(arg, &value()?)?;
                a.config.max_time = (ms > 0).then(|| Duration::from_millis(ms));
            }
            "--lockstep" => {
                fds_available(arg)?;
                let v = value()?;
                let parsed = v
                    .split_once(',')
                    .and_then(|(r, w)| Some((r.parse().ok()?, w.parse().ok()?)));
                let (read, write) =
                    parsed.ok_or_else(|| bad(format!("--lockstep takes RFD,WFD, got {v:?}")))?;
                a.config.lockstep = Some(Lockstep { read, write });
            }
            "--perturb" => {
                let n: u32 = parse_num(arg, &value()?)?;
                if n == 0 {
                    return Err(bad("--perturb takes a number of at least 1"));
                }
                a.perturb = Some(n);
            }
            "--peer" => {
                fds_available(arg)?;
                let v = value()?;
                let parsed = v.split_once('=').and_then(|(name, fds)| {
                    let (r, w) = fds.split_once(',')?;
                    Some((name.to_string(), r.parse().ok()?, w.parse().ok()?))
                });
                a.peers.push(
                    parsed.ok_or_else(|| bad(format!("--peer takes NAME=RFD,WFD, got {v:?}")))?,
                );
            }
            s if s.starts_with("--") => return Err(bad(format!("unknown option {s}"))),
            s if a.scenario.is_none() => a.scenario = Some(s.to_string()),
            s => return Err(bad(format!("unexpected argument {s:?}"))),
        }
    }
    Ok(a)
}

/// The scenario this process was started to run (`--costbench-child MODE ... NAME`, any mode but
/// `list`); `None` otherwise, and when the arguments do not parse (the child reports that when the
/// suite answers).
pub(crate) fn only_scenario() -> Option<String> {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string().ok())
        .collect::<Option<_>>()?;
    let (flag, rest) = args.split_first()?;
    if flag != proto::CHILD_FLAG {
        return None;
    }
    let a = parse_child_args(rest).ok()?;
    if a.mode == "list" {
        return None;
    }
    a.scenario
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    #[cfg(unix)]
    fn child_args_parse() {
        let a = parse_child_args(&args(
            "icount --protocol 1 pipe/echo --party client --peer server=3,4",
        ))
        .ok()
        .unwrap();
        assert_eq!(a.mode, "icount");
        assert_eq!(a.scenario.as_deref(), Some("pipe/echo"));
        assert_eq!(a.party.as_deref(), Some("client"));
        assert_eq!(a.peers, vec![("server".to_string(), 3, 4)]);
        assert!(parse_child_args(&args("icount --peer x=3")).is_err());
        assert!(parse_child_args(&args("walltime --samples many")).is_err());
        let a = parse_child_args(&args("icount --protocol 1 x --perturb 3"))
            .ok()
            .unwrap();
        assert_eq!(a.perturb, Some(3));
        assert!(parse_child_args(&args("icount x --perturb 0")).is_err());
        assert!(parse_child_args(&args("icount x --perturb -1")).is_err());
    }

    #[test]
    #[cfg(not(unix))]
    fn fd_options_are_refused_off_unix() {
        for a in [
            "icount --protocol 1 x --peer s=3,4",
            "walltime --lockstep 3,4",
        ] {
            let e = parse_child_args(&args(a)).err().unwrap();
            assert_eq!(e.0, EXIT_BAD_REQUEST);
            assert!(e.1.contains("not available on this OS"), "{}", e.1);
        }
    }
}
