//! Build script: the C wrappers of the inline verbs, and the link to
//! libibverbs and librdmacm.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // docs.rs has no rdma-core headers, and documentation links nothing.
    if std::env::var_os("DOCS_RS").is_some() {
        return;
    }
    // The Rust side (src/bindings.rs) is committed; only the C wrappers of
    // the inline verbs are compiled, against the installed headers, so they
    // call whatever the build machine's rdma-core inlines.
    let wrappers = "src/static_wrappers.c";
    println!("cargo:rerun-if-changed={wrappers}");
    println!("cargo:rerun-if-changed=src/wrapper.h");
    cc::Build::new()
        .file(wrappers)
        .include(std::env::current_dir().expect("cwd"))
        .warnings(false)
        .compile("rpma_static_wrappers");
    // The happens-before annotations for valgrind's race detectors.
    let annotate = "src/annotate.c";
    println!("cargo:rerun-if-changed={annotate}");
    cc::Build::new().file(annotate).compile("rpma_annotate");

    println!("cargo:rustc-link-lib=dylib=ibverbs");
    println!("cargo:rustc-link-lib=dylib=rdmacm");
}
