#!/usr/bin/env python3
"""The unrelated pull requests of `scripts/accuracy.sh`, part `kinds`: edits of the built-in suite
(suites/builtin) that leave every existing scenario's measured code alone (the bodies given to
`b.iter` and the library functions they call) but change what users' pull requests change:
where code and data sit, what the binary holds, how the scenarios are registered.

Usage: scripts/accuracy-kinds.py list               the kinds, one per line, in order
       scripts/accuracy-kinds.py expect KIND        "NEW MISSING": how many ids `check` should
                                                    report new in / missing from the candidate
       scripts/accuracy-kinds.py apply TREE KIND    edits the worktree TREE (a checkout of HEAD)

Every edit is a string replacement whose anchor must occur exactly once, so a suite that drifted
fails here rather than silently measuring an unedited candidate. After editing, `apply` checks
that every `b.iter(...)` body of the bench file and every `#[inline(never)]` item of the
library is still there, character for character (for `remove`: all but the removed one).
"""
import collections
import os
import re
import sys

BENCH = "suites/builtin/benches/builtin.rs"
SRC = "suites/builtin/src"
TOML = "suites/builtin/Cargo.toml"
LOCK = "Cargo.lock"

MAIN_START = "    let mut suite = Suite::new();\n    indexing(&mut suite);\n"
MAIN_END = "    client_server(&mut suite);\n    suite.main();\n"
FN_MAIN = "\nfn main() {\n"
# The end of the group functions `indexing` and `file_io`: scenarios added in the middle.
INDEXING_END = """        b.iter(|| index::matmul_iter(black_box(&x), black_box(&yt), &mut c, black_box(N)))
    });
}
"""
FILE_IO_END = """        b.iter(|| files::write_buffered(f.path(), &lines).expect("write"))
    });
}
"""
TESTS = "\n#[cfg(test)]\nmod tests {\n"
REMOVED = """    suite.bench("regex/suffix/regex", ops(MANY as u64, "names"), |b| {
        let names = text::file_names(MANY, 10);
        let re = Regex::new(r"\\.rs$").expect("valid pattern");
        b.iter(|| text::count_suffix_regex(black_box(&names), &re))
    });
"""


class Tree:
    def __init__(self, root):
        self.root = root

    def path(self, rel):
        return os.path.join(self.root, rel)

    def read(self, rel):
        with open(self.path(rel)) as f:
            return f.read()

    def write(self, rel, text):
        with open(self.path(rel), "w") as f:
            f.write(text)

    def replace(self, rel, old, new):
        """Replaces the one occurrence of `old` in `rel`."""
        s = self.read(rel)
        n = s.count(old)
        assert n == 1, f"{rel}: anchor found {n} times, not once:\n{old}"
        self.write(rel, s.replace(old, new))

    def insert_before(self, rel, anchor, text):
        self.replace(rel, anchor, text + anchor)

    def insert_after(self, rel, anchor, text):
        self.replace(rel, anchor, anchor + text)

    def create(self, rel, text):
        assert not os.path.exists(self.path(rel)), f"{rel} exists already"
        self.write(rel, text)

    def sub(self, rel, pattern, repl, count):
        """Replaces every match of `pattern` in `rel`, of which there must be `count`."""
        s, n = re.subn(pattern, repl, self.read(rel))
        assert n == count, f"{rel}: {pattern!r} matched {n} times, not {count}"
        self.write(rel, s)


def before_main(t, text):
    """A group function of the bench file, defined just before `main`."""
    t.insert_before(BENCH, FN_MAIN, "\n" + text.strip("\n") + "\n")


def first(t):
    before_main(t, '''
/// A scenario with code of its own, registered before all others (accuracy harness).
fn kinds_first(suite: &mut Suite) {
    const N: usize = miri_size(4096, 64);
    suite.bench("kinds/first/popcount", ops(N as u64, "words"), |b| {
        let xs: Vec<u64> = (0..N as u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        b.iter(|| {
            black_box(&xs)
                .iter()
                .map(|x| u64::from(x.count_ones()))
                .sum::<u64>()
        })
    });
}''')
    t.replace(BENCH, MAIN_START,
              "    let mut suite = Suite::new();\n    kinds_first(&mut suite);\n"
              "    indexing(&mut suite);\n")


def module(t):
    t.create(f"{SRC}/checksums.rs", '''//! CRC-32, one bit at a time: a module that exists only to move the rest of the library
//! (accuracy harness, `scripts/accuracy.sh` part `kinds`).

/// The CRC-32 (IEEE 802.3, reflected) of `bytes`.
#[inline(never)]
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xedb8_8320 & mask);
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    #[test]
    fn check_value() {
        assert_eq!(super::crc32(b"123456789"), 0xcbf4_3926);
    }
}
''')
    t.replace(f"{SRC}/lib.rs", "pub mod cache;\npub mod data;\n",
              "pub mod cache;\npub mod checksums;\npub mod data;\n")
    before_main(t, '''
/// A scenario of a new library module, registered after all others (accuracy harness).
fn kinds_module(suite: &mut Suite) {
    const BYTES: usize = miri_size(4096, 64);
    suite.bench("kinds/module/crc32", ops(BYTES as u64, "bytes"), |b| {
        let bytes: Vec<u8> = (0..BYTES).map(|i| (i * 7 % 256) as u8).collect();
        b.iter(|| costbench_suite::checksums::crc32(black_box(&bytes)))
    });
}''')
    t.replace(BENCH, MAIN_END,
              "    client_server(&mut suite);\n    kinds_module(&mut suite);\n    suite.main();\n")


def setup_helper(t):
    t.insert_before(f"{SRC}/data.rs", TESTS, '''
/// An order-sensitive digest of `xs` (a rotate-and-xor fold), for setup code that checks its
/// input.
pub fn digest(xs: &[u64]) -> u64 {
    xs.iter().fold(0u64, |h, &x| h.rotate_left(7) ^ x)
}
''')
    t.replace(BENCH, """        let xs = data::words(XS, 12);
        b.iter(|| strings::sum_even_squares_streamed(black_box(&xs)))""",
              """        let xs = data::words(XS, 12);
        black_box(data::digest(&xs));
        b.iter(|| strings::sum_even_squares_streamed(black_box(&xs)))""")


def doc(t):
    t.insert_after(f"{SRC}/lib.rs",
                   "//! instruction counts are identical from run to run.\n",
                   "//!\n//! The generators of [`data`] take a length and a seed, nothing else: a "
                   "scenario's input is\n//! named by those two numbers.\n")
    t.insert_after(f"{SRC}/index.rs",
                   "/// Sums `data[i]` for every `i` in `idx`: one bounds check per element.\n",
                   "///\n/// Panics if an index is out of range.\n")
    t.insert_after(f"{SRC}/text.rs",
                   "/// Pattern for the e-mail-like lines of [`lines`].\n",
                   "///\n/// Anchored at both ends: a line matches as a whole or not "
                   "at all.\n")
    t.insert_before(BENCH, "fn regexes(suite: &mut Suite) {\n",
                    "/// Regular expressions: compiled per line or once, and the plain string "
                    "methods beside them.\n")
    t.insert_before(BENCH, "    const XS: usize = miri_size(10_000, 200);\n",
                    "    // Both pipelines get the same elements (seed 12): only the way differs.\n")


def reorder(t):
    t.replace(BENCH, "    regexes(&mut suite);\n    file_io(&mut suite);\n",
              "    file_io(&mut suite);\n    regexes(&mut suite);\n")


def rename(t):
    # index::transpose is called only in the setup of index/matmul32/iter (before b.iter) and in
    # a unit test; matmul_iter takes its result.
    t.sub(f"{SRC}/index.rs", r"\btranspose\(", "transposed(", 2)
    t.sub(BENCH, r"\bindex::transpose\(", "index::transposed(", 1)
    t.sub(BENCH, r"\btranspose\(", "", 0)


def static_table(t):
    t.insert_before(f"{SRC}/index.rs", TESTS, '''
/// Squares of 0..1024 modulo 2^32: a 4 KiB lookup table in read-only data.
pub static SQUARES: [u32; 1024] = {
    let mut t = [0u32; 1024];
    let mut i = 0;
    while i < t.len() {
        t[i] = (i * i) as u32;
        i += 1;
    }
    t
};

/// Sums [`SQUARES`] at every index of `idx` (taken modulo the table's length).
#[inline(never)]
pub fn sum_squares(idx: &[usize]) -> u64 {
    idx.iter()
        .map(|&i| u64::from(SQUARES[i % SQUARES.len()]))
        .sum()
}
''')
    # Registered at the end of `indexing`: in the middle of the suite.
    t.replace(BENCH, INDEXING_END, INDEXING_END[: -len("}\n")] + '''    suite.bench(
        "kinds/static_table/lookup",
        ops(LOOKUPS as u64, "lookups"),
        |b| {
            let idx = data::indices(LOOKUPS, index::SQUARES.len(), 21);
            b.iter(|| index::sum_squares(black_box(&idx)))
        },
    );
}
''')


def family(t):
    before_main(t, '''
/// A sized family of scenarios, registered before all others (accuracy harness).
fn kinds_family(suite: &mut Suite) {
    suite.bench_params(
        "kinds/family/rotate_xor",
        [256usize, 1024, 4096],
        |n| ops(*n as u64, "words"),
        |b, n| {
            let xs: Vec<u64> = (0..*n as u64).collect();
            b.iter(|| {
                black_box(&xs)
                    .iter()
                    .fold(0u64, |h, &x| h.rotate_left(5) ^ x)
            })
        },
    );
}''')
    t.replace(BENCH, MAIN_START,
              "    let mut suite = Suite::new();\n    kinds_family(&mut suite);\n"
              "    indexing(&mut suite);\n")


def dependency(t):
    # libc is in workspace.dependencies and in Cargo.lock (one version) already; the new edge
    # changes the suite's entry in Cargo.lock, updated here as a pull request would, so that
    # cargo accepts the tree with --locked.
    ws = t.read("Cargo.toml")
    assert re.search(r'(?m)^libc = ', ws), "libc is not in workspace.dependencies"
    assert t.read(LOCK).count('\nname = "libc"\n') == 1, "Cargo.lock holds libc once"
    t.replace(TOML, "regex.workspace = true\ncompact_str.workspace = true\n",
              "regex.workspace = true\ncompact_str.workspace = true\nlibc.workspace = true\n")
    t.replace(LOCK, '''name = "costbench-suite"
version = "0.1.0"
dependencies = [
 "cc",
 "compact_str",
 "costbench",
 "regex",
]
''', '''name = "costbench-suite"
version = "0.1.0"
dependencies = [
 "cc",
 "compact_str",
 "costbench",
 "libc",
 "regex",
]
''')
    t.insert_before(f"{SRC}/strings.rs", TESTS, '''
/// The length of `s` as C's `strlen` counts it (through the `libc` crate).
#[inline(never)]
pub fn c_strlen(s: &std::ffi::CStr) -> usize {
    // SAFETY: a CStr is NUL-terminated.
    unsafe { libc::strlen(s.as_ptr()) }
}
''')
    before_main(t, '''
/// A scenario of a new dependency, registered after all others (accuracy harness).
fn kinds_dependency(suite: &mut Suite) {
    const BYTES: usize = miri_size(4096, 64);
    suite.bench("kinds/dependency/strlen", ops(BYTES as u64, "bytes"), |b| {
        let s = std::ffi::CString::new(vec![b'x'; BYTES]).expect("no NUL");
        b.iter(|| strings::c_strlen(black_box(&s)))
    });
}''')
    t.replace(BENCH, MAIN_END,
              "    client_server(&mut suite);\n    kinds_dependency(&mut suite);\n"
              "    suite.main();\n")


def remove(t):
    t.replace(BENCH, REMOVED, "")


def generic(t):
    t.insert_before(f"{SRC}/files.rs", TESTS, '''
/// Counts the newlines `r` yields, reading 4 KiB at a time: generic over the reader, so every
/// caller compiles a copy of its own.
pub fn count_newlines<R: Read>(mut r: R) -> io::Result<usize> {
    let mut buf = [0u8; 4096];
    let mut n = 0;
    loop {
        match r.read(&mut buf)? {
            0 => return Ok(n),
            k => n += buf[..k].iter().filter(|&&b| b == b'\\n').count(),
        }
    }
}
''')
    # Registered at the end of `file_io`: in the middle of the suite.
    t.replace(BENCH, FILE_IO_END, FILE_IO_END[: -len("}\n")] + '''    const BYTES: usize = miri_size(16_384, 256);
    suite.bench("kinds/generic/newlines", ops(BYTES as u64, "bytes"), |b| {
        let text: Vec<u8> = (0..BYTES).map(|i| b"abcdefghijklmno\\n"[i % 16]).collect();
        b.iter(|| files::count_newlines(black_box(&text[..])).expect("read"))
    });
}
''')


def setup_edit(t):
    t.replace(BENCH, """        let buf = words::WordBuffer::new(WORDS, 7);
        // SAFETY: aligned() starts at an 8-aligned address.""",
              """        let buf = words::WordBuffer::new(WORDS, 7);
        black_box(buf.aligned().len());
        // SAFETY: aligned() starts at an 8-aligned address.""")


def test_only(t):
    t.replace(f"{SRC}/words.rs", """        assert_ne!(b.misaligned().as_ptr().align_offset(8), 0);
    }
}
""", """        assert_ne!(b.misaligned().as_ptr().align_offset(8), 0);
    }

    #[test]
    fn both_views_have_the_same_length() {
        let b = WordBuffer::new(3, 1);
        assert_eq!(b.aligned().len(), b.misaligned().len());
        assert_eq!(b.len_words(), 3);
    }
}
""")


# name: (edit, ids new in the candidate, ids missing from it)
KINDS = {
    "first": (first, 1, 0),
    "module": (module, 1, 0),
    "setup-helper": (setup_helper, 0, 0),
    "doc": (doc, 0, 0),
    "reorder": (reorder, 0, 0),
    "rename": (rename, 0, 0),
    "static-table": (static_table, 1, 0),
    "family": (family, 3, 0),
    "dependency": (dependency, 1, 0),
    "remove": (remove, 0, 1),
    "generic": (generic, 1, 0),
    "setup-edit": (setup_edit, 0, 0),
    "test-only": (test_only, 0, 0),
}


def iter_bodies(text):
    """The text of every `b.iter...(...)` call, parentheses matched."""
    out = []
    for m in re.finditer(r"\bb\.iter\w*\(", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        out.append(text[m.start():i])
    return out


def kernels(tree):
    """Every `#[inline(never)]` item of the library, from the attribute to its closing brace."""
    out = []
    d = tree.path(SRC)
    for name in sorted(os.listdir(d)):
        if not name.endswith(".rs"):
            continue
        lines = tree.read(f"{SRC}/{name}").split("\n")
        for i, line in enumerate(lines):
            if line.strip() == "#[inline(never)]":
                indent = line[: len(line) - len(line.lstrip())]
                j = i + 1
                while lines[j] != indent + "}":
                    j += 1
                out.append("\n".join(lines[i:j + 1]))
    return out


def apply(root, kind):
    t = Tree(root)
    bodies = collections.Counter(iter_bodies(t.read(BENCH)))
    kern = collections.Counter(kernels(t))
    KINDS[kind][0](t)
    gone = bodies - collections.Counter(iter_bodies(t.read(BENCH)))
    expect_gone = collections.Counter(iter_bodies(REMOVED)) if kind == "remove" else {}
    assert gone == expect_gone, f"{kind}: measured bodies changed or gone: {list(gone)}"
    gone = kern - collections.Counter(kernels(t))
    assert not gone, f"{kind}: library kernels changed or gone: {list(gone)}"


def main():
    args = sys.argv[1:]
    if args == ["list"]:
        print("\n".join(KINDS))
    elif len(args) == 2 and args[0] == "expect" and args[1] in KINDS:
        print(*KINDS[args[1]][1:])
    elif len(args) == 3 and args[0] == "apply" and args[2] in KINDS:
        apply(args[1], args[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
