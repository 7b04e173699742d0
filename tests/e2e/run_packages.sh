#!/bin/sh
# What `make run` would install on a machine that has nothing yet: the
# packages of building and running only. `make deps DEPS_DRY_RUN=1` prints
# them with dpkg-query answering "not installed" for every package (a stub
# first in PATH); apt-get and apt-cache are stubs too, so nothing is ever
# installed, whatever the Makefile does. `make test-deps` (make test) still
# installs what the tests need.
# Usage: tests/e2e/run_packages.sh   (from the repository root)
set -eu
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT HUP INT TERM

mkdir "$work/bin"
for stub in dpkg-query apt-get apt-cache; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/called"\nexit 1\n' "$stub" "$work" >"$work/bin/$stub"
    chmod +x "$work/bin/$stub"
done
export PATH="$work/bin:$PATH"

make -s --no-print-directory deps DEPS_DRY_RUN=1 >"$work/run" 2>&1 || bad "make deps DEPS_DRY_RUN=1 failed: $(cat "$work/run")"
make -s --no-print-directory test-deps DEPS_DRY_RUN=1 >"$work/test" 2>&1 ||
    bad "make test-deps DEPS_DRY_RUN=1 failed: $(cat "$work/test")"
if grep -q '^apt-get' "$work/called" 2>/dev/null; then bad "a dry run called apt-get: $(grep '^apt-get' "$work/called")"; else ok; fi

# Building and running: the compiler and the libraries' headers.
for p in build-essential pkg-config libmicrohttpd-dev libcjson-dev libgnutls28-dev \
    libcurl4-openssl-dev libyaml-dev ca-certificates; do
    if grep -qx "$p" "$work/run"; then ok; else bad "make run would not install $p"; fi
done
# The tests' own: never for make run (curl the command: the library is libcurl4).
for p in chromium curl check libsubunit-dev groff-base openssl iproute2 procps util-linux; do
    if grep -qx "$p" "$work/run"; then bad "make run would install $p, which only the tests need"; else ok; fi
    if grep -qx "$p" "$work/test"; then ok; else bad "make test-deps would not install $p"; fi
done

echo "run_packages: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
