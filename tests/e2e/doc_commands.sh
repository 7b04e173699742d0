#!/bin/sh
# Every command of the README, docs/*.md and the man page is run here as it
# is written, or marked as not runnable here, with the reason. A shell block
# without a mark fails, and so does a marked one that fails when run.
#
# The mark is the line just before the block:
#   README.md, docs/*.md: before a ```sh (or shell, bash, console) fence,
#     <!-- run: CONTEXT -->  or  <!-- not run: REASON -->
#     A fence without a language fails too (```text for what is not a
#     command), so that no command hides in one.
#   docs/cpu-extender.1: before each .EX,
#     .\" run: CONTEXT  or  .\" not run: REASON  or  .\" not a command: WHAT
#
# Contexts (a block runs with sh -e, `cpu-extender` being the binary under
# test, HOME a fresh directory, no cluster from the environment, in a
# scratch directory where the repository's files are at their paths and
# what a command writes stays; 60 s at most; every process it leaves is
# ended):
#   readme-curl      a curl example followed by its answer: readme_curl.sh
#                    runs it against `make run`'s defaults and compares the
#                    answer; checked here to be one that script finds
#   scratch          just that
#   session          a terminal session: each "$ " line is a command, the
#                    lines under it what it prints (standard output and
#                    error together), compared exactly
#   serve-config     with `cpu-extender --config config.json` serving
#                    (config.json and scheduler-config.yaml the shipped
#                    ones) as the block starts; it must still serve after
#   cluster-servers  each line starts a server: run in the background with
#                    a cluster (bench-apiserver on loopback) as
#                    ~/.kube/config and ~/.kube/eks.yaml; each must log
#                    "cluster mode" and exit 0 on SIGTERM
# Blocks run in network and PID namespaces of their own (root: unshare), so
# that 127.0.0.1:8888 is free and pidof sees only them; without root only
# the marks are checked and the runs are counted as skipped.
# Usage: tests/e2e/doc_commands.sh BINARY [BENCH-APISERVER]   (repository root)
set -eu
bin=${1:?usage: doc_commands.sh BINARY [BENCH-APISERVER]}
apiserver=${2:-$(dirname "$bin")/bench-apiserver}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
case $apiserver in /*) ;; *) apiserver=$PWD/$apiserver ;; esac
repo=$PWD
. "$repo/tests/support/readme.sh"
. "$repo/tests/support/server.sh"

if [ "${DOC_COMMANDS_INNER:-}" != 1 ] && [ "$(id -u)" -eq 0 ] &&
    unshare --net --pid --fork --mount-proc true 2>/dev/null; then
    exec env DOC_COMMANDS_INNER=1 unshare --net --pid --fork --mount-proc sh "$0" "$bin" "$apiserver"
fi
isolated=0
if [ "${DOC_COMMANDS_INNER:-}" = 1 ]; then
    ip link set lo up
    isolated=1
fi
unset KUBECONFIG KUBERNETES_SERVICE_HOST
work=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do
        if kill "$p" 2>/dev/null; then wait "$p" 2>/dev/null || true; fi
    done
    rm -rf "$work"
}
trap cleanup EXIT HUP INT TERM
pass=0
fail=0
skipped=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# ---- the blocks, with their marks ----
# One file per block: WHERE (file:line), MARK (the comment's text, "" for
# none), KIND (shell, other, unlabelled) and the commands.
mkdir "$work/blocks"
for doc in README.md docs/*.md; do
    awk -v doc="$doc" -v dir="$work/blocks" '
        function out(name, text) { printf "%s\n", text > (base "." name); close(base "." name) }
        !inside && /^```/ {
            inside = 1; n++; base = dir "/" doc_id "-" n
            lang = substr($0, 4)
            kind = lang == "" ? "unlabelled" : (lang ~ /^(sh|shell|bash|console)$/ ? "shell" : "other")
            mark = prev ~ /^<!-- .* -->$/ ? prev : ""
            sub(/^<!-- /, "", mark); sub(/ -->$/, "", mark)
            out("where", doc ":" NR); out("mark", mark); out("kind", kind)
            printf "" > (base ".cmd")
            next
        }
        inside && /^```$/ { inside = 0; close(base ".cmd"); prev = ""; next }
        inside { print >> (base ".cmd"); next }
        { if ($0 != "") prev = $0 }
        BEGIN { doc_id = doc; gsub(/[^A-Za-z0-9]/, "_", doc_id) }
    ' "$doc"
done
# The man page: .EX blocks, roff escapes undone as man prints them.
awk -v dir="$work/blocks" '
    function out(name, text) { printf "%s\n", text > (base "." name); close(base "." name) }
    /^\.EX$/ {
        inside = 1; n++; base = dir "/man-" n
        mark = prev ~ /^\.\\" / ? substr(prev, 5) : ""
        out("where", "docs/cpu-extender.1:" NR); out("mark", mark); out("kind", "man")
        printf "" > (base ".cmd")
        next
    }
    inside && /^\.EE$/ { inside = 0; close(base ".cmd"); next }
    inside {
        l = $0
        gsub(/\\-/, "-", l); gsub(/\\\(dq/, "\"", l); gsub(/\\\(aq/, "\047", l); gsub(/\\&/, "", l)
        gsub(/\\e/, "\\", l)
        print l >> (base ".cmd"); next
    }
    { prev = $0 }
' docs/cpu-extender.1

# The README's curl examples as readme_curl.sh finds them.
mkdir "$work/curl"
readme_examples README.md "$work/curl" >/dev/null
cat "$work/curl"/cmd.* 2>/dev/null >"$work/curl.all" || true

# ---- what the contexts need ----
scratch() {
    s=$work/scratch.$1
    mkdir -p "$s" "$work/home.$1" "$work/bin"
    ln -sf "$bin" "$work/bin/cpu-extender"
    for e in "$repo"/* "$repo"/.[!.]*; do
        [ -e "$e" ] && [ ! -e "$s/${e##*/}" ] && ln -s "$e" "$s/${e##*/}"
    done
    echo "$s"
}
# run_block DIR HOME CMDFILE: the block with sh -e in a session of its own;
# everything it leaves in that session is ended after it.
run_block() {
    rc=0
    (cd "$1" && exec env HOME="$2" PATH="$work/bin:$PATH" setsid sh -c \
        'echo $$ >"$1.sid"; exec timeout 60 sh -e "$1"' sh "$3") >"$3.out" 2>&1 || rc=$?
    sid=$(cat "$3.sid" 2>/dev/null || true)
    [ -n "$sid" ] && pkill -TERM -s "$sid" 2>/dev/null || true
    return "$rc"
}
cluster_ready=0
start_cluster() {
    [ "$cluster_ready" = 1 ] && return 0
    [ -x "$apiserver" ] || { bad "no $apiserver (make $apiserver)"; return 1; }
    "$repo/tests/e2e/make_certs.sh" "$work/pki" >/dev/null
    "$apiserver" "$work/pki/server.pem" "$work/pki/server.key" doc-token 3 2 600 \
        >"$work/apiserver.out" 2>"$work/apiserver.log" &
    pids="$pids $!"
    api_port=""
    for _ in $(seq 300); do
        api_port=$(sed -n 's/^port=\([0-9]*\)$/\1/p' "$work/apiserver.out" 2>/dev/null || true)
        [ -n "$api_port" ] && break
        sleep 0.1
    done
    [ -n "$api_port" ] || { bad "bench-apiserver gave no port: $(cat "$work/apiserver.log")"; return 1; }
    cat >"$work/kubeconfig" <<EOF
apiVersion: v1
kind: Config
current-context: doc
clusters:
- name: doc
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority: $work/pki/ca.pem
users:
- name: doc
  user:
    token: doc-token
contexts:
- name: doc
  context:
    cluster: doc
    user: doc
EOF
    cluster_ready=1
}

# ---- each context ----
ctx_readme_curl() { # the block is one curl line that readme_curl.sh runs
    if [ "$(wc -l <"$1")" -eq 1 ] && grep -qxF -f "$1" "$work/curl.all"; then ok; else
        bad "$2: marked readme-curl, but tests/e2e/readme_curl.sh does not run it (one curl line, its answer in a json block right after)"
    fi
}
ctx_scratch() {
    d=$(scratch "$3")
    if run_block "$d" "$work/home.$3" "$1"; then ok; else bad "$2: failed: $(cat "$1.out")"; fi
}
ctx_session() {
    d=$(scratch "$3")
    awk -v base="$1" '
        /^\$ / { n++; print substr($0, 3) > (base ".s" n ".cmd"); printf "" > (base ".s" n ".want"); next }
        n > 0 { print > (base ".s" n ".want") }
    ' "$1"
    k=0
    for c in "$1".s*.cmd; do
        [ -e "$c" ] || break
        k=$((k + 1))
        w=${c%.cmd}.want
        run_block "$d" "$work/home.$3" "$c" || true
        if [ "$(cat "$c.out")" = "$(cat "$w")" ]; then ok; else
            bad "$2: \`$(cat "$c")\` printed:
$(cat "$c.out")
the block says:
$(cat "$w")"
        fi
    done
    [ "$k" -gt 0 ] && ok || bad "$2: a session without a \$ line"
}
ctx_serve_config() {
    d=$(scratch "$3")
    cp "$repo/manifests/scheduler/config.json" "$repo/manifests/scheduler/scheduler-config.yaml" "$d/"
    (cd "$d" && exec "$bin" --config config.json) 2>"$d/server.log" &
    sp=$!
    port=$(wait_port "$d/server.log" || true)
    [ -n "$port" ] || { bad "$2: the server for serve-config did not start: $(cat "$d/server.log")"; return 0; }
    if run_block "$d" "$work/home.$3" "$1"; then ok; else bad "$2: failed: $(cat "$1.out")"; fi
    if kill -0 "$sp" 2>/dev/null && curl -s -o /dev/null --max-time 5 "http://127.0.0.1:$port/healthz"; then
        ok
    else
        bad "$2: the server no longer serves after the block: $(tail -3 "$d/server.log")"
    fi
    kill "$sp" 2>/dev/null && wait "$sp" 2>/dev/null || true
}
ctx_cluster_servers() {
    start_cluster || return 0
    d=$(scratch "$3")
    mkdir -p "$work/home.$3/.kube"
    cp "$work/kubeconfig" "$work/home.$3/.kube/config"
    cp "$work/kubeconfig" "$work/home.$3/.kube/eks.yaml"
    k=0
    while IFS= read -r line; do
        case $line in '' | '#'*) continue ;; esac
        k=$((k + 1))
        # exec all the way down: $sp is the server itself
        (cd "$d" && exec env HOME="$work/home.$3" PATH="$work/bin:$PATH" sh -c "exec $line") \
            2>"$1.$k.log" &
        sp=$!
        seen=0
        for _ in $(seq 100); do
            grep -q '"msg":"cluster mode' "$1.$k.log" 2>/dev/null && { seen=1; break; }
            kill -0 "$sp" 2>/dev/null || break
            sleep 0.1
        done
        if [ "$seen" = 1 ]; then ok; else bad "$2: \`$line\` did not serve from the cluster: $(cat "$1.$k.log")"; fi
        rc=0
        if kill "$sp" 2>/dev/null; then wait "$sp" || rc=$?; else rc=gone; fi
        if [ "$rc" = 0 ]; then ok; else bad "$2: \`$line\` exit status $rc on SIGTERM"; fi
    done <"$1"
    [ "$k" -gt 0 ] && ok || bad "$2: no command in the block"
}

n_shell=0
for w in "$work"/blocks/*.where; do
    b=${w%.where}
    where=$(cat "$w")
    kind=$(cat "$b.kind")
    mark=$(cat "$b.mark")
    id=${b##*/}
    case $kind in
    unlabelled)
        bad "$where: a fence without a language (\`\`\`text for what is not a command)"
        continue
        ;;
    other) continue ;;
    esac
    [ "$kind" = shell ] && n_shell=$((n_shell + 1))
    case $mark in
    "not a command: "?*)
        if [ "$kind" = man ]; then ok; else bad "$where: a shell block marked \"$mark\": say text instead"; fi
        ;;
    "not run: "?*) ok ;;
    "run: "*)
        ctx=${mark#run: }
        case $ctx in
        readme-curl) ctx_readme_curl "$b.cmd" "$where" ;;
        scratch | session | serve-config | cluster-servers)
            if [ "$isolated" != 1 ]; then
                skipped=$((skipped + 1))
                continue
            fi
            case $ctx in
            scratch) ctx_scratch "$b.cmd" "$where" "$id" ;;
            session) ctx_session "$b.cmd" "$where" "$id" ;;
            serve-config) ctx_serve_config "$b.cmd" "$where" "$id" ;;
            cluster-servers) ctx_cluster_servers "$b.cmd" "$where" "$id" ;;
            esac
            ;;
        *) bad "$where: unknown context \"$ctx\"" ;;
        esac
        ;;
    *) bad "$where: no mark before the block (<!-- run: CONTEXT --> or <!-- not run: REASON -->): $(head -1 "$b.cmd")" ;;
    esac
done
[ "$n_shell" -ge 20 ] && ok || bad "found only $n_shell shell blocks: is the extraction broken?"

# ---- the README's first screen is the quick start ----
# Its first section is "## Quick start" and shows, in this order, the two
# commands (make run, make test), one curl example and one rank; the
# reference lives in docs/ (read above, like the README) and the section
# after it links there.
quick=$(awk '
    /^## / { if (sec == "") { sec = $0; if (sec != "## Quick start") { first = 1; exit }; next } else { after = 1 } }
    sec == "" { next }
    !after && /^```(sh|shell|bash|console)$/ { inside = 1; next }
    inside && /^```$/ { inside = 0; next }
    inside && !after {
        if (step == 0 && /^make run/) step = 1
        else if (step == 1 && /^make test/) step = 2
        else if (step == 2 && /^curl /) step = 3
        else if (step == 3 && /cpu-extender rank /) step = 4
        next
    }
    after && /\]\(docs\/[a-z]+\.md/ { links++ }
    END {
        if (first) print "its first section is \"" sec "\""
        else if (sec == "") print "no section"
        else if (step < 4) print "quick start stops at step " step " of: make run, make test, curl, rank"
        else if (links < 3) print "no links to docs/ after the quick start"
    }
' README.md)
if [ -z "$quick" ]; then ok; else bad "README.md: the first screen is not the quick start: $quick"; fi

if [ "$skipped" -gt 0 ]; then
    echo "doc_commands: $skipped blocks not run: they need root for the namespaces"
fi
echo "doc_commands: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
