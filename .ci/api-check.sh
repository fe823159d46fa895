#!/usr/bin/env bash
# The public API of the four products against the last release's: a change that breaks a user's code fails the
# check unless it is listed in .ci/api-breakage-allowlist.txt (and so in the CHANGELOG, on purpose).
#
# .ci/api-baseline/RELEASE names the release ("0.1.0 <commit>", tagged 0.1.0); .ci/api-baseline/<commit>/ holds its
# API, as `swift package diagnose-api-breaking-changes <commit> --baseline-dir .ci/api-baseline` wrote it. The
# check reads those files instead of building the release again, and needs no git history (CI may clone shallow):
# they are offered under HEAD's own hash, the revision the tool is asked to compare against. After a release:
# regenerate the baseline for its commit, update RELEASE, empty the allowlist.
set -euo pipefail
cd "$(dirname "$0")/.."
read -r version commit < .ci/api-baseline/RELEASE
[ -d ".ci/api-baseline/$commit" ] || { echo "no API baseline for $version ($commit) in .ci/api-baseline" >&2; exit 1; }
head=$(git rev-parse HEAD)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -R ".ci/api-baseline/$commit" "$scratch/$head"
echo "API of HTTPFixtures, HTTPStubs, JSONShape and ContractTesting against $version ($commit);" \
    "$(grep -c . .ci/api-breakage-allowlist.txt || true) breaking changes allowed (.ci/api-breakage-allowlist.txt)"
swift package diagnose-api-breaking-changes HEAD \
    --products HTTPFixtures HTTPStubs JSONShape ContractTesting \
    --baseline-dir "$scratch" --breakage-allowlist-path .ci/api-breakage-allowlist.txt
