//! Service scenarios with known costs, for the throughput instrument's tests: a server that
//! answers each request after a calibrated loop, so that its instructions per request are the
//! echo's plus exactly the loop's.

use costbench::{ops, Suite};
use costbench_selftest::calibrated_loop;
use std::io::{Read, Write};

/// Each request: the client sends its number, the server reads it, runs the loop, echoes it.
fn echo_service(suite: &mut Suite, name: &str, work: fn()) {
    suite
        .service(name, ops(1, "requests"))
        .server(move |s| {
            s.serve(move |conn| {
                let mut req = [0u8; 8];
                conn.read_exact(&mut req)?;
                work();
                conn.write_all(&req)
            })
        })
        .client(|c| {
            let seed = u64::from(c.index()) << 32;
            c.request(move |conn, i| {
                conn.write_all(&(seed | i).to_le_bytes())?;
                let mut reply = [0u8; 8];
                conn.read_exact(&mut reply)?;
                if u64::from_le_bytes(reply) != seed | i {
                    return Err(std::io::Error::other("the server echoed another request"));
                }
                Ok(())
            })
        });
}

fn main() {
    let mut suite = Suite::new();
    echo_service(&mut suite, "echo/plain", || ());
    // 2 * 1000 + 1 more instructions per request in the server than `echo/plain`.
    echo_service(&mut suite, "echo/loop1000", calibrated_loop::<1000>);
    // A server that panics on its 50th request: the load must fail this scenario only.
    suite
        .service("echo/server_panics", ops(1, "requests"))
        .server(|s| {
            let served = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
            s.serve(move |conn| {
                let mut req = [0u8; 8];
                conn.read_exact(&mut req)?;
                if served.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 49 {
                    panic!("the 50th request");
                }
                conn.write_all(&req)
            })
        })
        .client(|c| {
            c.request(|conn, i| {
                conn.write_all(&i.to_le_bytes())?;
                conn.read_exact(&mut [0u8; 8])
            })
        });
    suite.main();
}
