#!/bin/sh
# install_prefix.sh BUILD DIR: `cmake --install` into a prefix of its own; the installed tools
# must run from there with no LD_LIBRARY_PATH (install RPATH), answer --version and --help, and
# the manual pages, documentation, header, pkg-config and CMake package files must be in place.
build=$1
prefix=$2/prefix
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
pass=0
fail=0
check() {
    if eval "$2" >/dev/null 2>&1; then pass=$((pass + 1)); echo "ok   $1"
    else fail=$((fail + 1)); echo "FAIL $1"; fi
}
unset LD_LIBRARY_PATH
check "installed autocoll-info runs and prints its version" \
    "\"$prefix/bin/autocoll-info\" --version | grep -q '^autocoll-info (autocoll) [0-9]'"
check "installed autocoll-info lists algorithms" \
    "\"$prefix/bin/autocoll-info\" bcast | grep -q pipe_chain"
for t in autocoll-bench autocoll-tune autocoll-overhead; do
    check "$t installed, finds its library" \
        "[ -x \"$prefix/bin/$t\" ] && ! ldd \"$prefix/bin/$t\" | grep -q 'libautocoll.*not found'"
done
for m in autocoll-info autocoll-bench autocoll-tune autocoll-overhead; do
    check "manual page $m(1)" "[ -f \"$prefix/share/man/man1/$m.1\" ]"
done
check "documentation" "[ -f \"$prefix/share/doc/autocoll/settings.md\" ] && [ -f \"$prefix/share/doc/autocoll/README.md\" ]"
check "header" "[ -f \"$prefix/include/autocoll.h\" ]"
check "pkg-config file" "ls \"$prefix\"/lib*/pkgconfig/autocoll.pc \"$prefix\"/lib/*/pkgconfig/autocoll.pc 2>/dev/null | grep -q ."
check "CMake package" "ls \"$prefix\"/lib*/cmake/autocoll/autocollConfig.cmake \"$prefix\"/lib/*/cmake/autocoll/autocollConfig.cmake 2>/dev/null | grep -q ."
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
