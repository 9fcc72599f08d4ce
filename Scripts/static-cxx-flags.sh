#!/usr/bin/env bash
# Prints the `swift build` flags that link the C++ standard library (libstdc++, which Swift's
# runtime and ICU are written against) into a command built with --static-swift-stdlib, so
# that the loader maps and relocates one shared library fewer at each start: 9% of `stowage
# --version`'s instructions, 1.7 M in a C program that links libstdc++, libm and libgcc_s and
# does nothing. Used by the Makefile's install and by the benchmarks, which time the command
# as installed.
#
#   Scripts/static-cxx-flags.sh FOLDER
#
# --static-swift-stdlib names -lstdc++ (in Swift's static-stdlib-args.lnk), and the linker takes,
# of each folder it searches in turn, libstdc++.so before libstdc++.a. FOLDER (made if missing)
# gets a link to the compiler's libstdc++.a and is searched first (-Xlinker -L), so -lstdc++
# finds the archive there. Prints nothing (and the command loads libstdc++.so as before) where
# that cannot be done: not Linux (Apple platforms keep their C++ library in the shared cache), no
# C compiler, no static libstdc++ installed (Debian: libstdc++-12-dev has it), or a FOLDER whose
# path holds white space (the flags are split on it).
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 FOLDER" >&2; exit 64; }
[[ "$(uname -s)" == Linux ]] || exit 0
compiler=$(command -v clang || command -v cc || true)
[[ -n "$compiler" ]] || exit 0
archive=$("$compiler" -print-file-name=libstdc++.a)
# Not found, the compiler prints the bare name back.
[[ "$archive" == /* && -f "$archive" ]] || exit 0
mkdir -p "$1"
folder=$(cd "$1" && pwd)
[[ "$folder" != *[[:space:]]* ]] || exit 0
ln -sfn "$archive" "$folder/libstdc++.a"
echo "-Xlinker -L$folder"
