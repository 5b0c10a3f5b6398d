//! Which bench target to build, as `cargo metadata` describes the workspace: the packages that
//! use costbench and their bench targets, the features they and their dependencies offer, the
//! target directory; and how every cargo command is started ([`LockFlags`] included). It only
//! asks cargo; building is `build`'s.

use crate::config::Config;
use anyhow::{anyhow, bail, Context, Result};
use cargo_metadata::MetadataCommand;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub(super) fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    // A killed costbench takes its build with it (cargo then stops its rustc jobs itself only on
    // a catchable signal: rustc processes already running may finish their crate).
    crate::run::cancel::die_with_parent(&mut cmd);
    cmd
}

/// `--locked`, `--offline`, `--frozen`: how cargo may touch `Cargo.lock` and the network. Given
/// to every cargo command that resolves or builds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LockFlags {
    /// `--locked`: refuse to update Cargo.lock.
    pub locked: bool,
    /// `--offline`: do not use the network.
    pub offline: bool,
    /// `--frozen`: both `--locked` and `--offline`.
    pub frozen: bool,
}

impl LockFlags {
    /// The flags for cargo.
    pub fn args(self) -> Vec<&'static str> {
        [
            ("--locked", self.locked),
            ("--offline", self.offline),
            ("--frozen", self.frozen),
        ]
        .into_iter()
        .filter_map(|(a, on)| on.then_some(a))
        .collect()
    }
}

/// What costbench reads of `cargo metadata` (parsed by the `cargo_metadata` crate): the
/// packages with their bench targets, the target directory and the workspace root.
#[derive(Debug)]
struct Metadata {
    packages: Vec<Package>,
    target_directory: PathBuf,
    workspace_root: PathBuf,
}

#[derive(Debug)]
struct Package {
    name: String,
    version: String,
    manifest_path: PathBuf,
    dependencies: Vec<Dependency>,
    targets: Vec<Target>,
    features: BTreeMap<String, Vec<String>>,
}

#[derive(Debug)]
struct Dependency {
    name: String,
}

#[derive(Debug)]
struct Target {
    name: String,
    kind: Vec<String>,
    /// `harness = false` in the package's `[[bench]]` table: a target that runs its own `main`
    /// (costbench's), not libtest's. `cargo metadata` does not say; the manifest does.
    harness_false: bool,
    /// The target's root source file.
    src_path: PathBuf,
}

/// The names of the `[[bench]]` targets that `manifest` declares with `harness = false`; none
/// when it cannot be read (cargo metadata has read it already, so that does not happen).
fn harness_false_benches(manifest: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return Vec::new();
    };
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    doc.get("bench")
        .and_then(|b| b.as_array())
        .into_iter()
        .flatten()
        .filter(|b| b.get("harness").and_then(toml::Value::as_bool) == Some(false))
        .filter_map(|b| b.get("name").and_then(toml::Value::as_str))
        .map(str::to_string)
        .collect()
}

impl From<cargo_metadata::Metadata> for Metadata {
    fn from(m: cargo_metadata::Metadata) -> Self {
        Metadata {
            packages: m
                .packages
                .into_iter()
                .map(|p| {
                    let harness_false = harness_false_benches(p.manifest_path.as_std_path());
                    Package {
                        name: p.name.to_string(),
                        version: p.version.to_string(),
                        manifest_path: p.manifest_path.into_std_path_buf(),
                        dependencies: p
                            .dependencies
                            .into_iter()
                            .map(|d| Dependency { name: d.name })
                            .collect(),
                        targets: p
                            .targets
                            .into_iter()
                            .map(|t| Target {
                                kind: t.kind.iter().map(ToString::to_string).collect(),
                                harness_false: harness_false.contains(&t.name),
                                src_path: t.src_path.into_std_path_buf(),
                                name: t.name,
                            })
                            .collect(),
                        features: p.features,
                    }
                })
                .collect(),
            target_directory: m.target_directory.into_std_path_buf(),
            workspace_root: m.workspace_root.into_std_path_buf(),
        }
    }
}

/// `cargo metadata` of `manifest` (`--no-deps` unless the dependency graph is wanted), with
/// cargo's own message when it fails.
fn cargo_metadata(
    manifest: &Path,
    no_deps: bool,
    lock: LockFlags,
) -> Result<cargo_metadata::Metadata> {
    let mut mc = MetadataCommand::new();
    mc.manifest_path(manifest).other_options(
        lock.args()
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>(),
    );
    if no_deps {
        mc.no_deps();
    }
    let out = mc
        .cargo_command()
        .stderr(Stdio::piped())
        .output()
        .context("cannot run `cargo metadata`: is cargo installed and on PATH?")?;
    if !out.status.success() {
        bail!(
            "`cargo metadata` failed for {}:\n{}",
            manifest.display(),
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = stdout
        .lines()
        .find(|l| l.starts_with('{'))
        .context("`cargo metadata` printed no JSON")?;
    MetadataCommand::parse(json).context("cannot parse `cargo metadata` output")
}

/// The bench target chosen for a run.
#[derive(Debug, Clone)]
pub struct BenchTarget {
    /// Name of the package that holds the bench target.
    pub package: String,
    /// The package as cargo's `--package` takes it, `NAME@VERSION`: the name alone is ambiguous
    /// when the dependency graph holds another version of the same crate (measuring `itoa`'s
    /// own benches, whose graph has costbench's `serde_json` depending on a released `itoa`).
    pub package_spec: String,
    /// Name of the bench target.
    pub bench: String,
    /// Directory of the package's Cargo.toml: scenarios run with it as working directory, as
    /// under `cargo bench`.
    pub package_dir: PathBuf,
    /// The package's Cargo.toml.
    pub manifest_path: PathBuf,
    /// Root directory of the package's workspace.
    pub workspace_root: PathBuf,
    /// Cargo's target directory for the workspace.
    pub target_directory: PathBuf,
    /// Bench targets left aside because they run libtest's harness (no `harness = false`),
    /// when a `harness = false` one was chosen over them; empty when there was no choice.
    pub passed_over: Vec<String>,
    /// The crates of the workspace's packages (every target: library, binaries, benches), each
    /// with where its source is: a library's folder, another target's root file. The census
    /// counts these as the user's own crates.
    pub workspace_crates: Vec<(String, PathBuf)>,
    /// In a worktree costbench checked out (a baseline, a commit bisected or backfilled): the
    /// criterion and divan dependencies it switched to costbench's compatible crates there, as
    /// `FILE: NAME`; empty elsewhere. The command says so unless quiet.
    pub switched: Vec<String>,
    /// The other bench targets measured with this one in the same run, in cargo's order (issue
    /// 41: without `--bench`, every bench target of the selected packages that depends on
    /// costbench, as `cargo bench` runs them all); empty when one target was chosen. Each has
    /// no `others` of its own.
    pub others: Vec<BenchTarget>,
}

impl BenchTarget {
    /// When a `harness = false` target was chosen over others ([`BenchTarget::passed_over`]):
    /// the sentence that says so, for the status line.
    pub fn choice_note(&self) -> Option<String> {
        if self.passed_over.is_empty() {
            return None;
        }
        Some(format!(
            "bench target{} {} (harness = false) of package {}; not {}, which {} libtest's harness \
             (choose with --bench NAME)",
            if self.others.is_empty() { "" } else { "s" },
            self.all()
                .map(|t| t.bench.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            self.package,
            self.passed_over.join(", "),
            if self.passed_over.len() == 1 {
                "uses"
            } else {
                "use"
            }
        ))
    }

    /// This target and its [`BenchTarget::others`], in run order.
    pub fn all(&self) -> impl Iterator<Item = &BenchTarget> {
        std::iter::once(self).chain(&self.others)
    }

    /// The bench targets' names, joined with `,`: what a run record keeps as its suite's bench.
    pub fn names(&self) -> String {
        self.all()
            .map(|t| t.bench.as_str())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Refuses several bench targets for `command`, which measures one at a time, as a usage
    /// error that names them and the option that chooses one.
    pub fn single(&self, command: &str) -> Result<()> {
        if self.others.is_empty() {
            return Ok(());
        }
        costbench_record::bad_input!(
            "`costbench {command}` takes one bench target, and {} qualify here: {}; choose one \
             with --bench NAME (`costbench run` measures them all in one run)",
            self.others.len() + 1,
            self.all()
                .map(|t| format!("{} (package {})", t.bench, t.package))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// costbench's own directory under this target's target directory ([`costbench_dir`]),
    /// where the builds (`build/VARIANT`), baseline worktrees and caches are kept.
    pub fn costbench_dir(&self) -> PathBuf {
        costbench_dir(&self.target_directory)
    }
}

/// `TARGET_DIR/costbench`: everything costbench writes under a target directory lies below it,
/// the measuring crate's scratch (builds, worktrees, caches) and the command line's defaults
/// (results, history) alike. The one place that names it.
pub fn costbench_dir(target_directory: &Path) -> PathBuf {
    target_directory.join("costbench")
}

/// The target directory of the crate at `manifest_path` (default `./Cargo.toml`).
pub fn target_directory(manifest_path: Option<&Path>) -> Result<PathBuf> {
    Ok(metadata(manifest_path)?.1.target_directory)
}

/// The workspace root and target directory of the crate or workspace of `manifest_path` (the
/// nearest Cargo.toml when `None`).
pub fn workspace(manifest_path: Option<&Path>) -> Result<(PathBuf, PathBuf)> {
    let meta = metadata(manifest_path)?.1;
    Ok((meta.workspace_root, meta.target_directory))
}

/// Resolves which bench targets to run from the command line (`--bench`, repeatable),
/// `costbench.toml` and the crate: the first is the returned target, the rest its
/// [`BenchTarget::others`].
pub fn resolve(
    manifest_path: Option<&Path>,
    package: Option<&str>,
    benches: &[String],
) -> Result<BenchTarget> {
    let (manifest, meta) = metadata(manifest_path)?;
    let config = Config::load(&meta.workspace_root)?;
    // costbench.toml speaks for the workspace: pointing at another member package's manifest
    // means that package, whatever the file prefers.
    let own = meta.packages.iter().find(|p| p.manifest_path == manifest);
    let config_applies =
        own.is_none_or(|o| config.run.package.as_ref().is_none_or(|p| *p == o.name));
    let from_config: Vec<String> = config.run.bench.iter().cloned().collect();
    let (package, benches) = if config_applies {
        (
            package.or(config.run.package.as_deref()),
            if benches.is_empty() {
                &from_config[..]
            } else {
                benches
            },
        )
    } else {
        (package, benches)
    };
    choose(&meta, &manifest, package, benches)
}

/// The cargo features of the bench target's package and of its dependencies.
#[derive(Debug, Clone, Default)]
pub struct Features {
    /// The package's own features (`default` included), with what each turns on.
    pub own: BTreeMap<String, Vec<String>>,
    /// Names of the package's dependencies (any kind).
    pub dependencies: Vec<String>,
}

/// The features of `target`'s package (`cargo metadata --no-deps`).
pub fn features(target: &BenchTarget) -> Result<Features> {
    let (_, meta) = metadata(Some(&target.manifest_path))?;
    let p = meta
        .packages
        .iter()
        .find(|p| p.name == target.package)
        .ok_or_else(|| anyhow!("cargo metadata does not list package {}", target.package))?;
    Ok(Features {
        own: p.features.clone(),
        dependencies: p.dependencies.iter().map(|d| d.name.clone()).collect(),
    })
}

/// The features of dependency `dep` as resolved for `target`'s workspace (`cargo metadata`
/// without `--no-deps`, so it resolves the whole graph), or `None` when no package of that name
/// is in the graph.
pub fn dependency_features(
    target: &BenchTarget,
    dep: &str,
    lock: LockFlags,
) -> Result<Option<BTreeMap<String, Vec<String>>>> {
    let meta = cargo_metadata(&target.manifest_path, false, lock)?;
    Ok(meta
        .packages
        .into_iter()
        .find(|p| *p.name == dep)
        .map(|p| p.features))
}

/// The nearest `Cargo.toml` at or above `dir`, as cargo finds it: run from `src/` of a package,
/// that package's manifest (the workspace's comes from `cargo metadata`).
fn find_manifest(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join("Cargo.toml"))
        .find(|p| p.is_file())
}

fn metadata(manifest_path: Option<&Path>) -> Result<(PathBuf, Metadata)> {
    let manifest = match manifest_path {
        Some(p) => p.to_path_buf(),
        None => {
            let cwd = std::env::current_dir().context("cannot read the current directory")?;
            match find_manifest(&cwd) {
                Some(p) => p,
                None => bail!(
                    "no Cargo.toml in {} or any directory above it: run costbench inside a crate \
                     that has a costbench bench target, or pass --manifest-path PATH",
                    cwd.display()
                ),
            }
        }
    };
    let manifest = manifest
        .canonicalize()
        .with_context(|| format!("cannot find manifest {}", manifest.display()))?;
    // `--no-deps` resolves nothing, so it needs neither the lock file nor the network.
    let meta = cargo_metadata(&manifest, true, LockFlags::default())?;
    Ok((manifest, meta.into()))
}

/// The packages a bench target measured by costbench depends on: the library, or a compatible
/// crate under any name (`criterion = { package = "costbench-criterion", ... }`).
const COSTBENCH_PACKAGES: [&str; 3] = ["costbench", "costbench-criterion", "costbench-divan"];

/// The crates whose benches the compatible crates take over, with the one line that switches
/// each in `[dev-dependencies]`.
const SWITCHABLE: [(&str, &str); 2] = [
    (
        "criterion",
        r#"criterion = { package = "costbench-criterion", version = "0.1" }"#,
    ),
    (
        "divan",
        r#"divan = { package = "costbench-divan", version = "0.1" }"#,
    ),
];

fn uses_costbench(p: &Package) -> bool {
    p.dependencies
        .iter()
        .any(|d| COSTBENCH_PACKAGES.contains(&d.name.as_str()))
}

/// Why no bench target of `found` can be measured, each named with what it is and, for a
/// criterion or divan bench, the one line that switches it to costbench's compatible crate.
fn none_qualifies(found: &[(&Package, &Target)]) -> String {
    if found.is_empty() {
        return "no bench target here: add one that depends on costbench (harness = false, main \
                calls costbench::Suite::main), or pass --manifest-path to a crate that has one"
            .into();
    }
    let mut lines = Vec::new();
    for (p, t) in found {
        let uses = SWITCHABLE
            .iter()
            .find(|(name, _)| p.dependencies.iter().any(|d| d.name == *name));
        lines.push(match uses {
            Some((name, line)) => format!(
                "{} (package {}) uses {name}: switch it to costbench's compatible crate with one line in [dev-dependencies]: {line}",
                t.name, p.name
            ),
            None if t.harness_false => format!(
                "{} (package {}) runs its own main but does not depend on costbench",
                t.name, p.name
            ),
            None => format!(
                "{} (package {}) uses libtest's harness (#[bench]) and does not depend on costbench",
                t.name, p.name
            ),
        });
    }
    format!(
        "no bench target that depends on costbench here; found:\n  {}\n(or add a target with harness = false whose main calls costbench::Suite::main, or pass --bench NAME)",
        lines.join("\n  ")
    )
}

fn choose(
    meta: &Metadata,
    manifest: &Path,
    package: Option<&str>,
    benches: &[String],
) -> Result<BenchTarget> {
    // A package manifest (not the workspace root) restricts the choice to that package.
    let own = meta.packages.iter().find(|p| p.manifest_path == manifest);
    let mut passed_over = Vec::new();
    let mut candidates: Vec<(&Package, &Target)> = meta
        .packages
        .iter()
        .filter(|p| package.is_none_or(|name| p.name == name))
        .filter(|p| package.is_some() || own.is_none_or(|o| o.name == p.name))
        .flat_map(|p| {
            p.targets
                .iter()
                .filter(|t| t.kind.iter().any(|k| k == "bench"))
                .map(move |t| (p, t))
        })
        .collect();
    if let Some(pkg) = package {
        if !meta.packages.iter().any(|p| p.name == pkg) {
            let names: Vec<_> = meta.packages.iter().map(|p| p.name.as_str()).collect();
            costbench_record::bad_input!(
                "no package named {pkg:?} here; packages: {}",
                names.join(", ")
            );
        }
    }
    if !benches.is_empty() {
        let all: Vec<String> = candidates.iter().map(|(_, t)| t.name.clone()).collect();
        if let Some(b) = benches.iter().find(|b| !all.contains(b)) {
            costbench_record::bad_input!(
                "no bench target named {b:?}; bench targets here: {}",
                if all.is_empty() {
                    "none".to_string()
                } else {
                    all.join(", ")
                }
            );
        }
        // In the order given, each once.
        let chosen: Vec<(&Package, &Target)> = benches
            .iter()
            .enumerate()
            .filter(|(i, b)| !benches[..*i].contains(b))
            .flat_map(|(_, b)| {
                candidates
                    .iter()
                    .copied()
                    .filter(move |(_, t)| t.name == *b)
            })
            .collect();
        candidates = chosen;
    } else {
        let found = candidates.clone();
        candidates.retain(|(p, _)| uses_costbench(p));
        if candidates.is_empty() {
            costbench_record::bad_input!("{}", none_qualifies(&found));
        }
        // A costbench target runs its own main (`harness = false`); a stray `benches/x.rs`
        // that cargo found by itself runs libtest's. Prefer the former, and say so.
        let own: Vec<(&Package, &Target)> = candidates
            .iter()
            .copied()
            .filter(|(_, t)| t.harness_false)
            .collect();
        if !own.is_empty() && own.len() < candidates.len() {
            passed_over = candidates
                .iter()
                .filter(|(_, t)| !t.harness_false)
                .map(|(_, t)| t.name.clone())
                .collect();
            candidates = own;
        }
    }
    let workspace_crates = workspace_crates(meta);
    let mut targets = candidates
        .iter()
        .map(|(p, t)| {
            Ok(BenchTarget {
                package: p.name.clone(),
                package_spec: format!("{}@{}", p.name, p.version),
                bench: t.name.clone(),
                package_dir: p
                    .manifest_path
                    .parent()
                    .ok_or_else(|| anyhow!("manifest path has no parent"))?
                    .to_path_buf(),
                manifest_path: p.manifest_path.clone(),
                workspace_root: meta.workspace_root.clone(),
                target_directory: meta.target_directory.clone(),
                passed_over: Vec::new(),
                workspace_crates: workspace_crates.clone(),
                switched: Vec::new(),
                others: Vec::new(),
            })
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter();
    let mut first = targets
        .next()
        .expect("an empty choice was said above, or --bench found its targets");
    first.passed_over = passed_over;
    first.others = targets.collect();
    Ok(first)
}

/// The crates of the workspace's packages, each with where its source is (see
/// [`BenchTarget::workspace_crates`]).
fn workspace_crates(meta: &Metadata) -> Vec<(String, PathBuf)> {
    meta.packages
        .iter()
        .flat_map(|p| &p.targets)
        .map(|t| {
            // A library's modules lie under its root file's folder; another target (a bench,
            // a binary) is taken as its one file, since it often shares that folder.
            let lib = t
                .kind
                .iter()
                .any(|k| k.contains("lib") || k == "proc-macro");
            let path = match (lib, t.src_path.parent()) {
                (true, Some(dir)) => dir.to_path_buf(),
                _ => t.src_path.clone(),
            };
            (t.name.replace('-', "_"), path)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(name: &str) -> Vec<String> {
        vec![name.to_string()]
    }

    #[test]
    fn the_manifest_is_found_upward_from_a_subdirectory_as_cargo_finds_it() {
        let root = tempfile::tempdir().unwrap();
        let member = root.path().join("member");
        std::fs::create_dir_all(member.join("src/deep")).unwrap();
        std::fs::write(root.path().join("Cargo.toml"), "[workspace]\n").unwrap();
        std::fs::write(member.join("Cargo.toml"), "[package]\n").unwrap();
        assert_eq!(
            find_manifest(&member.join("src/deep")),
            Some(member.join("Cargo.toml"))
        );
        assert_eq!(
            find_manifest(root.path()),
            Some(root.path().join("Cargo.toml"))
        );
        let outside = tempfile::tempdir().unwrap();
        assert!(find_manifest(outside.path()).is_none_or(|p| !p.starts_with(outside.path())));
    }

    fn meta() -> Metadata {
        let pkg = |name: &str, benches: &[&str], uses: bool| Package {
            name: name.into(),
            version: "1.2.3".into(),
            manifest_path: PathBuf::from(format!("/w/{name}/Cargo.toml")),
            dependencies: if uses {
                vec![Dependency {
                    name: "costbench".into(),
                }]
            } else {
                vec![]
            },
            targets: benches
                .iter()
                .map(|b| Target {
                    name: b.trim_start_matches('+').into(),
                    kind: vec!["bench".into()],
                    harness_false: b.starts_with('+'),
                    src_path: PathBuf::new(),
                })
                .collect(),
            features: BTreeMap::new(),
        };
        Metadata {
            packages: vec![
                pkg("a", &["fast"], true),
                pkg("b", &["slow", "crit"], true),
                pkg("c", &["crit2"], false),
            ],
            target_directory: "/w/target".into(),
            workspace_root: "/w".into(),
        }
    }

    #[test]
    fn chooses_by_name_package_or_uniqueness() {
        let m = meta();
        let root = Path::new("/w/Cargo.toml");
        assert_eq!(choose(&m, root, None, &b("slow")).unwrap().package, "b");
        // Cargo's --package takes NAME@VERSION: the name alone is ambiguous when the graph holds
        // another version of the crate (issue 26: itoa's own benches, under serde_json's itoa).
        assert_eq!(
            choose(&m, root, None, &b("slow")).unwrap().package_spec,
            "b@1.2.3"
        );
        // Issue 41: without --bench, every qualifying target, as `cargo bench` runs them all
        // (package c does not depend on costbench); --bench, repeated, chooses in its order.
        let all = choose(&m, root, None, &[]).unwrap();
        assert_eq!(all.names(), "fast,slow,crit");
        assert_eq!(all.others[1].package, "b");
        assert!(all.others.iter().all(|o| o.others.is_empty()));
        let two = choose(
            &m,
            root,
            None,
            &["crit".into(), "fast".into(), "crit".into()],
        )
        .unwrap();
        assert_eq!(two.names(), "crit,fast");
        let e = two.single("miri").unwrap_err();
        assert!(costbench_record::error::is_bad_input(&e), "{e:#}");
        assert!(
            e.to_string()
                .contains("2 qualify here: crit (package b), fast (package a)"),
            "{e}"
        );
        assert!(all.others[0].single("miri").is_ok());
        assert_eq!(choose(&m, root, Some("a"), &[]).unwrap().bench, "fast");
        assert_eq!(
            choose(&m, Path::new("/w/a/Cargo.toml"), None, &[])
                .unwrap()
                .bench,
            "fast"
        );
        let e = choose(&m, root, None, &b("nope")).unwrap_err().to_string();
        assert!(e.contains("no bench target named \"nope\""), "{e}");
        // A name that does not exist is a wrong command line (issue 29).
        assert!(costbench_record::error::is_bad_input(
            &choose(&m, root, None, &b("nope")).unwrap_err()
        ));
        let e = choose(&m, root, Some("zz"), &[]).unwrap_err().to_string();
        assert!(e.contains("no package named"), "{e}");
        assert!(choose(&m, Path::new("/w/c/Cargo.toml"), None, &[]).is_err());
    }

    /// Issue 41: a bench target that depends on costbench through a compatible crate under
    /// another name qualifies; where none qualifies, the message says what was found and the
    /// one line that switches a criterion bench.
    #[test]
    fn a_compatible_crate_under_any_name_qualifies_and_none_says_why() {
        let mut m = meta();
        m.packages.truncate(1);
        m.packages[0].dependencies = vec![Dependency {
            name: "costbench-criterion".into(),
        }];
        let root = Path::new("/w/Cargo.toml");
        assert_eq!(choose(&m, root, None, &[]).unwrap().bench, "fast");
        m.packages[0].dependencies = vec![Dependency {
            name: "criterion".into(),
        }];
        m.packages[0].targets.push(Target {
            name: "own".into(),
            kind: vec!["bench".into()],
            harness_false: true,
            src_path: PathBuf::new(),
        });
        let e = choose(&m, root, None, &[]).unwrap_err();
        assert!(costbench_record::error::is_bad_input(&e), "{e:#}");
        let e = e.to_string();
        assert!(
            e.contains(r#"fast (package a) uses criterion: switch it"#)
                && e.contains(
                    r#"criterion = { package = "costbench-criterion", version = "0.1" }"#
                ),
            "{e}"
        );
        m.packages[0].dependencies.clear();
        let e = choose(&m, root, None, &[]).unwrap_err().to_string();
        assert!(e.contains("fast (package a) uses libtest's harness"), "{e}");
        assert!(
            e.contains("own (package a) runs its own main but does not depend on costbench"),
            "{e}"
        );
    }

    /// Issue 29: a stray `benches/*.rs` (libtest's harness) beside the costbench target does not
    /// make costbench ask which to run; the choice is said.
    #[test]
    fn a_harness_false_target_is_preferred_over_a_stray_libtest_bench() {
        let mut m = meta();
        m.packages[0].targets = ["+costs", "stray"]
            .iter()
            .map(|b| Target {
                name: b.trim_start_matches('+').into(),
                kind: vec!["bench".into()],
                harness_false: b.starts_with('+'),
                src_path: PathBuf::new(),
            })
            .collect();
        let t = choose(&m, Path::new("/w/a/Cargo.toml"), None, &[]).unwrap();
        assert_eq!(t.bench, "costs");
        assert_eq!(t.passed_over, ["stray"]);
        // Two costbench targets are both measured (issue 41).
        m.packages[0].targets[1].harness_false = true;
        let t = choose(&m, Path::new("/w/a/Cargo.toml"), None, &[]).unwrap();
        assert_eq!(t.names(), "costs,stray");
        assert!(t.passed_over.is_empty());
    }

    #[test]
    fn harness_false_benches_are_read_from_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let m = dir.path().join("Cargo.toml");
        std::fs::write(
            &m,
            "[package]\nname = \"x\"\n[[bench]]\nname = \"costs\"\nharness = false\n[[bench]]\nname = \"other\"\n",
        )
        .unwrap();
        assert_eq!(harness_false_benches(&m), ["costs"]);
    }
}
