#!/usr/bin/env bash
# check-deb.sh SOURCE-ROOT [DEB-DIR]
#
# DEB-DIR defaults to SOURCE-ROOT/build/deb (`make deb`); `make deb
# RELEASE=...` writes to build/deb-RELEASE.
#
# Our librpma0/librpma-dev packages (build/deb, from `make deb`) against
# Debian's own, package by package:
#   - every path of Debian 12's and Debian 13's package is in ours (only
#     Debian 13's binNMU changelog, changelog.Debian.amd64.gz, is not), and
#     ours adds only the CMake package files and its lintian overrides;
#   - the version is an upgrade over both Debian versions and says "+rs";
#   - Section and Multi-Arch are Debian's; librpma-dev depends on our
#     librpma0 and on what its header and librpma.pc need (libibverbs-dev,
#     librdmacm-dev), which Debian's forgot; librpma0's dependencies were
#     computed (libibverbs1, librdmacm1);
#   - the symbols file lists the 84 functions the library exports, each at
#     LIBRPMA_1.0, the same lines as Debian's; shlibs names librpma0;
#   - lintian reports no error.
# Debian 12's packages are downloaded with apt-get; Debian 13's come from the
# harness's trixie root (softroce/stack-root trixie keeps its .debs).
set -u
root=$1
debs=${2:-$root/build/deb}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

ours_bin=$(ls "$debs"/librpma0_*_amd64.deb 2>/dev/null | head -1)
ours_dev=$(ls "$debs"/librpma-dev_*_amd64.deb 2>/dev/null | head -1)
if [ -z "$ours_bin" ] || [ -z "$ours_dev" ]; then
  echo "FAIL: no packages in $debs: run 'make deb' first"
  exit 1
fi

mkdir -p "$work/d12"
(cd "$work/d12" && apt-get download -qq librpma0 librpma-dev 2>/dev/null) || bad "apt-get download of Debian 12's packages failed"
trixie=$("$root/softroce/stack-root" trixie) || bad "no trixie root"
declare -A ref=(
  [d12-librpma0]=$(ls "$work"/d12/librpma0_*.deb 2>/dev/null)
  [d12-librpma-dev]=$(ls "$work"/d12/librpma-dev_*.deb 2>/dev/null)
  [d13-librpma0]=$(ls "$trixie"/var/cache/apt/archives/librpma0_*.deb 2>/dev/null)
  [d13-librpma-dev]=$(ls "$trixie"/var/cache/apt/archives/librpma-dev_*.deb 2>/dev/null)
)
paths() { dpkg-deb -c "$1" | awk '{print $6}' | sed 's|/$||' | sort; }
version=$(dpkg-deb -f "$ours_bin" Version)
case $version in *+rs*) ;; *) bad "version $version does not say +rs" ;; esac

for pkg in librpma0 librpma-dev; do
  ours=$ours_bin; [ $pkg = librpma-dev ] && ours=$ours_dev
  paths "$ours" >"$work/ours"
  for rel in d12 d13; do
    deb=${ref[$rel-$pkg]}
    [ -n "$deb" ] || { bad "no Debian package $rel $pkg to compare with"; continue; }
    refv=$(dpkg-deb -f "$deb" Version)
    dpkg --compare-versions "$version" gt "$refv" || bad "$version is not an upgrade over $rel's $refv"
    paths "$deb" | grep -v '/changelog\.Debian\.amd64\.gz$' >"$work/ref"
    missing=$(comm -13 "$work/ours" "$work/ref")
    [ -z "$missing" ] || bad "$pkg lacks what $rel's $refv has: $(echo $missing)"
    # besides the CMake package: the lintian overrides (debian/*.lintian-overrides)
    extra=$(comm -23 "$work/ours" "$work/ref" |
      grep -v -e '/cmake\(/librpma\(/librpma-config\(-version\)\?\.cmake\)\?\)\?$' \
        -e "^\./usr/share/lintian\(/overrides\(/$pkg\)\?\)\?\$")
    [ -z "$extra" ] || bad "$pkg has more than $rel's $refv, the CMake files and its lintian overrides: $(echo $extra)"
    for field in Section Multi-Arch Architecture; do
      [ "$(dpkg-deb -f "$ours" $field)" = "$(dpkg-deb -f "$deb" $field)" ] || bad "$pkg $field differs from $rel's"
    done
    echo "$pkg: the same paths as $rel's $refv, plus the CMake package and its lintian overrides"
  done
done

[ "$(dpkg-deb -f "$ours_dev" Depends)" = "librpma0 (= $version), libibverbs-dev, librdmacm-dev" ] || bad "librpma-dev Depends: $(dpkg-deb -f "$ours_dev" Depends)"
depends=$(dpkg-deb -f "$ours_bin" Depends)
# librdmacm1t64 is Debian 13's name (the 64-bit time_t transition)
for need in libc6 libibverbs1 'librdmacm1\(t64\)\?'; do
  echo "$depends" | grep -q "\b$need\b" || bad "librpma0 Depends lacks $need: $depends"
done

dpkg-deb -e "$ours_bin" "$work/ctl"
dpkg-deb -e "${ref[d12-librpma0]}" "$work/ref-ctl"
dpkg-deb -x "$ours_bin" "$work/x"
# (the node's own name is also a defined symbol, as in the C library)
exported=$("$(dirname "$0")/defined-syms.sh" "$work"/x/usr/lib/*/librpma.so.0 | sed -n 's/^\(rpma_.*\)@@LIBRPMA_1\.0$/\1/p' | sort)
listed=$(sed -n 's/^ \(rpma_[a-z0-9_]*\)@LIBRPMA_1\.0 1\.0$/\1/p' "$work/ctl/symbols" | sort)
[ "$(echo "$listed" | wc -l)" = 84 ] || bad "the symbols file lists $(echo "$listed" | wc -l) functions, not 84"
[ "$exported" = "$listed" ] || bad "the symbols file and the packaged library's exports differ"
diff <(grep '^ ' "$work/ctl/symbols") <(grep '^ ' "$work/ref-ctl/symbols") >/dev/null \
  || bad "the symbols lines differ from Debian 12's"
grep -q '^librpma 0 librpma0 ' "$work/ctl/shlibs" || bad "shlibs: $(cat "$work/ctl/shlibs")"

lintian --fail-on error "$ours_bin" "$ours_dev" >"$work/lintian" 2>&1 || { cat "$work/lintian"; bad "lintian reports errors"; }

[ $fail -eq 0 ] && echo "deb: $version; 84 symbols at LIBRPMA_1.0; shlibs and Depends computed; lintian: $(grep -c '^E:' "$work/lintian") errors, $(grep -c '^W:' "$work/lintian") warnings"
exit $fail
