//! Build script: the ELF identity of `librpma.so.0` (soname, DT_NEEDED, the
//! version node `LIBRPMA_1.0` and one `.symver` per export), all from the
//! committed `librpma.map`.

use std::env;
use std::fmt::Write;
use std::fs;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=librpma.map");
    println!("cargo:rerun-if-changed=map.rs");
    let map = fs::read_to_string("librpma.map").expect("read librpma.map");
    let (node, names) = parse_map(&map);

    // Both libraries in DT_NEEDED even before a function of theirs is
    // called, exactly as the C library records them (rpma-sys links them,
    // but a dependency's link arguments cannot reach a cdylib's link line).
    // lld, whichever compiler drives the link: every cdylib link gets an
    // anonymous version script from rustc, and GNU ld refuses a second
    // script that names a node ("anonymous version tag cannot be combined
    // with other version tags"), where lld merges the two. rustup's x86_64
    // compiler links with its own lld already; Debian's rustc and every
    // other architecture's link through gcc with the system's default
    // linker, so the `lld` package is a build dependency.
    println!("cargo:rustc-cdylib-link-arg=-fuse-ld=lld");
    // A cross gcc looks for the unprefixed `ld.lld` only in its own folders
    // and in those given with -B, never on PATH: given the folder of the
    // lld package's linker, every gcc finds it.
    if let Some(dir) = lld_dir() {
        println!("cargo:rustc-cdylib-link-arg=-B{}", dir.display());
    }
    for arg in [
        "-Wl,--push-state,--no-as-needed",
        "-libverbs",
        "-lrdmacm",
        "-Wl,--pop-state",
        "-Wl,-soname,librpma.so.0",
    ] {
        println!("cargo:rustc-cdylib-link-arg={arg}");
    }

    // Rust's own linker script already makes every `#[no_mangle]` symbol
    // global and everything else local; rust-lld then refuses to move those
    // symbols to a node named in a second version script (it keeps them
    // unversioned, silently). So the script given to the linker only
    // defines the node, and each exported function is bound to it with a
    // `.symver` directive assembled into the library (src/lib.rs includes
    // symver.s): the exports and their version come from the map all the
    // same.
    let script = out.join("librpma-node.map");
    fs::write(&script, format!("{node} {{\n\tlocal: *;\n}};\n")).expect("write the node script");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        script.display()
    );
    let mut asm = String::new();
    for n in &names {
        writeln!(asm, ".symver {n}, {n}@@{node}").expect("writing to a String cannot fail");
    }
    fs::write(out.join("symver.s"), asm).expect("write symver.s");
}

/// The folder that really holds the `ld.lld` found on PATH (the lld
/// package's /usr/bin/ld.lld links into LLVM's own bin folder, which holds
/// nothing but LLVM tools).
fn lld_dir() -> Option<PathBuf> {
    println!("cargo:rerun-if-env-changed=PATH");
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|d| d.join("ld.lld"))
        .find(|f| f.is_file())
        .and_then(|f| fs::canonicalize(f).ok())
        .and_then(|f| f.parent().map(PathBuf::from))
}

include!("map.rs");
