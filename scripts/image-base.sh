#!/bin/sh
# Makes a Debian 12 base image from Debian's own packages, for machines that
# reach Debian's package mirror but no container registry (debian:12-slim
# cannot be pulled there). The result is the same kind of base as
# debian:12-slim: apt, ca-certificates, the same apt sources, merged /usr
# (as debian:12-slim, without the usrmerge package and its perl), no manual
# pages, documentation or translations, no recommended packages.
#   scripts/image-base.sh NAME     e.g. localhost/cpu-extender-base:bookworm
# The root file system tarball is cached in $CPU_EXTENDER_CACHE (default
# ~/.cache/cpu-extender), so a second run only imports it; delete the file to
# take newer packages. Needs root (mmdebstrap, podman).
set -eu
name=${1:?usage: image-base.sh IMAGE-NAME}
cache=${CPU_EXTENDER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cpu-extender}
tar=$cache/debian-bookworm-base.tar
if [ ! -s "$tar" ]; then
    command -v mmdebstrap >/dev/null || {
        echo "image-base: mmdebstrap is missing: apt-get install mmdebstrap" >&2
        exit 1
    }
    mkdir -p "$cache"
    echo "image-base: building $tar with mmdebstrap (about a minute)" >&2
    # The apt sources of debian:12-slim: bookworm, its updates and security.
    rm -rf "$tar.tmp"
    mmdebstrap --quiet --format=tar --variant=apt --include=ca-certificates \
        --aptopt='APT::Install-Recommends "false"' \
        --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
        --dpkgopt='path-exclude=/usr/share/man/*' \
        --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-include=/usr/share/doc/*/copyright' \
        --dpkgopt='path-exclude=/usr/share/info/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' \
        bookworm "$tar.tmp" \
        "deb http://deb.debian.org/debian bookworm main" \
        "deb http://deb.debian.org/debian bookworm-updates main" \
        "deb http://deb.debian.org/debian-security bookworm-security main"
    mv "$tar.tmp" "$tar"
fi
echo "image-base: importing $tar as $name" >&2
podman import --quiet --change 'CMD ["/bin/bash"]' "$tar" "$name" >/dev/null
