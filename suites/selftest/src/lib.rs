//! Kernels with exactly known costs, used by costbench's own end-to-end tests.
//!
//! Nothing here is an example of good benchmarking: each item exists so that a test can assert an
//! exact figure (an instruction count, a number of executed checks) or a failure mode.

/// Executes exactly `2 * N + 1` instructions on x86-64 (`mov ecx, N`, then `N` times `dec` +
/// `jnz`). `N` is an assembler constant, so no instruction is spent loading it.
///
/// `N` must be at least 1.
#[inline(always)]
pub fn calibrated_loop<const N: u32>() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: only touches ecx, which is declared clobbered; no memory, no stack.
    unsafe {
        std::arch::asm!(
            "mov ecx, {n}",
            "2:",
            "dec ecx",
            "jnz 2b",
            n = const N,
            out("ecx") _,
            options(nomem, nostack),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        unimplemented!("the calibrated loop is written in x86-64 assembly");
    }
}

/// Instructions [`calibrated_loop`] executes for `n`.
pub fn calibrated_loop_instructions(n: u32) -> u64 {
    2 * u64::from(n) + 1
}

/// Sums `xs` with `+`: under `overflow-checks` every addition is followed by a check (and the
/// loop cannot be vectorised), so a build variant with overflow checks on executes more
/// instructions for it than the plain release build.
#[inline(never)]
pub fn checked_sum(xs: &[u32]) -> u32 {
    let mut s = 0u32;
    for &x in xs {
        s += x;
    }
    s
}

/// Extra work of the `knob/spin` scenario, in thousandths of its base work. Committed as 0; the
/// accuracy benchmark (`scripts/accuracy.sh`) edits it in a scratch checkout to make a known
/// slowdown (50 = +5 % instructions and time) and checks that `costbench check` sees it.
pub const KNOB_EXTRA_PERMILLE: u64 = 0;

/// Steps of the knob scenario's body at `extra_permille`: 100,000 plus that many thousandths.
pub fn knob_steps(extra_permille: u64) -> u64 {
    100_000 + 100 * extra_permille
}

/// `steps` iterations of `dec` + `jnz` (`steps` at least 1): two instructions and, being one
/// dependency chain, about one cycle per step, with nothing the optimiser can fold, so time and
/// instructions both grow exactly with `steps`.
#[inline(never)]
pub fn spin(steps: u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: only touches the register it is given, declared clobbered; no memory, no stack.
    unsafe {
        std::arch::asm!(
            "2:",
            "dec {n}",
            "jnz 2b",
            n = inout(reg) steps.max(1) => _,
            options(nomem, nostack),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        unimplemented!("spin is written in x86-64 assembly ({steps} steps)");
    }
}

/// `n` short lowercase words (3 to 12 letters) from a fixed xorshift sequence.
pub fn short_words(n: usize) -> Vec<String> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut below = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    (0..n)
        .map(|_| {
            let len = 3 + below(10);
            (0..len).map(|_| (b'a' + below(26) as u8) as char).collect()
        })
        .collect()
}

/// Word frequencies keyed by owned copies: an allocation per word and `memcmp` for every key
/// comparison, so its instruction count depends on where the heap places the words (glibc
/// malloc's state, `memcmp`'s alignment paths). The data-placement tests use it.
#[inline(never)]
pub fn count_owned(words: &[String]) -> std::collections::BTreeMap<String, usize> {
    let mut m = std::collections::BTreeMap::new();
    for w in words {
        *m.entry(w.to_string()).or_insert(0) += 1;
    }
    m
}

/// The Rust samples of the README and of the guide book's chapters, compiled as this crate's
/// doctests (issue 41), and run unless marked `no_run`: a sample that stops building against the
/// library fails `cargo test`. Lines starting `# ` set a sample up (a `suite` to add to, a
/// helper it calls); rustdoc and mdBook both hide them. This crate is where the samples can use
/// everything a user's bench can: the library with `count-alloc`, and `subtle`.
/// docs/extending.md is not here: its samples are excerpts of the runner's own source;
/// `scripts/toy-instrument.sh` writes the same toy instrument into a scratch worktree and builds
/// it.
#[cfg(doctest)]
pub mod book {
    macro_rules! chapters {
        ($($name:ident = $file:literal,)*) => {
            $(
                #[doc = include_str!(concat!("../../../", $file))]
                pub struct $name;
            )*
        };
    }
    chapters! {
        Readme = "README.md",
        Introduction = "docs/introduction.md",
        GettingStarted = "docs/guide/getting-started.md",
        Scenarios = "docs/guide/scenarios.md",
        ExistingBenches = "docs/guide/existing-benches.md",
        Run = "docs/guide/run.md",
        HowItMeasures = "docs/guide/how-it-measures.md",
        Counters = "docs/guide/counters.md",
        Census = "docs/guide/census.md",
        Throughput = "docs/guide/throughput.md",
        Check = "docs/guide/check.md",
        History = "docs/guide/history.md",
        Variants = "docs/guide/variants.md",
        Experiments = "docs/guide/experiments.md",
        Contracts = "docs/guide/contracts.md",
        Report = "docs/guide/report.md",
        Miri = "docs/guide/miri.md",
        Config = "docs/reference/config.md",
        Contributing = "docs/contributing.md",
    }
}
