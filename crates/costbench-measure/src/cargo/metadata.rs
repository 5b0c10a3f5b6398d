//! Which bench target to build, as `cargo metadata` describes the workspace: the packages that
//! use costbench and their bench targets, the features they and their dependencies offer, the
//! target directory; and how every cargo command is started ([`LockFlags`] included). It only
//! asks cargo; which targets a run takes is `select`'s, building is `build`'s.

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
pub(super) struct Metadata {
    pub(super) packages: Vec<Package>,
    pub(super) target_directory: PathBuf,
    pub(super) workspace_root: PathBuf,
}

#[derive(Debug)]
pub(super) struct Package {
    pub(super) name: String,
    pub(super) version: String,
    pub(super) manifest_path: PathBuf,
    pub(super) dependencies: Vec<Dependency>,
    pub(super) targets: Vec<Target>,
    pub(super) features: BTreeMap<String, Vec<String>>,
}

#[derive(Debug)]
pub(super) struct Dependency {
    pub(super) name: String,
}

#[derive(Debug)]
pub(super) struct Target {
    pub(super) name: String,
    pub(super) kind: Vec<String>,
    /// `harness = false` in the package's `[[bench]]` table: a target that runs its own `main`
    /// (costbench's), not libtest's. `cargo metadata` does not say; the manifest does.
    pub(super) harness_false: bool,
    /// The target's root source file.
    pub(super) src_path: PathBuf,
    /// `required-features` of its `[[bench]]` table.
    pub(super) required_features: Vec<String>,
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
                                required_features: t.required_features,
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
    /// `required-features` of its `[[bench]]` table.
    pub required_features: Vec<String>,
    /// Its package's feature table (what each feature turns on).
    pub(super) package_features: BTreeMap<String, Vec<String>>,
    /// Chosen without `--bench` or `run.bench`: as one of every qualifying target.
    pub(super) implicit: bool,
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

    /// Refuses several bench targets for `command`, which reads one at a time (`asm`: one
    /// function of one binary), as a usage error that names them and the option that chooses one.
    pub fn single(&self, command: &str) -> Result<()> {
        if self.others.is_empty() {
            return Ok(());
        }
        costbench_record::bad_input!(
            "`costbench {command}` takes one bench target, and {} qualify here: {}; choose one \
             with --bench NAME (`costbench run` and the other measuring commands take them all)",
            self.others.len() + 1,
            self.all()
                .map(|t| format!("{} (package {})", t.bench, t.package))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// Leaves out, as `cargo bench` does, the targets chosen without `--bench` whose
    /// `required-features` the feature flags do not turn on, and returns each with the features
    /// it lacks. A target named with `--bench` stays (cargo then says what it needs). When
    /// every target would be left out, a usage error names them and the features.
    pub fn leave_out_unbuildable(
        &mut self,
        features: &[String],
        all_features: bool,
        no_default_features: bool,
    ) -> Result<Vec<LeftOut>> {
        let mut kept = Vec::new();
        let mut left = Vec::new();
        let passed_over = std::mem::take(&mut self.passed_over);
        let others = std::mem::take(&mut self.others);
        for t in std::iter::once(self.clone()).chain(others) {
            let on = super::required::enabled(
                &t.package_features,
                features,
                all_features,
                no_default_features,
            );
            let lacks = super::required::missing(&t.required_features, on.as_ref());
            if t.implicit && !lacks.is_empty() {
                left.push((t.bench.clone(), lacks));
            } else {
                kept.push(t);
            }
        }
        if kept.is_empty() {
            let named: Vec<String> = left
                .iter()
                .map(|(b, f)| format!("{b} (needs {})", f.join(", ")))
                .collect();
            costbench_record::bad_input!(
                "every bench target that depends on costbench here needs features the build \
                 does not turn on, so `cargo bench` would run none of them: {}; turn them on \
                 with --features, or choose one with --bench NAME",
                named.join(", ")
            );
        }
        let mut kept = kept.into_iter();
        *self = kept.next().expect("kept is not empty");
        self.passed_over = passed_over;
        self.others = kept.collect();
        Ok(left)
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

/// A bench target left out of a run as `cargo bench` leaves it out: its name and the required
/// features the build does not turn on.
pub type LeftOut = (String, Vec<String>);

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

pub(super) fn metadata(manifest_path: Option<&Path>) -> Result<(PathBuf, Metadata)> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
