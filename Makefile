# librpma (Rust): build, install, package. Tests: `cargo xtask` (tests.toml).
#   make [lib]      build/lib/librpma.so.0; make demo: show it working; make check: `cargo xtask test`
#   make install    PREFIX=/usr/local [DESTDIR=] [LIBDIR=$(PREFIX)/lib] [NO_BUILD=1]
#   make deb [RELEASE=bookworm|trixie|forky|sid] [ARCH=arm64|ppc64el|riscv64]  the packages:
#                   quick (build/deb), or as Debian builds them in a clean chroot (build/deb-RELEASE[-ARCH])
#   make piuparts|autopkgtest RELEASE=... [NO_BUILD=1]  make deb RELEASE=..., then
#                   piuparts, or debian/tests in a VM of the release (docs/packaging.md)
#   make header|bindings  regenerate include/librpma.h or the rdma-core bindings
# demo, check and the packages first install what the machine lacks (scripts/setup.sh).
CARGO     ?= cargo
CARGO_OUT ?= target/release# debian/rules: target/<triplet>/release
PREFIX    ?= /usr/local
LIBDIR    ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR    ?= $(PREFIX)/share/man
VERSION   := 1.3.0
BUILD     := build
LIB       := $(BUILD)/lib/librpma.so.0
# only ARCH given on the command line counts (shells export a kernel-style one)
ARCH := $(if $(filter command line,$(origin ARCH)),$(ARCH))
ifneq ($(filter-out arm64 ppc64el riscv64,$(ARCH)),)
$(error ARCH=$(ARCH): arm64, ppc64el or riscv64 (amd64 is the plain build))
endif
XRELEASE := $(or $(RELEASE),$(if $(filter riscv64,$(ARCH)),trixie,$(shell . /etc/os-release && echo $$VERSION_CODENAME)))
.PHONY: all lib cross fault-lib rust-bins tests-c-build trixie-root demo check header bindings deb piuparts autopkgtest install uninstall clean FORCE
all: $(if $(ARCH),cross,lib)
lib: $(LIB)
# librpma.so.0: the C face's static library linked by the C compiler with
# librpma.map as the one version script (the 84 functions at LIBRPMA_1.0),
# which any GNU-compatible linker accepts; -u takes each export out of the
# archive; after rdma-core, what a Rust static library needs on GNU/Linux.
# CC and LDFLAGS come from the environment (debian/rules sets them).
MAP     := crates/librpma/librpma.map
EXPORTS := $(shell sed -n 's/^[[:space:]]*\(rpma_[a-z0-9_]*\);$$/\1/p' $(MAP))
link_so = $(CC) -shared -o $(2) -Wl,-soname,librpma.so.0 -Wl,--version-script=$(MAP) \
	$(patsubst %,-Wl$(comma)-u$(comma)%,$(EXPORTS)) $(1) -Wl,--gc-sections -Wl,-z,relro,-z,now \
	-Wl,--no-as-needed -libverbs -lrdmacm -Wl,--as-needed -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc $(LDFLAGS)
comma := ,
$(LIB): FORCE
	$(CARGO) build --release -p librpma
	mkdir -p $(@D) && $(call link_so,$(CARGO_OUT)/librpma.a,$@.tmp) && mv $@.tmp $@
	ln -sf librpma.so.0 $(BUILD)/lib/librpma.so
fault-lib: # the library with the cargo feature fault-injection (tests only)
	$(CARGO) build --release -p librpma --features fault-injection --target-dir target/fault
	mkdir -p $(BUILD)/fault && $(call link_so,target/fault/release/librpma.a,$(BUILD)/fault/librpma.so.0)
cross: # as Debian cross-builds (riscv64: trixie's, Debian 12 has no port)
	scripts/setup.sh deb-release
	$(CARGO) xtask pkg deb-release $(XRELEASE) $(BUILD)/deb-$(XRELEASE)-$(ARCH) $(ARCH)
	mkdir -p $(BUILD)/$(ARCH) && cp $(BUILD)/deb-$(XRELEASE)-$(ARCH)/librpma.so.0 $(BUILD)/$(ARCH)/
# what the tests run: the crate's examples and device tests (debug; RUST_BINS_TARGET: another
# target's), the C programs, the Debian 13 root (its rdma-core headers are the bindings')
RBT := $(if $(RUST_BINS_TARGET),--target $(RUST_BINS_TARGET))
rust-bins:
	$(CARGO) build -p rpma --examples --features tokio $(RBT) && rm -rf $(BUILD)/rust && mkdir -p $(BUILD)/rust/examples
	cp $(patsubst crates/rpma/examples/%.rs,target/$(RUST_BINS_TARGET)/debug/examples/%,$(wildcard crates/rpma/examples/*.rs)) $(BUILD)/rust/examples/
	cp $$($(CARGO) test -p rpma --features serde,tokio,raw --test device --no-run $(RBT) 2>&1 | \
		sed -n 's|.*Executable tests/device.rs (\(.*\))$$|\1|p') $(BUILD)/rust/device-tests
tests-c-build: lib fault-lib rust-bins
	cmake -S tests-c -B $(BUILD)/tests-c -DRPMA_LIB_DIR=$(CURDIR)/$(BUILD)/lib >/dev/null
	cmake --build $(BUILD)/tests-c -j2
trixie-root:
	softroce/stack-root trixie
demo:
	scripts/setup.sh demo && $(MAKE) lib && $(CARGO) xtask demo
check:
	scripts/setup.sh check && $(CARGO) xtask test
header:
	RPMA_UPDATE_HEADER=1 $(CARGO) test -p librpma --test header
bindings: trixie-root
	RPMA_UPDATE_BINDINGS=1 RPMA_BINDINGS_ALL_TARGETS=1 $(CARGO) test -p rpma-sys --test bindings
# The quick `make deb` builds here with this cargo and crates.io (profile
# pkg.rpma-rs.upstream-cargo); with RELEASE, in a clean offline chroot of it.
DEB_VERSION = $(shell dpkg-parsechangelog -S Version 2>/dev/null)
deb:
ifneq ($(ARCH)$(RELEASE),)
	$(if $(ARCH),$(MAKE) cross,scripts/setup.sh deb-release && $(CARGO) xtask pkg deb-release $(RELEASE) $(BUILD)/deb-$(RELEASE))
else
	scripts/setup.sh deb && dpkg-buildpackage -b -us -uc -Ppkg.rpma-rs.upstream-cargo
	rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb && mv $(addprefix ../,librpma0_$(DEB_VERSION)_*.deb \
		librpma-dev_$(DEB_VERSION)_*.deb librpma0-dbgsym_$(DEB_VERSION)_*.*deb rpma-rs_$(DEB_VERSION)_*.buildinfo \
		rpma-rs_$(DEB_VERSION)_*.changes) $(BUILD)/deb/
	lintian --fail-on error $(BUILD)/deb/*.changes
endif
piuparts autopkgtest:
	@[ -n "$(RELEASE)" ] || { echo "make $@ RELEASE=bookworm|trixie|forky|sid"; exit 2; }
	scripts/setup.sh $@ && $(if $(NO_BUILD),:,$(MAKE) deb RELEASE=$(RELEASE)) && $(CARGO) xtask pkg $@ $(RELEASE) $(BUILD)/deb-$(RELEASE)
SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g; s|@LIBDIR@|$(LIBDIR)|g; s|@INCLUDEDIR@|$(INCLUDEDIR)|g; s|@VERSION@|$(VERSION)|g'
D := $(DESTDIR)
install: $(if $(NO_BUILD),,lib)
	install -d $(D)$(LIBDIR)/pkgconfig $(D)$(LIBDIR)/cmake/librpma $(D)$(INCLUDEDIR) $(D)$(MANDIR)/man3 $(D)$(MANDIR)/man7
	install -m 0755 $(LIB) $(D)$(LIBDIR)/librpma.so.0 && ln -sf librpma.so.0 $(D)$(LIBDIR)/librpma.so
	install -m 0644 include/librpma.h $(D)$(INCLUDEDIR)/librpma.h
	$(SUBST) pkgconfig/librpma.pc.in > $(D)$(LIBDIR)/pkgconfig/librpma.pc
	for f in librpma-config librpma-config-version; do $(SUBST) cmake/$$f.cmake.in > $(D)$(LIBDIR)/cmake/librpma/$$f.cmake; done
	install -m 0644 man/man3/*.3 $(D)$(MANDIR)/man3/ && install -m 0644 man/man7/*.7 $(D)$(MANDIR)/man7/
uninstall:
	rm -rf $(addprefix $(D)$(LIBDIR)/,librpma.so.0 librpma.so pkgconfig/librpma.pc cmake/librpma) $(D)$(INCLUDEDIR)/librpma.h \
		$(patsubst man/%,$(D)$(MANDIR)/%,$(wildcard man/man3/*.3 man/man7/*.7))
clean:
	$(CARGO) clean && rm -rf $(BUILD)
