//! The judge's slices of the instruments: one module per instrument that has something to judge
//! beyond its compared figures (which every figure's spec, in the record crate, says how to
//! judge), named like its folder in the registry (`costbench_record::for_each_instrument!`).
//! Nothing else in this crate names an instrument's findings.

pub mod consttime;
