//! Wall time's slice of the command line: its pairing in a backfill ([`pairing`]: each
//! measured commit timed in interleaved rounds with the previous one, as `check` times a pull
//! request against its base).

pub(crate) mod pairing;
