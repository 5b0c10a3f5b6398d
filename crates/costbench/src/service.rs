//! Service scenarios: a server and its clients, measured two ways.
//!
//! - **Per request**, like any multi-party scenario: the scenario is the two parties `client`
//!   and `server` connected by a [`Link`], and one run of their measured bodies is
//!   `requests_per_run` requests. Every instrument that measures parties reports each side per
//!   operation.
//! - **Under load**: the server runs in a process of its own, accepting TCP connections on
//!   loopback, and a load process runs N client threads against it; both are modes of the
//!   child protocol, in the instrument's module of [`crate::instrument`] that measures them.
//!
//! The user's code is the same in both: a server handler that answers one request on a
//! [`Conn`], and a client closure that makes one request.

use crate::bench::{Bench, BodyFn};
use crate::link::Link;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

/// A connection between a client and the server of a service scenario: loopback TCP under
/// load, a [`Link`] when the two run as parties (instruction counts, wall time, smoke tests).
/// Read and write it like a socket; a request should be written in as few writes as it can.
#[derive(Debug)]
pub struct Conn {
    inner: ConnInner,
}

#[derive(Debug)]
enum ConnInner {
    Tcp(TcpStream),
    Link(Link),
}

impl Conn {
    pub(crate) fn link(link: Link) -> Conn {
        Conn {
            inner: ConnInner::Link(link),
        }
    }

    pub(crate) fn tcp(stream: TcpStream) -> Conn {
        Conn {
            inner: ConnInner::Tcp(stream),
        }
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.inner {
            ConnInner::Tcp(s) => s.read(buf),
            ConnInner::Link(l) => l.read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            ConnInner::Tcp(s) => s.write(buf),
            ConnInner::Link(l) => l.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            ConnInner::Tcp(s) => s.flush(),
            ConnInner::Link(l) => l.flush(),
        }
    }
}

/// Answers one request on a connection. Returning an error of kind `UnexpectedEof` (what
/// `read_exact` returns when the client has closed) ends the connection quietly.
pub(crate) type Handler = Arc<dyn Fn(&mut Conn) -> io::Result<()> + Send + Sync>;
/// Makes request number `i` of one client.
pub(crate) type Request = Box<dyn FnMut(&mut Conn, u64) -> io::Result<()> + Send>;

pub(crate) type ServerFn = Arc<dyn Fn(&mut Server) + Send + Sync>;
pub(crate) type ClientFn = Arc<dyn Fn(&mut Client) + Send + Sync>;

/// The server side's setup, given to the closure of [`Service::server`]: build the state, then
/// hand the request handler to [`Server::serve`].
///
/// [`Service::server`]: crate::Service::server
pub struct Server {
    handler: Option<Handler>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("serving", &self.handler.is_some())
            .finish()
    }
}

impl Server {
    /// Registers the handler: it reads one request from the connection and writes the reply.
    /// Under load every connection has a thread of its own, all calling this handler, so state
    /// shared between connections goes behind an `Arc`.
    ///
    /// ```no_run
    /// use std::io::{Read, Write};
    /// # let mut suite = costbench::Suite::new();
    /// suite.service("echo", costbench::ops(1, "requests"))
    ///     .server(|s| {
    ///         s.serve(|conn| {
    ///             let mut req = [0u8; 8];
    ///             conn.read_exact(&mut req)?;
    ///             conn.write_all(&req)
    ///         })
    ///     })
    ///     .client(|c| {
    ///         c.request(|conn, i| {
    ///             conn.write_all(&i.to_le_bytes())?;
    ///             let mut reply = [0u8; 8];
    ///             conn.read_exact(&mut reply)
    ///         })
    ///     });
    /// ```
    pub fn serve<F>(&mut self, handler: F)
    where
        F: Fn(&mut Conn) -> io::Result<()> + Send + Sync + 'static,
    {
        self.handler = Some(Arc::new(handler));
    }
}

/// One client's setup, given to the closure of [`Service::client`] once per client (per
/// connection): build its inputs, then hand the request maker to [`Client::request`].
///
/// [`Service::client`]: crate::Service::client
pub struct Client {
    index: u32,
    clients: u32,
    request: Option<Request>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("index", &self.index)
            .field("clients", &self.clients)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// This client's number, `0..clients()`: seed its inputs with it so that clients do not
    /// all ask for the same thing.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// How many clients run at once (1 when the scenario runs as two parties).
    pub fn clients(&self) -> u32 {
        self.clients
    }

    /// Registers the request maker: `f(conn, i)` sends this client's request number `i` and
    /// reads its whole reply. An error ends the measurement with the error's text.
    pub fn request<F>(&mut self, f: F)
    where
        F: FnMut(&mut Conn, u64) -> io::Result<()> + Send + 'static,
    {
        self.request = Some(Box::new(f));
    }
}

/// What [`crate::Suite::service`] registered.
#[derive(Clone)]
pub(crate) struct ServiceDef {
    pub(crate) server: Option<ServerFn>,
    pub(crate) client: Option<ClientFn>,
    pub(crate) ops_per_request: u64,
    pub(crate) requests_per_run: u64,
}

/// Requests one run of the parties' bodies makes, unless [`Service::requests_per_run`] says.
pub(crate) const DEFAULT_REQUESTS_PER_RUN: u64 = 100;

impl ServiceDef {
    /// The `client` and `server` parties (in that order) that measure the service per request,
    /// once both sides are registered.
    pub(crate) fn parties(&self) -> Vec<(String, BodyFn)> {
        let (Some(server), Some(client)) = (self.server.clone(), self.client.clone()) else {
            return Vec::new();
        };
        let n = self.requests_per_run;
        let client_body: BodyFn = Arc::new(move |b: &mut Bench| {
            let mut conn = Conn::link(b.peer());
            let mut request = client_request(&client, 0, 1, b.name());
            let mut i = 0u64;
            b.iter(move || {
                for _ in 0..n {
                    if let Err(e) = request(&mut conn, i) {
                        panic!("client: request {i} failed: {e}");
                    }
                    i += 1;
                }
            });
        });
        let server_body: BodyFn = Arc::new(move |b: &mut Bench| {
            let mut conn = Conn::link(b.peer());
            let handler = server_handler(&server, b.name());
            b.iter(move || {
                for k in 0..n {
                    if let Err(e) = handler(&mut conn) {
                        panic!("server: answering request {k} of the run failed: {e}");
                    }
                }
            });
        });
        vec![
            ("client".into(), client_body),
            ("server".into(), server_body),
        ]
    }
}

/// Runs the server's setup and returns its handler; a setup that registered none is misuse.
pub(crate) fn server_handler(server: &ServerFn, scenario: &str) -> Handler {
    let mut s = Server { handler: None };
    server(&mut s);
    s.handler.unwrap_or_else(|| {
        misuse(
            scenario,
            "the server closure returned without calling serve(handler)",
        )
    })
}

/// Runs client `index`'s setup and returns its request maker.
pub(crate) fn client_request(
    client: &ClientFn,
    index: u32,
    clients: u32,
    scenario: &str,
) -> Request {
    let mut c = Client {
        index,
        clients,
        request: None,
    };
    client(&mut c);
    c.request.unwrap_or_else(|| {
        misuse(
            scenario,
            "the client closure returned without calling request(f)",
        )
    })
}

pub(crate) fn misuse(scenario: &str, what: &str) -> ! {
    eprintln!("costbench: scenario {scenario:?}: {what}");
    std::process::exit(costbench_protocol::EXIT_SCENARIO_MISUSE)
}
