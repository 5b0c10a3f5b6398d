//! The one reader of callgrind's output format (valgrind's docs/cl-format.html), under every
//! reader of callgrind files here: the totals ([`super::totals`]), the function profile
//! (`instrument::icount::profile`) and the census's per-instruction counts
//! (`instrument::census::parse`). It owns the
//! details that bite, so that no reader gets them wrong on its own:
//!
//! - Lines: `key: value` headers (`positions:`, `events:`, `summary:`, `totals:`, `cmd:` ...),
//!   `key=value` specifications (`ob=`, `fl=`, `fn=`, `cob=`, `cfn=`, `calls=`, `jump=` ...), and
//!   cost lines (positions, then costs). Blank lines and `#` comments mean nothing.
//! - Name compression: `fn=(ID) NAME` defines a name, `fn=(ID)` refers back to it. The tables
//!   are per kind and shared by the caller's and the callee's lines: `ob=`/`cob=` (objects),
//!   `fl=`/`fi=`/`fe=`/`cfi=`/`cfl=` (files), `fn=`/`cfn=` (functions). A name first given on a
//!   `cob=` or `cfn=` line is later referred to by number alone on `ob=` or `fn=`.
//! - Positions (`positions: instr line`, or `line` when absent): each is absolute (`123`,
//!   `0x1f`), relative to the previous cost line (`+3`, `-2`) or the same (`*`).
//! - `calls=COUNT TARGET`: the target positions name the callee and do not move the base the
//!   next relative position is taken from; the cost line right after is the call's *inclusive*
//!   cost ([`Cost::call`]), not the calling instruction's own.
//! - `jump=COUNT TARGET` and `jcnd=TAKEN/EXECUTED TARGET` (`--collect-jumps=yes`): their targets
//!   do not move the base either, and no cost of their own follows (`jcnd=` appears only for
//!   jumps taken at least once, so execution counts come from cost lines, never from these).
//! - Missing trailing costs are zero.
//!
//! Pure: text in, records out. It does not know what its readers sum; filtering by object (the
//! program and ld.so have overlapping addresses) and summing per address are theirs.

use anyhow::{anyhow, Context, Result};
use std::collections::HashMap;

/// One line of a callgrind output file, classified but not interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    /// `key: value` (the text after the first `:`, when it comes before any `=`).
    Header {
        /// The key, before the `:`.
        key: &'a str,
        /// The value, after the `:`.
        value: &'a str,
    },
    /// `key=value` (the text after the first `=`, when it comes before any `:`).
    Spec {
        /// The key, before the `=`.
        key: &'a str,
        /// The value, after the `=`.
        value: &'a str,
    },
    /// A line starting with a digit, `+`, `-` or `*`: positions, then costs.
    Cost(&'a str),
    /// Anything else (no `:` or `=`): ignored by every reader.
    Other(&'a str),
}

/// The lines of a callgrind output file that mean something (not blank, not comments), numbered
/// from 1, trailing whitespace removed.
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    inner: std::iter::Enumerate<std::str::Lines<'a>>,
}

/// Every line of `text` that means something, numbered and classified.
pub fn lines(text: &str) -> Lines<'_> {
    Lines {
        inner: text.lines().enumerate(),
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, Line<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        for (n, line) in self.inner.by_ref() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let first = line.as_bytes()[0];
            let line = if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
                Line::Cost(line)
            } else {
                match line.find(['=', ':']) {
                    Some(i) if line.as_bytes()[i] == b'=' => Line::Spec {
                        key: &line[..i],
                        value: &line[i + 1..],
                    },
                    Some(i) => Line::Header {
                        key: &line[..i],
                        value: &line[i + 1..],
                    },
                    None => Line::Other(line),
                }
            };
            return Some((n + 1, line));
        }
        None
    }
}

/// What [`Reader::read`] found. The names it resolved are on the reader ([`Reader::object`],
/// [`Reader::function`], [`Reader::callee`] ...), current as of this record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record<'a> {
    /// A header line; `positions:` and `events:` are already applied to the reader.
    Header {
        /// The key, before the `:`.
        key: &'a str,
        /// The value, after the `:`.
        value: &'a str,
    },
    /// `ob=`: [`Reader::object`] is the new object.
    Object,
    /// `fn=`: [`Reader::function`] is the new function.
    Function,
    /// `calls=COUNT TARGET`: `count` calls into [`Reader::callee`]. The next cost line is the
    /// calls' inclusive cost.
    Calls {
        /// How many calls.
        count: u64,
    },
    /// A cost line.
    Cost(Cost<'a>),
    /// Any other specification line (`fl=`, `cob=`, `cfn=`, `jump=`, `jcnd=` ...), already
    /// applied to the reader (names resolved; positions untouched).
    Spec {
        /// The key, before the `=`.
        key: &'a str,
        /// The value, after the `=`.
        value: &'a str,
    },
}

/// One cost line, its positions resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost<'a> {
    /// Line number in the file, for messages.
    pub line_no: usize,
    /// The `instr` position (the instruction's address in its object), when the file has one
    /// (`--dump-instr=yes`).
    pub instr: Option<u64>,
    /// The `line` position (the source line), when the file has one.
    pub line: Option<u64>,
    /// The inclusive cost of the calls on the `calls=` line before it, not the instruction's own.
    pub call: bool,
    /// The whole line; the costs are its fields after the `positions` ones.
    text: &'a str,
    positions: usize,
}

impl Cost<'_> {
    /// The cost of the `index`th event of the `events:` line (missing trailing costs are zero).
    pub fn event(&self, index: usize) -> Result<u64> {
        match self
            .text
            .split_ascii_whitespace()
            .nth(self.positions + index)
        {
            None => Ok(0),
            Some(c) => c
                .parse()
                .with_context(|| format!("line {}: cost {c:?} is not a number", self.line_no)),
        }
    }
}

/// Callgrind's name compression for one kind of name: `(ID) NAME` defines, `(ID)` refers back.
#[derive(Debug, Default)]
struct Names(HashMap<String, String>);

impl Names {
    /// `(ID) NAME`, `(ID)` or `NAME`: the name, remembering a compressed name's definition.
    fn resolve(&mut self, spec: &str) -> Result<String> {
        let spec = spec.trim();
        if let Some(rest) = spec.strip_prefix('(') {
            let (id, tail) = rest
                .split_once(')')
                .with_context(|| format!("unclosed name id in {spec:?}"))?;
            let tail = tail.trim();
            if tail.is_empty() {
                return self
                    .0
                    .get(id)
                    .cloned()
                    .with_context(|| format!("name id ({id}) used before it was defined"));
            }
            self.0.insert(id.to_string(), tail.to_string());
            return Ok(tail.to_string());
        }
        Ok(spec.to_string())
    }
}

/// A position field: `0x…` or decimal absolute, `+N`/`-N` relative to `last`, `*` the same.
fn position(field: &str, last: u64) -> Result<u64> {
    let absolute = |s: &str| -> Result<u64> {
        if let Some(h) = s.strip_prefix("0x") {
            u64::from_str_radix(h, 16).map_err(|e| anyhow!("{field:?}: {e}"))
        } else {
            s.parse().map_err(|e| anyhow!("{field:?}: {e}"))
        }
    };
    if field == "*" {
        Ok(last)
    } else if let Some(d) = field.strip_prefix('+') {
        Ok(last.wrapping_add(absolute(d)?))
    } else if let Some(d) = field.strip_prefix('-') {
        Ok(last.wrapping_sub(absolute(d)?))
    } else {
        absolute(field)
    }
}

/// Reads a callgrind output file record by record, keeping the state the format's compression
/// leaves to its reader: the position base, the name tables, the current object, file and
/// function, the callee of the next `calls=` line, and whether a cost line is a call's.
#[derive(Debug)]
pub struct Reader<'a> {
    lines: Lines<'a>,
    line_no: usize,
    /// Names of the `positions:` line (`line` when the file has none).
    positions: Vec<&'a str>,
    events: Option<Vec<&'a str>>,
    /// The positions of the last cost line, the base of relative ones.
    base: Vec<u64>,
    objects: Names,
    files: Names,
    functions: Names,
    object: Option<String>,
    file: Option<String>,
    function: Option<String>,
    callee: Option<String>,
    /// A `calls=` line was read: the next cost line is the calls' inclusive cost.
    after_calls: bool,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `text`, a callgrind output file.
    pub fn new(text: &'a str) -> Self {
        Reader {
            lines: lines(text),
            line_no: 0,
            positions: vec!["line"],
            events: None,
            base: vec![0],
            objects: Names::default(),
            files: Names::default(),
            functions: Names::default(),
            object: None,
            file: None,
            function: None,
            callee: None,
            after_calls: false,
        }
    }

    /// The events of the `events:` line, once read.
    pub fn events(&self) -> Option<&[&'a str]> {
        self.events.as_deref()
    }

    /// The column of event `name` in cost lines ([`Cost::event`]), once `events:` was read.
    pub fn event_index(&self, name: &str) -> Option<usize> {
        self.events.as_ref()?.iter().position(|e| *e == name)
    }

    /// The object of the current cost lines (last `ob=`).
    pub fn object(&self) -> Option<&str> {
        self.object.as_deref()
    }

    /// The source file of the current cost lines (last `fl=`, `fi=` or `fe=`).
    pub fn file(&self) -> Option<&str> {
        self.file.as_deref()
    }

    /// The function of the current cost lines (last `fn=`).
    pub fn function(&self) -> Option<&str> {
        self.function.as_deref()
    }

    /// The function the next (or last) `calls=` line calls (last `cfn=`).
    pub fn callee(&self) -> Option<&str> {
        self.callee.as_deref()
    }

    /// The number of the line last read, for messages.
    pub fn line_no(&self) -> usize {
        self.line_no
    }

    /// The next record, `None` at the end of the text. Errors name the line.
    pub fn read(&mut self) -> Result<Option<Record<'a>>> {
        // Lines no reader looks at (`Line::Other`) are read past.
        let (line_no, line) = loop {
            match self.lines.next() {
                None => return Ok(None),
                Some((_, Line::Other(_))) => {}
                Some(next) => break next,
            }
        };
        self.line_no = line_no;
        let record = match line {
            Line::Cost(text) => Record::Cost(self.cost(text)?),
            Line::Header { key, value } => {
                match key {
                    "positions" => {
                        self.positions = value.split_ascii_whitespace().collect();
                        if self.positions.is_empty() {
                            self.positions = vec!["line"];
                        }
                        self.base = vec![0; self.positions.len()];
                    }
                    "events" => self.events = Some(value.split_ascii_whitespace().collect()),
                    _ => {}
                }
                Record::Header { key, value }
            }
            Line::Spec { key, value } => self
                .spec(key, value)
                .with_context(|| format!("line {line_no}"))?,
            Line::Other(_) => unreachable!("read past above"),
        };
        Ok(Some(record))
    }

    fn spec(&mut self, key: &'a str, value: &'a str) -> Result<Record<'a>> {
        Ok(match key {
            "ob" => {
                self.object = Some(self.objects.resolve(value)?);
                Record::Object
            }
            "fn" => {
                self.function = Some(self.functions.resolve(value)?);
                // A call's cost line comes right after its `calls=`; a new function ends it.
                self.after_calls = false;
                Record::Function
            }
            "calls" => {
                let count = value
                    .split_ascii_whitespace()
                    .next()
                    .and_then(|c| c.parse().ok())
                    .with_context(|| format!("no call count in \"calls={value}\""))?;
                // The target positions after the count are the callee's: the base stays.
                self.after_calls = true;
                Record::Calls { count }
            }
            "cob" => {
                self.objects.resolve(value)?;
                Record::Spec { key, value }
            }
            "fl" | "fi" | "fe" => {
                self.file = Some(self.files.resolve(value)?);
                Record::Spec { key, value }
            }
            "cfi" | "cfl" => {
                self.files.resolve(value)?;
                Record::Spec { key, value }
            }
            "cfn" => {
                self.callee = Some(self.functions.resolve(value)?);
                Record::Spec { key, value }
            }
            // `jump=`/`jcnd=` carry jump counts and a target that does not move the base; the
            // position-only line callgrind writes after them is an ordinary (zero) cost line.
            _ => Record::Spec { key, value },
        })
    }

    fn cost(&mut self, text: &'a str) -> Result<Cost<'a>> {
        let mut fields = text.split_ascii_whitespace();
        for (k, base) in self.base.iter_mut().enumerate() {
            // A missing position is the same as the last (only trailing ones can be missing).
            let field = fields.next().unwrap_or("*");
            *base = position(field, *base).with_context(|| {
                format!(
                    "line {}: bad {} position",
                    self.line_no,
                    self.positions.get(k).copied().unwrap_or("?")
                )
            })?;
        }
        let at = |name: &str| {
            let k = self.positions.iter().position(|p| *p == name)?;
            Some(self.base[k])
        };
        Ok(Cost {
            line_no: self.line_no,
            instr: at("instr"),
            line: at("line"),
            call: std::mem::replace(&mut self.after_calls, false),
            text,
            positions: self.positions.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record with the reader's object and function after it.
    type Seen<'a> = (Record<'a>, Option<String>, Option<String>);

    /// Every record of `text`, with the reader's names after each.
    fn records(text: &str) -> Result<Vec<Seen<'_>>> {
        let mut r = Reader::new(text);
        let mut out = Vec::new();
        while let Some(rec) = r.read()? {
            out.push((
                rec,
                r.object().map(str::to_string),
                r.function().map(str::to_string),
            ));
        }
        Ok(out)
    }

    /// (instr, line, call, first event) of every cost line.
    fn costs(text: &str) -> Vec<(Option<u64>, Option<u64>, bool, u64)> {
        records(text)
            .unwrap()
            .into_iter()
            .filter_map(|(rec, _, _)| match rec {
                Record::Cost(c) => Some((c.instr, c.line, c.call, c.event(0).unwrap())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn lines_are_classified_by_their_first_separator() {
        let text = "# callgrind format\nversion: 1\ncmd:  ./x --a=b\n\ndesc: I1 cache: \nfn=(1) a::b\n0x10 +2 3\n-1 * 4\n*\nwhat\n";
        let got: Vec<(usize, Line)> = lines(text).collect();
        assert_eq!(
            got,
            [
                (
                    2,
                    Line::Header {
                        key: "version",
                        value: " 1"
                    }
                ),
                (
                    3,
                    Line::Header {
                        key: "cmd",
                        value: "  ./x --a=b"
                    }
                ),
                (
                    5,
                    Line::Header {
                        key: "desc",
                        value: " I1 cache:"
                    }
                ),
                (
                    6,
                    Line::Spec {
                        key: "fn",
                        value: "(1) a::b"
                    }
                ),
                (7, Line::Cost("0x10 +2 3")),
                (8, Line::Cost("-1 * 4")),
                (9, Line::Cost("*")),
                (10, Line::Other("what")),
            ]
        );
    }

    #[test]
    fn positions_are_absolute_relative_or_the_same() {
        let text = "positions: instr line\nevents: Ir\nfn=f\n0x10 3 1\n+2 +1 2\n* * 3\n-4 -2 4\n16 0x7 5\n* 9\n";
        assert_eq!(
            costs(text),
            [
                (Some(0x10), Some(3), false, 1),
                (Some(0x12), Some(4), false, 2),
                (Some(0x12), Some(4), false, 3),
                (Some(0xe), Some(2), false, 4),
                (Some(16), Some(7), false, 5),
                // Costs are the fields after the positions: a line of positions only is zero.
                (Some(16), Some(9), false, 0),
            ]
        );
        // Without a `positions:` line there is one position, the source line.
        assert_eq!(
            costs("events: Ir\nfn=f\n5 2\n+1 3\n"),
            [(None, Some(5), false, 2), (None, Some(6), false, 3)]
        );
        let e = records("events: Ir\nfn=f\n0xzz 1\n").unwrap_err();
        assert!(
            format!("{e:#}").contains("line 3: bad line position"),
            "{e:#}"
        );
    }

    #[test]
    fn call_targets_and_jump_targets_do_not_move_the_base() {
        // The call's target 0x900 and the jumps' 0x500 name other code: `+1` after them counts
        // from the last cost line. Only the cost line right after `calls=` is inclusive.
        let text = "positions: instr\nevents: Ir\nfn=(1) f\n0x10 1\ncfn=(2) g\ncalls=3 0x900\n+2 30\n+2 1\njump=4 0x500\n+1\njcnd=2/5 0x500\n+1 5\n";
        assert_eq!(
            costs(text),
            [
                (Some(0x10), None, false, 1),
                (Some(0x12), None, true, 30),
                (Some(0x14), None, false, 1),
                (Some(0x15), None, false, 0),
                (Some(0x16), None, false, 5),
            ]
        );
        let calls: Vec<Record> = records(text)
            .unwrap()
            .into_iter()
            .map(|(r, _, _)| r)
            .filter(|r| matches!(r, Record::Calls { .. }))
            .collect();
        assert_eq!(calls, [Record::Calls { count: 3 }]);
        // A new function ends a call whose cost line never came.
        assert_eq!(
            costs("events: Ir\nfn=f\ncalls=1 5\nfn=g\n1 7\n"),
            [(None, Some(1), false, 7)]
        );
        let e = records("events: Ir\nfn=f\ncalls=many 5\n").unwrap_err();
        assert!(format!("{e:#}").contains("line 3: no call count"), "{e:#}");
    }

    #[test]
    fn names_are_compressed_per_kind_and_shared_with_the_callee_lines() {
        let text = "events: Ir\nob=(1) /bin/x\nfl=(1) a.rs\nfn=(1) main\ncob=(2) /lib/y\ncfi=(2) b.rs\ncfn=(2) work\ncalls=1 0\n1 5\nob=(2)\nfi=(2)\nfn=(2)\n1 5\nob=(1)\nfe=(1)\nfn=(1)\n2 1\n";
        let mut r = Reader::new(text);
        let mut seen = Vec::new();
        while let Some(rec) = r.read().unwrap() {
            if let Record::Cost(c) = rec {
                seen.push((
                    r.object().unwrap().to_string(),
                    r.file().unwrap().to_string(),
                    r.function().unwrap().to_string(),
                    c.call,
                ));
            }
        }
        let want = [
            ("/bin/x", "a.rs", "main", true),
            ("/lib/y", "b.rs", "work", false),
            ("/bin/x", "a.rs", "main", false),
        ];
        let want: Vec<(String, String, String, bool)> = want
            .iter()
            .map(|(o, f, n, c)| (o.to_string(), f.to_string(), n.to_string(), *c))
            .collect();
        assert_eq!(seen, want);
        assert_eq!(r.callee(), Some("work"));
        // Uncompressed names are taken as they are; an id must be defined before it is used.
        let plain = records("events: Ir\nfn=core::fmt::write\n").unwrap();
        assert_eq!(plain[1].2.as_deref(), Some("core::fmt::write"));
        for (text, want) in [
            (
                "events: Ir\nfn=(4)\n",
                "line 2: name id (4) used before it was defined",
            ),
            ("events: Ir\nob=(4\n", "line 2: unclosed name id"),
            // Object, file and function ids are separate tables.
            ("fn=(1) f\nob=(1)\n", "line 2: name id (1) used before"),
        ] {
            let e = records(text).unwrap_err();
            assert!(format!("{e:#}").contains(want), "{e:#}");
        }
    }

    #[test]
    fn missing_costs_are_zero_and_bad_costs_are_errors() {
        let mut r =
            Reader::new("positions: instr line\nevents: Ir Dr Dw\nfn=f\n0x1 1 7\n0x2 1 x\n");
        let mut got = Vec::new();
        while let Some(rec) = r.read().unwrap() {
            if let Record::Cost(c) = rec {
                got.push((c.event(0), c.event(2).unwrap()));
            }
        }
        assert_eq!(r.event_index("Dw"), Some(2));
        assert_eq!(r.events(), Some(&["Ir", "Dr", "Dw"][..]));
        assert_eq!(got[0].0.as_ref().unwrap(), &7);
        assert_eq!(got[0].1, 0);
        let e = got[1].0.as_ref().unwrap_err();
        assert!(format!("{e:#}").contains("line 5: cost \"x\" is not a number"));
    }

    #[test]
    fn real_outputs_sum_to_their_totals() {
        // The instructions' own costs (not the calls' inclusive ones) add up to the file's
        // total, in each committed callgrind output: a profile, a census run with
        // `--dump-instr=yes`, and one with the cache simulation.
        for text in [
            include_str!("../icount/testdata/sort.callgrind.out"),
            include_str!("../census/testdata/indirect.callgrind.out"),
            include_str!("../cache/testdata/callgrind-cache-sim.out"),
        ] {
            let mut r = Reader::new(text);
            let mut own = 0;
            let mut calls = 0;
            while let Some(rec) = r.read().unwrap() {
                match rec {
                    Record::Cost(c) if !c.call => own += c.event(0).unwrap(),
                    Record::Calls { .. } => calls += 1,
                    _ => {}
                }
            }
            assert!(calls > 0);
            assert_eq!(Some(own), super::super::total_ir(text).ok());
        }
    }
}
