//! Complexity in the run record: the classes of growth ([`Class`]), the fit of a family of
//! sized scenarios ([`Fit`]) and a declared class checked against it ([`ComplexityCheck`]).
//! Plain serde types; fitting is `costbench-judge`'s `complexity`.

use serde::{Deserialize, Serialize};

/// A complexity class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Class {
    /// O(1).
    #[serde(rename = "1")]
    Constant,
    /// O(log n).
    #[serde(rename = "log n")]
    Log,
    /// O(n).
    #[serde(rename = "n")]
    Linear,
    /// O(n log n).
    #[serde(rename = "n log n")]
    NLogN,
    /// O(n²).
    #[serde(rename = "n^2")]
    Quadratic,
}

impl Class {
    /// Every class, simplest first.
    pub const ALL: [Class; 5] = [
        Class::Constant,
        Class::Log,
        Class::Linear,
        Class::NLogN,
        Class::Quadratic,
    ];

    /// "n log n", as written in `costbench.toml` and reports.
    pub fn name(self) -> &'static str {
        match self {
            Class::Constant => "1",
            Class::Log => "log n",
            Class::Linear => "n",
            Class::NLogN => "n log n",
            Class::Quadratic => "n^2",
        }
    }

    /// `f(n)`.
    pub fn eval(self, n: f64) -> f64 {
        match self {
            Class::Constant => 1.0,
            Class::Log => n.max(1.0).log2(),
            Class::Linear => n,
            Class::NLogN => n * n.max(1.0).log2(),
            Class::Quadratic => n * n,
        }
    }

    /// Reads a class as people write it: `n log n`, `O(n log n)`, `nlogn`, `n^2`, `n²`, `1` ...
    pub fn parse(s: &str) -> Option<Class> {
        let t: String = s
            .trim()
            .trim_start_matches("O(")
            .trim_end_matches(')')
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '*' && *c != '·')
            .collect::<String>()
            .to_lowercase();
        Some(match t.as_str() {
            "1" | "const" | "constant" => Class::Constant,
            "logn" | "log(n)" => Class::Log,
            "n" | "linear" => Class::Linear,
            "nlogn" | "nlog(n)" => Class::NLogN,
            "n^2" | "n²" | "n2" | "quadratic" => Class::Quadratic,
            _ => return None,
        })
    }
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The fit of one family.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// The family.
    pub family: String,
    /// The sizes fitted.
    pub sizes: Vec<u64>,
    /// The best class.
    pub class: Class,
    /// Its constant: Ir per op per unit of `f(n)` (`b` of `a + b·f(n)`).
    pub constant: f64,
    /// What every size pays (`a`).
    pub offset: f64,
    /// Relative RMS error of the best class's fit (0: exact).
    pub rms_rel_error: f64,
    /// The free power law `c·n^k`: its exponent `k` (least squares on logarithms)...
    pub exponent: f64,
    /// ... and its `c`.
    pub power_constant: f64,
    /// Relative RMS error of every class, simplest first, for readers who doubt the choice.
    pub errors: Vec<(Class, f64)>,
}

/// A declared class (`complexity` of a budget) checked against a family's fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComplexityCheck {
    /// The family (`sort` of `sort/100`).
    pub family: String,
    /// The declared class.
    pub declared: Class,
    /// The fitted class, when the family was measured.
    pub fitted: Option<Class>,
    /// Whether the fit agrees.
    pub passed: bool,
    /// For people: why it failed, or "fits O(n log n)".
    pub message: String,
    /// Where it was declared: `library` or `costbench.toml`.
    pub source: String,
}
