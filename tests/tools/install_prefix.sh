#!/bin/sh
# install_prefix.sh BUILD DIR SRC CC MPICC MPIEXEC [mpiexec flags...]
# `cmake --install` into a prefix of its own, then checked the way users meet it:
#  - every installed tool runs from there with no LD_LIBRARY_PATH (install RPATH), answers --help
#    (exit 0, a usage text) and --version (exit 0, "NAME (autocoll) VERSION"), and has its manual
#    page; documentation, headers, pkg-config and CMake package files are in place;
#  - a consumer project outside the tree (tests/tools/consumer: a small MPI program calling the
#    public API, one collective through MPI_<Coll> and one through autocoll_<coll>, both forced
#    and checked with autocoll_last_choice) is built against the prefix twice, with
#    `MPICC $(pkg-config --cflags --libs autocoll)` and with find_package(autocoll) +
#    autocoll::autocoll; each binary must load the installed library and print "consumer: ok" on
#    2 ranks;
#  - the pkg-config file of a multiarch libdir (lib/x86_64-linux-gnu, as under /usr on Debian)
#    still names the directories of its prefix (configure only, copied into a fake prefix).
build=$1
work=$2
src=$3
cc=$4
mpicc=$5
shift 5
mpiexec="$*" # MPIEXEC [flags...] (words without blanks)
rm -rf "$work"
mkdir -p "$work" && work=$(cd "$work" && pwd -P)
prefix=$work/prefix
cdir=$src/tests/tools/consumer
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
unset LD_LIBRARY_PATH PKG_CONFIG_PATH

pass=0
fail=0
# check WHAT COMMAND [ARGS...]: runs the command, its output kept and shown on failure.
check() {
    what=$1
    shift
    if "$@" >"$work/check.log" 2>&1; then pass=$((pass + 1)); echo "ok   $what"
    else fail=$((fail + 1)); echo "FAIL $what"; sed 's/^/     | /' "$work/check.log" | tail -20; fi
}
has_usage() { # TOOL: --help exits 0 with "usage: TOOL" (autocoll-info writes it to stderr)
    "$prefix/bin/$1" --help >"$work/help.out" 2>&1 && grep -q "^usage: $1" "$work/help.out"
}
has_version() { # TOOL: --version exits 0 with "TOOL (autocoll) VERSION"
    "$prefix/bin/$1" --version >"$work/version.out" 2>&1 &&
        grep -qx "$1 (autocoll) $version" "$work/version.out"
}
finds_lib() { ! ldd "$1" | grep 'libautocoll' | grep -q 'not found'; }
loads_installed() { ldd "$1" | grep "libautocoll.so" | grep -q "=> $prefix/"; }
runs_ok() { # BINARY: 2 ranks, exit 0 and "consumer: ok p=2" from rank 0
    timeout 120 $mpiexec -np 2 "$1" >"$1.out" 2>&1
    rc=$?
    cat "$1.out"
    [ $rc -eq 0 ] && grep -q '^consumer: ok p=2' "$1.out"
}
pc() { PKG_CONFIG_PATH=$pcdir pkg-config "$@"; }
same_dir() { echo "$1"; [ "$(realpath -m "$1")" = "$(realpath -m "$2")" ]; }
pc_dirs() {
    same_dir "$(pc --variable=libdir autocoll)" "$pcdir/.." &&
        same_dir "$(pc --variable=includedir autocoll)" "$prefix/include"
}
configure_consumer() { # configure log kept for the next check
    cmake -S "$cdir" -B "$work/consumer_cmake" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_COMPILER="$cc" -DMPI_C_COMPILER="$mpicc" -DAC_WANT_VERSION="$version" \
        >"$work/consumer_cmake.log" 2>&1
    rc=$?
    cat "$work/consumer_cmake.log"
    return $rc
}

# Tools: the four known ones must be there; every installed one is checked.
for t in autocoll-info autocoll-bench autocoll-tune autocoll-overhead; do
    check "$t installed" test -x "$prefix/bin/$t"
done
version=$("$prefix/bin/autocoll-info" --version 2>/dev/null |
          sed -n 's/^autocoll-info (autocoll) \([0-9][0-9.]*\)$/\1/p')
check "installed autocoll-info prints its version ($version)" test -n "$version"
check "installed autocoll-info lists algorithms" \
    sh -c "\"$prefix/bin/autocoll-info\" bcast | grep -q pipe_chain"
for path in "$prefix"/bin/*; do
    t=${path##*/}
    check "$t finds its library" finds_lib "$path"
    check "$t --help: exit 0 and a usage text" has_usage "$t"
    check "$t --version: exit 0, '$t (autocoll) $version'" has_version "$t"
    check "manual page $t(1)" test -f "$prefix/share/man/man1/$t.1"
done
check "documentation" test -f "$prefix/share/doc/autocoll/settings.md" -a \
                           -f "$prefix/share/doc/autocoll/README.md"
check "headers autocoll.h and autocoll_colls.def" test -f "$prefix/include/autocoll.h" -a \
                                                      -f "$prefix/include/autocoll_colls.def"
pcdir=$(dirname "$(ls "$prefix"/lib*/pkgconfig/autocoll.pc "$prefix"/lib/*/pkgconfig/autocoll.pc \
                   2>/dev/null | head -1)")
check "pkg-config file" test -f "$pcdir/autocoll.pc"
check "CMake package" test -n "$(ls "$prefix"/lib*/cmake/autocoll/autocollConfig.cmake \
                                    "$prefix"/lib/*/cmake/autocoll/autocollConfig.cmake 2>/dev/null)"

# Consumer 1: pkg-config.
check "pkg-config --modversion autocoll = $version" test "$(pc --modversion autocoll)" = "$version"
check "pkg-config libdir and includedir are the prefix's" pc_dirs
check "pkg-config consumer builds: $mpicc \$(pkg-config --cflags --libs autocoll)" \
    $mpicc -o "$work/consumer_pc" "$cdir/consumer.c" $(pc --cflags --libs autocoll) \
        -Wl,-rpath,"$(pc --variable=libdir autocoll)"
check "pkg-config consumer loads the installed library" loads_installed "$work/consumer_pc"
check "pkg-config consumer runs on 2 ranks: consumer: ok" runs_ok "$work/consumer_pc"

# Consumer 2: find_package(autocoll VERSION) + autocoll::autocoll.
check "CMake consumer configures: find_package(autocoll $version)" configure_consumer
check "CMake consumer found the package in the prefix" \
    grep -q "autocoll $version found in $prefix/" "$work/consumer_cmake.log"
check "CMake consumer builds against autocoll::autocoll" cmake --build "$work/consumer_cmake"
check "CMake consumer loads the installed library" loads_installed "$work/consumer_cmake/consumer"
check "CMake consumer runs on 2 ranks: consumer: ok" runs_ok "$work/consumer_cmake/consumer"

# A multiarch libdir: the generated pkg-config file, placed where it would be installed, must
# still name the library and header folders of its prefix.
fake=$work/multiarch/usr
fake_pc=$fake/lib/x86_64-linux-gnu/pkgconfig
check "multiarch build configures (CMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu)" \
    cmake -S "$src" -B "$work/multiarch/build" -DCMAKE_INSTALL_PREFIX=/usr \
        -DCMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu -DAUTOCOLL_TESTS=OFF -DAUTOCOLL_SIM=OFF \
        -DCMAKE_C_COMPILER="$cc" -DMPI_C_COMPILER="$mpicc"
mkdir -p "$fake_pc" && cp "$work/multiarch/build/autocoll.pc" "$fake_pc/" 2>/dev/null
check "multiarch pkg-config libdir is <prefix>/lib/x86_64-linux-gnu" \
    same_dir "$(PKG_CONFIG_PATH=$fake_pc pkg-config --variable=libdir autocoll)" \
        "$fake/lib/x86_64-linux-gnu"
check "multiarch pkg-config includedir is <prefix>/include" \
    same_dir "$(PKG_CONFIG_PATH=$fake_pc pkg-config --variable=includedir autocoll)" \
        "$fake/include"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
