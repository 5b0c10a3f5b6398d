//! Secrets for the runner's `constant-time` instrument: [`secret`] and [`secret_bytes`] mark
//! memory as secret, [`public`] declassifies it. Under valgrind's memcheck a mark is a client
//! request (`VALGRIND_MAKE_MEM_UNDEFINED`, `VALGRIND_MAKE_MEM_DEFINED`): memcheck then reports
//! every conditional jump and every memory address computed from the marked bytes, which is
//! what a secret-dependent branch or table lookup is. Each mark also tells the runner, through
//! valgrind's client messages, how many bytes were marked and where, so that a scenario that
//! declared secrets and has no finding is reported constant time.
//!
//! The requests are valgrind's magic instruction sequence issued with inline assembly, as
//! iai-callgrind issues callgrind's: no C toolchain, no header, no dependency. Outside valgrind
//! (and on other architectures, where nothing is issued at all) the sequence does nothing, so a
//! mark changes no value and costs about twenty instructions (the request's six words stored,
//! the sequence, the test of the answer: `costbench::secret::mark` in a release build). This module owns the requests and their
//! codes only; the runner's instrument reads what memcheck reports.

/// Marks `value`'s bytes as secret: under the runner's `constant-time` instrument, every branch
/// and every memory address that depends on them is a finding, reported with its source line.
/// Natively (and under every other instrument) it does nothing.
///
/// Mark in the setup, before the measured body, or inside the body (for data the body creates,
/// such as a derived key); either way the body's branches and addresses are checked from the
/// mark on. Whatever is computed from a secret is secret too: declassify a result that may be
/// branched on (a comparison's verdict, a MAC check) with [`public`].
///
/// ```no_run
/// use costbench::{black_box, ops, Suite};
///
/// fn main() {
///     let mut suite = Suite::new();
///     suite.bench("tag/compare", ops(1, "comparisons"), |b| {
///         let key = [7u8; 32];
///         costbench::secret(&key); // setup: the key is secret from here on
///         b.iter(|| black_box(&key).iter().fold(0u8, |acc, k| acc | k) == 0);
///     });
///     suite.main();
/// }
/// ```
#[track_caller]
#[inline]
pub fn secret<T: ?Sized>(value: &T) {
    let len = std::mem::size_of_val(value);
    mark(
        (value as *const T).cast::<u8>(),
        len,
        Mark::Secret,
        std::panic::Location::caller(),
    );
}

/// Marks a slice of bytes as secret; the same as [`secret`], named for the common case of a key
/// or a password held in a `Vec<u8>` or a slice.
///
/// ```
/// let key = vec![0x2au8; 16];
/// costbench::secret_bytes(&key); // natively a no-op: the bytes are unchanged
/// assert_eq!(key[0], 0x2a);
/// ```
#[track_caller]
#[inline]
pub fn secret_bytes(bytes: &[u8]) {
    mark(
        bytes.as_ptr(),
        bytes.len(),
        Mark::Secret,
        std::panic::Location::caller(),
    );
}

/// Declassifies `value`: its bytes are public from here on, so branching on them is no finding.
/// Use it on what may be known, typically the verdict of a constant-time comparison before the
/// code branches on it, or a ciphertext before it is written out. Read the value through the
/// same place after the call (the compiler reloads it: the request may have touched it).
///
/// ```
/// let a = [1u8, 2, 3];
/// let b = [1u8, 2, 3];
/// costbench::secret(&a);
/// // Constant time: no branch inside the loop, one verdict at the end.
/// let diff = a.iter().zip(&b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
/// costbench::public(&diff);
/// assert!(diff == 0);
/// ```
#[inline]
pub fn public<T: ?Sized>(value: &T) {
    let len = std::mem::size_of_val(value);
    mark(
        (value as *const T).cast::<u8>(),
        len,
        Mark::Public,
        std::panic::Location::caller(),
    );
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    Secret,
    Public,
}

/// The prefix of the client message a secret mark sends; the runner counts these lines.
pub(crate) const MESSAGE_PREFIX: &str = "costbench-secret:";

#[cfg(target_arch = "x86_64")]
fn mark(ptr: *const u8, len: usize, how: Mark, at: &std::panic::Location<'_>) {
    if len == 0 {
        return;
    }
    match how {
        Mark::Secret => {
            // memcheck answers the request with a non-zero value; natively and under every
            // other tool (callgrind counting a body that marks a secret) the answer is the
            // default, 0, and no message is formatted: nothing is allocated where it is counted.
            if vg::request(vg::MAKE_MEM_UNDEFINED, ptr as usize, len) != 0 {
                let text = format!(
                    "{MESSAGE_PREFIX} {len} bytes at {}:{}\n",
                    at.file(),
                    at.line()
                );
                vg::print(&text);
            }
        }
        Mark::Public => {
            vg::request(vg::MAKE_MEM_DEFINED, ptr as usize, len);
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn mark(_ptr: *const u8, _len: usize, _how: Mark, _at: &std::panic::Location<'_>) {}

#[cfg(target_arch = "x86_64")]
mod vg {
    //! Valgrind's client requests on x86_64 (valgrind.h, memcheck.h).

    /// `VG_USERREQ__RUNNING_ON_VALGRIND`: non-zero under valgrind.
    #[cfg(test)]
    pub(super) const RUNNING_ON_VALGRIND: usize = 0x1001;
    /// `VG_USERREQ__PRINTF_VALIST_BY_REF`: a client message (format, pointer to a `va_list`).
    const PRINTF_VALIST_BY_REF: usize = 0x1403;
    /// memcheck's requests start at `VG_USERREQ_TOOL_BASE('M', 'C')`.
    const MEMCHECK_BASE: usize = ((b'M' as usize) << 24) | ((b'C' as usize) << 16);
    /// `VG_USERREQ__MAKE_MEM_UNDEFINED` (the base is `MAKE_MEM_NOACCESS`).
    pub(super) const MAKE_MEM_UNDEFINED: usize = MEMCHECK_BASE + 1;
    /// `VG_USERREQ__MAKE_MEM_DEFINED`.
    pub(super) const MAKE_MEM_DEFINED: usize = MEMCHECK_BASE + 2;

    /// Issues request `code` with two arguments; returns valgrind's answer, or 0 natively.
    #[inline(always)]
    pub(super) fn request(code: usize, a1: usize, a2: usize) -> usize {
        let args: [usize; 6] = [code, a1, a2, 0, 0, 0];
        let result;
        // SAFETY: the magic sequence rotates rdi by 128 bits in all (rdi ends as it started) and
        // exchanges rbx with itself; natively nothing changes but rdx, which is the default and
        // the result, and the flags.
        // Under valgrind the request reads `args` and may change memcheck's shadow state of the
        // marked bytes, never their values. No `nomem`: the compiler must have stored the
        // marked value before the request and reload it after.
        unsafe {
            core::arch::asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                in("rax") args.as_ptr(),
                inout("rdx") 0usize => result,
                // Not `preserves_flags`: natively the rotations do run, and `rol` sets CF and OF.
                options(nostack),
            );
        }
        result
    }

    /// A client message: valgrind writes `text` to its log (in XML, a `<clientmsg>`). `text`
    /// holds no `%`, so the `va_list` it points to is never read.
    pub(super) fn print(text: &str) {
        let mut c: Vec<u8> = text.replace('%', "pct").into_bytes();
        c.push(0);
        // An x86_64 `va_list` is 24 bytes; valgrind copies it but, with no `%` directive in the
        // format, reads nothing through it.
        let va_list = [0u64; 3];
        request(
            PRINTF_VALIST_BY_REF,
            c.as_ptr() as usize,
            va_list.as_ptr() as usize,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_change_no_value_natively() {
        let key = [1u8, 2, 3, 4];
        secret(&key);
        secret_bytes(&key[..2]);
        let word = 0xdead_beef_u32;
        secret(&word);
        public(&word);
        public(&key);
        assert_eq!(key, [1, 2, 3, 4]);
        assert_eq!(word, 0xdead_beef);
        secret::<[u8]>(&[]);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn request_codes_are_memchecks() {
        // memcheck.h: VG_USERREQ__MAKE_MEM_UNDEFINED = VG_USERREQ_TOOL_BASE('M','C') + 1.
        assert_eq!(vg::MAKE_MEM_UNDEFINED, 0x4d43_0001);
        assert_eq!(vg::MAKE_MEM_DEFINED, 0x4d43_0002);
        // Natively the request answers its default.
        assert_eq!(vg::request(vg::RUNNING_ON_VALGRIND, 0, 0), 0);
    }
}
