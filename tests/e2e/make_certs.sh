#!/bin/sh
# Makes a throw-away PKI for the TLS tests in DIR: ca.pem/ca.key (the trusted
# CA), server.pem/server.key (SAN IP:127.0.0.1, DNS:localhost, CN=NAME),
# client.pem/client.key (signed by ca), other-ca.pem with
# other-client.pem/other-client.key (a CA nobody trusts),
# wrong-host.pem/wrong-host.key (signed by ca for a name that is neither
# 127.0.0.1 nor localhost: a client's host-name check must refuse it), and
# expired-client.pem/expired-client.key (signed by ca for client auth, but
# its validity ended a day ago).
# Usage: make_certs.sh DIR [SERVER_CN]
set -eu
d=${1:?usage: make_certs.sh DIR [SERVER_CN]}
cn=${2:-cpu-extender-test}
mkdir -p "$d"
cd "$d"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
ca() { # name subject
    key "$1.key"
    openssl req -x509 -new -key "$1.key" -subj "/CN=$2" -days 2 -out "$1.pem" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
}
leaf() { # name ca cn extensions [days]
    key "$1.key"
    openssl req -new -key "$1.key" -subj "/CN=$3" -out "$1.csr" 2>/dev/null
    printf '%s\n' "$4" >"$1.ext"
    openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -days "${5:-2}" \
        -extfile "$1.ext" -out "$1.pem" 2>/dev/null
    rm -f "$1.csr" "$1.ext"
}
[ -f ca.pem ] || ca ca "cpu-extender test CA"
[ -f other-ca.pem ] || ca other-ca "somebody else's CA"
leaf server ca "$cn" "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth"
[ -f client.pem ] || leaf client ca kube-scheduler "extendedKeyUsage=clientAuth"
[ -f other-client.pem ] || leaf other-client other-ca intruder "extendedKeyUsage=clientAuth"
[ -f wrong-host.pem ] || leaf wrong-host ca not-this-host.invalid \
    "subjectAltName=DNS:not-this-host.invalid,IP:192.0.2.1
extendedKeyUsage=serverAuth"
[ -f expired-client.pem ] || leaf expired-client ca kube-scheduler "extendedKeyUsage=clientAuth" -1
