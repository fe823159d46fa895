#!/usr/bin/env bash
# Uses apiprobe the way a team with its own API client does: a package in a temporary folder that depends on
# this checkout by path, fixtures imported from a Postman collection with the built `apiprobe`, and contract
# tests with one suite-level decoder and glob ignores. It passes when the package's own `swift test` passes:
# its tests assert the decoded values and the hints in the failure messages.
#
#   bash .ci/outside-package.sh        (after `swift build`, which makes .build/debug/apiprobe)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
apiprobe="$repo/.build/debug/apiprobe"
[ -x "$apiprobe" ] || { echo "build apiprobe first (swift build)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/apiprobe-user-XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/Sources/GitHubClient" "$work/Sources/Drawing" "$work/Tests/GitHubClientTests"
cat > "$work/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "GitHubClient",
    platforms: [.macOS(.v14), .iOS(.v16)],
    dependencies: [.package(path: "$repo")],
    targets: [
        .target(name: "GitHubClient"),
        .target(name: "Drawing"),
        .testTarget(
            name: "GitHubClientTests",
            dependencies: [
                "GitHubClient", "Drawing", .product(name: "ContractTesting", package: "$(basename "$repo")"),
            ]
        ),
    ]
)
SWIFT

cat > "$work/Sources/GitHubClient/Models.swift" <<'SWIFT'
/// The app's models, as an app writes them: camelCase properties for a snake_case API.
public struct Issue: Decodable, Sendable {
    public var number: Int
    public var title: String
    public var nodeId: String
    public var labels: [Label]
    public var assignee: User?
}

public struct Label: Decodable, Sendable {
    public var name: String
}

public struct User: Decodable, Sendable {
    public var login: String
}

public struct Repository: Decodable, Sendable {
    public var fullName: String
    public var owner: User
}
SWIFT

# What SwiftUI declares at the top level, by the same names (Linux has no SwiftUI): a test target that imports it
# beside ContractTesting must still be able to write `Shape`. ContractTesting re-exports its foundation, so any
# generic top-level name there (JSONShape's `Shape` until 0.1.0, HTTPFixtures' `Body`) is ambiguous here.
cat > "$work/Sources/Drawing/Drawing.swift" <<'SWIFT'
public protocol Shape {
    func area() -> Double
}

public struct Body: Sendable {
    public init() {}
}
SWIFT

cat > "$work/Tests/GitHubClientTests/ContractTests.swift" <<'SWIFT'
import ContractTesting
import Drawing
import Foundation
import GitHubClient
import Testing

struct Square: Shape {
    func area() -> Double { 4 }
}

@Test func appNamesAreNotAmbiguousBesideContractTesting() {
    let shapes: [any Shape] = [Square()]
    let body = Body()
    #expect(shapes.map { $0.area() } == [4])
    _ = body
}

let gitHubDecoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
}()

@Suite(.contractTesting(decoder: gitHubDecoder))
struct GitHubContractTests {
    @Test func everyImportedExampleDecodes() {
        let pages = expectDecoding([GitHubClient.Issue].self, from: .everyFixture(of: "github/issues"))
        #expect(pages.flatMap { $0 }.map(\.number) == [1, 2])
        let repository = expectDecoding(Repository.self, from: .fixture("github/repository"))
        #expect(repository.first?.fullName == "apple/swift")
    }

    @Test func keyCoverageWithGlobIgnores() {
        let coverage = expectKeyCoverage(
            Repository.self, from: .fixture("github/repository"), ignoring: ["/private", "/**/*_url"])
        #expect(coverage?.isComplete == true)
    }

    @Test func theFailureMessagesHint() {
        struct Renamed: Decodable { var nodeID: String }
        let message = verifyDecoding([Renamed].self, from: .fixture("github/issues")).message
        #expect(
            message?.contains(
                #"expected a key that .convertFromSnakeCase turns into "nodeID", found "node_id", which it turns into "nodeId""#
            ) == true, "\(message ?? "")")
        let plain = verifyDecoding([GitHubClient.Issue].self, from: .fixture("github/issues"), decoder: JSONDecoder())
            .message
        #expect(plain?.contains("did you mean to use .convertFromSnakeCase?") == true, "\(plain ?? "")")
    }
}
SWIFT

cd "$work"
"$apiprobe" import postman "$repo/Tests/FixtureImportTests/Fixtures/github.postman_collection.json" \
    --into Stubs/github --template '/repos/{owner}/{repo}/issues' --template '/repos/{owner}/{repo}=repository' \
    --var githubToken=ghp_outsidePackage000000000000
if grep -rq ghp_outsidePackage Stubs; then echo "a planted token reached the fixtures"; exit 1; fi
CI= env -u APIPROBE_STRICT swift test 2>&1 | tail -25
