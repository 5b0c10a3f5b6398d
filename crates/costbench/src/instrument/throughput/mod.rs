//! The throughput instrument's piece of the library: a service scenario under load, its two
//! modes of the child protocol, `serve` ([`SERVE`]) and `load` ([`LOAD`], writing a
//! `LoadResult`); what they run is `load.rs`. The service's user API (`Server`, `Client`,
//! `Conn`) and its parties measured per request are [`crate::service`]'s.

pub(crate) mod load;

use super::mode::ChildMode;
use crate::body::exit_on_panic;
use crate::child_args::{bad, ChildArgs, ChildError};
use crate::service::ServiceDef;
use crate::suite::Scenario;
use load::load;
#[cfg(unix)]
use load::serve;

/// The `serve` mode of the child protocol.
pub(super) const SERVE: ChildMode = ChildMode {
    name: "serve",
    run: serve_mode,
};

/// The `load` mode of the child protocol.
pub(super) const LOAD: ChildMode = ChildMode {
    name: "load",
    run: load_mode,
};

/// Both modes serve a service scenario only.
fn service_of<'s>(s: &'s Scenario, a: &ChildArgs) -> Result<&'s ServiceDef, ChildError> {
    s.service.as_ref().ok_or_else(|| {
        bad(format!(
            "scenario {:?} is not a service scenario (Suite::service): {} has nothing to serve",
            s.name, a.mode
        ))
    })
}

/// `serve`: the service's server on the inherited listening socket, until killed.
fn serve_mode(s: &Scenario, a: &ChildArgs) -> Result<i32, ChildError> {
    let def = service_of(s, a)?;
    let fd = a
        .listen_fd
        .ok_or_else(|| bad("serve needs --listen-fd FD"))?;
    #[cfg(unix)]
    {
        exit_on_panic();
        serve(def, &s.name, fd)
            .map_err(|e| ChildError(1, format!("the server stopped accepting connections: {e}")))?;
        Ok(0)
    }
    #[cfg(not(unix))]
    {
        let _ = (fd, def);
        Err(bad(
            "serve takes an inherited socket, which only Unix passes: not available on this OS",
        ))
    }
}

/// `load`: N clients against the server at `--connect`, the slices' figures to `--result`.
fn load_mode(s: &Scenario, a: &ChildArgs) -> Result<i32, ChildError> {
    let def = service_of(s, a)?;
    let mut a = a.clone();
    let path = a
        .result
        .clone()
        .ok_or_else(|| bad("load needs --result FILE"))?;
    if a.load.connect.is_empty() {
        return Err(bad("load needs --connect ADDR"));
    }
    if a.load.slices == 0 {
        return Err(bad("--slices takes a number of at least 1"));
    }
    if a.warmup_given {
        a.load.warmup = a.config.warmup;
    }
    a.load.lockstep = a.config.lockstep;
    exit_on_panic();
    let result = load(def, &s.name, &a.load);
    let json = serde_json::to_vec(&result).expect("a result always serialises");
    std::fs::write(&path, json)
        .map_err(|e| ChildError(1, format!("cannot write result file {path}: {e}")))?;
    Ok(0)
}
