//! Builds the C version of the packet kernel (`csrc/packet.c`) with the `cc` crate, so that the
//! built-in suite can compare it with the Rust versions under the same measurement.

fn main() {
    println!("cargo:rerun-if-changed=csrc/packet.c");
    cc::Build::new()
        .file("csrc/packet.c")
        .warnings(true)
        .compile("costbench_packet");
}
