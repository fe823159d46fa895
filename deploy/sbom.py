#!/usr/bin/env python3
"""Writes the SPDX 2.3 software bill of materials of the apiprobe image (deploy/build-image.sh calls it).

    python3 deploy/sbom.py ROOTFS TAG APIPROBE_VERSION SWIFT_VERSION REPOSITORY OUTPUT

What the image holds, each with a package URL a scanner matches against its advisories:
- every Debian package of the image, read from the image's own package database (ROOTFS/var/lib/dpkg/status,
  which deploy/build-image.sh writes from the .deb files it unpacks): pkg:deb/debian/NAME@VERSION?arch=…&distro=…;
- the Swift packages linked into the `apiprobe` executable (of the package at REPOSITORY, resolved): the packages
  of the products its targets use, with everything they depend on in turn: pkg:swift/github.com/OWNER/NAME@VERSION;
- the Swift runtime and Foundation, linked statically (--static-swift-stdlib);
- apiprobe itself.
The document's namespace and creation time follow from its contents (SOURCE_DATE_EPOCH when set), so two builds
of the same image write the same file.
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from urllib.parse import quote


def paragraphs(path):
    """The paragraphs of a dpkg status file, as dictionaries of their fields (continuation lines dropped)."""
    text = open(path, encoding="utf-8").read()
    for block in re.split(r"\n\s*\n", text.strip()):
        fields = {}
        for line in block.splitlines():
            if line[:1] in (" ", "\t") or ":" not in line:
                continue
            key, value = line.split(":", 1)
            fields[key] = value.strip()
        if fields.get("Package"):
            yield fields


def os_release(rootfs_or_host):
    values = {}
    for candidate in (os.path.join(rootfs_or_host, "etc/os-release"), "/etc/os-release"):
        if os.path.exists(candidate):
            for line in open(candidate, encoding="utf-8"):
                if "=" in line:
                    key, value = line.rstrip("\n").split("=", 1)
                    values[key] = value.strip('"')
            break
    return values


def supplier(maintainer):
    """SPDX wants `Organization: NAME (EMAIL)`; Debian's Maintainer field is `NAME <EMAIL>`."""
    match = re.match(r"^(.*?)\s*<([^>]*)>\s*$", maintainer or "")
    if not match:
        return "NOASSERTION"
    return "Organization: %s (%s)" % (match.group(1).replace("(", "").replace(")", ""), match.group(2))


def spdx_id(kind, name):
    return "SPDXRef-%s-%s" % (kind, re.sub(r"[^A-Za-z0-9.-]", "-", name))


def swift_packages(repo):
    """(identity, url, version) of each package the `apiprobe` executable links, with their own dependencies.

    The executable's targets are read from `swift package describe`, the packages that vend their products from
    the manifest's `.product(name:package:)` lines, and what those packages depend on in turn from
    `swift package show-dependencies`. A product no line names stops the script: an SBOM does not guess."""
    def swift(*arguments):
        return json.loads(subprocess.run(["swift", "package", "--package-path", repo, *arguments], check=True,
                                         capture_output=True, text=True).stdout)

    description = swift("describe", "--type", "json")
    tree = swift("show-dependencies", "--format", "json")
    targets = {target["name"]: target for target in description.get("targets", [])}
    products, pending, seen = set(), ["apiprobe"], set()
    while pending:
        name = pending.pop()
        if name in seen or name not in targets:
            continue
        seen.add(name)
        pending.extend(targets[name].get("target_dependencies", []))
        products.update(targets[name].get("product_dependencies", []))
    manifest = open(os.path.join(repo, "Package.swift"), encoding="utf-8").read()
    vendors = {name: package.lower() for name, package in
               re.findall(r'\.product\(\s*name:\s*"([^"]+)",\s*package:\s*"([^"]+)"', manifest)}
    unknown = sorted(products - vendors.keys())
    if unknown:
        sys.exit("sbom.py: Package.swift names no package for the product(s) %s" % ", ".join(unknown))
    nodes = {}

    def walk(node):
        nodes[node["identity"]] = node
        for child in node.get("dependencies", []):
            walk(child)

    for child in tree.get("dependencies", []):
        walk(child)
    linked, pending = set(), [vendors[product] for product in products]
    while pending:
        identity = pending.pop()
        if identity in linked:
            continue
        if identity not in nodes:
            sys.exit("sbom.py: the package %s is not in the resolved dependency tree" % identity)
        linked.add(identity)
        pending.extend(child["identity"] for child in nodes[identity].get("dependencies", []))
    return sorted((i, nodes[i]["url"], nodes[i]["version"]) for i in linked)


def main():
    if len(sys.argv) != 7:
        sys.exit("usage: " + __doc__.strip().splitlines()[2].strip())
    rootfs, tag, version, swift_version, repo, output = sys.argv[1:]
    release = os_release(rootfs)
    distro = "%s-%s" % (release.get("ID", "debian"), release.get("VERSION_ID", ""))
    packages, relationships = [], []

    image_id = "SPDXRef-image"
    packages.append({
        "SPDXID": image_id, "name": tag, "versionInfo": version, "primaryPackagePurpose": "CONTAINER",
        "downloadLocation": "NOASSERTION", "filesAnalyzed": False, "licenseConcluded": "NOASSERTION",
        "licenseDeclared": "NOASSERTION", "copyrightText": "NOASSERTION",
        "comment": "FROM scratch: the Debian packages below unpacked with their dpkg database, the apiprobe binary.",
    })
    relationships.append({"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES",
                          "relatedSpdxElement": image_id})

    def contained(package):
        packages.append(package)
        relationships.append({"spdxElementId": image_id, "relationshipType": "CONTAINS",
                              "relatedSpdxElement": package["SPDXID"]})

    tool_id = "SPDXRef-apiprobe"
    contained({
        "SPDXID": tool_id, "name": "apiprobe", "versionInfo": version, "primaryPackagePurpose": "APPLICATION",
        "downloadLocation": "NOASSERTION", "filesAnalyzed": False, "licenseConcluded": "NOASSERTION",
        "licenseDeclared": "NOASSERTION", "copyrightText": "NOASSERTION",
        "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                          "referenceLocator": "pkg:generic/apiprobe@%s" % quote(version, safe="")}],
    })
    runtime_id = spdx_id("swift", "runtime")
    packages.append({
        "SPDXID": runtime_id, "name": "swift-runtime-and-foundation", "versionInfo": swift_version,
        "supplier": "Organization: Swift.org", "downloadLocation": "https://www.swift.org/install/",
        "filesAnalyzed": False, "licenseConcluded": "NOASSERTION", "licenseDeclared": "Apache-2.0",
        "copyrightText": "NOASSERTION",
        "comment": "The Swift standard library, Dispatch and Foundation, linked into apiprobe (--static-swift-stdlib).",
        "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                          "referenceLocator": "pkg:generic/swift@%s" % quote(swift_version, safe="")}],
    })
    relationships.append({"spdxElementId": tool_id, "relationshipType": "STATIC_LINK",
                          "relatedSpdxElement": runtime_id})

    for identity, url, swift_package_version in swift_packages(repo):
        match = re.match(r"^https?://(github\.com/[^/]+/[^/]+?)(\.git)?/?$", url)
        namespace = match.group(1) if match else identity
        package_id = spdx_id("swift", identity)
        packages.append({
            "SPDXID": package_id, "name": identity, "versionInfo": swift_package_version,
            "downloadLocation": url, "filesAnalyzed": False, "licenseConcluded": "NOASSERTION",
            "licenseDeclared": "NOASSERTION", "copyrightText": "NOASSERTION",
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                              "referenceLocator": "pkg:swift/%s@%s" % (namespace, quote(swift_package_version, safe=""))}],
        })
        relationships.append({"spdxElementId": tool_id, "relationshipType": "STATIC_LINK",
                              "relatedSpdxElement": package_id})

    for fields in paragraphs(os.path.join(rootfs, "var/lib/dpkg/status")):
        name, deb_version, arch = fields["Package"], fields.get("Version", ""), fields.get("Architecture", "")
        qualifiers = "arch=%s&distro=%s" % (arch, distro)
        source = fields.get("Source", "").split(" ")[0]
        if source and source != name:
            qualifiers += "&upstream=%s" % quote(source, safe="")
        contained({
            "SPDXID": spdx_id("deb", name), "name": name, "versionInfo": deb_version,
            "supplier": supplier(fields.get("Maintainer")), "downloadLocation": "NOASSERTION",
            "filesAnalyzed": False, "licenseConcluded": "NOASSERTION", "licenseDeclared": "NOASSERTION",
            "copyrightText": "NOASSERTION",
            "comment": "Debian package; its copyright file is /usr/share/doc/%s/copyright in the image." % name,
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                              "referenceLocator": "pkg:deb/%s/%s@%s?%s" % (
                                  release.get("ID", "debian"), name, quote(deb_version, safe=""), qualifiers)}],
        })

    body = json.dumps({"packages": packages, "relationships": relationships}, sort_keys=True)
    digest = hashlib.sha256(body.encode()).hexdigest()
    created = int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or int(time.time())
    document = {
        "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT",
        "name": "%s image" % tag,
        "documentNamespace": "https://github.com/apiprobe/apiprobe/spdx/%s-%s" % (quote(tag, safe=""), digest),
        "creationInfo": {"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created)),
                         "creators": ["Tool: apiprobe-deploy-sbom.py"]},
        "packages": packages, "relationships": relationships,
    }
    temporary = output + ".tmp"
    with open(temporary, "w", encoding="utf-8") as file:
        json.dump(document, file, indent=2, sort_keys=True)
        file.write("\n")
    os.replace(temporary, output)
    print("%s: SPDX 2.3, %d packages (%d Debian, %d Swift)" % (
        output, len(packages),
        sum(1 for p in packages if p["SPDXID"].startswith("SPDXRef-deb-")),
        sum(1 for p in packages if p["SPDXID"].startswith("SPDXRef-swift-") and p["SPDXID"] != runtime_id)),
        file=sys.stderr)


if __name__ == "__main__":
    main()
