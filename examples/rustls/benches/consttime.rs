//! rustls' record encryption under the `constant-time` instrument: the key and the plaintext
//! are secret (`costbench::secret`), four 16 KiB TLS 1.3 application-data records are encrypted
//! per run of the body with each of ring's TLS 1.3 AEADs, through rustls' public API (the
//! cipher suite's `aead_alg.encrypter(key, iv)` from `rustls::crypto::ring::default_provider()`,
//! then `MessageEncrypter::encrypt`), and the ciphertext is declassified (`costbench::public`)
//! before it is handed on, as a program writing it to a socket would.
//!
//! A bench target of its own, beside `rustls.rs`: adding scenarios to that binary would move
//! the instruction counts of ci-bench's scenarios (the heap a child starts from holds what the
//! whole registry allocated).

use costbench::{black_box, ops, Suite};
use rustls::crypto::cipher::{AeadKey, Iv, OutboundChunks, OutboundPlainMessage};
use rustls::crypto::ring::default_provider;
use rustls::{CipherSuite, ContentType, ProtocolVersion, SupportedCipherSuite};

/// Plaintext per record: the largest TLS record.
const RECORD: usize = 16 * 1024;
/// Records per run of the body.
const RECORDS: usize = 4;

fn main() {
    let mut suite = Suite::new();
    for (name, id) in [
        ("aes_256_gcm", CipherSuite::TLS13_AES_256_GCM_SHA384),
        (
            "chacha20_poly1305",
            CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
        ),
    ] {
        let scenario = format!("records/encrypt_{name}");
        suite.bench(
            &scenario,
            ops(RECORD as u64 * RECORDS as u64, "bytes"),
            move |b| {
                let suite = default_provider()
                    .cipher_suites
                    .into_iter()
                    .find_map(|s| match s {
                        SupportedCipherSuite::Tls13(t) if t.common.suite == id => Some(t),
                        _ => None,
                    })
                    .expect("ring offers the TLS 1.3 suite");
                // A traffic secret's key and IV, as the key schedule would derive them.
                let key = [0x3cu8; 32];
                let iv = [0xa5u8; 12];
                let plaintext = vec![0x42u8; RECORD];
                costbench::secret(&key);
                costbench::secret(&iv);
                costbench::secret_bytes(&plaintext);
                let mut encrypter = suite.aead_alg.encrypter(AeadKey::from(key), Iv::new(iv));
                let mut seq = 0u64;
                b.iter(move || {
                    let mut sent = 0;
                    for _ in 0..RECORDS {
                        let msg = OutboundPlainMessage {
                            typ: ContentType::ApplicationData,
                            version: ProtocolVersion::TLSv1_2,
                            payload: OutboundChunks::Single(black_box(&plaintext)),
                        };
                        let wire = encrypter.encrypt(msg, seq).expect("encrypt").encode();
                        seq += 1;
                        // The ciphertext goes on the wire: public from here on.
                        costbench::public(wire.as_slice());
                        sent += black_box(wire).len();
                    }
                    sent
                });
            },
        );
    }
    suite.main();
}
