# librpma (Rust) -- build, test, install.
#
#   make            build build/lib/librpma.so.0 (release)
#   make ARCH=arm64|ppc64el|riscv64 [RELEASE=bookworm|trixie]
#                   cross-build build/ARCH/librpma.so.0 with Debian's toolchain
#                   (the packages as `make deb ARCH=...` makes them)
#   make demo       build, then show the library working (see README)
#   make check      every test that fits a CI run: Rust, C (ours vs Debian's
#                   librpma), ELF, header, install, SoftRoCE, the quick packages,
#                   the arm64 cross-build checked against Debian's (tests.toml,
#                   `cargo xtask list` shows them)
#   make check-debian
#                   the packages as Debian builds them (both releases, every
#                   architecture) through the package tests; then check-bare
#   make check-bare `make demo` from a fresh clone in bare Debian 12 and 13 roots
#   make install    PREFIX=/usr/local [DESTDIR=] [LIBDIR=$(PREFIX)/lib] [NO_BUILD=1: install what is built]
#   make header     regenerate include/librpma.h from crates/librpma
#   make bindings   regenerate crates/rpma-sys/src/bindings.rs from Debian 13's rdma-core headers
#   make deb        build the librpma0 and librpma-dev packages into build/deb
#   make deb RELEASE=bookworm|trixie|forky|sid
#                   the same as Debian builds them: clean chroot, offline, and
#                   that suite's lintian (build/deb-RELEASE, lintian.txt there)
#   make piuparts RELEASE=bookworm|trixie|forky|sid [NO_BUILD=1]
#                   make deb RELEASE=..., then piuparts on the packages (and on
#                   forky and sid the upgrade from Debian 13's C librpma0), and
#                   a C program across Debian's librpma0, ours and back
#   make autopkgtest RELEASE=bookworm|trixie|forky|sid [NO_BUILD=1]
#                   make deb RELEASE=..., then debian/tests by autopkgtest in
#                   a QEMU VM of that release (docs/autopkgtest.md)
#   make deb ARCH=arm64|ppc64el|riscv64 [RELEASE=...]
#                   cross-built as Debian cross-builds (build/deb-RELEASE-ARCH);
#                   RELEASE defaults to this machine's, riscv64's to trixie
#   make check-arch every architecture: cross-build, ELF identity and abidiff
#                   against Debian's librpma0:ARCH, api.* under qemu-user; the
#                   examples on a live arm64 guest and across arm64 and amd64
#
# demo, check and deb first install what the machine lacks (scripts/setup.sh).

CARGO   ?= cargo
# where cargo leaves the release build (debian/rules: target/<triplet>/release)
CARGO_OUT ?= target/release
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=
VERSION := 1.3.0

# Install-time paths go into the .pc and CMake files (without DESTDIR).
SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g'

BUILD   := build
LIB     := $(BUILD)/lib/librpma.so.0
CTEST_DIR := $(BUILD)/tests-c

.PHONY: all lib cross fault-lib check-arch check-debian rust-bins demo check check-bare check-rust header bindings deb piuparts autopkgtest trixie-root \
	tests-c-build check-siw \
	install uninstall clean FORCE

# A cross-build (ARCH) is made the way Debian makes one, in a chroot of the
# release (scripts/deb-release.sh); RELEASE defaults to this machine's,
# riscv64's to trixie (Debian 12 has no riscv64 port).
# Only ARCH given on the command line counts: shells often export a
# kernel-style ARCH (x86_64) that means nothing here.
ifneq ($(origin ARCH),command line)
ARCH :=
endif
ifneq ($(filter-out arm64 ppc64el riscv64,$(ARCH)),)
$(error ARCH=$(ARCH): the architectures are arm64, ppc64el and riscv64 (amd64 is the plain build))
endif
HOST_RELEASE := $(shell . /etc/os-release 2>/dev/null && echo $$VERSION_CODENAME)
ifneq ($(ARCH),)
RELEASE ?= $(if $(filter riscv64,$(ARCH)),trixie,$(HOST_RELEASE))
endif
CROSS_OUT = $(BUILD)/deb-$(RELEASE)-$(ARCH)

ifeq ($(ARCH),)
all: lib
else
all: cross
endif

lib: $(LIB)

cross:
	scripts/setup.sh deb-release
	scripts/deb-release.sh $(RELEASE) $(CROSS_OUT) $(ARCH)
	mkdir -p $(BUILD)/$(ARCH)
	cp $(CROSS_OUT)/librpma.so.0 $(BUILD)/$(ARCH)/librpma.so.0

# The workspace's crates: rpma-sys (bindings), rpma (core), librpma (the C
# face, a static library: target/release/librpma.a). librpma.so.0 is linked
# from it by the C compiler with librpma.map as the one version script
# (LIBRPMA_1.0 for the 84 functions, everything else local), so any
# GNU-compatible linker of any architecture makes it. -u takes each export's
# code out of the archive; the libraries after rdma-core's are the ones the
# Rust standard library of a static library needs on GNU/Linux (rustc
# --print native-static-libs). CC and LDFLAGS come from the environment
# (debian/rules: the cross compiler and Debian's hardening flags).
MAP     := crates/librpma/librpma.map
EXPORTS := $(shell sed -n 's/^[[:space:]]*\(rpma_[a-z0-9_]*\);$$/\1/p' $(MAP))
comma   := ,
# link_so ARCHIVE, OUTPUT
link_so = $(CC) -shared -o $(2) -Wl,-soname,librpma.so.0 -Wl,--version-script=$(MAP) \
	$(addprefix -Wl$(comma)-u$(comma),$(EXPORTS)) $(1) -Wl,--gc-sections -Wl,-z,relro,-z,now \
	-Wl,--no-as-needed -libverbs -lrdmacm -Wl,--as-needed -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc \
	$(LDFLAGS)

$(LIB): FORCE
	$(CARGO) build --release -p librpma
	mkdir -p $(BUILD)/lib
	$(call link_so,$(CARGO_OUT)/librpma.a,$@.tmp) && mv $@.tmp $@
	ln -sf librpma.so.0 $(BUILD)/lib/librpma.so

# the same library with the cargo feature fault-injection (tests only)
FAULT_LIB := $(BUILD)/fault/librpma.so.0
fault-lib: FORCE
	$(CARGO) build --release -p librpma --features fault-injection --target-dir target/fault
	mkdir -p $(BUILD)/fault
	$(call link_so,target/fault/release/librpma.a,$(FAULT_LIB).tmp) && mv $(FAULT_LIB).tmp $(FAULT_LIB)

demo:
	scripts/setup.sh demo
	$(MAKE) lib
	scripts/demo.sh

# Every test of the check suite (tests.toml), by the test runner (xtask/):
# it builds what they need (tests-c-build, trixie-root, deb) and runs them.
check:
	scripts/setup.sh check
	$(CARGO) xtask test

# Outside `make check`, to keep CI under 45 minutes (each needs chroots made
# from the archive, minutes apiece on a fresh machine): the packages built
# as Debian builds them, checked as `make check` checks the quick build,
# Debian 13's installed on Debian 13's stack; every architecture; a bare
# system.
check-debian:
	scripts/setup.sh deb-release
	for r in bookworm trixie; do \
	  $(MAKE) deb RELEASE=$$r && tests-c/scripts/check-deb.sh $(CURDIR) $(CURDIR)/$(BUILD)/deb-$$r || exit 1; \
	done
	tests-c/scripts/deb-install.sh $(CURDIR) $(CURDIR)/$(BUILD)/deb-bookworm
	RXE_STACK=trixie tests-c/scripts/deb-install.sh $(CURDIR) $(CURDIR)/$(BUILD)/deb-trixie
	$(MAKE) check-arch
	$(MAKE) check-bare

# `make demo` from a fresh
# clone of the committed HEAD in bare Debian 12 and 13 roots (about 100 s each).
check-bare:
	scripts/bare-test.sh bookworm
	scripts/bare-test.sh trixie

# Outside `make check` for CI time (each architecture's chroot, cross-build
# and emulated runs take minutes): every architecture Debian ships librpma0
# on, on each release that ships it (trixie's ppc64el with the pins of
# scripts/pool-pin.sh while its pool lacks files its index names).
ARCH_BUILDS ?= bookworm:arm64 bookworm:ppc64el trixie:arm64 trixie:ppc64el trixie:riscv64
check-arch:
	scripts/setup.sh arch
	fail=; for rb in $(ARCH_BUILDS); do \
	  { $(MAKE) cross RELEASE=$${rb%%:*} ARCH=$${rb##*:} && \
	    scripts/arch-check.sh $${rb%%:*} $${rb##*:}; } || fail="$$fail $$rb"; \
	done; \
	tests-c/scripts/arch-live.sh bookworm arm64 || fail="$$fail arm64-live"; \
	[ -z "$$fail" ] || { echo "check-arch: failed:$$fail"; exit 1; }

# The Debian 13 root of the SoftRoCE harness (cached); its rdma-core headers
# are the ones the committed bindings are generated from.
trixie-root:
	softroce/stack-root trixie

check-rust: trixie-root
	$(CARGO) fmt --check
	$(CARGO) fmt --check --manifest-path fuzz/Cargo.toml
	$(CARGO) fmt --check --manifest-path xtask/Cargo.toml
	$(CARGO) clippy --manifest-path xtask/Cargo.toml -- -D warnings
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy -p rpma --all-targets -- -D warnings
	$(CARGO) clippy -p rpma --all-targets --features serde,tokio -- -D warnings
	$(CARGO) test -p rpma --features serde,tokio
	$(CARGO) test --workspace
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc -p rpma --no-deps --features serde,tokio
	$(CARGO) clippy --workspace --all-targets --features fault-injection --target-dir target/fault -- -D warnings
	scripts/module-deps.sh >/dev/null
	CARGO="$(CARGO)" scripts/package-check.sh

# The rpma crate's programs that need rxe0 (its examples and its device
# tests), built on the host for the SoftRoCE suite to run in the guest.
rust-bins:
	CARGO="$(CARGO)" scripts/rust-bins.sh $(BUILD)/rust

tests-c-build: lib fault-lib rust-bins
	cmake -S tests-c -B $(CTEST_DIR) -DRPMA_CARGO=$(CARGO) -DRPMA_LIB_DIR=$(CURDIR)/$(BUILD)/lib \
		-DRPMA_FAULT_LIB_DIR=$(CURDIR)/$(BUILD)/fault -DRPMA_RUST_DIR=$(CURDIR)/$(BUILD)/rust >/dev/null
	cmake --build $(CTEST_DIR) -j2

# Outside `make check` (20-25 minutes a stack): the live tests and the
# examples' four pairings on soft-iWARP, the generations table there, and a
# lost peer on siw (tests.toml, suite siw).
check-siw:
	$(CARGO) xtask test --suite siw

header:
	RPMA_UPDATE_HEADER=1 $(CARGO) test -p librpma --test header

bindings: trixie-root
	RPMA_UPDATE_BINDINGS=1 RPMA_BINDINGS_ALL_TARGETS=1 $(CARGO) test -p rpma-sys --test bindings

# Binary packages with Debian's own tools. A plain `make deb` builds on this
# machine with its cargo and crates.io (build profile
# pkg.rpma-rs.upstream-cargo); dpkg-buildpackage writes beside the source
# tree, from where the files are moved into build/deb. `make deb
# RELEASE=bookworm|trixie|forky|sid` builds as Debian does, in a clean chroot
# of that release with its own toolchain and librust-*-dev crates and no
# network (scripts/deb-release.sh), into build/deb-RELEASE. docs/packaging.md
# says more, for a Debian maintainer.
DEB_VERSION = $(shell dpkg-parsechangelog -S Version 2>/dev/null)
RELEASE ?=
deb:
ifneq ($(ARCH),)
	$(MAKE) cross ARCH=$(ARCH) RELEASE=$(RELEASE)
else ifeq ($(RELEASE),)
	scripts/setup.sh deb
	dpkg-buildpackage -b -us -uc -Ppkg.rpma-rs.upstream-cargo
	rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb
	mv ../librpma0_$(DEB_VERSION)_*.deb ../librpma-dev_$(DEB_VERSION)_*.deb \
		../librpma0-dbgsym_$(DEB_VERSION)_*.*deb ../rpma-rs_$(DEB_VERSION)_*.buildinfo \
		../rpma-rs_$(DEB_VERSION)_*.changes $(BUILD)/deb/
	lintian --fail-on error $(BUILD)/deb/*.changes
else
	scripts/setup.sh deb-release
	scripts/deb-release.sh $(RELEASE) $(BUILD)/deb-$(RELEASE)
endif

# piuparts and scripts/deb-compat.sh on build/deb-RELEASE (scripts/piuparts.sh)
piuparts:
	@[ -n "$(RELEASE)" ] || { echo "make piuparts: RELEASE=bookworm|trixie|forky|sid"; exit 2; }
	scripts/setup.sh piuparts
	$(if $(NO_BUILD),,$(MAKE) deb RELEASE=$(RELEASE))
	scripts/piuparts.sh $(RELEASE) $(BUILD)/deb-$(RELEASE)

# debian/tests run by autopkgtest on build/deb-RELEASE in a QEMU VM of the
# release, its image cached (scripts/autopkgtest.sh, docs/autopkgtest.md)
autopkgtest:
	@[ -n "$(RELEASE)" ] || { echo "make autopkgtest: RELEASE=bookworm|trixie|forky|sid"; exit 2; }
	scripts/setup.sh autopkgtest
	$(if $(NO_BUILD),,$(MAKE) deb RELEASE=$(RELEASE))
	scripts/autopkgtest.sh $(RELEASE) $(BUILD)/deb-$(RELEASE)

install: $(if $(NO_BUILD),,lib)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(LIBDIR)/cmake/librpma $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man7
	install -m 0755 $(LIB) $(DESTDIR)$(LIBDIR)/librpma.so.0
	ln -sf librpma.so.0 $(DESTDIR)$(LIBDIR)/librpma.so
	install -m 0644 include/librpma.h $(DESTDIR)$(INCLUDEDIR)/librpma.h
	$(SUBST) pkgconfig/librpma.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/librpma.pc
	$(SUBST) cmake/librpma-config.cmake.in > $(DESTDIR)$(LIBDIR)/cmake/librpma/librpma-config.cmake
	$(SUBST) cmake/librpma-config-version.cmake.in > $(DESTDIR)$(LIBDIR)/cmake/librpma/librpma-config-version.cmake
	install -m 0644 man/man3/*.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 0644 man/man7/*.7 $(DESTDIR)$(MANDIR)/man7/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/librpma.so.0 $(DESTDIR)$(LIBDIR)/librpma.so $(DESTDIR)$(INCLUDEDIR)/librpma.h \
		$(DESTDIR)$(LIBDIR)/pkgconfig/librpma.pc
	rm -rf $(DESTDIR)$(LIBDIR)/cmake/librpma
	for f in man/man3/*.3; do rm -f $(DESTDIR)$(MANDIR)/man3/$${f##*/}; done
	rm -f $(DESTDIR)$(MANDIR)/man7/librpma.7

clean:
	$(CARGO) clean
	rm -rf $(BUILD)
