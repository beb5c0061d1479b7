//! Build script: RDMA bindings, inline-verb wrappers, and the ELF identity of
//! `librpma.so.0` (soname, version node `LIBRPMA_1.0`, one `.symver` per export).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

/// The libibverbs/librdmacm functions the library calls. Inline ones (post,
/// poll, notify, query_device_ex, advise_mr, the ibv_wr_* family) get C
/// wrappers through bindgen's `wrap_static_fns`, so their semantics are those
/// of the installed headers rather than a hand translation.
const FUNCTIONS: &[&str] = &[
    "ibv_get_device_list",
    "ibv_free_device_list",
    "ibv_get_device_name",
    "ibv_open_device",
    "ibv_close_device",
    "ibv_query_device",
    "ibv_query_device_ex",
    "ibv_query_port",
    "ibv_alloc_pd",
    "ibv_dealloc_pd",
    "ibv_reg_mr",
    "ibv_dereg_mr",
    "ibv_advise_mr",
    "ibv_create_comp_channel",
    "ibv_destroy_comp_channel",
    "ibv_create_cq",
    "ibv_destroy_cq",
    "ibv_req_notify_cq",
    "ibv_get_cq_event",
    "ibv_ack_cq_events",
    "ibv_poll_cq",
    "ibv_create_srq",
    "ibv_destroy_srq",
    "ibv_post_srq_recv",
    "ibv_post_send",
    "ibv_post_recv",
    "ibv_qp_to_qp_ex",
    "ibv_wr_start",
    "ibv_wr_complete",
    "ibv_wr_abort",
    "ibv_wr_rdma_write",
    "ibv_wr_rdma_read",
    "rdma_getaddrinfo",
    "rdma_freeaddrinfo",
    "rdma_create_event_channel",
    "rdma_destroy_event_channel",
    "rdma_create_id",
    "rdma_destroy_id",
    "rdma_bind_addr",
    "rdma_resolve_addr",
    "rdma_resolve_route",
    "rdma_listen",
    "rdma_connect",
    "rdma_accept",
    "rdma_reject",
    "rdma_disconnect",
    "rdma_get_cm_event",
    "rdma_ack_cm_event",
    "rdma_event_str",
    "rdma_migrate_id",
    "rdma_create_qp_ex",
    "rdma_destroy_qp",
];

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    generate_bindings(&out);
    identity(&out);
}

fn generate_bindings(out: &Path) {
    let header = "src/sys/wrapper.h";
    println!("cargo:rerun-if-changed={header}");
    let wrappers = out.join("static_wrappers");
    let mut builder = bindgen::Builder::default()
        .header(header)
        .allowlist_var("IBV_.*|RDMA_.*|IB_UVERBS_.*|RAI_.*")
        .allowlist_type("ibv_.*|rdma_.*")
        .prepend_enum_name(false)
        .derive_default(true)
        .layout_tests(true)
        .wrap_static_fns(true)
        .wrap_static_fns_path(&wrappers)
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()));
    for f in FUNCTIONS {
        builder = builder.allowlist_function(f);
    }
    builder
        .generate()
        .expect("bindgen could not read the rdma-core headers (install libibverbs-dev, librdmacm-dev and libclang-dev)")
        .write_to_file(out.join("bindings.rs"))
        .expect("write bindings.rs");

    cc::Build::new()
        .file(wrappers.with_extension("c"))
        .include(env::current_dir().expect("cwd"))
        .flag("-include")
        .flag(header)
        .warnings(false)
        .compile("rpma_static_wrappers");

    // The versioned identity needs both libraries in DT_NEEDED even before a
    // function of theirs is called, exactly as the C library records them.
    println!("cargo:rustc-link-lib=dylib=ibverbs");
    println!("cargo:rustc-link-lib=dylib=rdmacm");
    for arg in [
        "-Wl,--push-state,--no-as-needed",
        "-libverbs",
        "-lrdmacm",
        "-Wl,--pop-state",
    ] {
        println!("cargo:rustc-cdylib-link-arg={arg}");
    }
}

/// Soname and symbol versions of the cdylib.
///
/// Rust's own linker script already makes every `#[no_mangle]` symbol global
/// and everything else local; rust-lld then refuses to move those symbols to
/// a node named in a second version script (it keeps them unversioned,
/// silently). So the script here only defines the node, and each exported
/// function is bound to it with a `.symver` directive assembled into the
/// library. The list is read from the C-API sources, so a new export cannot
/// forget its version.
fn identity(out: &Path) {
    let map = out.join("librpma.map");
    fs::write(&map, "LIBRPMA_1.0 {\n\tlocal: *;\n};\n").expect("write librpma.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,librpma.so.0");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        map.display()
    );

    let mut names = Vec::new();
    let capi = Path::new("src/capi");
    println!("cargo:rerun-if-changed={}", capi.display());
    let mut files: Vec<_> = fs::read_dir(capi)
        .expect("src/capi")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    for file in files {
        println!("cargo:rerun-if-changed={}", file.display());
        let text = fs::read_to_string(&file).expect("read C-API source");
        names.extend(exported_names(&text));
    }
    let asm: String = names
        .iter()
        .map(|n| format!(".symver {n}, {n}@@LIBRPMA_1.0\n"))
        .collect();
    fs::write(out.join("symver.s"), asm).expect("write symver.s");
}

/// Names of `extern "C"` functions defined in a C-API source file.
fn exported_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        let Some(rest) = line
            .strip_prefix("pub unsafe extern \"C\" fn ")
            .or_else(|| line.strip_prefix("pub extern \"C\" fn "))
        else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        assert!(
            name.starts_with("rpma_"),
            "only upstream rpma_* functions may be exported, found {name}"
        );
        names.push(name);
    }
    names
}
