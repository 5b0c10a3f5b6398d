//! `--format` values a command lists but its document cannot render here: refused as a usage
//! error (exit 2) that names the formats the command has, before anything is built or read.
//! Cheap: no valgrind, no build.

mod common;
use common::costbench;

#[test]
fn a_format_the_document_lacks_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let shard = dir.path().to_str().unwrap();
    // This crate's manifest has no bench target and the shards are empty directories: getting
    // past the format would fail with another message and exit 1.
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    for (args, says) in [
        (
            &["run", "--manifest-path", manifest, "--format", "markdown"][..],
            "--format markdown: costbench run without variants prints table or json; markdown is \
             for the variant matrix",
        ),
        (
            &["merge", "--format", "markdown", shard, shard],
            "--format markdown: a merged run prints table or json; markdown is for merged variants",
        ),
    ] {
        let out = costbench(args).output();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // A value the command does not list at all is clap's to refuse, with the list.
    let out = costbench(["compare", "a", "b", "--format", "bmf"]).output();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("[possible values: table, markdown, json]")
    );
}
