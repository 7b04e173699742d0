#!/bin/sh
# Writes the cpu-extender image IMAGE (registry/cpu-extender:tag, or
# registry/cpu-extender@sha256:...) into every file that names it, so that
# it is set in one step: `make manifests IMAGE=...` runs this.
#   manifests/kustomization.yaml          images: name, newName, newTag or digest
#   manifests/deployment.yaml             the cpu-extender container's image
#                                         (kustomize matches it by name)
#   manifests/kubeadm/kube-scheduler+strategic.yaml
#                                         the sidecar's image: kubeadm applies the
#                                         patch as is, kustomize never sees it
#   charts/cpu-extender/values.yaml       image.repository, image.tag, image.digest
# Usage: scripts/set-image.sh IMAGE [ROOT]   (ROOT: the repository, default .)
set -eu
image=${1:-}
root=${2:-.}
die() {
    echo "set-image: $*" >&2
    exit 2
}
[ -n "$image" ] || die "no image: make manifests IMAGE=registry/cpu-extender:tag"
case $image in
*[!A-Za-z0-9./:@_-]*) die "\"$image\" is not an image reference (letters, digits and . / : @ _ - only)" ;;
esac
# The tag is after the last ':' that follows the last '/' (a registry's
# port comes before the path); a digest is after '@'.
case $image in
*@*)
    name=${image%%@*}
    digest=${image#*@}
    tag=""
    case $digest in
    sha256:????????????????????????????????????????????????????????????????) ;;
    *) die "\"$image\": a digest is sha256: and 64 hex digits" ;;
    esac
    ;;
*)
    last=${image##*/}
    case $last in
    *:*) tag=${last##*:} name=${image%:*} ;;
    *) die "\"$image\" has no tag: name the version pushed (registry/cpu-extender:tag), not latest by default" ;;
    esac
    digest=""
    ;;
esac
[ -n "$name" ] && [ -n "$tag$digest" ] || die "\"$image\": empty name or tag"
case $name in */) die "\"$image\": the name ends with /" ;; esac
ref=$name${tag:+:$tag}${digest:+@$digest}

kust=$root/manifests/kustomization.yaml
deploy=$root/manifests/deployment.yaml
kubeadm=$root/manifests/kubeadm/kube-scheduler+strategic.yaml
values=$root/charts/cpu-extender/values.yaml
for f in "$kust" "$deploy" "$kubeadm" "$values"; do
    [ -f "$f" ] || die "$f: no such file"
done

# rewrite FILE AWK-PROGRAM: the program's output replaces FILE; a program
# that did not find the line it rewrites exits 1 and FILE stays as it was.
rewrite() {
    f=$1
    shift
    awk -v name="$name" -v tag="$tag" -v digest="$digest" -v ref="$ref" "$@" "$f" >"$f.tmp" ||
        { rm -f "$f.tmp"; die "$f: the cpu-extender image was not found where expected"; }
    mv "$f.tmp" "$f"
}

# kustomization.yaml: the first entry of images: is cpu-extender's; its
# newTag or digest line is replaced by the one IMAGE has.
rewrite "$kust" '
    /^images:/ { in_images = 1; print; next }
    in_images && /^[^ #]/ { in_images = 0 }
    in_images && entry == 0 && /^  - name: / { entry = 1; print "  - name: " name; done = 1; next }
    in_images && entry == 1 && /^  - / { entry = 2 }
    in_images && entry == 1 && /^    newName: / { print "    newName: " name; next }
    in_images && entry == 1 && /^    (newTag|digest): / {
        if (tag != "") print "    newTag: \"" tag "\""; else print "    digest: " digest
        next
    }
    { print }
    END { exit done ? 0 : 1 }'

# deployment.yaml and the kubeadm patch: the image line of the container
# named cpu-extender.
container_image='
    /^ *- name: cpu-extender$/ { in_c = 1; print; next }
    in_c && /^ *- name: / { in_c = 0 }
    in_c && /^ *image: / { sub(/image: .*/, "image: " ref); in_c = 0; done = 1 }
    { print }
    END { exit done ? 0 : 1 }'
rewrite "$deploy" "$container_image"
rewrite "$kubeadm" "$container_image"

# values.yaml: image.repository, image.tag and image.digest.
rewrite "$values" '
    /^image:/ { in_image = 1; print; next }
    in_image && /^[^ #]/ { in_image = 0 }
    in_image && /^  repository: / { print "  repository: " name; done = 1; next }
    in_image && /^  tag: / { print "  tag: \"" tag "\""; next }
    in_image && /^  digest: / { print "  digest: \"" digest "\""; next }
    { print }
    END { exit done ? 0 : 1 }'

echo "set-image: $ref in $kust, $deploy, $kubeadm and $values"
