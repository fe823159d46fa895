// swift-tools-version:6.0
import PackageDescription

// Products are promises: only the four libraries a user links into a test target are products.
// Everything else (the probe runner, the demo server, the command-line tool, benchmarks) is a target,
// so a consumer of `HTTPStubs` never fetches Hummingbird or Yams.
let package = Package(
    name: "apiprobe",
    platforms: [.macOS(.v14), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "HTTPFixtures", targets: ["HTTPFixtures"]),
        .library(name: "HTTPStubs", targets: ["HTTPStubs"]),
        .library(name: "JSONShape", targets: ["JSONShape"]),
        .library(name: "ContractTesting", targets: ["ContractTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0"),
        // The probe runner's HTTP client: phase timings (DNS, connect, TLS, first byte) and the server's certificates,
        // which URLSession on Linux does not give. Only ProbeRunner (and so the tool) links them.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // Documentation only (`swift package generate-documentation`); no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: Core libraries (Foundation and the test frameworks only)
        // APIProbeShared holds the helpers several modules need (JSON Pointer tokens, the version, display
        // paths), `package`-visible: one place for each, and no product of its own.
        .target(name: "APIProbeShared"),
        .target(name: "HTTPFixtures", dependencies: ["APIProbeShared"]),
        .target(name: "HTTPStubs", dependencies: ["HTTPFixtures", "APIProbeShared"]),
        // The HAR and Postman importers and fixture naming: the command line's, not linked into users' tests.
        .target(name: "FixtureImport", dependencies: ["HTTPFixtures", "APIProbeShared"]),
        .target(name: "JSONShape", dependencies: ["HTTPFixtures", "APIProbeShared"]),
        // JSON Schema as the standard says (2020-12, 2019-09, draft-07/-06/-04, OpenAPI 3.0's schema object): one
        // validator behind every check. JSONShape is the shape model for inference and drift; this is the judge.
        .target(name: "JSONSchemaValidation", dependencies: ["HTTPFixtures", "APIProbeShared"]),
        .target(
            name: "ContractTesting",
            dependencies: ["HTTPFixtures", "HTTPStubs", "JSONShape", "JSONSchemaValidation", "APIProbeShared"]),

        // MARK: Probe runner, sample client, demo server, command-line tool
        // The probe runner in three modules, by job: the client that measures what it sends, the runner that
        // reads the config, makes rounds and keeps their state, and the reports made from the rounds.
        .target(
            name: "ProbeClient",
            dependencies: [
                "HTTPFixtures", "APIProbeShared",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "ProbeRunner",
            dependencies: [
                "ProbeClient", "FixtureImport", "HTTPFixtures", "JSONShape", "JSONSchemaValidation", "APIProbeShared",
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // Consumer contracts: what an app reads, exported (apiprobe's format, Pact v4) and verified against a running
        // provider or a new description, by the one JSON Schema validator.
        .target(
            name: "ConsumerContracts",
            dependencies: [
                "ProbeClient", "OpenAPISupport", "HTTPFixtures", "JSONShape", "JSONSchemaValidation", "APIProbeShared",
            ]),
        .target(
            name: "ProbeReports",
            dependencies: [
                "ProbeRunner", "ProbeClient", "ConsumerContracts", "HTTPFixtures", "JSONShape", "APIProbeShared",
            ]),
        // OpenAPISupport reads OpenAPI 3.0 and 3.1 documents (JSON or YAML) into JSONShape snapshots and checks
        // fixtures against them. Only the command-line tool uses it: no product depends on OpenAPIKit.
        .target(
            name: "OpenAPISupport",
            dependencies: [
                "FixtureImport",
                "JSONShape", "JSONSchemaValidation", "HTTPFixtures", "APIProbeShared",
                .product(name: "Yams", package: "Yams"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "OpenAPIKitCompat", package: "OpenAPIKit"),
            ]
        ),
        .target(name: "RecipesAPI"),
        .target(
            name: "RecipesServer",
            dependencies: [
                "APIProbeShared", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "FixtureServer",
            dependencies: [
                "FixtureImport",
                "APIProbeShared", "HTTPFixtures", "HTTPStubs", "RecipesServer", "OpenAPISupport", "ProbeClient",
                "ProbeRunner",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .executableTarget(
            name: "apiprobe",
            dependencies: [
                "FixtureImport",
                "HTTPFixtures", "JSONShape", "JSONSchemaValidation", "ProbeRunner", "ProbeReports", "RecipesServer",
                "APIProbeShared", "OpenAPISupport", "FixtureServer", "ConsumerContracts",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: Benchmarks (executables, no products)
        // BenchmarkSupport: arguments, the clock, the median and peak memory, one copy for every benchmark.
        .target(name: "BenchmarkSupport", path: "Benchmarks/BenchmarkSupport"),
        .executableTarget(
            name: "StubBenchmark",
            dependencies: ["HTTPStubs", "HTTPFixtures", "BenchmarkSupport"],
            path: "Benchmarks/StubBenchmark"
        ),
        .executableTarget(
            name: "ShapeBenchmark", dependencies: ["JSONShape", "APIProbeShared", "BenchmarkSupport"],
            // The C++ references (simdjson) are built by the benchmark itself with g++, not by SwiftPM.
            path: "Benchmarks/ShapeBenchmark", exclude: ["simdjson"]),
        .executableTarget(
            name: "ContractBenchmark", dependencies: ["ContractTesting", "APIProbeShared", "BenchmarkSupport"],
            path: "Benchmarks/ContractBenchmark"),
        .executableTarget(
            name: "SchemaBenchmark",
            dependencies: ["JSONSchemaValidation", "HTTPFixtures", "APIProbeShared", "BenchmarkSupport"],
            path: "Benchmarks/SchemaBenchmark", exclude: ["jsonschema_rs_reference.py"]),
        .executableTarget(
            name: "OpenAPIBenchmark", dependencies: ["OpenAPISupport", "APIProbeShared", "BenchmarkSupport"],
            path: "Benchmarks/OpenAPIBenchmark"),
        .executableTarget(
            name: "StatusPageBenchmark",
            dependencies: ["ProbeReports", "ProbeRunner", "APIProbeShared", "BenchmarkSupport"],
            path: "Benchmarks/StatusPageBenchmark"),
        .executableTarget(
            name: "ServeBenchmark",
            dependencies: [
                "FixtureServer", "HTTPStubs", "HTTPFixtures", "RecipesServer", "BenchmarkSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Benchmarks/ServeBenchmark"
        ),
        .executableTarget(
            name: "ProbeBenchmark",
            dependencies: ["APIProbeShared", "ProbeClient", "ProbeRunner", "RecipesServer", "BenchmarkSupport"],
            path: "Benchmarks/ProbeBenchmark"
        ),

        // MARK: Tests
        // Test helpers on Foundation alone (running the tool, raw loopback servers, the missing-tool rule), so the
        // stub tests build without SwiftNIO; the echo server, on Hummingbird, is a target of its own.
        .target(
            name: "APIProbeTestSupport", dependencies: ["HTTPFixtures", "APIProbeShared"],
            path: "Tests/APIProbeTestSupport"),
        .target(
            name: "APIProbeEchoServer",
            dependencies: ["APIProbeShared", .product(name: "Hummingbird", package: "hummingbird")],
            path: "Tests/APIProbeEchoServer"
        ),
        // HTTPStubs' global mode depends on what a process did before its first StubSet, so it is checked in a
        // process of its own, which GlobalModeTests runs.
        .executableTarget(
            name: "StubsGlobalModeCheck", dependencies: ["HTTPStubs"], path: "Tests/StubsGlobalModeCheck"),
        .testTarget(
            name: "HTTPFixturesTests", dependencies: ["HTTPFixtures", "APIProbeTestSupport"]),
        .testTarget(
            name: "FixtureImportTests", dependencies: ["FixtureImport", "HTTPFixtures", "APIProbeTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "HTTPStubsTests",
            dependencies: ["HTTPStubs", "HTTPFixtures", "APIProbeTestSupport", "StubsGlobalModeCheck"]
        ),
        .testTarget(
            name: "JSONShapeTests",
            dependencies: ["JSONShape", "HTTPFixtures", "APIProbeShared", "APIProbeTestSupport"]),
        // The official JSON Schema Test Suite (../shared/json-schema-test-suite), every file, asserted.
        .testTarget(
            name: "JSONSchemaValidationTests",
            dependencies: ["JSONSchemaValidation", "HTTPFixtures", "APIProbeShared", "APIProbeTestSupport"]),
        .testTarget(
            name: "OpenAPISupportTests",
            dependencies: ["OpenAPISupport", "JSONShape", "HTTPFixtures", "APIProbeTestSupport", "APIProbeShared"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "ContractTestingTests", dependencies: ["ContractTesting", "APIProbeTestSupport", "APIProbeShared"]),
        // Helpers the probe's tests share: outside tools (promtool, the Pushgateway, Prometheus, openssl), sample
        // runs, the Prometheus text reader, the Grafana dashboard, TLS servers and certificates made by openssl.
        .target(
            name: "ProbeTestSupport",
            dependencies: [
                "ProbeRunner", "ProbeClient", "JSONShape", "APIProbeTestSupport",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/ProbeTestSupport"
        ),
        .testTarget(
            name: "ProbeClientTests",
            dependencies: [
                "ProbeClient", "HTTPFixtures", "APIProbeTestSupport",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "ProbeReportsTests",
            dependencies: [
                "ProbeReports", "ProbeRunner", "ProbeClient", "ProbeTestSupport", "APIProbeTestSupport",
                "APIProbeShared",
                "HTTPFixtures", "JSONShape",
            ]
        ),
        .testTarget(
            name: "ProbeRunnerTests",
            dependencies: [
                "FixtureImport",
                "ProbeClient", "ProbeRunner", "ProbeReports", "RecipesServer", "APIProbeTestSupport",
                "ProbeTestSupport",
                "APIProbeEchoServer",
                "APIProbeShared",
                "HTTPFixtures", "JSONShape",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(name: "RecipesAPITests", dependencies: ["RecipesAPI", "HTTPStubs", "ContractTesting"]),
        .testTarget(name: "RecipesServerTests", dependencies: ["RecipesServer", "HTTPFixtures"]),
        .testTarget(
            name: "APIProbeCLITests",
            dependencies: [
                "FixtureImport",
                "apiprobe", "HTTPFixtures", "HTTPStubs", "ContractTesting", "RecipesServer", "APIProbeTestSupport",
                "APIProbeShared",
                "APIProbeEchoServer",
                "RecipesAPI", "ConsumerContracts", "JSONShape",
            ],
            exclude: ["Fixtures"]
        ),
    ]
)

// The thread-sanitizer step of `.ci/run` builds only what the stub tests need (`APIPROBE_STUB_TESTS_ONLY` set):
// the products, the sample client, their tests and helpers, without SwiftNIO, OpenAPIKit or Hummingbird, instead
// of every target of the package a second time. Nothing else reads this variable.
if Context.environment["APIPROBE_STUB_TESTS_ONLY"] != nil {
    let needed: Set<String> = [
        "APIProbeShared", "HTTPFixtures", "HTTPStubs", "JSONShape", "JSONSchemaValidation", "ContractTesting",
        "RecipesAPI",
        "APIProbeTestSupport", "StubsGlobalModeCheck", "HTTPStubsTests", "RecipesAPITests",
    ]
    package.targets.removeAll { !needed.contains($0.name) }
    package.dependencies = []
}

// One settings loop. Strictness (warnings as errors) only at home: `.ci/run` sets APIPROBE_STRICT,
// so users who depend on the package never see unsafe flags.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings += ["ExistentialAny", "InternalImportsByDefault", "MemberImportVisibility"].map {
        .enableUpcomingFeature($0)
    }
    if Context.environment["APIPROBE_STRICT"] != nil {
        settings.append(.unsafeFlags(["-warnings-as-errors"]))
    }
    target.swiftSettings = settings
}
