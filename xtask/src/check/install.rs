//! `check install ROOT`: `make install` into a staging DESTDIR and into a
//! temporary PREFIX; then a C program is built against the installed copy
//! with pkg-config and with CMake find_package(librpma), and must run
//! served by the installed library; and every example program
//! (examples/*/{server,client}.c) must build both ways too (they run on
//! rxe0 in the example.* tests).

use super::{args, glob, scratch, stdout_of, succeeds, Checks, Usage};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const STAGED: [&str; 8] = [
    "usr/local/lib/librpma.so.0",
    "usr/local/lib/librpma.so",
    "usr/local/include/librpma.h",
    "usr/local/lib/pkgconfig/librpma.pc",
    "usr/local/lib/cmake/librpma/librpma-config.cmake",
    "usr/local/lib/cmake/librpma/librpma-config-version.cmake",
    "usr/local/share/man/man7/librpma.7",
    "usr/local/share/man/man3/rpma_err_2str.3",
];

const STRICT: &str = "-DCMAKE_C_FLAGS=-Wall -Wextra -Werror";

/// The installed copy under a temporary prefix, and what a consumer's
/// build and run there need.
struct Prefix {
    dir: PathBuf,
}

impl Prefix {
    fn lib(&self) -> PathBuf {
        self.dir.join("lib")
    }

    /// A command that sees the prefix: pkg-config finds librpma.pc there and
    /// a consumer checks that the installed library serves it.
    fn cmd(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        c.env("PKG_CONFIG_PATH", self.lib().join("pkgconfig"))
            .env("RPMA_EXPECT_LIB", self.lib().join("librpma.so.0"));
        c
    }

    /// Runs a program built against the prefix, served by its library.
    fn serves(&self, exe: &Path) -> bool {
        succeeds(self.cmd(exe).env("LD_LIBRARY_PATH", self.lib()))
    }
}

pub fn run(a: &[&str]) -> Result<Checks, Usage> {
    let [root] = args(a, "ROOT")?;
    let root = Path::new(root);
    let tmp = scratch("install")?;
    let w = tmp.path();
    let mut c = Checks::default();

    let stage = w.join("stage");
    c.expect(
        make_install(root, "/usr/local", Some(&stage)),
        "make install DESTDIR= failed",
    );
    for f in STAGED {
        c.expect(
            stage.join(f).exists(),
            format!("DESTDIR install lacks /{f}"),
        );
    }
    let link = fs::read_link(stage.join("usr/local/lib/librpma.so"));
    c.expect(
        link.is_ok_and(|l| l == Path::new("librpma.so.0")),
        "librpma.so is not a link to librpma.so.0",
    );
    let pc =
        fs::read_to_string(stage.join("usr/local/lib/pkgconfig/librpma.pc")).unwrap_or_default();
    c.expect(
        pc.lines().any(|l| l == "libdir=/usr/local/lib"),
        ".pc names a DESTDIR path",
    );

    let p = Prefix {
        dir: w.join("prefix"),
    };
    c.expect(
        make_install(root, &p.dir.to_string_lossy(), None),
        "make install PREFIX= failed",
    );
    let header_same = fs::read(root.join("include/librpma.h"))
        .ok()
        .zip(fs::read(p.dir.join("include/librpma.h")).ok())
        .is_some_and(|(a, b)| a == b);
    c.expect(
        header_same,
        "installed header differs from include/librpma.h",
    );
    let mans = fs::read_dir(p.dir.join("share/man/man3")).map_or(0, |d| d.count());
    let found = Command::new("man")
        .args(["-w", "rpma_err_2str"])
        .env("MANPATH", p.dir.join("share/man"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    c.expect(found, "man cannot find rpma_err_2str(3) under the prefix");

    // pkg-config
    let libs = stdout_of(p.cmd("pkg-config").args(["--libs", "librpma"]));
    let libs = libs.map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "));
    let want = format!("-L{} -lrpma -libverbs -lrdmacm", p.lib().display());
    match libs {
        Ok(l) => c.expect(l == want, format!("pkg-config --libs: {l}")),
        Err(e) => c.bad(format!("pkg-config --libs: {e}")),
    }
    let flags: Vec<String> = stdout_of(p.cmd("pkg-config").args(["--cflags", "--libs", "librpma"]))
        .map(|f| f.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    let consumer = w.join("consumer_pc");
    let ok = gcc(
        &p,
        &root.join("tests-c/install/consumer.c"),
        &consumer,
        &flags,
    ) && p.serves(&consumer);
    c.expect(ok, "pkg-config build or run failed");

    // CMake
    let cmake = w.join("cmake");
    c.expect(
        cmake_build(
            &p,
            &root.join("tests-c/install"),
            &cmake,
            &[],
            &w.join("cmake.log"),
        ),
        "CMake find_package build failed",
    );
    for exe in ["consumer_target", "consumer_vars"] {
        c.expect(
            p.serves(&cmake.join(exe)),
            format!("CMake-built {exe} failed"),
        );
    }

    // the examples, both ways
    let mut sources = Vec::new();
    for role in ["server.c", "client.c"] {
        let dirs = glob(&root.join("examples"), "", "");
        sources.extend(
            dirs.into_iter()
                .map(|d| d.join(role))
                .filter(|s| s.is_file()),
        );
    }
    for src in &sources {
        let dir = src.parent().and_then(Path::file_name).unwrap_or_default();
        let role = src.file_stem().unwrap_or_default();
        let ex = format!("{}_{}", dir.to_string_lossy(), role.to_string_lossy());
        let exe = w.join(format!("pc_{ex}"));
        c.expect(
            gcc(&p, src, &exe, &flags),
            format!("pkg-config build of {} failed", src.display()),
        );
        let needed = stdout_of(Command::new("readelf").arg("-d").arg(&exe)).is_ok_and(|d| {
            d.lines()
                .any(|l| l.contains("NEEDED") && l.contains("[librpma.so.0]"))
        });
        c.expect(needed, format!("{ex}: no NEEDED librpma.so.0"));
    }
    let examples = w.join("cmake-examples");
    let examples_dir = format!("-DEXAMPLES_DIR={}", root.join("examples").display());
    c.expect(
        cmake_build(
            &p,
            &root.join("tests-c/install/examples"),
            &examples,
            &[&examples_dir],
            &w.join("cmake-ex.log"),
        ),
        "CMake find_package build of the examples failed",
    );
    let built = executables(&examples);
    c.expect(
        built == sources.len(),
        format!(
            "CMake built {built} example programs, expected {}",
            sources.len()
        ),
    );

    if c.ok() {
        println!(
            "install: DESTDIR and PREFIX layouts, {mans} man3 pages, pkg-config and CMake consumers served by the installed library, {} example programs built both ways",
            sources.len()
        );
    }
    Ok(c)
}

/// `make install` of what is built, its output but errors silenced.
fn make_install(root: &Path, prefix: &str, destdir: Option<&Path>) -> bool {
    let mut cmd = Command::new("make");
    cmd.args(["-s", "-C"])
        .arg(root)
        .args(["install", "NO_BUILD=1"])
        .arg(format!("PREFIX={prefix}"))
        .stdout(Stdio::null());
    if let Some(d) = destdir {
        cmd.arg(format!("DESTDIR={}", d.display()));
    }
    succeeds(&mut cmd)
}

fn gcc(p: &Prefix, src: &Path, out: &Path, flags: &[String]) -> bool {
    succeeds(
        p.cmd("gcc")
            .args(["-std=gnu99", "-Wall", "-Wextra", "-Werror"])
            .arg(src)
            .arg("-o")
            .arg(out)
            .args(flags),
    )
}

/// Configures and builds a CMake project against the prefix, its output in
/// `log`, which is printed when it fails.
fn cmake_build(p: &Prefix, src: &Path, build: &Path, defs: &[&str], log: &Path) -> bool {
    let Ok(file) = fs::File::create(log) else {
        return false;
    };
    let to_log = |c: &mut Command| -> bool {
        let (Ok(out), Ok(err)) = (file.try_clone(), file.try_clone()) else {
            return false;
        };
        succeeds(c.stdout(out).stderr(err))
    };
    let ok = to_log(
        p.cmd("cmake")
            .arg("-S")
            .arg(src)
            .arg("-B")
            .arg(build)
            .arg(format!("-DCMAKE_PREFIX_PATH={}", p.dir.display()))
            .args(defs)
            .arg(STRICT),
    ) && to_log(p.cmd("cmake").arg("--build").arg(build).args(["-j2"]));
    if !ok {
        print!("{}", fs::read_to_string(log).unwrap_or_default());
    }
    ok
}

/// The example programs a CMake build made: executable files named
/// *_server or *_client directly in `dir`.
fn executables(dir: &Path) -> usize {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            let exec = e
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
            exec && (n.ends_with("_server") || n.ends_with("_client"))
        })
        .count()
}
