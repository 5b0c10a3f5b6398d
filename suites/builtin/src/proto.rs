//! A tiny length-prefixed request/response protocol and a bulk transfer, for the client/server
//! scenarios. Both sides work on any `Read + Write` (a costbench `Link`, a socket, a pipe).

use std::io::{self, Read, Write};

/// Sends `request` framed as a little-endian u32 length plus payload, in one write.
pub fn send_frame(io: &mut impl Write, scratch: &mut Vec<u8>, payload: &[u8]) -> io::Result<()> {
    scratch.clear();
    scratch.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    scratch.extend_from_slice(payload);
    io.write_all(scratch)
}

/// Receives one frame into `buf` (resized to the payload); `Ok(false)` at end of stream.
pub fn recv_frame(io: &mut impl Read, buf: &mut Vec<u8>) -> io::Result<bool> {
    let mut len = [0u8; 4];
    match io.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
        Err(e) => return Err(e),
    }
    buf.resize(u32::from_le_bytes(len) as usize, 0);
    io.read_exact(buf)?;
    Ok(true)
}

/// The server's answer to a request: an 8-byte FNV-1a checksum of it.
#[inline(never)]
pub fn respond(request: &[u8]) -> [u8; 8] {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in request {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h.to_le_bytes()
}

/// Client side: sends each request and checks each reply.
#[inline(never)]
pub fn client_requests(io: &mut (impl Read + Write), requests: &[Vec<u8>]) -> io::Result<()> {
    let (mut scratch, mut reply) = (Vec::new(), Vec::new());
    for r in requests {
        send_frame(io, &mut scratch, r)?;
        if !recv_frame(io, &mut reply)? || reply[..] != respond(r) {
            return Err(io::Error::other("wrong reply"));
        }
    }
    Ok(())
}

/// Server side: answers exactly `n` requests.
#[inline(never)]
pub fn serve_requests(io: &mut (impl Read + Write), n: usize) -> io::Result<()> {
    let (mut scratch, mut req) = (Vec::new(), Vec::new());
    for _ in 0..n {
        if !recv_frame(io, &mut req)? {
            return Err(io::Error::other("client left early"));
        }
        send_frame(io, &mut scratch, &respond(&req))?;
    }
    Ok(())
}

/// Sender of a bulk transfer: writes `data` in 64 KiB chunks, then waits for a 1-byte ack.
#[inline(never)]
pub fn send_bulk(io: &mut (impl Read + Write), data: &[u8]) -> io::Result<()> {
    for chunk in data.chunks(64 * 1024) {
        io.write_all(chunk)?;
    }
    let mut ack = [0u8; 1];
    io.read_exact(&mut ack)
}

/// Receiver of a bulk transfer: reads exactly `buf.len()` bytes, then acknowledges.
#[inline(never)]
pub fn recv_bulk(io: &mut (impl Read + Write), buf: &mut [u8]) -> io::Result<()> {
    io.read_exact(buf)?;
    io.write_all(&[1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixStream;

    #[test]
    fn client_and_server_agree() {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        let reqs: Vec<Vec<u8>> = (0..20u8).map(|i| vec![i; 32 + i as usize]).collect();
        let t = std::thread::spawn(move || serve_requests(&mut b, 20));
        client_requests(&mut a, &reqs).unwrap();
        t.join().unwrap().unwrap();
    }

    #[test]
    fn bulk_transfer_arrives_whole() {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        let data: Vec<u8> = (0..300_000u32).map(|i| i as u8).collect();
        let expect = data.clone();
        let t = std::thread::spawn(move || {
            let mut buf = vec![0u8; 300_000];
            recv_bulk(&mut b, &mut buf).unwrap();
            buf
        });
        send_bulk(&mut a, &data).unwrap();
        assert_eq!(t.join().unwrap(), expect);
    }
}
