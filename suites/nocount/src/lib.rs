//! Nothing but a home for the `nocount` bench target: a scenario binary whose global allocator
//! does not count, so that costbench's tests can check that the memory instrument says so (and
//! how to enable counting) instead of reporting zeros.
