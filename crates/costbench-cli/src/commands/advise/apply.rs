//! `advise --apply ID`: the one path of `advise` that writes to the user's tree.

use super::plural;
use crate::core::session::Session;
use crate::exit::usage;
use anyhow::{Context, Result};

/// `--apply ID`: the diff of candidate `id` from the last advise's `advice.json`, applied to
/// the working tree. Every file is checked before any is written; each is written atomically.
pub(super) fn apply(session: &Session, id: &str) -> Result<i32> {
    let root = session.output_dir(|p| p.advise());
    let path = root.join("advice.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => usage!(
            "--apply {id}: no advice in {} yet: run costbench advise first",
            path.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let doc: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("cannot parse {}", path.display()))?;
    let candidates = doc["candidates"].as_array().cloned().unwrap_or_default();
    let Some(c) = candidates.iter().find(|c| c["id"] == id) else {
        let ids: Vec<&str> = candidates.iter().filter_map(|c| c["id"].as_str()).collect();
        usage!(
            "--apply {id}: no candidate {id} in {} (it has: {})",
            path.display(),
            ids.join(", ")
        );
    };
    let change = &c["change"];
    if change["kind"] == "build" {
        usage!(
            "--apply {id}: {id} is a build choice ({}): set it in your Cargo.toml's [profile.bench] \
             (or [profile.release]) yourself; see costbench variants --help for what each setting means",
            change["settings"].as_str().unwrap_or("")
        );
    }
    let diff = change["diff"].as_str().unwrap_or("");
    if diff.is_empty() {
        usage!(
            "--apply {id}: {id} has no rewrite to apply ({})",
            c["reason"].as_str().unwrap_or("")
        );
    }
    let ws = &session.target.workspace_root;
    let mut writes = Vec::new();
    for file in costbench_measure::advise::edit::diff_files(diff) {
        let p = ws.join(&file);
        let old =
            std::fs::read_to_string(&p).with_context(|| format!("cannot read {}", p.display()))?;
        let new = costbench_measure::advise::edit::apply_diff(&file, &old, diff)
            .with_context(|| format!("--apply {id}: nothing was written"))?;
        writes.push((p, new));
    }
    for (p, new) in &writes {
        costbench_record::output::write_atomic(p, new.as_bytes())?;
    }
    let verdict = c["verdict"].as_str().unwrap_or("");
    session.status(
        "Applied",
        format!(
            "{id} ({}, {verdict}) to {}",
            change["rule"].as_str().unwrap_or(""),
            plural(writes.len(), "file")
        ),
    );
    Ok(crate::exit::OK)
}
