//! rustls handshakes and a 1 MiB transfer, measured the way rustls' own ci-bench measures them:
//! a client and a server party, each in its own process under instruction counting, talking over
//! pipes, with the scenario list, names and CSV shape of ci-bench (`icounts.csv` holds
//! `handshake_no_resume_ring_1.2_rsa_aes_server,COUNT` and so on).
//!
//! For each of ci-bench's ring parameter sets (TLS 1.2 with RSA, TLS 1.3 with RSA, ECDSA P-256 and
//! P-384 certificates, AES-GCM and ChaCha20-Poly1305) there are four scenarios:
//! - `handshake_no_resume_*`: one full handshake, per op = per handshake;
//! - `handshake_session_id_*`: 30 handshakes resumed from the server's session cache (one full
//!   handshake first, in setup), per op = per handshake;
//! - `handshake_tickets_*`: the same with tickets;
//! - `transfer_no_resume_*`: 1 MiB of application data from server to client after a full
//!   handshake done in setup, per op = per byte.
//!
//! Counts repeat exactly from run to run because nothing measured depends on chance or the clock:
//! - the crypto provider's `secure_random` is a seeded generator (ci-bench fills with a constant);
//!   ring's own randomness (ECDHE keys, ECDSA nonces, ticket keys) comes from the getrandom
//!   system call, which the runner answers with a fixed sequence under instruction counting;
//! - the configs' time provider returns a fixed `UnixTime`, so certificate validity and ticket
//!   ages are computed on the same instant every run;
//! - every flight of handshake messages, and every record of the transfer, goes over the pipe as
//!   one length-prefixed frame read whole before rustls sees it (ci-bench's transport), so
//!   rustls' buffers grow the same way however the kernel splits the bytes; in the transfer the
//!   client acknowledges each frame (see [`ACK`]), so the number of `read` calls is fixed too.
//!
//! The certificates under `certs/` were made once with `openssl` (a CA and a `localhost`
//! end-entity certificate per key type, valid until 2126) and are committed, so that no key is
//! generated at run time.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use costbench::{black_box, ops, Link, Suite};
use rustls::client::Resumption;
use rustls::crypto::{ring as provider, CryptoProvider, GetRandomFailed, SecureRandom};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::server::{NoServerSessionStorage, ServerSessionMemoryCache};
use rustls::time_provider::TimeProvider;
use rustls::{
    CipherSuite, ClientConfig, ClientConnection, ConnectionCommon, HandshakeKind, ProtocolVersion,
    RootCertStore, ServerConfig, ServerConnection,
};

/// Bytes of application data the transfer scenarios send (ci-bench sent 1 MB before it moved to
/// 10 MB; the issue asks for 1 MiB).
const TRANSFER_BYTES: usize = 1 << 20;
/// Plaintext handed to rustls per write in the transfer: one full TLS record.
const RECORD: usize = 16 * 1024;
/// Resumed handshakes per measured run, as ci-bench's `RESUMED_HANDSHAKE_RUNS`: a resumed
/// handshake is short, so thirty of them outweigh any one-off cost in the measured region.
const RESUMED_HANDSHAKE_RUNS: u64 = 30;
/// Room for the largest frame (a handshake flight or a 16 KiB record with its overhead).
const FRAME_BUF: usize = 64 * 1024;
/// 2030-01-01T00:00:00Z: inside the committed certificates' validity (2026 to 2126).
const FIXED_TIME_SECS: u64 = 1_893_456_000;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    NoResume,
    SessionId,
    Tickets,
    Transfer,
}

#[derive(Clone, Copy)]
struct Params {
    /// `1.2_rsa_aes` and so on, as ci-bench labels its parameter sets.
    label: &'static str,
    key: &'static str,
    suite: CipherSuite,
}

/// ci-bench's ring parameter sets, in its order.
const PARAMS: [Params; 7] = [
    Params {
        label: "1.2_rsa_aes",
        key: "rsa2048",
        suite: CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
    },
    Params {
        label: "1.3_rsa_aes",
        key: "rsa2048",
        suite: CipherSuite::TLS13_AES_128_GCM_SHA256,
    },
    Params {
        label: "1.3_ecdsap256_aes",
        key: "ecdsap256",
        suite: CipherSuite::TLS13_AES_128_GCM_SHA256,
    },
    Params {
        label: "1.3_ecdsap384_aes",
        key: "ecdsap384",
        suite: CipherSuite::TLS13_AES_128_GCM_SHA256,
    },
    Params {
        label: "1.3_rsa_chacha",
        key: "rsa2048",
        suite: CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
    },
    Params {
        label: "1.3_ecdsap256_chacha",
        key: "ecdsap256",
        suite: CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
    },
    Params {
        label: "1.3_ecdsap384_chacha",
        key: "ecdsap384",
        suite: CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
    },
];

/// The committed PEM files of one key type: (CA certificate, end-entity certificate, its key).
fn pems(key: &str) -> (&'static [u8], &'static [u8], &'static [u8]) {
    macro_rules! certs {
        ($k:literal) => {
            (
                include_bytes!(concat!("../certs/", $k, "-ca.pem")).as_slice(),
                include_bytes!(concat!("../certs/", $k, "-end.pem")).as_slice(),
                include_bytes!(concat!("../certs/", $k, "-end.key")).as_slice(),
            )
        };
    }
    match key {
        "rsa2048" => certs!("rsa2048"),
        "ecdsap256" => certs!("ecdsap256"),
        "ecdsap384" => certs!("ecdsap384"),
        other => panic!("no committed certificates for key type {other:?}"),
    }
}

/// A seeded generator for rustls' own randomness (client and server randoms, session ids,
/// ticket lifetimes' age-add): splitmix64 from a fixed seed, so each process draws the same
/// bytes in the same order every run. Never use this outside a benchmark.
#[derive(Debug)]
struct SeededRandom(AtomicU64);

impl SecureRandom for SeededRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        for chunk in buf.chunks_mut(8) {
            let mut z = self
                .0
                .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed)
                .wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
        }
        Ok(())
    }
}

static SEEDED: SeededRandom = SeededRandom(AtomicU64::new(0x5a5a_5a5a));

/// The same instant on every call.
#[derive(Debug)]
struct FixedTime;

impl TimeProvider for FixedTime {
    fn current_time(&self) -> Option<UnixTime> {
        Some(UnixTime::since_unix_epoch(std::time::Duration::from_secs(
            FIXED_TIME_SECS,
        )))
    }
}

/// ring's provider with only `suite` enabled and the seeded generator in place of the system's.
fn provider_for(suite: CipherSuite) -> Arc<CryptoProvider> {
    let mut p = provider::default_provider();
    p.cipher_suites.retain(|s| s.suite() == suite);
    assert_eq!(p.cipher_suites.len(), 1, "ring offers {suite:?}");
    Arc::new(CryptoProvider {
        secure_random: &SEEDED,
        ..p
    })
}

fn client_config(p: Params, kind: Kind) -> Arc<ClientConfig> {
    let (ca, _, _) = pems(p.key);
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(ca).expect("committed CA certificate"))
        .expect("CA certificate accepted");
    let mut cfg = ClientConfig::builder_with_details(provider_for(p.suite), Arc::new(FixedTime))
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    cfg.resumption = match kind {
        Kind::SessionId | Kind::Tickets => Resumption::in_memory_sessions(128),
        Kind::NoResume | Kind::Transfer => Resumption::disabled(),
    };
    Arc::new(cfg)
}

fn server_config(p: Params, kind: Kind) -> Arc<ServerConfig> {
    let (_, end, key) = pems(p.key);
    let chain = vec![CertificateDer::from_pem_slice(end).expect("committed certificate")];
    let key = PrivateKeyDer::from_pem_slice(key).expect("committed key");
    let mut cfg = ServerConfig::builder_with_details(provider_for(p.suite), Arc::new(FixedTime))
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("certificate and key match");
    match kind {
        Kind::SessionId => cfg.session_storage = ServerSessionMemoryCache::new(128),
        Kind::Tickets => cfg.ticketer = provider::Ticketer::new().expect("ticketer"),
        Kind::NoResume | Kind::Transfer => {
            cfg.session_storage = Arc::new(NoServerSessionStorage {})
        }
    }
    Arc::new(cfg)
}

/// One side's end of the pipe plus the buffers both directions reuse.
struct Io {
    link: Link,
    out: Vec<u8>,
    frame: Vec<u8>,
    plain: Vec<u8>,
}

impl Io {
    fn new(link: Link) -> Io {
        Io {
            link,
            out: Vec::with_capacity(FRAME_BUF),
            frame: vec![0; FRAME_BUF],
            plain: vec![0; FRAME_BUF],
        }
    }

    /// Sends whatever TLS data `conn` has queued as one length-prefixed frame.
    fn send<D>(&mut self, conn: &mut ConnectionCommon<D>) -> io::Result<()> {
        while conn.wants_write() {
            conn.write_tls(&mut self.out)?;
        }
        if self.out.is_empty() {
            return Ok(());
        }
        let len = u32::try_from(self.out.len()).expect("frame under 4 GiB");
        self.link.write_all(&len.to_be_bytes())?;
        self.link.write_all(&self.out)?;
        self.link.flush()?;
        self.out.clear();
        Ok(())
    }

    /// Reads one whole frame, feeds it to `conn` and returns the plaintext bytes it carried.
    fn recv<D>(&mut self, conn: &mut ConnectionCommon<D>) -> io::Result<usize> {
        let mut len = [0u8; 4];
        self.link.read_exact(&mut len)?;
        let len = u32::from_be_bytes(len) as usize;
        if len > self.frame.len() {
            return Err(io::Error::other(format!(
                "frame of {len} bytes is larger than the {FRAME_BUF}-byte buffer"
            )));
        }
        self.link.read_exact(&mut self.frame[..len])?;
        let mut rest = &self.frame[..len];
        let mut plaintext = 0;
        while !rest.is_empty() {
            conn.read_tls(&mut rest)?;
            let state = conn.process_new_packets().map_err(io::Error::other)?;
            let n = state.plaintext_bytes_to_read();
            if n > 0 {
                conn.reader().read_exact(&mut self.plain[..n])?;
                plaintext += n;
            }
        }
        Ok(plaintext)
    }

    fn client_handshake(&mut self, cfg: &Arc<ClientConfig>, resume: bool) -> ClientConnection {
        let name = ServerName::try_from("localhost").expect("valid name");
        let mut c = ClientConnection::new(cfg.clone(), name).expect("client connection");
        loop {
            self.send(&mut c).expect("send flight");
            if !c.is_handshaking() {
                break;
            }
            self.recv(&mut c).expect("receive flight");
        }
        // TLS 1.3 sends session tickets after the handshake: take them, or nothing resumes.
        if resume && c.protocol_version() == Some(ProtocolVersion::TLSv1_3) {
            self.recv(&mut c).expect("receive tickets");
        }
        c
    }

    fn server_handshake(&mut self, cfg: &Arc<ServerConfig>) -> ServerConnection {
        let mut s = ServerConnection::new(cfg.clone()).expect("server connection");
        while s.is_handshaking() {
            self.recv(&mut s).expect("receive flight");
            self.send(&mut s).expect("send flight");
        }
        s
    }
}

/// The byte the server sends before each resumed handshake, so the client never starts one
/// before the server has finished the last (ci-bench's `sync_before_resumed_handshake`).
const SYNC: u8 = 42;

/// The byte the client sends back for each record frame of the transfer. With it the server
/// writes each frame into an empty pipe, and Linux copies a write that fits the pipe under the
/// pipe's lock, so the client reads every frame whole with one `read` call. Without it the
/// kernel's timing decides how many `read` calls a frame takes (46 instructions each): the
/// client's count of a transfer then moved by a few multiples of 46 from run to run.
const ACK: u8 = 6;

fn add_group(suite: &mut Suite, p: Params) {
    let kinds = [
        ("handshake_no_resume", Kind::NoResume),
        ("handshake_session_id", Kind::SessionId),
        ("handshake_tickets", Kind::Tickets),
        ("transfer_no_resume", Kind::Transfer),
    ];
    for (prefix, kind) in kinds {
        let name = format!("{prefix}_ring_{}", p.label);
        let per = match kind {
            Kind::NoResume => ops(1, "handshakes"),
            Kind::SessionId | Kind::Tickets => ops(RESUMED_HANDSHAKE_RUNS, "handshakes"),
            Kind::Transfer => ops(TRANSFER_BYTES as u64, "bytes"),
        };
        suite
            .multi(name, per)
            .party("client", move |b| {
                let cfg = client_config(p, kind);
                let mut io = Io::new(b.peer());
                match kind {
                    Kind::NoResume => b.iter(move || black_box(io.client_handshake(&cfg, false))),
                    Kind::SessionId | Kind::Tickets => {
                        io.client_handshake(&cfg, true); // full: gives the session to resume
                        b.iter(move || {
                            for _ in 0..RESUMED_HANDSHAKE_RUNS {
                                let mut sync = [0u8];
                                io.link.read_exact(&mut sync).expect("sync byte");
                                assert_eq!(sync[0], SYNC);
                                let c = io.client_handshake(&cfg, true);
                                assert_eq!(c.handshake_kind(), Some(HandshakeKind::Resumed));
                            }
                        })
                    }
                    Kind::Transfer => {
                        let mut c = io.client_handshake(&cfg, false);
                        b.iter(move || {
                            let mut got = 0;
                            while got < TRANSFER_BYTES {
                                got += io.recv(&mut c).expect("receive records");
                                io.link.write_all(&[ACK]).expect("acknowledge");
                            }
                            assert_eq!(got, TRANSFER_BYTES);
                            got
                        })
                    }
                }
            })
            .party("server", move |b| {
                let cfg = server_config(p, kind);
                let mut io = Io::new(b.peer());
                match kind {
                    Kind::NoResume => b.iter(move || black_box(io.server_handshake(&cfg))),
                    Kind::SessionId | Kind::Tickets => {
                        io.server_handshake(&cfg);
                        b.iter(move || {
                            for _ in 0..RESUMED_HANDSHAKE_RUNS {
                                io.link.write_all(&[SYNC]).expect("sync byte");
                                let s = io.server_handshake(&cfg);
                                assert_eq!(s.handshake_kind(), Some(HandshakeKind::Resumed));
                            }
                        })
                    }
                    Kind::Transfer => {
                        let mut s = io.server_handshake(&cfg);
                        let record = vec![0x42u8; RECORD];
                        b.iter(move || {
                            for _ in 0..TRANSFER_BYTES / RECORD {
                                s.writer().write_all(&record).expect("queue plaintext");
                                io.send(&mut s).expect("send records");
                                let mut ack = [0u8];
                                io.link.read_exact(&mut ack).expect("acknowledgement");
                                assert_eq!(ack[0], ACK);
                            }
                        })
                    }
                }
            });
    }
}

fn main() {
    let mut suite = Suite::new();
    for p in PARAMS {
        add_group(&mut suite, p);
    }
    suite.main();
}
