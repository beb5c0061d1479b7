//! Raw bindings to the libibverbs and librdmacm items the library uses,
//! generated at build time by bindgen from the installed rdma-core headers.
//! Inline verbs are reached through the generated `*__extern` C wrappers.
#![allow(
    non_upper_case_globals,
    non_camel_case_types,
    non_snake_case,
    dead_code,
    unused_imports,
    clippy::all,
    rustdoc::all
)]

include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
