# Sourced by the monitoring tests: one way to start Debian's Prometheus on
# loopback for a test.
#
# prometheus_start WORK SALT: Prometheus with WORK/prometheus.yml, its TSDB
# in WORK/tsdb and its log in WORK/prometheus.log, on a free 127.0.0.1
# port (the kernel picks none for it, so a few are tried, SALT spreading
# two scripts apart); sets prom (its pid, also added to pids) and pport.
# Exits the script when it does not start.
prometheus_start() {
    local work=$1 salt=$2 try
    prom=""
    for try in 1 2 3 4 5; do
        pport=$((20000 + ($$ * salt + try * 7919) % 40000))
        ss -ltn | grep -q ":$pport " && continue
        prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
            --web.listen-address="127.0.0.1:$pport" --log.level=warn 2>"$work/prometheus.log" &
        prom=$!
        for _ in $(seq 100); do
            curl -s -o /dev/null "http://127.0.0.1:$pport/-/ready" && break
            kill -0 "$prom" 2>/dev/null || break
            sleep 0.1
        done
        if curl -s -o /dev/null "http://127.0.0.1:$pport/-/ready"; then
            pids="$pids $prom"
            return 0
        fi
        kill "$prom" 2>/dev/null && wait "$prom" 2>/dev/null
        prom=""
    done
    cat "$work/prometheus.log" >&2
    echo "prometheus did not start" >&2
    exit 1
}
