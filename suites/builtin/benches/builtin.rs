fn main() {
    costbench::Suite::new().main();
}
