//! A service scenario under load: the server on an inherited listening socket, one thread per
//! connection, until killed ([`serve`]), and the load, N client threads with one connection
//! each, through a warm-up and then measured time slices, every request's latency in an HDR
//! histogram ([`load`], its settings [`LoadConfig`]).

use crate::instrument::walltime::sample::Lockstep;
#[cfg(unix)]
use crate::service::server_handler;
use crate::service::{client_request, Conn, Request, ServiceDef};
use costbench_protocol::{LoadResult, LoadSlice, PROTOCOL_VERSION};
#[cfg(unix)]
use std::io;
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The `serve` mode: setup, then accept connections on the inherited listening socket, one
/// thread per connection, until killed.
#[cfg(unix)]
pub(super) fn serve(def: &ServiceDef, scenario: &str, listen_fd: i32) -> io::Result<()> {
    use std::os::fd::FromRawFd;
    let server = def
        .server
        .as_ref()
        .expect("validated: a service has a server");
    // SAFETY: the runner passes this descriptor open, listening, for this process alone.
    let listener = unsafe { std::net::TcpListener::from_raw_fd(listen_fd) };
    let handler = server_handler(server, scenario);
    for stream in listener.incoming() {
        let stream = stream?;
        stream.set_nodelay(true)?;
        let handler = handler.clone();
        std::thread::spawn(move || {
            let mut conn = Conn::tcp(stream);
            loop {
                match handler(&mut conn) {
                    Ok(()) => {}
                    Err(e) if is_disconnect(&e) => return,
                    Err(e) => {
                        eprintln!("costbench server: a connection's handler failed: {e}");
                        return;
                    }
                }
            }
        });
    }
    Ok(())
}

#[cfg(unix)]
fn is_disconnect(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
    )
}

/// What the `load` mode was asked to do.
#[derive(Debug, Clone)]
pub(crate) struct LoadConfig {
    pub connect: String,
    pub clients: u32,
    pub warmup: Duration,
    pub slice: Duration,
    pub slices: u32,
    /// Open-loop target rate, ops per second over all clients.
    pub rate: Option<f64>,
    pub lockstep: Option<Lockstep>,
}

impl Default for LoadConfig {
    fn default() -> Self {
        LoadConfig {
            connect: String::new(),
            clients: 1,
            warmup: Duration::from_millis(300),
            slice: Duration::from_millis(200),
            slices: 5,
            rate: None,
            lockstep: None,
        }
    }
}

/// Latencies above this (100 s) are recorded as this.
const MAX_LATENCY_NS: u64 = 100_000_000_000;

fn new_histogram() -> hdrhistogram::Histogram<u64> {
    hdrhistogram::Histogram::new_with_bounds(1, MAX_LATENCY_NS, 3)
        .expect("the histogram's bounds are valid")
}

// The phase word: `seq << 32 | slice << 8 | kind`; `seq` grows with every change, so a thread
// tells one pause from the next.
const SETUP: u64 = 0;
const WARMUP: u64 = 1;
const SLICE: u64 = 2;
const PAUSE: u64 = 3;
const STOP: u64 = 4;

fn decode(word: u64) -> (u64, usize, u64) {
    (word >> 32, ((word >> 8) & 0xff_ffff) as usize, word & 0xff)
}

/// What the load's threads share with its main thread.
struct Control {
    word: AtomicU64,
    /// When the current warm-up or slice began (open-loop schedules start from it).
    started: Mutex<Instant>,
    lock: Mutex<()>,
    changed: Condvar,
    /// Threads that have finished their last request since the current pause began.
    paused: AtomicUsize,
    /// Per slice: the latencies and request count of every thread, added as each pauses.
    slices: Vec<Mutex<(hdrhistogram::Histogram<u64>, u64)>>,
    warmup_requests: AtomicU64,
}

impl Control {
    fn set(&self, kind: u64, slice: usize) {
        let _g = self
            .lock
            .lock()
            .expect("no load thread panics holding the lock");
        let (seq, _, _) = decode(self.word.load(Ordering::Acquire));
        *self.started.lock().expect("never poisoned") = Instant::now();
        if kind == PAUSE {
            self.paused.store(0, Ordering::Release);
        }
        self.word.store(
            ((seq + 1) << 32) | ((slice as u64) << 8) | kind,
            Ordering::Release,
        );
        self.changed.notify_all();
    }

    /// Blocks until the phase word is no longer `word`.
    fn wait_change(&self, word: u64) {
        let mut g = self.lock.lock().expect("never poisoned");
        while self.word.load(Ordering::Acquire) == word {
            g = self.changed.wait(g).expect("never poisoned");
        }
    }
}

/// The `load` mode: `clients` threads against the server at `connect`; returns the slices.
pub(super) fn load(def: &ServiceDef, scenario: &str, cfg: &LoadConfig) -> LoadResult {
    let client = def
        .client
        .clone()
        .expect("validated: a service has clients");
    let ctl = Arc::new(Control {
        word: AtomicU64::new(SETUP),
        started: Mutex::new(Instant::now()),
        lock: Mutex::new(()),
        changed: Condvar::new(),
        paused: AtomicUsize::new(0),
        slices: (0..cfg.slices)
            .map(|_| Mutex::new((new_histogram(), 0)))
            .collect(),
        warmup_requests: AtomicU64::new(0),
    });
    let (ready_tx, ready_rx) = mpsc::channel::<Result<(), String>>();
    let mut threads = Vec::new();
    for index in 0..cfg.clients {
        let ctl = ctl.clone();
        let client = client.clone();
        let ready = ready_tx.clone();
        let cfg = cfg.clone();
        let scenario = scenario.to_string();
        threads.push(std::thread::spawn(move || {
            let stream = match TcpStream::connect(&cfg.connect).and_then(|s| {
                s.set_nodelay(true)?;
                Ok(s)
            }) {
                Ok(s) => s,
                Err(e) => {
                    let _ = ready.send(Err(format!(
                        "client {index}: cannot connect to the server at {}: {e}",
                        cfg.connect
                    )));
                    return;
                }
            };
            let request = client_request(&client, index, cfg.clients, &scenario);
            let _ = ready.send(Ok(()));
            drop(ready);
            client_thread(&ctl, &cfg, index, Conn::tcp(stream), request);
        }));
    }
    drop(ready_tx);
    for _ in 0..cfg.clients {
        match ready_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(why)) => {
                eprintln!("costbench load: {why}");
                std::process::exit(1);
            }
            Err(_) => {
                eprintln!("costbench load: a client thread ended during its setup");
                std::process::exit(1);
            }
        }
    }
    let all_paused = || {
        while ctl.paused.load(Ordering::Acquire) < cfg.clients as usize {
            std::thread::sleep(Duration::from_micros(50));
        }
    };
    ctl.set(WARMUP, 0);
    std::thread::sleep(cfg.warmup);
    ctl.set(PAUSE, 0);
    all_paused();
    let mut elapsed = Vec::new();
    for k in 0..cfg.slices as usize {
        if let Some(l) = &cfg.lockstep {
            l.wait();
        }
        let start = Instant::now();
        ctl.set(SLICE, k);
        std::thread::sleep(cfg.slice);
        ctl.set(PAUSE, k);
        all_paused();
        elapsed.push(start.elapsed());
        if let Some(l) = &cfg.lockstep {
            l.pass();
        }
    }
    ctl.set(STOP, 0);
    for t in threads {
        if t.join().is_err() {
            // The panic message is already on stderr.
            std::process::exit(101);
        }
    }
    let slices = ctl
        .slices
        .iter()
        .zip(elapsed)
        .map(|(m, d)| {
            let (h, requests) = &*m.lock().expect("never poisoned");
            LoadSlice {
                elapsed_ns: u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
                requests: *requests,
                latency_ns: h
                    .iter_recorded()
                    .map(|v| {
                        (
                            h.highest_equivalent(v.value_iterated_to()),
                            v.count_at_value(),
                        )
                    })
                    .collect(),
            }
        })
        .collect();
    LoadResult {
        protocol: PROTOCOL_VERSION,
        scenario: scenario.to_string(),
        clients: cfg.clients,
        rate: cfg.rate,
        ops_per_request: def.ops_per_request,
        warmup_requests: ctl.warmup_requests.load(Ordering::Acquire),
        slices,
    }
}

/// One client's life under load: requests while the phase is warm-up or a slice, the slice's
/// latencies handed over at each pause, until stop.
fn client_thread(
    ctl: &Control,
    cfg: &LoadConfig,
    index: u32,
    mut conn: Conn,
    mut request: Request,
) {
    low_timer_slack();
    let mut hist = new_histogram();
    let mut requests = 0u64;
    let mut warm = 0u64;
    let mut measuring: Option<usize> = None;
    let mut acked_seq = u64::MAX;
    // Open loop: each client's share of the rate, its first request offset by its index so
    // that the clients' requests interleave evenly.
    let interval = cfg
        .rate
        .map(|r| Duration::from_secs_f64(f64::from(cfg.clients) / r.max(1e-9)));
    let mut schedule: Option<(u64, Instant)> = None;
    let mut i = 0u64;
    loop {
        let word = ctl.word.load(Ordering::Acquire);
        let (seq, slice, kind) = decode(word);
        match kind {
            STOP => break,
            SETUP | PAUSE => {
                if kind == PAUSE && seq != acked_seq {
                    if let Some(k) = measuring.take() {
                        let mut s = ctl.slices[k].lock().expect("never poisoned");
                        s.0.add(&hist).expect("same bounds");
                        s.1 += requests;
                        hist.reset();
                        requests = 0;
                    }
                    ctl.warmup_requests.fetch_add(warm, Ordering::AcqRel);
                    warm = 0;
                    acked_seq = seq;
                    ctl.paused.fetch_add(1, Ordering::AcqRel);
                }
                ctl.wait_change(word);
            }
            _ => {
                if kind == SLICE {
                    measuring = Some(slice);
                }
                let due = interval.map(|iv| {
                    let next = match schedule {
                        Some((s, next)) if s == seq => next,
                        _ => {
                            let start = *ctl.started.lock().expect("never poisoned");
                            start + iv.mul_f64(f64::from(index) / f64::from(cfg.clients))
                        }
                    };
                    let now = Instant::now();
                    if next > now {
                        std::thread::sleep(next - now);
                    }
                    schedule = Some((seq, next + iv));
                    next
                });
                let sent = Instant::now();
                if let Err(e) = request(&mut conn, i) {
                    eprintln!("costbench load: client {index}: request {i} failed: {e}");
                    std::process::exit(1);
                }
                let done = Instant::now();
                i += 1;
                if kind == SLICE {
                    // Open loop: from when the request was due (coordinated omission).
                    let from = due.unwrap_or(sent);
                    let ns =
                        u64::try_from(done.duration_since(from).as_nanos()).unwrap_or(u64::MAX);
                    hist.saturating_record(ns.max(1));
                    requests += 1;
                } else {
                    warm += 1;
                }
            }
        }
    }
}

/// Open-loop sleeps end within a microsecond of their deadline rather than the kernel's default
/// 50 µs slack, which would otherwise be charged to every request's latency.
fn low_timer_slack() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer and only affects this thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1_000 as libc::c_ulong);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phase_word_round_trips() {
        let w = (7u64 << 32) | (12u64 << 8) | SLICE;
        assert_eq!(decode(w), (7, 12, SLICE));
    }
}
