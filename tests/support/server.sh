# Shell helpers for scripts that run the binary on an ephemeral loopback port
# (bench/run.sh, bench/soak.sh, tests/e2e/unprivileged.sh, tests/monitoring). Source it.

# wait_port LOG: prints the port of the "listening" line the server writes to
# LOG, waiting up to 10 s; fails (and shows the log) when none comes.
wait_port() {
    _p=""
    for _ in $(seq 100); do
        # LOG may not exist yet (the server's shell child creates it); under
        # set -e a failing sed would end the caller.
        _p=$(sed -n 's/.*"msg":"listening","addr":"127.0.0.1:\([0-9]*\)".*/\1/p' "$1" \
            2>/dev/null || true)
        [ -n "$_p" ] && { echo "$_p"; return 0; }
        sleep 0.1
    done
    cat "$1" >&2
    return 1
}

# write_kubeconfig FILE PORT CA TOKEN: a kubeconfig for https://127.0.0.1:PORT
# (a fake API server), CA its PEM and TOKEN a bearer token.
write_kubeconfig() {
    cat >"$1" <<KUBECONFIG
apiVersion: v1
kind: Config
current-context: test
clusters:
- name: test
  cluster:
    server: https://127.0.0.1:$2
    certificate-authority: $3
users:
- name: extender
  user:
    token: $4
contexts:
- name: test
  context:
    cluster: test
    user: extender
KUBECONFIG
}
