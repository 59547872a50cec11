#!/usr/bin/env bash
# Installs a built gemmlab into a scratch prefix and builds examples/ against the installed package,
# once linked to libgemmlab.so and once to libgemmlab.a. Nothing is run: no GPU is needed.
# Also checks the installed tree and that the public headers compile with no CUDA include path.
#
#   build_examples.sh BUILD_DIR WORK_DIR [CMAKE_ARGS...]
#     BUILD_DIR  a configured and built gemmlab build tree (the library targets built)
#     WORK_DIR   scratch directory, emptied first: WORK_DIR/prefix, WORK_DIR/examples-{shared,static}
#     CMAKE_ARGS passed to the examples' configure (generator, compiler, CUDAToolkit_ROOT, ...)
# Environment: CMAKE, the cmake to run (default cmake); CXX, the C++ compiler of the header check
# (default c++).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR WORK_DIR [CMAKE_ARGS...]" >&2; exit 2; }
build=$(cd "$1" && pwd)
work=$2
shift 2
examples=$(cd "$(dirname "$0")/../../examples" && pwd)

case "$work" in "" | / | "$build") echo "refusing to empty $work" >&2; exit 2 ;; esac
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
prefix=$work/prefix
cmake=${CMAKE:-cmake}

# A step's output is kept in a log and printed only when the step fails.
step() {
  local name=$1 log=$work/$1.log
  shift
  if ! "$@" >"$log" 2>&1; then
    echo "FAILED: $name: $*"
    cat "$log"
    exit 1
  fi
  echo "ok: $name"
}

if ! "$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  echo "FAILED: install: $cmake --install $build --prefix $prefix (is the library built? cmake --build $build)"
  cat "$work/install.log"
  exit 1
fi
echo "ok: install"

# The installed tree: headers (the generated version.hpp too), both libraries, the package files.
missing=()
for f in include/gemmlab/gemmlab.hpp include/gemmlab/version.hpp lib*/libgemmlab.a lib*/libgemmlab.so \
         lib*/cmake/gemmlab/gemmlabConfig.cmake lib*/cmake/gemmlab/gemmlabConfigVersion.cmake \
         lib*/cmake/gemmlab/gemmlabTargets.cmake; do
  compgen -G "$prefix/$f" >/dev/null || missing+=("$f")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "FAILED: not installed under $prefix: ${missing[*]}"
  (cd "$prefix" && find . | sort)
  exit 1
fi
echo "ok: installed tree"

# The public headers need nothing but themselves and the standard library: no CUDA header and
# nothing from src/. Compiled with the installed include directory only; of the files it reads, those
# outside the prefix (the standard library's) must not be CUDA headers, which a system-wide CUDA
# may have put on the default search path (/usr/include).
cxx=${CXX:-c++}
printf '#include <gemmlab/gemmlab.hpp>\nint main() { return gemmlab::version() ? 0 : 1; }\n' >"$work/headers.cpp"
step headers "$cxx" -std=c++20 -Wall -Wextra -Werror -I"$prefix/include" -c "$work/headers.cpp" -o "$work/headers.o"
# shellcheck disable=SC1003  # the set is a space and a backslash
"$cxx" -std=c++20 -I"$prefix/include" -M "$work/headers.cpp" | tr -s ' \\' '\n' | grep -v '^$' >"$work/headers.deps"
if grep -v "^$work/" "$work/headers.deps" | grep -i cuda; then
  echo "FAILED: the public headers include the files above"
  exit 1
fi
echo "ok: header closure ($(grep -c "^$prefix/include/gemmlab/" "$work/headers.deps") gemmlab headers, no CUDA)"

for kind in shared static; do
  static=OFF
  [ "$kind" = static ] && static=ON
  dir=$work/examples-$kind
  step "configure-$kind" "$cmake" -S "$examples" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    -DGEMMLAB_EXAMPLES_STATIC=$static -DCMAKE_COMPILE_WARNING_AS_ERROR=ON "$@"
  step "build-$kind" "$cmake" --build "$dir" --verbose
  for exe in multiply batched grouped epilogue; do
    [ -x "$dir/$exe" ] || { echo "FAILED: $dir/$exe was not built"; exit 1; }
  done
done
# The static examples must not load libgemmlab.so; the shared ones must.
if command -v readelf >/dev/null; then
  readelf -d "$work/examples-shared/multiply" | grep -q 'libgemmlab\.so' || { echo "FAILED: shared examples do not need libgemmlab.so"; exit 1; }
  if readelf -d "$work/examples-static/multiply" | grep -q 'libgemmlab\.so'; then
    echo "FAILED: static examples need libgemmlab.so"; exit 1
  fi
  echo "ok: linkage (shared: libgemmlab.so; static: none)"
fi
echo "examples built against $prefix"
