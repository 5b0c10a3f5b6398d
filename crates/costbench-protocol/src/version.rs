//! The protocol's version: [`PROTOCOL_VERSION`], the check both sides make, and
//! [`Versioned`], the messages that carry their sender's version. Every other module of the
//! crate reads it; it reads none of them.

/// Version of this protocol. Bump it on any incompatible change of a message or of the child
/// command line; both sides check it.
pub const PROTOCOL_VERSION: u32 = 1;

/// Checks a peer's protocol version.
///
/// ```
/// assert!(costbench_protocol::check_version(costbench_protocol::PROTOCOL_VERSION).is_ok());
/// assert!(costbench_protocol::check_version(999).is_err());
/// ```
pub fn check_version(peer: u32) -> Result<(), String> {
    if peer == PROTOCOL_VERSION {
        Ok(())
    } else {
        Err(mismatch_message(peer))
    }
}

pub(crate) fn mismatch_message(peer: u32) -> String {
    format!(
        "protocol mismatch: this side speaks costbench protocol {PROTOCOL_VERSION}, the other side {peer}; \
         build the scenarios and the runner from the same costbench version"
    )
}

/// A message that carries the [`PROTOCOL_VERSION`] of its sender: every message a child sends
/// the runner, so that [`read_result`](crate::read_result) can check it.
pub trait Versioned {
    /// The sender's protocol version.
    fn protocol(&self) -> u32;
}
