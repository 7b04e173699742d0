#!/bin/sh
# make image: builds the Containerfile with podman.
#   IMAGE       the tag to build (default localhost/cpu-extender:$(cat VERSION))
#   BASE_IMAGE  the Debian 12 base of both stages. Unset: the public
#               docker.io/library/debian:12-slim when it is here or can be
#               pulled, else (no registry reachable) LOCAL_BASE, made from
#               Debian's packages by scripts/image-base.sh. Set: that image,
#               which must be here or pullable.
#   LOCAL_BASE  default localhost/cpu-extender-base:bookworm
#   PODMAN_BUILD_FLAGS  default --isolation=chroot --network=host: builds in
#               containers and sandboxes where crun cannot set cgroups
# The commit goes into the binary's --version (GIT_DESCRIBE) and the image's
# labels (REVISION, and SOURCE: the origin's URL): the build context has no
# .git.
set -eu
cd "$(dirname "$0")/.."
version=$(cat VERSION)
image=${IMAGE:-localhost/cpu-extender:$version}
public=docker.io/library/debian:12-slim
local_base=${LOCAL_BASE:-localhost/cpu-extender-base:bookworm}
flags=${PODMAN_BUILD_FLAGS:---isolation=chroot --network=host}
command -v podman >/dev/null || {
    echo "make image: podman is missing: apt-get install podman" >&2
    exit 1
}

if [ -n "${BASE_IMAGE:-}" ]; then
    base=$BASE_IMAGE
    podman image exists "$base" || podman pull "$base"
    why="BASE_IMAGE"
elif podman image exists "$public"; then
    base=$public
    why="present"
elif timeout 120 podman pull --quiet "$public" >/dev/null 2>&1; then
    base=$public
    why="pulled"
else
    base=$local_base
    why="$public cannot be pulled (no registry reachable)"
    podman image exists "$base" || scripts/image-base.sh "$base"
fi
echo "make image: base $base ($why)" >&2

revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
describe=$(git describe --always --dirty 2>/dev/null || true)
# Where the source is published: the clone's origin, unless SOURCE says.
source=${SOURCE:-$(git remote get-url origin 2>/dev/null || true)}
# shellcheck disable=SC2086
podman build --pull=never $flags \
    --build-arg BASE_IMAGE="$base" \
    --build-arg VERSION="$version" \
    --build-arg REVISION="$revision" \
    --build-arg GIT_DESCRIBE="$describe" \
    --build-arg SOURCE="$source" \
    -t "$image" -f Containerfile .
size=$(podman image inspect --format '{{.Size}}' "$image")
echo "make image: $image, $((size / 1024 / 1024)) MiB ($size bytes), base $base" >&2
