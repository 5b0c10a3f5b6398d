//! Turning variants into cargo builds: the checks that need cargo or rustup (the crate's
//! features, the `costbench` library's allocator features, installed toolchains), done for every
//! variant before anything is built, and the cargo invocation of each variant
//! ([`crate::cargo::build_with`] runs it).
//!
//! How each setting reaches cargo:
//! - profile keys: `--config profile.PROFILE.KEY=VALUE`, PROFILE being `bench` or the user's
//!   `--profile` (command-line config beats the manifest's profile and the environment);
//! - `panic`: `-C panic=VALUE` in the rustflags, because cargo ignores the profile's `panic` for
//!   bench targets (it would otherwise be silently unwind);
//! - features: `--features`, the user's `--features` first, then the variant's own (the union
//!   is built: a variant cannot remove a feature the user asked for); `-NAME` becomes
//!   `--no-default-features` plus the package's other default features (none of them under the
//!   user's `--no-default-features`; refused under `--all-features`, which would turn NAME back
//!   on). The user's `--all-features`, `--no-default-features`, `--profile`, `--locked`,
//!   `--offline` and `--frozen` apply to every variant;
//! - rustflags: `CARGO_ENCODED_RUSTFLAGS` (the user's `RUSTFLAGS` kept in front);
//! - allocator: `--features costbench/mimalloc` or `costbench/jemalloc`;
//! - toolchain: `rustup run TOOLCHAIN cargo`.
//!
//! Every variant that changes a setting builds with `--target HOST`, so rustflags never reach
//! build scripts or proc macros. A variant that changes nothing is the default build and shares
//! its folder and cargo command (`build/default`, no `--target`): `--target` only moves where
//! build scripts and proc macros are compiled, not the bench target's code.

use crate::cargo::{self, BenchTarget, BuildSettings};
use anyhow::{Context, Result};
use costbench_record::variant::Variant;
use std::process::Command;

/// The name of the library crate whose features switch the allocator.
const LIBRARY: &str = "costbench";

/// The host triple of `toolchain` (or the default one), from `rustc -vV`.
fn host_triple(toolchain: Option<&str>) -> Result<String> {
    let mut cmd = match toolchain {
        None => Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into())),
        Some(t) => {
            let mut c = Command::new("rustup");
            c.args(["run", t, "rustc"]).env_remove("RUSTUP_TOOLCHAIN");
            c
        }
    };
    let out = cmd
        .arg("-vV")
        .output()
        .context("cannot run `rustc -vV` to learn the host triple")?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(|h| h.trim().to_string())
        .context("`rustc -vV` printed no host line")
}

/// Installed rustup toolchains (`rustup toolchain list`), or why they cannot be listed.
fn installed_toolchains() -> std::result::Result<Vec<String>, String> {
    let out = Command::new("rustup")
        .args(["toolchain", "list"])
        .output()
        .map_err(|e| {
            format!(
                "rustup is not available ({e}); toolchain variants need rustup (https://rustup.rs)"
            )
        })?;
    if !out.status.success() {
        return Err(format!(
            "`rustup toolchain list` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect())
}

/// Whether `wanted` names one of `installed`: exactly, or without the host-triple suffix
/// rustup adds (`nightly` is `nightly-x86_64-unknown-linux-gnu`).
fn toolchain_installed(wanted: &str, installed: &[String], host: &str) -> bool {
    installed
        .iter()
        .any(|t| t == wanted || *t == format!("{wanted}-{host}"))
}

/// Everything the build of one variant needs, resolved and checked.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The variant to build.
    pub variant: Variant,
    /// The build settings the variant resolves to.
    pub settings: BuildSettings,
}

/// Checks every variant against the crate and the machine and returns the build plans, or one
/// error listing every problem (one line each) before anything is built.
pub fn plan(
    target: &BenchTarget,
    variants: &[Variant],
    user: &cargo::CargoFlags,
    code_align: crate::cargo::CodeAlign,
) -> Result<Vec<Plan>> {
    let features = cargo::features(target)?;
    let needs_library = variants
        .iter()
        .any(|v| v.allocator.is_some_and(|a| a.library_feature().is_some()));
    let library_features = if needs_library {
        cargo::dependency_features(target, LIBRARY, user.lock)?
    } else {
        None
    };
    let default_host = host_triple(None)?;
    let mut toolchains: Option<std::result::Result<Vec<String>, String>> = None;
    let mut problems = Vec::new();
    let mut plans = Vec::new();
    for v in variants {
        let mut say = |what: String| problems.push(format!("variant {}: {what}", v.name));
        let mut host = default_host.clone();
        if let Some(t) = &v.toolchain {
            match toolchains.get_or_insert_with(installed_toolchains) {
                Err(why) => say(why.clone()),
                Ok(list) if !toolchain_installed(t, list, &default_host) => say(format!(
                    "toolchain {t:?} is not installed (installed: {}); install it with `rustup toolchain install {t}`",
                    list.join(", ")
                )),
                Ok(_) => match host_triple(Some(t)) {
                    Ok(h) => host = h,
                    Err(e) => say(format!("toolchain {t:?} does not run: {e:#}")),
                },
            }
        }
        let mut enable: Vec<String> = Vec::new();
        for f in user.features.iter().chain(&v.features) {
            if enable.contains(f) {
                continue;
            }
            match f.split_once('/') {
                Some((dep, feat)) => {
                    if !features.dependencies.iter().any(|d| d == dep) {
                        say(format!(
                            "feature {f:?}: package {} has no dependency named {dep:?}",
                            target.package
                        ));
                    } else if dep == LIBRARY && library_features.is_some() {
                        let lib = library_features.as_ref().expect("checked");
                        if !lib.contains_key(feat) {
                            say(format!("feature {f:?}: {LIBRARY} has no feature {feat:?}"));
                        }
                    }
                }
                None if features.own.contains_key(f.trim_start_matches("dep:")) => {}
                None => say(format!(
                    "package {} has no feature {f:?}; its features: {}",
                    target.package,
                    feature_list(&features.own)
                )),
            }
            enable.push(f.clone());
        }
        let mut no_default = v.no_default_features || user.no_default_features;
        if !v.disabled_features.is_empty() && user.all_features {
            say(format!(
                "features -{}: --all-features turns every feature on, so a variant cannot turn one off",
                v.disabled_features.join(" -")
            ));
        }
        if !v.disabled_features.is_empty() {
            let defaults = features.own.get("default").cloned().unwrap_or_default();
            for f in &v.disabled_features {
                if !defaults.contains(f) {
                    say(format!(
                        "feature -{f}: {f:?} is not a default feature of package {}, so it cannot be turned off (default features: {})",
                        target.package,
                        if defaults.is_empty() { "none".into() } else { defaults.join(", ") }
                    ));
                }
            }
            no_default = true;
            if !v.no_default_features && !user.no_default_features {
                let keep: Vec<String> = defaults
                    .into_iter()
                    .filter(|d| !v.disabled_features.contains(d) && !enable.contains(d))
                    .collect();
                enable.extend(keep);
            }
        }
        if let Some(feat) = v.allocator.and_then(|a| a.library_feature()) {
            if !features.dependencies.iter().any(|d| d == LIBRARY) {
                say(format!(
                    "allocator {feat}: package {} does not depend on {LIBRARY}, whose features switch the allocator",
                    target.package
                ));
            } else {
                match &library_features {
                    Some(lib) if lib.contains_key(feat) => {}
                    Some(_) => say(format!(
                        "allocator {feat}: the {LIBRARY} library this crate uses has no `{feat}` feature; update costbench to a version that has it"
                    )),
                    None => say(format!(
                        "allocator {feat}: cargo metadata does not list the {LIBRARY} library"
                    )),
                }
                enable.push(format!("{LIBRARY}/{feat}"));
            }
        }
        let mut rustflags = v.rustflags.clone();
        if let Some(p) = v.profile_value("panic") {
            rustflags.extend(["-C".to_string(), format!("panic={}", p.trim_matches('"'))]);
        }
        // A variant that changes nothing is the default build (`run`'s, `TARGET/costbench/build/
        // default`, without `--target`): it reuses that folder instead of rebuilding every
        // dependency in one of its own.
        let default_build = is_default_build(v);
        let settings = BuildSettings {
            variant: if default_build {
                cargo::DEFAULT_BUILD.to_string()
            } else {
                v.name.clone()
            },
            toolchain: v.toolchain.clone(),
            config: v
                .profile
                .iter()
                .filter(|(k, _)| k != "panic")
                .map(|(k, val)| format!("profile.{}.{k}={val}", user.profile()))
                .collect(),
            features: enable,
            no_default_features: no_default,
            all_features: user.all_features,
            profile: user.profile.clone(),
            lock: user.lock,
            jobs: user.jobs,
            rustflags,
            target_triple: (!default_build).then_some(host),
            capture_stderr: true,
            echo_stderr: false,
            code_align,
        };
        plans.push(Plan {
            variant: v.clone(),
            settings,
        });
    }
    if !problems.is_empty() {
        // The command line's or costbench.toml's mistakes (a feature the package does not
        // have, a toolchain not installed): usage errors, exit 2.
        costbench_record::bad_input!(
            "{} problem{} with the variants, nothing was built:\n  {}",
            problems.len(),
            if problems.len() == 1 { "" } else { "s" },
            problems.join("\n  ")
        );
    }
    Ok(plans)
}

/// Whether `v` builds exactly what the default build does (the user's cargo flags and nothing
/// else), so that it can share that build's folder.
fn is_default_build(v: &Variant) -> bool {
    v.profile.is_empty()
        && v.features.is_empty()
        && v.disabled_features.is_empty()
        && !v.no_default_features
        && v.rustflags.is_empty()
        && v.allocator.is_none()
        && v.toolchain.is_none()
}

fn feature_list(own: &std::collections::BTreeMap<String, Vec<String>>) -> String {
    let names: Vec<&str> = own
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "default")
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The variants of `texts`, planned for the selftest suite (real `cargo metadata`, no build)
    /// with the user's cargo flags `user`.
    fn plan_selftest(texts: &[&str], user: &cargo::CargoFlags) -> Result<Vec<Plan>> {
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../suites/selftest/Cargo.toml");
        let target = cargo::resolve(Some(&manifest), None, &["selftest".into()])?;
        let variants: Vec<Variant> = texts
            .iter()
            .map(|t| {
                let (name, settings) = super::super::spec::parse_cli(t).unwrap();
                super::super::spec::validate(&name, &settings.unwrap(), t).unwrap()
            })
            .collect();
        plan(&target, &variants, user, cargo::CodeAlign::default())
    }

    #[test]
    fn the_users_features_and_profile_apply_to_every_variant_with_the_variants_own() {
        let user = cargo::CargoFlags {
            features: vec!["extra".into()],
            profile: Some("release".into()),
            lock: cargo::LockFlags {
                locked: true,
                ..Default::default()
            },
            ..Default::default()
        };
        let plans =
            plan_selftest(&["plain:", "longer:features=longer extra,lto=fat"], &user).unwrap();
        assert_eq!(plans[0].settings.features, ["extra"]);
        assert_eq!(plans[1].settings.features, ["extra", "longer"]);
        assert_eq!(plans[1].settings.config, ["profile.release.lto=\"fat\""]);
        for p in &plans {
            assert_eq!(p.settings.profile.as_deref(), Some("release"));
            assert!(p.settings.lock.locked && !p.settings.all_features);
        }
        let user = cargo::CargoFlags {
            features: vec!["nope".into()],
            all_features: true,
            ..Default::default()
        };
        let e = plan_selftest(&["off:features=-longer"], &user)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("package costbench-selftest has no feature \"nope\""),
            "{e}"
        );
        assert!(e.contains("--all-features turns every feature on"), "{e}");
    }

    /// Issue 29: a variant with the default build's settings shares `run`'s build folder (and
    /// its cargo command, without `--target`, so that cargo finds it fresh); any setting gives
    /// it a folder of its own.
    #[test]
    fn a_variant_that_changes_nothing_reuses_the_default_build() {
        let plans = plan_selftest(
            &[
                "plain:",
                "checked:overflow-checks=true",
                "flags:rustflags=-Cdebuginfo=1",
            ],
            &cargo::CargoFlags::default(),
        )
        .unwrap();
        assert_eq!(plans[0].settings.variant, cargo::DEFAULT_BUILD);
        assert_eq!(plans[0].settings.target_triple, None);
        assert_eq!(plans[1].settings.variant, "checked");
        assert!(plans[1].settings.target_triple.is_some());
        assert_eq!(plans[2].settings.variant, "flags");
    }

    #[test]
    fn toolchains_match_with_or_without_the_host_suffix() {
        let host = "x86_64-unknown-linux-gnu";
        let list = vec![
            "stable-x86_64-unknown-linux-gnu".to_string(),
            "nightly-x86_64-unknown-linux-gnu".to_string(),
            "my-toolchain".to_string(),
        ];
        assert!(toolchain_installed("nightly", &list, host));
        assert!(toolchain_installed(
            "stable-x86_64-unknown-linux-gnu",
            &list,
            host
        ));
        assert!(toolchain_installed("my-toolchain", &list, host));
        assert!(!toolchain_installed("beta", &list, host));
        assert!(!toolchain_installed("night", &list, host));
    }
}
