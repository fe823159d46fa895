#!/usr/bin/env bash
# Builds the apiprobe image FROM scratch with buildah (offline: nothing is pulled) and writes it as an OCI
# archive, ready for `skopeo copy`, `podman load` or a registry push.
#
#   bash deploy/build-image.sh BINARY TAG ARCHIVE
#
# The Swift standard library is linked into BINARY (--static-swift-stdlib); the shared libraries it still needs
# are found with ldd and copied with their paths, with the dynamic loader and the CA bundle. On an image engine
# that cannot run containers here (podman's runtime needs privileges a CI container may lack), the archive's
# layer can be unpacked and the binary run with chroot: .ci/image-check.sh does.
set -euo pipefail
binary=${1:?the apiprobe binary}
tag=${2:?an image tag}
archive=${3:?the OCI archive to write}
here=$(cd "$(dirname "$0")" && pwd)
context=$(mktemp -d "${TMPDIR:-/tmp}/apiprobe-image-XXXXXX")
trap 'rm -rf "$context"' EXIT

rootfs="$context/rootfs"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/etc/ssl/certs" "$rootfs/tmp" "$rootfs/config" "$context/state"
chmod 1777 "$rootfs/tmp"
install -m 0755 "$binary" "$rootfs/usr/local/bin/apiprobe"
# Every shared library the binary loads, and the loader: `ldd` prints "name => /path (addr)" or "/path (addr)".
ldd "$binary" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | sort -u | while read -r library; do
    mkdir -p "$rootfs$(dirname "$library")"
    cp -L "$library" "$rootfs$library"
done
# The system's CA bundle: the default trust store of https probes and of the TLS checks.
bundle=/etc/ssl/certs/ca-certificates.crt
[ -f "$bundle" ] || { echo "no CA bundle at $bundle (apt-get install ca-certificates)" >&2; exit 1; }
cp -L "$bundle" "$rootfs$bundle"
# A user that is not root, for logs and tools that look the user up; host names resolve through DNS and
# /etc/hosts, which the container engine mounts.
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/state:/sbin/nologin\n' > "$rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$rootfs/etc/group"
printf 'hosts: files dns\n' > "$rootfs/etc/nsswitch.conf"
cp "$here/Containerfile" "$context/Containerfile"

storage=(--storage-driver vfs)
buildah "${storage[@]}" bud --quiet --layers=false -t "$tag" -f "$context/Containerfile" "$context" >/dev/null
rm -f "$archive"
buildah "${storage[@]}" push --quiet "$tag" "oci-archive:$archive:$tag"
buildah "${storage[@]}" rmi "$tag" >/dev/null
echo "$archive: $tag, $(du -h "$archive" | cut -f1)"
