//! `cargo costbench ...`: cargo runs this binary as `cargo-costbench costbench ...`.
fn main() {
    let mut args: Vec<_> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "costbench") {
        args.remove(1);
    }
    std::process::exit(costbench_cli::main_with_args(args));
}
