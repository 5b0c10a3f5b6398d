//! The measured region: the one function inside which callgrind counts instructions.
//!
//! The runner starts callgrind with `--collect-atstart=no --toggle-collect=costbench_measured_region`,
//! so collection is on exactly while this function runs. The function does nothing but call the
//! measured body through a function pointer; with an empty body the counted residual is the
//! region's own call and return plus the body's `ret` (a handful of instructions, reported on every
//! run as the harness residual). No subtraction is ever applied: subtracting a second measurement
//! adds its noise.

use std::mem::{ManuallyDrop, MaybeUninit};

/// Calls `body(ctx)`; the only function whose instructions callgrind counts.
///
/// It is `#[no_mangle]` so that its symbol is stable across crates, versions and builds, and
/// `#[inline(never)]` so that it exists as a function for callgrind to toggle on.
///
/// # Safety
/// `body` must be safe to call with `ctx`. Use it through [`Bench`](crate::Bench), never directly.
#[no_mangle]
#[inline(never)]
pub unsafe extern "C-unwind" fn costbench_measured_region(
    ctx: *mut u8,
    body: unsafe extern "C-unwind" fn(*mut u8),
) {
    // SAFETY: the caller guarantees `body` accepts `ctx`.
    unsafe { body(ctx) }
}

struct Ctx<F, R> {
    f: ManuallyDrop<F>,
    out: MaybeUninit<R>,
}

unsafe extern "C-unwind" fn shim<F: FnOnce() -> R, R>(ctx: *mut u8) {
    // SAFETY: `measured` passes a pointer to a live `Ctx<F, R>` whose `f` has not been taken.
    let ctx = unsafe { &mut *ctx.cast::<Ctx<F, R>>() };
    // SAFETY: `f` is taken exactly once, here.
    let f = unsafe { ManuallyDrop::take(&mut ctx.f) };
    ctx.out.write(f());
}

/// Runs `f` inside the measured region and returns its result, which the caller drops outside.
pub(crate) fn measured<F: FnOnce() -> R, R>(f: F) -> R {
    let mut ctx = Ctx {
        f: ManuallyDrop::new(f),
        out: MaybeUninit::uninit(),
    };
    // SAFETY: `shim::<F, R>` matches the context's type and is called once. If `f` panics the
    // panic unwinds through the `C-unwind` functions; `ctx.f` was already moved out and `out`
    // is never read, so nothing is dropped twice.
    unsafe {
        costbench_measured_region(std::ptr::addr_of_mut!(ctx).cast(), shim::<F, R>);
        ctx.out.assume_init()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_the_body_result() {
        let v = [1, 2, 3];
        assert_eq!(measured(|| v.iter().sum::<i32>()), 6);
    }

    #[test]
    fn panics_propagate() {
        let r = std::panic::catch_unwind(|| measured(|| panic!("boom")));
        assert!(r.is_err());
    }
}
