//! Issue 32: a scenario's instruction count does not depend on the rest of the suite. The
//! built-in suite's bench is built twice, as it is and with its other registrations changed the
//! ways pull requests change them (scenarios added first, some with `format!`ed names and
//! captured buffers, a group removed, two groups reordered, new generic code instantiated in the
//! bench crate), and every scenario both binaries have must count the same instructions, to the
//! last one.

mod common;

use common::{costbench, run_json, stderr, valgrind_available, workspace, workspace_manifest};
use std::collections::BTreeMap;
use std::path::Path;

/// Registrations a pull request might add in front of everything else: a sized family
/// (`format!`ed names, a shared closure), a scenario whose closure captures a buffer large
/// enough to be mmapped, and new generic code of the library instantiated with other types.
const ADDED_FIRST: &str = r#"
    suite.bench_params(
        "added/family",
        [16usize, 256, 4096],
        |n| ops(*n as u64, "bytes"),
        |b, n| {
            let v: Vec<u8> = (0..*n).map(|i| (i * 7) as u8).collect();
            b.iter(|| black_box(&v).iter().map(|&x| u64::from(x)).sum::<u64>())
        },
    );
    let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    suite.bench(format!("added/captured/{}", big.len()), ops(1, "sums"), move |b| {
        b.iter(|| black_box(&big).iter().map(|&x| u64::from(x)).sum::<u64>())
    });
    suite.bench("added/frames", ops(64, "frames"), |b| {
        let payload = vec![3u8; 100];
        b.iter(|| {
            let mut wire = std::io::Cursor::new(Vec::new());
            let mut scratch = Vec::new();
            for _ in 0..64 {
                proto::send_frame(&mut wire, &mut scratch, black_box(&payload)).unwrap();
            }
            wire.set_position(0);
            let mut buf = Vec::new();
            let mut n = 0;
            while proto::recv_frame(&mut wire, &mut buf).unwrap() {
                n += buf.len();
            }
            n
        })
    });
"#;

/// The built-in bench with its registrations changed as [`ADDED_FIRST`] says, the packet
/// scenarios removed and the regex and file groups swapped.
fn edited(bench: &str) -> String {
    let main = "    let mut suite = Suite::new();\n";
    assert!(bench.contains(main), "the built-in bench's main changed");
    let mut out = bench.replacen(main, &format!("{main}{ADDED_FIRST}"), 1);
    for (from, to) in [
        ("    packets(&mut suite);\n", ""),
        (
            "    regexes(&mut suite);\n    file_io(&mut suite);\n",
            "    file_io(&mut suite);\n    regexes(&mut suite);\n",
        ),
    ] {
        assert!(
            out.contains(from),
            "the built-in bench's main changed: {from:?}"
        );
        out = out.replacen(from, to, 1);
    }
    // `packets` is no longer called.
    out.replacen("fn packets(", "#[allow(dead_code)]\nfn packets(", 1)
}

/// A workspace of its own holding a copy of the built-in suite with two bench targets: `plain`
/// (the bench as it is) and `edited`. Dependencies come from the repository's lock file.
fn two_binaries(dir: &Path) {
    let ws = workspace();
    let suite = dir.join("suites/builtin");
    for sub in ["src", "csrc", "benches"] {
        std::fs::create_dir_all(suite.join(sub)).unwrap();
        for e in std::fs::read_dir(ws.join("suites/builtin").join(sub)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), suite.join(sub).join(e.file_name())).unwrap();
        }
    }
    std::fs::copy(ws.join("suites/builtin/build.rs"), suite.join("build.rs")).unwrap();
    let bench = std::fs::read_to_string(ws.join("suites/builtin/benches/builtin.rs")).unwrap();
    std::fs::write(suite.join("benches/plain.rs"), &bench).unwrap();
    std::fs::write(suite.join("benches/edited.rs"), edited(&bench)).unwrap();
    let manifest = std::fs::read_to_string(ws.join("suites/builtin/Cargo.toml")).unwrap();
    let targets = manifest.find("[[bench]]").unwrap();
    let lints = manifest.find("[lints]").unwrap();
    let manifest = format!(
        "{}[[bench]]\nname = \"plain\"\nharness = false\n\n[[bench]]\nname = \"edited\"\nharness = false\n\n{}",
        &manifest[..targets],
        &manifest[lints..]
    );
    std::fs::write(suite.join("Cargo.toml"), manifest).unwrap();
    // The repository's workspace table, with this copy as its only member and the library at
    // its place in the repository.
    let lib = ws.join("crates").canonicalize().unwrap();
    let root = workspace_manifest(&["suites/builtin"])
        .replace("path = \"crates/", &format!("path = \"{}/", lib.display()));
    std::fs::write(dir.join("Cargo.toml"), root).unwrap();
    std::fs::copy(ws.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
}

/// Instruction counts per id of one bench target of the copy.
fn counts(dir: &Path, bench: &str) -> BTreeMap<String, u64> {
    let out = dir.join(format!("out-{bench}"));
    let o = costbench(["run", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .args([
            "--bench",
            bench,
            "--instrument",
            "icount",
            "--no-history",
            "-q",
        ])
        .arg("--output-dir")
        .arg(&out)
        .output();
    assert!(o.status.success(), "run --bench {bench}:\n{}", stderr(&o));
    let run = run_json(&out);
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let id = r["id"].as_str().unwrap().to_string();
            let ir = r["icount"]["ir"].as_u64();
            (
                id.clone(),
                ir.unwrap_or_else(|| panic!("{id}: no count in {r}")),
            )
        })
        .collect()
}

#[test]
fn issue_32_other_registrations_leave_every_count_identical() {
    if !valgrind_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    two_binaries(dir.path());
    let plain = counts(dir.path(), "plain");
    let edited = counts(dir.path(), "edited");
    let added: Vec<_> = edited
        .keys()
        .filter(|id| id.starts_with("added/"))
        .collect();
    assert_eq!(added.len(), 5, "{added:?}");
    let removed: Vec<_> = plain
        .keys()
        .filter(|id| !edited.contains_key(*id))
        .collect();
    assert!(
        !removed.is_empty() && removed.iter().all(|id| id.starts_with("packet/")),
        "{removed:?}"
    );
    let moved: Vec<String> = plain
        .iter()
        .filter_map(|(id, ir)| {
            let other = edited.get(id)?;
            (other != ir).then(|| format!("{id}: {ir} -> {other} Ir"))
        })
        .collect();
    let common = plain.keys().filter(|id| edited.contains_key(*id)).count();
    assert!(common >= 25, "{common} ids in common");
    assert!(
        moved.is_empty(),
        "{} of {common} counts moved with other registrations:\n{}",
        moved.len(),
        moved.join("\n")
    );
}
