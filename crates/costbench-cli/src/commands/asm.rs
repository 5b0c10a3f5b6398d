//! `costbench asm FUNCTION`: one function's machine code from a build (the bench target, built
//! as `run` builds it, or `--binary`), or from the binary a run measured with that run's
//! executions per instruction (`--run DIR --id SCENARIO`), optionally diffed against a
//! baseline (`--diff`). Disassembling is `costbench_measure::asm`'s, aligning the judge's
//! (`compare::asm`), the text the report's (`costbench_report::asm`).

use crate::args::AsmCmd;
use anyhow::{bail, Context, Result};
use costbench_judge::compare::asm::diff;
use costbench_record::asm::Listing;
use std::path::Path;

pub(super) fn asm(c: AsmCmd) -> Result<i32> {
    let cand = match (&c.run, &c.binary) {
        (Some(dir), _) => side("--run", dir, &c)?,
        (None, Some(p)) => side("--binary", p, &c)?,
        (None, None) => {
            let (target, _) = costbench_measure::cargo::resolve_buildable(
                c.target.manifest_path.as_deref(),
                c.target.package.as_deref(),
                &c.target.bench,
                &c.target.cargo.flags()?,
            )?;
            target.single("asm")?;
            let exe = costbench_measure::cargo::build(
                &target,
                "default",
                &c.target.cargo.flags()?,
                false,
                costbench_measure::cargo::CodeAlign::default(),
            )?;
            let root = target.workspace_root;
            (
                costbench_measure::asm::listing(&exe, &c.function, None, Some(&root))?,
                1,
            )
        }
    };
    let Some(base) = &c.diff else {
        print!("{}", costbench_report::asm::listing(&cand.0));
        return Ok(crate::exit::OK);
    };
    let base = side("--diff", base, &c)?;
    let d = diff(
        c.id.clone().unwrap_or_default(),
        cand.0.function.clone(),
        Some((&base.0, base.1)),
        Some((&cand.0, cand.1)),
    );
    let per = if c.id.is_some() { " per op" } else { "" };
    println!(
        "{}: {} (baseline {}, candidate {}; executions{per})",
        d.function,
        costbench_report::asm::summary(&d),
        c.diff
            .as_deref()
            .map_or(String::new(), |p| p.display().to_string()),
        c.run
            .as_deref()
            .or(c.binary.as_deref())
            .map_or("this build".to_string(), |p| p.display().to_string())
    );
    let lines = if c.all {
        costbench_report::asm::all(&d)
    } else {
        costbench_report::asm::hunks(&d)
    };
    for l in lines {
        println!("{l}");
    }
    Ok(crate::exit::OK)
}

/// The listing of one side: `path` a binary, or a run's output directory read with `--id`,
/// with the ops that run counted (1 for a bare binary: executions are per run then, unknown).
fn side(flag: &str, path: &Path, c: &AsmCmd) -> Result<(Listing, u64)> {
    if path.is_dir() {
        let Some(id) = &c.id else {
            bail!(
                "{flag} {} is a directory: give the scenario whose callgrind output to read with --id",
                path.display()
            );
        };
        let (run, _) = crate::core::sides::load_side(flag, &path.to_string_lossy(), None, None)?;
        return costbench_measure::asm::measured_listing(
            &run,
            Some(path),
            id,
            &c.function,
            None,
            false,
        )
        .with_context(|| format!("{flag} {}, scenario {id}", path.display()))?
        .context("no such function");
    }
    if !path.is_file() {
        bail!("{flag} {}: no such file or directory", path.display());
    }
    Ok((
        costbench_measure::asm::listing(path, &c.function, None, None)?,
        1,
    ))
}
