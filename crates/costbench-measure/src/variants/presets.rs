//! Built-in sets of variants (`--preset NAME`): ready-made questions, each entry one build
//! choice changed against the plain release (bench) profile, which comes first as the baseline.

use super::spec::{self, Raw};
use anyhow::{bail, Result};
use costbench_record::variant::Variant;

/// `build-choices` (alias `safety-tax`): the price of each common build choice on its own.
const BUILD_CHOICES: &[(&str, &str)] = &[
    ("release", ""),
    ("overflow-checks", "overflow-checks=true"),
    ("debug-assertions", "debug-assertions=true"),
    ("codegen-units-1", "codegen-units=1"),
    ("lto-fat", "lto=fat"),
    ("panic-abort", "panic=abort"),
    ("mimalloc", "allocator=mimalloc"),
    // Native less what valgrind 3.19 cannot decode, so that callgrind can count it: AMD's SSE4a
    // (`insertq`, which rustc emits for native on AMD CPUs: measured on an AMD EPYC, every regex
    // scenario died of SIGILL under callgrind) and AVX-512 (on an Intel VM with it, the whole
    // variant did). On a CPU without them this is native itself.
    (
        "target-cpu-native",
        "rustflags='-C target-cpu=native -C target-feature=-sse4a,-avx512f'",
    ),
];

/// `advice`: every build choice `costbench advise` measures, those of `build-choices` and the
/// milder or other forms a user weighs against them.
const ADVICE_MORE: &[(&str, &str)] = &[
    ("lto-thin", "lto=thin"),
    ("opt-level-2", "opt-level=2"),
    ("jemalloc", "allocator=jemalloc"),
];

/// Preset names, with what they compare, for messages and `--help`.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "build-choices",
        "release against overflow-checks, debug-assertions, codegen-units=1, lto=fat, panic=abort, mimalloc, target-cpu=native less SSE4a and AVX-512 (alias: safety-tax)",
    ),
    (
        "advice",
        "build-choices and lto=thin, opt-level=2, jemalloc: every build choice costbench advise measures",
    ),
];

/// The variants of preset `name`, baseline first.
pub fn preset(name: &str) -> Result<Vec<Variant>> {
    let advice: Vec<(&str, &str)> = BUILD_CHOICES.iter().chain(ADVICE_MORE).copied().collect();
    let entries = match name {
        "build-choices" | "safety-tax" => BUILD_CHOICES,
        "advice" => &advice[..],
        _ => bail!(
            "unknown preset {name:?}; presets: {}",
            PRESETS
                .iter()
                .map(|(n, what)| format!("{n} ({what})"))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    };
    entries
        .iter()
        .map(|(n, text)| {
            let (name, settings) = spec::parse_cli(&format!("{n}:{text}"))?;
            let settings: Vec<(String, Raw)> = settings.unwrap_or_default();
            spec::validate(&name, &settings, &format!("preset {name}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_choices_change_one_thing_each() {
        let v = preset("safety-tax").unwrap();
        assert_eq!(v, preset("build-choices").unwrap());
        assert_eq!(v[0], Variant::plain("release"));
        assert_eq!(v.len(), 8);
        let more = preset("advice").unwrap();
        assert_eq!(&more[..8], &v[..]);
        assert_eq!(more[8].profile_value("lto"), Some("\"thin\""));
        assert_eq!(more[9].profile_value("opt-level"), Some("2"));
        assert_eq!(more.len(), 11);
        assert_eq!(v[1].profile_value("overflow-checks"), Some("true"));
        assert_eq!(v[5].profile_value("panic"), Some("\"abort\""));
        assert_eq!(
            v[6].allocator,
            Some(costbench_record::variant::Allocator::Mimalloc)
        );
        assert_eq!(
            v[7].rustflags,
            [
                "-C",
                "target-cpu=native",
                "-C",
                "target-feature=-sse4a,-avx512f"
            ]
        );
        for x in &v[1..] {
            assert_eq!(x.describe().split(", ").count(), 1, "{}", x.describe());
        }
        assert!(preset("nope")
            .unwrap_err()
            .to_string()
            .contains("build-choices"));
    }
}
