//! Numbers and units as every report prints them: per-op figures (instructions, nanoseconds,
//! counts), changes in percent, thresholds, confidence levels and intervals.
//!
//! A leaf: it imports nothing from this crate, so that judging code (which writes figures into
//! verdict reasons) and every report can share one spelling of a number without importing each
//! other. It belongs in the lowest crate once the runner is split. Only pure `f64 -> String`
//! functions live here; where a figure is printed (table, markdown, HTML) is the caller's concern.

/// Nanoseconds with a unit that keeps three or four significant digits: "1.234 ns", "12.35 µs".
pub fn fmt_ns(ns: f64) -> String {
    let (v, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    let digits = if v >= 100.0 {
        1
    } else if v >= 10.0 {
        2
    } else {
        3
    };
    format!("{v:.digits$} {unit}")
}

/// Instructions per op: whole numbers when large, a few decimals when small.
pub fn fmt_ir(ir: f64) -> String {
    if ir >= 1000.0 {
        format!("{ir:.0}")
    } else if ir >= 10.0 {
        format!("{ir:.2}")
    } else {
        format!("{ir:.3}")
    }
}

/// [`fmt_ir`], except that exactly zero is "0", not "0.000": "0 bounds checks per op" of a kind
/// none of which ran, where "0.000" would suggest a rounded fraction.
pub fn fmt_ir_exact_zero(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else {
        fmt_ir(v)
    }
}

/// [`fmt_ir`] with thousands separated by commas ("1,204").
pub fn fmt_ir_grouped(v: f64) -> String {
    let s = fmt_ir(v);
    let (int, frac) = s.split_once('.').map_or((s.as_str(), ""), |(i, f)| (i, f));
    let mut out = group_thousands(int);
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    out
}

/// `v` rounded to a whole number, thousands separated by commas ("29,007", "-310").
pub fn fmt_whole(v: f64) -> String {
    group_thousands(&format!("{:.0}", v.round()))
}

/// `1234567` as "1,234,567".
pub fn thousands(n: u64) -> String {
    group_thousands(&n.to_string())
}

/// Digits (after an optional sign) with commas between their thousands: the one grouping of
/// thousands every formatter uses.
fn group_thousands(int: &str) -> String {
    let digits = int.trim_start_matches(['-', '+']);
    let mut out = int[..int.len() - digits.len()].to_string();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A per-op count: like [`fmt_ir_exact_zero`], but small fractions keep three significant digits
/// (one allocation per 10,000 elements is 0.000100, not 0.000).
pub fn fmt_count(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() < 0.01 {
        let digits = (-v.abs().log10().floor()) as usize + 2;
        format!("{v:.digits$}")
    } else {
        fmt_ir(v)
    }
}

/// "+1,234.5" / "-0.25": a change of instructions per op, signed, in [`fmt_ir`]'s digits (no
/// sign for no change).
pub fn fmt_delta(v: f64) -> String {
    let sign = if v > 0.0 {
        "+"
    } else if v < 0.0 {
        "-"
    } else {
        ""
    };
    format!("{sign}{}", fmt_ir(v.abs()))
}

/// "+0.50 %", "-12.34 %", "+inf %": a change in percent.
pub fn fmt_change(pct: f64) -> String {
    if pct.is_infinite() {
        return format!("{}inf %", if pct > 0.0 { "+" } else { "-" });
    }
    format!("{pct:+.2} %")
}

/// A ratio to a baseline as a change in percent: 1.1 → "+10.00 %".
pub fn fmt_ratio_change(ratio: f64) -> String {
    fmt_change(100.0 * (ratio - 1.0))
}

/// "0.2 %", "5 %": thresholds as given, without trailing zeros.
pub fn fmt_threshold(pct: f64) -> String {
    // Thresholds from history are arbitrary reals: three significant digits say all they mean.
    let digits = if pct == 0.0 || !pct.is_finite() {
        0
    } else {
        (2 - pct.abs().log10().floor() as i32).max(0) as usize
    };
    let s = format!("{pct:.digits$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s} %")
}

/// "95 %", "97.5 %": a confidence level as a percentage, without the float noise of `0.9 * 100`.
pub fn fmt_confidence(level: f64) -> String {
    format!("{} %", (level * 1000.0).round() / 10.0)
}

/// "50 %": a fraction (0..=1) as a whole percentage.
pub fn fmt_percent(fraction: f64) -> String {
    format!("{:.0} %", 100.0 * fraction)
}

/// "[0.982, 1.031]": a confidence interval of a ratio.
pub fn fmt_ci(low: f64, high: f64) -> String {
    format!("[{low:.3}, {high:.3}]")
}

/// A number as JavaScript's `parseFloat` reads it back (the HTML page's `data-v` sort keys):
/// `Infinity`, not Rust's `inf`; NaN as the empty string; finite numbers in full.
pub fn fmt_js_number(v: f64) -> String {
    if v.is_nan() {
        String::new()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        format!("{v}")
    }
}

/// Operations per second for people: `99,091 ops/s`, `1.2 M ops/s`.
pub fn fmt_ops_per_sec(v: f64) -> String {
    if !v.is_finite() {
        return "- ops/s".into();
    }
    if v >= 10e6 {
        return format!("{:.1} M ops/s", v / 1e6);
    }
    format!("{} ops/s", thousands(v.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A formatter, an input and what it must print.
    type Case = (fn(f64) -> String, f64, &'static str);

    #[test]
    fn thousands_are_grouped_one_way() {
        for (n, want) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1234567, "1,234,567"),
        ] {
            assert_eq!(thousands(n), want);
        }
        assert_eq!(fmt_whole(-1234.4), "-1,234");
        assert_eq!(fmt_ops_per_sec(99091.4), "99,091 ops/s");
    }

    #[test]
    fn formatters() {
        let cases: &[Case] = &[
            (fmt_ns, 1.234, "1.234 ns"),
            (fmt_ns, 12_345.0, "12.35 µs"),
            (fmt_ns, 2.5e9, "2.500 s"),
            (fmt_ir, 2.0, "2.000"),
            (fmt_ir, 123_456.7, "123457"),
            (fmt_ir_exact_zero, 0.0, "0"),
            (fmt_ir_exact_zero, 2.0, "2.000"),
            (fmt_count, 0.0, "0"),
            (fmt_count, 0.0001, "0.000100"),
            (fmt_count, 0.00131, "0.00131"),
            (fmt_count, 0.5, "0.500"),
            (fmt_count, 2500.0, "2500"),
            (fmt_delta, 1234.5, "+1234"),
            (fmt_delta, -0.25, "-0.250"),
            (fmt_delta, 0.0, "0.000"),
            (fmt_change, 0.5, "+0.50 %"),
            (fmt_change, -12.345, "-12.35 %"),
            (fmt_change, f64::INFINITY, "+inf %"),
            (fmt_ratio_change, 1.1, "+10.00 %"),
            (fmt_threshold, 0.2, "0.2 %"),
            (fmt_threshold, 5.0, "5 %"),
            (fmt_confidence, 0.95, "95 %"),
            (fmt_confidence, 0.9, "90 %"),
            (fmt_confidence, 0.975, "97.5 %"),
            (fmt_percent, 0.5, "50 %"),
            (fmt_js_number, 1.5, "1.5"),
            (fmt_js_number, f64::INFINITY, "Infinity"),
            (fmt_js_number, f64::NAN, ""),
        ];
        for (i, (f, v, want)) in cases.iter().enumerate() {
            assert_eq!(f(*v), *want, "case {i}: {v}");
        }
    }

    #[test]
    fn figures_are_grouped_by_thousands() {
        for (v, s) in [
            (1204.0, "1,204"),
            (999.5, "999.50"),
            (1_234_567.0, "1,234,567"),
            (3.0, "3.000"),
        ] {
            assert_eq!(fmt_ir_grouped(v), s);
        }
    }

    #[test]
    fn intervals() {
        assert_eq!(fmt_ci(0.98234, 1.0306), "[0.982, 1.031]");
    }

    #[test]
    fn ops_per_second_read_like_numbers() {
        assert_eq!(fmt_ops_per_sec(99_091.4), "99,091 ops/s");
        assert_eq!(fmt_ops_per_sec(512.0), "512 ops/s");
        assert_eq!(fmt_ops_per_sec(12_345_678.0), "12.3 M ops/s");
    }
}
