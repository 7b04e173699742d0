#!/bin/sh
# Checks the man page docs/cpu-extender.1 against the binary:
#   - it renders without a single warning (groff -ww; and man --warnings when
#     man is installed), at the default 80 columns;
#   - its .TH line names the version in VERSION;
#   - every --flag that `BINARY --help` prints has an entry of its own, and the
#     entry of each option names its environment variable, its config-file key
#     and its default as --help prints them;
#   - every metric family lists itself under GET /metrics: each "# TYPE" the
#     binary's /metrics shows (request-only, on 127.0.0.1) and each one the
#     sources of server/ write (those that need a cluster too);
#   - make install puts it under $(PREFIX)/share/man/man1, where man finds it.
# Without groff (Debian: groff-base) nothing can be rendered: skipped.
# Usage: tests/e2e/manpage.sh path/to/cpu-extender   (from the repository root)
set -eu
bin=${1:?usage: manpage.sh BINARY}
page=docs/cpu-extender.1
if ! command -v groff >/dev/null; then
    echo "manpage: 0 passed, 0 failed (needs groff; skipped)"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT HUP INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# Warnings are errors: any line on stderr fails.
if LC_ALL=C groff -man -ww -z -Tutf8 "$page" 2>"$work/groff.err" && [ ! -s "$work/groff.err" ]; then
    ok
else
    bad "groff -man -ww: $(cat "$work/groff.err")"
fi
if command -v man >/dev/null; then
    if LC_ALL=C MANWIDTH=80 man -P cat --warnings -l "$page" >/dev/null 2>"$work/man.err" &&
        [ ! -s "$work/man.err" ]; then
        ok
    else
        bad "man --warnings: $(cat "$work/man.err")"
    fi
fi

version=$(cat VERSION)
if grep -q "^\.TH .*\"cpu-extender $version\"" "$page"; then ok; else bad ".TH does not name version $version"; fi

# The page as plain text, one line per paragraph (no wrapping, no
# hyphenation): an entry is its tag at 7 columns and its text at 14 below it.
LC_ALL=C groff -man -Tascii -P-cbou -rLL=2000n "$page" 2>/dev/null >"$work/page.txt"

"$bin" --help >"$work/help.txt"
# The text of the entry whose tag starts with flag $1 ("" when none).
entry() {
    awk -v flag="$1" '
        found { print; exit }
        substr($0, 1, 7) == "       " && substr($0, 8, 1) != " " {
            tag = substr($0, 8)
            if (index(tag, flag) == 1) {
                rest = substr(tag, length(flag) + 1)
                if (rest == "" || rest ~ /^[ ,]/) found = 1
            }
        }
    ' "$work/page.txt"
}

grep -o -- '--[a-z][a-z-]*' "$work/help.txt" | sort -u >"$work/flags"
while read -r flag; do
    if [ -n "$(entry "$flag")" ]; then ok; else bad "no entry for $flag"; fi
done <"$work/flags"

# Option lines of --help: "  --flag[ ARG]  (ENV)" or "  --flag[ ARG]  (ENV, "key")".
sed -n 's/^  \(--[a-z-]*\)[^(]*(\(CPU_EXTENDER_[A-Z_]*\)\(, "\([A-Za-z]*\)"\)\{0,1\})$/\1 \2 \4/p' \
    "$work/help.txt" >"$work/options"
if [ -s "$work/options" ]; then ok; else bad "no option lines found in --help"; fi
# "key": value lines of the defaults printed at the end of --help.
sed -n 's/^  "\([A-Za-z]*\)": \(.*\)$/\1 \2/p' "$work/help.txt" | sed 's/,$//' >"$work/defaults"
while read -r flag env key; do
    text=$(entry "$flag")
    [ -n "$text" ] || continue # already counted above
    case "$text" in *"$env"*) ok ;; *) bad "$flag: the entry does not name $env" ;; esac
    [ -n "$key" ] || continue
    case "$text" in
        *"key $key,"* | *"key $key;"* | *"key $key."* | *"key $key "*) ok ;;
        *) bad "$flag: the entry does not name the key $key" ;;
    esac
    want=$(awk -v k="$key" '$1 == k { sub(/^[^ ]* /, ""); print; exit }' "$work/defaults")
    case "$want" in \"?*\") want=${want#\"} want=${want%\"} ;; esac
    case "$text" in
        *"default $want" | *"default $want "* | *"default $want,"* | *"default $want;"* | \
            *"default $want."* | *"default $want)"*) ok ;;
        *) bad "$flag: the entry does not say default $want" ;;
    esac
done <"$work/options"

# Every metric family is in the page. Those the binary shows without a
# cluster, scraped on an ephemeral loopback port, and every "# TYPE" in the
# sources (the cluster's families are shown only with a cluster).
. tests/support/server.sh
in_page() { grep -q -- "$1\([^a-z_]\|\$\)" "$work/page.txt"; }
(unset KUBECONFIG KUBERNETES_SERVICE_HOST; HOME=/nonexistent exec "$bin" --listen 127.0.0.1:0) \
    2>"$work/server.log" &
server=$!
if port=$(wait_port "$work/server.log") &&
    curl -sf "http://127.0.0.1:$port/metrics" >"$work/metrics.txt"; then
    ok
else
    bad "no /metrics from $bin"
fi
kill "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
awk '$1 == "#" && $2 == "TYPE" { print $3 }' "$work/metrics.txt" >"$work/families"
grep -rhoE '# TYPE cpu_extender_[a-z_]+' server/ | sed 's/^# TYPE //' >>"$work/families"
if [ "$(sort -u "$work/families" | wc -l)" -ge 20 ]; then ok; else bad "fewer than 20 metric families found"; fi
for f in $(sort -u "$work/families"); do
    if in_page "$f"; then ok; else bad "metric family $f is not in the page"; fi
done
# The options --help says wait for a restart are said to in the page, and
# no other option's entry says "Restart.".
awk '/^  --[a-z]/ { flag = $1; next } /\(restart: / { print flag }' "$work/help.txt" |
    sort -u >"$work/restart"
check_restart() {
    while read -r flag; do
        text=$(entry "$flag")
        if grep -qx -- "$flag" "$work/restart"; then
            case "$text" in *[Rr]estart*) ok ;; *) bad "$flag: --help says restart, the page does not" ;; esac
        else
            case "$text" in *"Restart."*) bad "$flag: the page says Restart, --help does not" ;; *) ok ;; esac
        fi
    done <"$work/flags"
}
if [ -s "$work/restart" ]; then check_restart; else bad "no restart options found in --help"; fi

# make install puts the page where man looks for it (a staged tree: DESTDIR).
if make -s install DESTDIR="$work/root" PREFIX=/usr/local >"$work/install.out" 2>&1 &&
    cmp -s "$page" "$work/root/usr/local/share/man/man1/cpu-extender.1"; then
    ok
else
    bad "make install did not install $page: $(cat "$work/install.out")"
fi
if command -v man >/dev/null; then
    if MANWIDTH=80 man -P cat -M "$work/root/usr/local/share/man" cpu-extender 2>/dev/null |
        grep -q 'cpu-extender'; then
        ok
    else
        bad "man -M DESTDIR/usr/local/share/man cpu-extender finds no page"
    fi
fi

echo "manpage: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
