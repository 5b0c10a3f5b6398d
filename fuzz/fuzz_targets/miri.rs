//! Miri's stderr (through `cargo miri run`), classified into a finding. The first byte chooses
//! how the process ended (success, an exit code, a signal).
#![no_main]
use costbench_measure::miri::parse;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&how, rest)) = data.split_first() else {
        return;
    };
    let stderr = String::from_utf8_lossy(rest);
    let code = match how % 4 {
        0 => Some(0),
        1 => Some(1),
        2 => Some(i32::from(how)),
        _ => None,
    };
    let _ = parse::classify(code == Some(0), code, &stderr);
    let _ = parse::strip_cargo_trailer(&stderr);
});
