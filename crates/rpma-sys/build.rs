//! Build script: the valgrind annotations (the one C file), and the link
//! to libibverbs and librdmacm. The bindings are committed: no libclang.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // docs.rs has no rdma-core headers, and documentation links nothing.
    if std::env::var_os("DOCS_RS").is_some() {
        return;
    }
    // The happens-before annotations for valgrind's race detectors.
    let annotate = "src/annotate.c";
    println!("cargo:rerun-if-changed={annotate}");
    cc::Build::new().file(annotate).compile("rpma_annotate");

    println!("cargo:rustc-link-lib=dylib=ibverbs");
    println!("cargo:rustc-link-lib=dylib=rdmacm");
}
