# shellcheck shell=bash
# The shapes of the real API server's answers that kube/informer.c and
# the bind code read, recorded from kube-apiserver 1.20.2 (and compared,
# in the report of issue 11, with tests/support/fake_apiserver.c).

# raw_watch QUERY SECONDS: the lines of one watch of nodes, as the admin.
raw_watch() {
    curl -sN --max-time "$2" --cacert "$K8S_PKI/ca.crt" --cert "$K8S_PKI/admin.crt" \
        --key "$K8S_PKI/admin.key" "$K8S_SERVER/api/v1/nodes?watch=1&$1"
}

t_wire_shapes() {
    local rv lines first
    mk_node wr-1 2 4Gi && mk_node wr-2 2 4Gi && mk_node wr-3 2 4Gi || return 1

    # A paged list: resourceVersion a string; continue and
    # remainingItemCount on every page but the last, where both are absent.
    api GET "/api/v1/nodes?limit=2"
    check_eq "list page 1: metadata keys" '["continue","remainingItemCount","resourceVersion"]' \
        "$(jq -c '.metadata | keys' <<<"$RESP")"
    check_eq "list page 1: resourceVersion is a string" string "$(jq -r '.metadata.resourceVersion | type' <<<"$RESP")"
    api GET "/api/v1/nodes?limit=2&continue=$(jq -r .metadata.continue <<<"$RESP")"
    check_eq "last page: metadata keys" '["resourceVersion"]' "$(jq -c '.metadata | keys' <<<"$RESP")"
    rv=$(jq -r .metadata.resourceVersion <<<"$RESP")

    # A watch: one event per line. 1.20's watch cache sends a BOOKMARK
    # only after an event of the resource since the API server started,
    # about 2 s before timeoutSeconds (or each minute), and never at or
    # below the version the watch started from. Its object is a whole
    # empty object of the kind: every zero-valued field (creationTimestamp
    # null on 1.20) and the resourceVersion of the last event sent.
    (sleep 0.3 && CT=application/merge-patch+json must PATCH /api/v1/nodes/wr-1 '{"metadata":{"labels":{"w":"1"}}}' 200) &
    local patcher=$!
    lines=$(raw_watch "allowWatchBookmarks=true&resourceVersion=$rv&timeoutSeconds=3" 6)
    wait "$patcher"
    check "watch: the event, then bookmarks: $(jq -r .type <<<"$lines" | paste -sd' ')" \
        grep -qE '^MODIFIED( BOOKMARK)+$' <<<"$(jq -r .type <<<"$lines" | paste -sd' ')"
    check_eq "every line one JSON object" "$(wc -l <<<"$lines")" "$(jq -c . <<<"$lines" | wc -l)"
    local mod bm
    mod=$(sed -n 1p <<<"$lines")
    bm=$(sed -n 2p <<<"$lines")
    check_eq "the bookmarks' resourceVersion: the event's" \
        "$(jq -r .object.metadata.resourceVersion <<<"$mod")" \
        "$(jq -r 'select(.type == "BOOKMARK") | .object.metadata.resourceVersion' <<<"$lines" | sort -u | paste -sd' ')"
    # creationTimestamp null on 1.20; left out since metav1.Time became
    # omitzero (1.33).
    local meta='{"creationTimestamp":null,"resourceVersion":"'"$(jq -r .object.metadata.resourceVersion <<<"$mod")"'"}'
    k8s_since 33 && meta=$(jq -c 'del(.creationTimestamp)' <<<"$meta")
    check_eq "the bookmark's metadata" "$meta" "$(jq -cS .object.metadata <<<"$bm")"
    info "bookmark object: $(jq -c .object <<<"$bm")"

    # 410 from a watch: HTTP 200 with one ERROR event, for a version older
    # than the watch cache's oldest. A restarted API server's cache starts
    # at the etcd revision of its first list, past $rv (wr-1 changed since).
    k8s_stop kube-apiserver 5
    k8s_start_apiserver || { fail "kube-apiserver did not come back"; return 1; }
    local hdr
    hdr=$(curl -sN -o "$T/wire-410" -w '%{http_code}' --max-time 3 --cacert "$K8S_PKI/ca.crt" \
        --cert "$K8S_PKI/admin.crt" --key "$K8S_PKI/admin.key" \
        "$K8S_SERVER/api/v1/nodes?watch=1&resourceVersion=$rv&timeoutSeconds=1")
    first=$(head -n1 "$T/wire-410")
    check_eq "watch from before the restart: HTTP 200, one ERROR event, Status 410 Expired" \
        "200 1 ERROR Failure Expired 410" \
        "$hdr $(wc -l <"$T/wire-410") $(jq -r '"\(.type) \(.object.status) \(.object.reason) \(.object.code)"' <<<"$first")"
    check "its message: too old resource version: $rv (N): $(jq -r .object.message <<<"$first")" \
        grep -qE "^too old resource version: $rv \([0-9]+\)\$" <<<"$(jq -r .object.message <<<"$first")"

    # A Binding: 201 with a Status, no Binding object.
    mk_pod ce-a wr-p || return 1
    must POST /api/v1/namespaces/ce-a/pods/wr-p/binding \
        '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"wr-p"},"target":{"kind":"Node","name":"wr-1"}}' 201 ||
        return 1
    check_eq "Binding created: the answer" '{"apiVersion":"v1","code":201,"kind":"Status","metadata":{},"status":"Success"}' \
        "$(jq -cS . <<<"$RESP")"
    # Errors the bind code relays: the message field of the Status.
    api POST /api/v1/namespaces/ce-a/pods/wr-p/binding \
        '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"other"},"target":{"kind":"Node","name":"wr-1"}}'
    check_eq "name mismatch: 400" '400 name in URL does not match name in Binding object' \
        "$CODE $(jq -r .message <<<"$RESP")"
    api POST /api/v1/namespaces/ce-a/pods/wr-p/binding \
        '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"wr-p"},"target":{"kind":"Node"}}'
    check_eq "no target name: 500, a validation error that is no StatusError" \
        '500 target.name: Required value null' "$CODE $(jq -r '"\(.message) \(.reason)"' <<<"$RESP")"
    api POST /api/v1/namespaces/ce-a/pods/gone/binding \
        '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"gone"},"target":{"kind":"Node","name":"wr-1"}}'
    check_eq "no such pod: 404 NotFound with details" '404 pods "gone" not found {"kind":"pods","name":"gone"}' \
        "$CODE $(jq -r .message <<<"$RESP") $(jq -cS .details <<<"$RESP")"
    AS_TOKEN=not-a-token api GET /api/v1/nodes
    check_eq "a bad token: 401 Unauthorized" "401 Unauthorized Unauthorized" \
        "$CODE $(jq -r '"\(.message) \(.reason)"' <<<"$RESP")"
}
