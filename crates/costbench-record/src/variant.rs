//! A validated build variant as plain data: its profile settings, features, flags, allocator
//! and toolchain ([`Variant`]).
//!
//! Data only: parsing and validating variants from `costbench.toml` and the command line, and
//! building them, is the runner's (`costbench-cli`'s `variants`).

use serde::{Deserialize, Serialize};

/// The global allocator a variant's scenarios run with, switched through the `costbench`
/// library's cargo features (`costbench/mimalloc`, `costbench/jemalloc`); `system` is neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Allocator {
    /// The system allocator (neither feature).
    System,
    /// mimalloc (`costbench/mimalloc`).
    Mimalloc,
    /// jemalloc (`costbench/jemalloc`).
    Jemalloc,
}

impl Allocator {
    /// The allocator's name in `costbench.toml` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Allocator::System => "system",
            Allocator::Mimalloc => "mimalloc",
            Allocator::Jemalloc => "jemalloc",
        }
    }

    /// The feature of the `costbench` library that installs this allocator.
    pub fn library_feature(self) -> Option<&'static str> {
        match self {
            Allocator::System => None,
            Allocator::Mimalloc => Some("mimalloc"),
            Allocator::Jemalloc => Some("jemalloc"),
        }
    }
}

/// One validated build variant.
///
/// `profile` holds `(key, TOML literal)` pairs for `cargo --config 'profile.bench.KEY=VALUE'`,
/// in the order of the runner's `variants::spec::PROFILE_KEYS`. `panic` is kept there too, but is applied as
/// `-C panic=...` because cargo ignores the profile's `panic` for bench targets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    /// The variant's name (a directory and a history entry).
    pub name: String,
    /// `(key, TOML literal)` pairs of `profile.bench`.
    pub profile: Vec<(String, String)>,
    /// Features to enable (`dep/feature` allowed).
    pub features: Vec<String>,
    /// Default features to turn off (written `-NAME` in `features`).
    pub disabled_features: Vec<String>,
    /// `--no-default-features`.
    pub no_default_features: bool,
    /// Extra `RUSTFLAGS`.
    pub rustflags: Vec<String>,
    /// The global allocator, when the variant chooses one.
    pub allocator: Option<Allocator>,
    /// The toolchain (`+nightly`), when not the default.
    pub toolchain: Option<String>,
}

impl Variant {
    /// The plain bench profile: nothing changed.
    pub fn plain(name: &str) -> Variant {
        Variant {
            name: name.to_string(),
            profile: Vec::new(),
            features: Vec::new(),
            disabled_features: Vec::new(),
            no_default_features: false,
            rustflags: Vec::new(),
            allocator: None,
            toolchain: None,
        }
    }

    /// The TOML literal the variant sets `profile.bench.KEY` to, if any.
    pub fn profile_value(&self, key: &str) -> Option<&str> {
        self.profile
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// What the variant changes, as `KEY=VALUE` items ("the plain bench profile" when nothing).
    pub fn describe(&self) -> String {
        let mut items: Vec<String> = self
            .profile
            .iter()
            .map(|(k, v)| format!("{k}={}", v.trim_matches('"')))
            .collect();
        let feats: Vec<String> = self
            .features
            .iter()
            .cloned()
            .chain(self.disabled_features.iter().map(|f| format!("-{f}")))
            .collect();
        if !feats.is_empty() {
            items.push(format!("features={}", feats.join(" ")));
        }
        if self.no_default_features {
            items.push("no-default-features=true".into());
        }
        if !self.rustflags.is_empty() {
            items.push(format!("rustflags={}", self.rustflags.join(" ")));
        }
        if let Some(a) = self.allocator {
            items.push(format!("allocator={}", a.name()));
        }
        if let Some(t) = &self.toolchain {
            items.push(format!("toolchain={t}"));
        }
        if items.is_empty() {
            "the plain bench profile".into()
        } else {
            items.join(", ")
        }
    }
}
