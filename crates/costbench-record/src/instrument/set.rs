//! The instruments a run is asked for (`--instrument`): which run, in which order, and which of
//! them need valgrind. It owns the one rule that ties two instruments together: the census
//! rides on the icount run, so asking for it brings that run along.

use super::Instrument;

/// A set of instruments, as asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct InstrumentSet(u16);

impl InstrumentSet {
    /// No instrument.
    pub const NONE: InstrumentSet = InstrumentSet(0);

    /// Every instrument (`--instrument all`).
    pub const ALL: InstrumentSet = InstrumentSet((1 << Instrument::ALL.len()) - 1);

    /// The order a warning names the instruments under valgrind when valgrind is missing, and
    /// the order of their entries in a record's `skipped` (kept as records have always had it).
    const VALGRIND_ORDER: [Instrument; 4] = [
        Instrument::Census,
        Instrument::Icount,
        Instrument::Cache,
        Instrument::Dhat,
    ];

    /// The set of one instrument.
    pub const fn of(i: Instrument) -> InstrumentSet {
        InstrumentSet(1 << i as u16)
    }

    /// This set and `i`.
    #[must_use]
    pub const fn with(self, i: Instrument) -> InstrumentSet {
        InstrumentSet(self.0 | InstrumentSet::of(i).0)
    }

    /// The instruments of either set.
    #[must_use]
    pub const fn union(self, other: InstrumentSet) -> InstrumentSet {
        InstrumentSet(self.0 | other.0)
    }

    /// Whether `i` was asked for.
    pub const fn asked(self, i: Instrument) -> bool {
        self.0 & InstrumentSet::of(i).0 != 0
    }

    /// Whether `i` runs: asked for, or (the icount run) carrying the census.
    pub fn runs(self, i: Instrument) -> bool {
        self.asked(i) || (i == Instrument::Icount && self.asked(Instrument::Census))
    }

    /// What runs, in the order it runs ([`Instrument::RUN_ORDER`]).
    pub fn running(self) -> Vec<Instrument> {
        Instrument::RUN_ORDER
            .into_iter()
            .filter(|i| self.runs(*i))
            .collect()
    }

    /// Names of the instruments that run, in the order they run.
    pub fn names(self) -> Vec<&'static str> {
        self.running().into_iter().map(Instrument::name).collect()
    }

    /// The instruments that run and need valgrind: without it these are skipped and the others
    /// still run.
    pub fn valgrind(self) -> Vec<&'static str> {
        InstrumentSet::VALGRIND_ORDER
            .into_iter()
            .filter(|i| self.runs(*i))
            .map(Instrument::name)
            .collect()
    }
}

impl FromIterator<Instrument> for InstrumentSet {
    fn from_iter<T: IntoIterator<Item = Instrument>>(iter: T) -> Self {
        iter.into_iter()
            .fold(InstrumentSet::NONE, InstrumentSet::with)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Need;
    use super::*;

    #[test]
    fn the_census_brings_the_icount_run_and_valgrind_with_it() {
        let census: InstrumentSet = [Instrument::Census, Instrument::Walltime]
            .into_iter()
            .collect();
        assert!(census.runs(Instrument::Icount));
        assert!(!census.asked(Instrument::Icount));
        assert_eq!(census.names(), ["icount", "census", "walltime"]);
        assert_eq!(census.valgrind(), ["census", "icount"]);
        assert_eq!(
            InstrumentSet::ALL.names(),
            [
                "icount",
                "census",
                "cache",
                "dhat",
                "memory",
                "perf",
                "walltime",
                "throughput"
            ]
        );
        assert_eq!(
            InstrumentSet::ALL.valgrind(),
            ["census", "icount", "cache", "dhat"]
        );
        let in_process = InstrumentSet::of(Instrument::Memory).with(Instrument::Perf);
        assert!(in_process.valgrind().is_empty());
    }

    #[test]
    fn the_valgrind_list_is_every_instrument_that_needs_valgrind() {
        let mut listed = InstrumentSet::VALGRIND_ORDER.to_vec();
        listed.sort();
        let needing: Vec<Instrument> = Instrument::ALL
            .into_iter()
            .filter(|i| i.needs(Need::Valgrind))
            .collect();
        assert_eq!(listed, needing);
    }
}
