fn main() {
    std::process::exit(costbench_cli::main_with_args(std::env::args_os()));
}
