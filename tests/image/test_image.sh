#!/bin/sh
# make test-image: the image `make image` built, checked for what the
# manifests assume of it. podman cannot run containers in every sandbox
# (crun may not set cgroups or rlimits), so the image's root file system is
# mounted (podman image mount), bound read-only, given /proc and a read-only
# /dev, and the image's own command runs in it with chroot as the image's
# user, as the kubelet would run it with readOnlyRootFilesystem. Everything
# runs in a network namespace of its own (loopback only; the README's
# examples need 127.0.0.1:8888, which may be taken on the host).
#   - labels (OCI), user, entrypoint, size, no compiler, -dev package or apt lists;
#   - every runtime library present (ldd in the image);
#   - --version carries VERSION and the commit;
#   - the default command, nothing mounted: serves /healthz and answers the
#     README's curl examples as the README and the binary outside do;
#   - the Deployment's command with its config.json and the scheduler's
#     file mounted at /etc/cpu-extender as the Deployment mounts them: reads
#     them (same configHash as outside, /debug on), serves the metrics
#     listener on 8889, the Deployment's probes (their commands as written
#     there) pass, the README's examples answer the same;
#   - the same with TLS and client certificates turned on in that
#     config.json: the Deployment's probes still pass, unchanged;
#   - SIGTERM stops it with exit 0.
# Usage: tests/image/test_image.sh OUTSIDE-BINARY [IMAGE]   (root; from the repository root)
set -eu
outside=${1:?usage: test_image.sh OUTSIDE-BINARY [IMAGE]}
case $outside in /*) ;; *) outside=$PWD/$outside ;; esac
image=${2:-localhost/cpu-extender:$(cat VERSION)}
# The Deployment and the config.json it mounts (the ConfigMap's source).
deployment=${DEPLOYMENT:-manifests/deployment.yaml}
config_json=${CONFIG_JSON:-manifests/scheduler/config.json}
sched_config=${SCHED_CONFIG:-manifests/scheduler/scheduler-config.yaml}
# Above this the image has grown by more than its libraries (base ~80 MiB).
max_mib=${IMAGE_MAX_MIB:-110}
. "$(dirname "$0")/../support/readme.sh"

if [ "${TEST_IMAGE_INNER:-}" != 1 ]; then
    [ "$(id -u)" -eq 0 ] || { echo "test_image: needs root (podman, mount, chroot)" >&2; exit 1; }
    podman image exists "$image" || { echo "test_image: no image $image: make image" >&2; exit 1; }
    mnt=$(podman image mount "$image")
    rc=0
    # A new network and mount namespace: loopback only, and every mount
    # below goes away with it, whatever happens.
    TEST_IMAGE_INNER=1 TEST_IMAGE_MNT=$mnt unshare --net --mount --propagation private \
        sh "$0" "$outside" "$image" || rc=$?
    podman image umount "$image" >/dev/null
    exit "$rc"
fi

unset KUBECONFIG KUBERNETES_SERVICE_HOST
ip link set lo up
mnt=$TEST_IMAGE_MNT
work=$(mktemp -d)
root=$work/root
pid=""
cleanup() {
    # Under set -e a failing command ends the trap too: each one is || true.
    # A TERM that reaches the server's shell child before its exec is lost
    # (the child still has this script's trap), so KILL after 5 s.
    if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    # Never rm -rf through a mount of the image.
    umount -R "$root" 2>/dev/null || true
    mountpoint -q "$root" || rm -rf "$work"
}
trap cleanup EXIT HUP INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if "$@"; then ok; else bad "$*"; fi; }
same() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi; }

# ---- the image's configuration ----
inspect() { podman image inspect --format "$1" "$image"; }
label() { inspect "{{index .Config.Labels \"org.opencontainers.image.$1\"}}"; }
version=$(cat VERSION)
same "label title" "$(label title)" cpu-extender
same "label version" "$(label version)" "$version"
same "label licenses" "$(label licenses)" Apache-2.0
check grep -q "Apache License" LICENSE
check grep -q "Version 2.0, January 2004" LICENSE
check test -n "$(label description)"
if revision=$(git rev-parse HEAD 2>/dev/null); then
    same "label revision" "$(label revision)" "$revision"
else
    check test -n "$(label revision)"
fi
same "label source" "$(label source)" "$(git remote get-url origin 2>/dev/null || true)"
user=$(inspect '{{.Config.User}}')
same "image user" "$user" 65532:65532
entrypoint=$(inspect '{{join .Config.Entrypoint " "}}')
cmd=$(inspect '{{join .Config.Cmd " "}}')
same "image entrypoint" "$entrypoint" /usr/local/bin/cpu-extender

# The Deployment runs the extender as the image's user, with the image's binary.
ext=$(awk '/^        - name: /{c = $3} c == "cpu-extender"' "$deployment")
same "deployment runAsUser" "$(echo "$ext" | sed -n 's/^ *runAsUser: //p')" "${user%%:*}"
same "deployment runAsGroup" "$(echo "$ext" | sed -n 's/^ *runAsGroup: //p')" "${user##*:}"
dcmd=$(echo "$ext" | awk '/^          command:/{f = 1; next} f && /^            - /{sub(/^            - /, ""); printf "%s%s", s, $0; s = " "; next} f {exit}')
same "deployment command[0]" "${dcmd%% *}" "$entrypoint"
mountpath=$(echo "$ext" | sed -n 's/^ *mountPath: \(\/etc\/cpu-extender\)$/\1/p')
same "deployment config mount" "$mountpath" /etc/cpu-extender
case $dcmd in *" --config /etc/cpu-extender/config.json"*) ok ;; *) bad "deployment command: $dcmd" ;; esac
# The exec probes as written in the Deployment, one line each.
probe_cmd() {
    echo "$ext" | awk -v p="$1" '$1 == p ":" { f = 1; next }
        f && /^ *command:/ { c = 1; next }
        c && /^ *- / { sub(/^ *- /, ""); printf "%s%s", s, $0; s = " "; next }
        c { exit }'
}
liveness=$(probe_cmd livenessProbe)
readiness=$(probe_cmd readinessProbe)
case $liveness in "$entrypoint probe "*) ok ;; *) bad "livenessProbe: $liveness" ;; esac
case $readiness in "$entrypoint probe --ready "*) ok ;; *) bad "readinessProbe: $readiness" ;; esac

size=$(inspect '{{.Size}}')
mib=$((size / 1048576))
echo "test_image: $image is $mib MiB ($size bytes)"
check test "$mib" -le "$max_mib"

# ---- the root file system, read-only, as the kubelet gives it ----
mkdir "$root"
mount --bind "$mnt" "$root"
mount -o remount,bind,ro "$root"
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount -t tmpfs -o nosuid,mode=0755,size=64k tmpfs "$root/dev"
for d in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
    n=${d%%:*} mm=${d#*:}
    mknod -m 0666 "$root/dev/$n" c "${mm%%:*}" "${mm##*:}"
done
mount -o remount,ro,bind "$root/dev"
check sh -c "! touch '$root/probe-write' 2>/dev/null"

for tool in cc gcc cpp c++ g++ ld as make pkg-config; do
    check test ! -e "$root/usr/bin/$tool"
done
devs=$(chroot "$root" dpkg-query -W -f '${Package}\n' | grep -- '-dev$' || true)
same "-dev packages" "$devs" ""
lists=$(find "$root/var/lib/apt/lists" -type f ! -name lock | head -3)
same "apt lists" "$lists" ""
check test -z "$(find "$root/usr/include" -type f 2>/dev/null | head -1)"
missing=$(chroot "$root" /usr/bin/ldd /usr/local/bin/cpu-extender 2>&1 | grep -i 'not found' || true)
same "ldd: missing libraries" "$missing" ""
check chroot "$root" /usr/bin/ldd /usr/local/bin/cpu-extender >/dev/null

# in_image ARGS: ARGS in the image as the image's user, with the image's
# environment only. env and chroot exec, so in the background $! is ARGS.
image_env="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
in_image() { env -i "$image_env" chroot --userspec="$user" "$root" "$@"; }
describe=$(git describe --always --dirty 2>/dev/null || true)
same "--version" "$(in_image /usr/local/bin/cpu-extender --version)" \
    "cpu-extender $version${describe:+-$describe}"
case $(label revision) in "${describe%%-*}"*) ok ;; *) bad "revision $(label revision) is not the commit of --version ($describe)" ;; esac

# serve LOG outside|image ARGS...: starts the binary outside or ARGS in the
# image, waits for its "listening" line on 127.0.0.1:8888. $pid is the
# server itself (no shell between).
serve() {
    log=$1 where=$2
    shift 2
    if [ "$where" = image ]; then
        env -i "$image_env" chroot --userspec="$user" "$root" "$@" 2>"$log" &
    else
        "$outside" "$@" 2>"$log" &
    fi
    pid=$!
    port=""
    for _ in $(seq 100); do
        # The log may not be there yet: the child opens it. Under set -e a
        # failing sed here would end the script.
        port=$(sed -n 's/.*"msg":"listening","addr":"127.0.0.1:\([0-9]*\)".*/\1/p' "$log" \
            2>/dev/null || true)
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    same "$* listens on" "$port" 8888
}
stop() {
    rc=0
    if kill "$pid" 2>/dev/null; then wait "$pid" || rc=$?; else rc="gone before SIGTERM"; fi
    pid=""
    same "exit status on SIGTERM" "$rc" 0
}
# answers DIR: each README example's answer into DIR/got.N.
n=$(readme_examples README.md "$work")
check test "$n" -ge 4
answers() {
    mkdir -p "$1"
    for c in "$work"/cmd.*; do
        sh "$c" >"$1/got.${c##*.}" || true
    done
}
# compare DIR: DIR's answers equal the README's and the outside binary's.
compare() {
    for c in "$work"/cmd.*; do
        k=${c##*.}
        same "$1 $(cat "$c")" "$(cat "$work/$1/got.$k")" "$(cat "$work/want.$k")"
        same "$1 vs outside: $(cat "$c")" "$(cat "$work/$1/got.$k")" "$(cat "$work/outside/got.$k")"
    done
}
version_of() { curl -s --max-time 5 http://127.0.0.1:8888/version | sed -n 's/.*"configHash":"\([^"]*\)".*/\1/p'; }
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:8888$1"; }

# The binary outside, with built-in defaults: the reference answers.
serve "$work/outside.log" outside
answers "$work/outside"
stop

# The image's default command (ENTRYPOINT + CMD), nothing mounted.
# shellcheck disable=SC2086
serve "$work/default.log" image $entrypoint $cmd
same "default: /healthz" "$(curl -s --max-time 5 http://127.0.0.1:8888/healthz)" '{"status":"ok"}'
same "default: uid" "$(ps -o uid= -p "$pid" | tr -d ' ')" "${user%%:*}"
same "default: gid" "$(ps -o gid= -p "$pid" | tr -d ' ')" "${user##*:}"
answers "$work/default"
compare default
check test "$(code /debug)" = 404 # built-in default: debugEndpoints off
stop

# The Deployment's command, with its config.json and the scheduler's file
# where the ConfigMap's two keys go.
mkdir "$work/cfg"
cp "$config_json" "$work/cfg/config.json"
cp "$sched_config" "$work/cfg/scheduler-config.yaml"
serve "$work/outside-cfg.log" outside --config "$work/cfg/config.json"
want_hash=$(version_of)
stop
check test -n "$want_hash"
mount --bind -o ro "$work/cfg" "$root/etc/cpu-extender"
mount -o remount,bind,ro "$root/etc/cpu-extender"
# shellcheck disable=SC2086
serve "$work/deployment.log" image $dcmd
same "deployment: configHash" "$(version_of)" "$want_hash"
same "deployment: /debug (debugEndpoints in config.json)" "$(code /debug)" 200
same "deployment: /metrics on the metrics listener" \
    "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 http://127.0.0.1:8889/metrics)" 200
same "deployment: no verb on the metrics listener" \
    "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -d '{}' http://127.0.0.1:8889/scheduler/filter)" 404
for probe in "$liveness" "$readiness"; do
    # shellcheck disable=SC2086
    check in_image $probe
done
answers "$work/deployment"
compare deployment
check grep -q '"msg":"listening"' "$work/deployment.log"
if grep -q '"level":"error"' "$work/deployment.log" "$work/default.log"; then
    bad "error lines in the image's logs: $(grep -h '"level":"error"' "$work"/*.log)"
fi
stop

# The same config.json with TLS and client certificates on: the probes of
# the Deployment, unchanged, still pass (they read the config and speak
# HTTPS; /healthz and /readyz need no client certificate).
mkdir "$work/cfg-tls"
cp "$sched_config" "$work/cfg-tls/scheduler-config.yaml"
"$(dirname "$0")/../e2e/make_certs.sh" "$work/cfg-tls/tls" >/dev/null
chmod -R a+rX "$work/cfg-tls"
sed 's|^  "listen": |  "tlsCert": "/etc/cpu-extender/tls/server.pem",\
  "tlsKey": "/etc/cpu-extender/tls/server.key",\
  "clientCa": "/etc/cpu-extender/tls/ca.pem",\
  "listen": |' "$config_json" >"$work/cfg-tls/config.json"
check grep -q '"clientCa"' "$work/cfg-tls/config.json"
umount "$root/etc/cpu-extender"
mount --bind -o ro "$work/cfg-tls" "$root/etc/cpu-extender"
mount -o remount,bind,ro "$root/etc/cpu-extender"
# shellcheck disable=SC2086
serve "$work/deployment-tls.log" image $dcmd
same "tls: /healthz over HTTPS" "$(curl -s --max-time 5 --cacert "$work/cfg-tls/tls/ca.pem" \
    https://127.0.0.1:8888/healthz)" '{"status":"ok"}'
same "tls: the verbs need a client certificate" "$(curl -s -o /dev/null -w '%{http_code}' \
    --max-time 5 --cacert "$work/cfg-tls/tls/ca.pem" -d '{}' https://127.0.0.1:8888/scheduler/filter)" 403
for probe in "$liveness" "$readiness"; do
    # shellcheck disable=SC2086
    check in_image $probe
done
stop

echo "test_image: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
