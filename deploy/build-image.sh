#!/usr/bin/env bash
# Builds the apiprobe image FROM scratch with buildah (offline: nothing is pulled) and writes it as an OCI
# archive, ready for `skopeo copy`, `podman load` or a registry push.
#
#   bash deploy/build-image.sh BINARY TAG ARCHIVE
#
# The Swift standard library is linked into BINARY (--static-swift-stdlib); the shared libraries it still needs
# (glibc, and libcurl's chain for FoundationNetworking) come from Debian's packages with their package database,
# and an SBOM is written beside ARCHIVE (ARCHIVE.spdx.json); this needs dpkg, apt and a Debian mirror. On an
# image engine that cannot run containers here (podman's runtime needs privileges a CI container may lack), the
# archive's layer can be unpacked and the binary run with chroot: .ci/image-check.sh does.
set -euo pipefail
binary=${1:?the apiprobe binary}
tag=${2:?an image tag}
archive=${3:?the OCI archive to write}
here=$(cd "$(dirname "$0")" && pwd)
context=$(mktemp -d "${TMPDIR:-/tmp}/apiprobe-image-XXXXXX")
trap 'rm -rf "$context"' EXIT

rootfs="$context/rootfs"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/tmp" "$rootfs/config" "$context/state"
chmod 1777 "$rootfs/tmp"
install -m 0755 "$binary" "$rootfs/usr/local/bin/apiprobe"
# The shared libraries the binary loads come from Debian's packages, unpacked whole with their package database,
# as distroless images are made: a CVE scanner (Trivy, Grype, Syft) reads /var/lib/dpkg and knows each library's
# package and version, and `dpkg --root ROOTFS --verify` checks every file against its package's checksums. The
# packages are those that own the libraries `ldd` lists, with what they depend on (no recommends), at the versions
# of the build host's Debian release; the Swift runtime and Foundation are linked in (--static-swift-stdlib). A
# library no Debian package owns stops the build.
libraries=$(ldd "$binary" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | sort -u)
owners=()
for library in $libraries; do
    owner=$(dpkg -S "$library" 2>/dev/null || dpkg -S "$(readlink -f "$library")" 2>/dev/null) || {
        echo "$library: no Debian package owns this library (build with --static-swift-stdlib)" >&2
        exit 1
    }
    owners+=("${owner%%:*}")
done
packages=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
    --no-enhances "${owners[@]}" | grep -E '^[a-z0-9]' | sort -u)
# The CA bundle's certificates, without the package's tools (its own dependencies, openssl and debconf, stay out).
packages="$packages ca-certificates"
mkdir -p "$context/debs"
# shellcheck disable=SC2086 # one word per package
if ! (cd "$context/debs" && apt-get download -qq $packages >/dev/null 2>&1); then
    apt-get update -qq >/dev/null
    (cd "$context/debs" && apt-get download -qq $packages >/dev/null)
fi
admin="$rootfs/var/lib/dpkg"
mkdir -p "$admin/info" "$admin/updates"
# The database's layout: "1" names Multi-Arch: same packages' files pkg:arch.list (without it dpkg looks for pkg.list).
echo 1 > "$admin/info/format"
: > "$admin/status"
: > "$admin/available"
for deb in "$context"/debs/*.deb; do
    dpkg-deb -x "$deb" "$rootfs"
    name=$(dpkg-deb -f "$deb" Package)
    key=$name
    [ "$(dpkg-deb -f "$deb" Multi-Arch)" = same ] && key="$name:$(dpkg-deb -f "$deb" Architecture)"
    # The status paragraph: the control fields, with the state dpkg writes for an installed package.
    dpkg-deb -f "$deb" | awk 'NR == 1 { print; print "Status: install ok installed"; next } { print }' \
        >> "$admin/status"
    echo >> "$admin/status"
    # The files it owns, as dpkg lists them ("/." for the root, no trailing slash), and their checksums.
    dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e 's|^\./|/|' -e 's|/$||' -e 's|^$|/.|' > "$admin/info/$key.list"
    control="$context/control-$name"
    dpkg-deb -e "$deb" "$control"
    if [ -f "$control/md5sums" ]; then cp "$control/md5sums" "$admin/info/$key.md5sums"; fi
done
# The bundle update-ca-certificates writes from ca-certificates' default set (every Mozilla certificate).
mkdir -p "$rootfs/etc/ssl/certs"
cat "$rootfs"/usr/share/ca-certificates/mozilla/*.crt > "$rootfs/etc/ssl/certs/ca-certificates.crt"
# A user that is not root, for logs and tools that look the user up; host names resolve through DNS and
# /etc/hosts, which the container engine mounts.
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/state:/sbin/nologin\n' > "$rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$rootfs/etc/group"
printf 'hosts: files dns\n' > "$rootfs/etc/nsswitch.conf"
cp "$here/Containerfile" "$context/Containerfile"

# The software bill of materials (SPDX 2.3 JSON), in the image and beside the archive: every Debian package of the
# database above, the Swift packages linked into the binary, the Swift runtime, apiprobe itself.
version=$("$binary" --version 2>/dev/null | head -1)
swift_version=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([^ ]*\).*/\1/p' | head -1)
mkdir -p "$rootfs/usr/share/doc/apiprobe"
python3 "$here/sbom.py" "$rootfs" "$tag" "${version:-unknown}" "${swift_version:-unknown}" "$here/.." \
    "$rootfs/usr/share/doc/apiprobe/sbom.spdx.json"

storage=(--storage-driver vfs)
buildah "${storage[@]}" bud --quiet --layers=false -t "$tag" -f "$context/Containerfile" "$context" >/dev/null
rm -f "$archive"
buildah "${storage[@]}" push --quiet "$tag" "oci-archive:$archive:$tag"
buildah "${storage[@]}" rmi "$tag" >/dev/null
cp "$rootfs/usr/share/doc/apiprobe/sbom.spdx.json" "$archive.spdx.json"
echo "$archive: $tag, $(du -h "$archive" | cut -f1); SBOM $archive.spdx.json"
