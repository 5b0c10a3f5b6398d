//! Kernels of the built-in suite.
