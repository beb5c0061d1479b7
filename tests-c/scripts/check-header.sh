#!/usr/bin/env bash
# check-header.sh OURS.h REFERENCE.h OURS.so
#
# Our include/librpma.h against upstream's (Debian's librpma-dev):
#  1. it compiles alone with gcc -std=c99 -pedantic and with g++, warnings as errors;
#  2. it defines the same RPMA_* / LIBRPMA_H macros with the same values;
#  3. every enum, the rpma_log_function typedef, struct rpma_conn_private_data
#     and the prototype of every function OURS.so exports are ABI-identical
#     (abidiff of a probe object built once against each header).
set -u
ours_h=$1 ref_h=$2 ours_so=$3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ours" "$work/ref"
cp "$ours_h" "$work/ours/librpma.h"; cp "$ref_h" "$work/ref/librpma.h"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# 1. strict compilation
printf '#include <librpma.h>\nint main(void) { return 0; }\n' >"$work/use.c"
cp "$work/use.c" "$work/use.cpp"
gcc -std=c99 -Wall -Wextra -Werror -pedantic -I"$work/ours" -c "$work/use.c" -o "$work/c.o" \
  || bad "header does not compile with gcc -std=c99 -pedantic"
g++ -Wall -Wextra -Werror -I"$work/ours" -c "$work/use.cpp" -o "$work/cxx.o" \
  || bad "header does not compile with g++"

# 2. macro names and values
macros() { gcc -dM -E -I"$work/$1" "$work/use.c" | awk '$1 == "#define" && $2 ~ /^(RPMA_|LIBRPMA_H$)/ {print $2}' | sort; }
macros ref >"$work/ref.macros"; macros ours >"$work/ours.macros"
diff -u --label upstream --label ours "$work/ref.macros" "$work/ours.macros" || bad "macro names differ"
{
  echo '#include <librpma.h>'
  echo '#include <stdio.h>'
  echo 'int main(void) {'
  while read -r m; do
    if [ "$m" = RPMA_LOG_USE_DEFAULT_FUNCTION ]; then
      echo "  printf(\"$m is NULL: %d\\n\", (void *)($m) == (void *)0);"
    else
      echo "  printf(\"$m = %lld\\n\", (long long)($m));"
    fi
  done <"$work/ref.macros"
  echo '  return 0; }'
} >"$work/values.c"
for side in ref ours; do
  gcc -Wall -Werror -I"$work/$side" "$work/values.c" -o "$work/values.$side" && "$work/values.$side" >"$work/$side.values" \
    || bad "cannot evaluate the macros of the $side header"
done
diff -u --label upstream --label ours "$work/ref.values" "$work/ours.values" || bad "macro values differ"

# 3. types and prototypes, compared as ABI by libabigail
functions=$(readelf --dyn-syms -W "$ours_so" | awk '$7 != "UND" {print $8}' | sed -n 's/@@LIBRPMA_1.0$//p' | grep '^rpma_' | sort)
{
  echo '#include <librpma.h>'
  for e in rpma_util_ibv_context_type rpma_conn_event rpma_flush_type rpma_log_level rpma_log_threshold; do
    echo "enum $e probe_enum_$e;"
  done
  echo 'rpma_log_function *probe_log_function;'
  echo 'struct rpma_conn_private_data probe_private_data;'
  for f in $functions; do echo "__typeof__(&$f) probe_$f;"; done
} >"$work/probe.c"
for side in ref ours; do
  gcc -g -shared -fPIC -fcommon -I"$work/$side" "$work/probe.c" -o "$work/probe.$side.so" \
    || bad "probe does not compile against the $side header"
done
if ! abidiff "$work/probe.ref.so" "$work/probe.ours.so" >"$work/abidiff"; then
  cat "$work/abidiff"; bad "abidiff finds ABI differences between the headers"
fi
[ $fail -ne 0 ] || echo "header: $(wc -l <"$work/ref.macros") macros, 5 enums, the log typedef, private data and $(wc -w <<<"$functions") prototypes agree with upstream"
exit $fail
