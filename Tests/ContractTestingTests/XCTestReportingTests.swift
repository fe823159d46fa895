import APIProbeShared
import ContractTesting
import Foundation
import XCTest

#if canImport(Testing)
import Testing
#endif

/// Proves the XCTest reporting path: outside a Swift Testing test, a failure goes to `XCTFail`.
final class XCTestReportingTests: XCTestCase {
    static let drifted = Data(#"{"publisher": "A", "title": "Soup", "recipe_id": "1", "rank": 99.5}"#.utf8)

    func testVerifierGivesTheMessage() {
        XCTAssertEqual(
            verifyDecoding(Recipe.self, from: .data(Self.drifted, named: "get.json")).message,
            #"get.json: /: expected key "social_rank", found an object without it; did you mean "rank"? (keys: publisher, rank, recipe_id, title)"#
        )
    }

    func testPassingDecodeRecordsNothing() {
        let fixed = String(decoding: Self.drifted, as: UTF8.self).replacingOccurrences(
            of: "\"rank\"", with: "\"social_rank\"")
        let values = expectDecoding(Recipe.self, from: .data(Data(fixed.utf8)))
        XCTAssertEqual(values.map(\.socialRank), [99.5])
    }

    #if canImport(Darwin)
    func testFailureIsRecordedThroughXCTest() {
        let options = XCTExpectedFailure.Options()
        options.issueMatcher = { issue in
            issue.compactDescription.contains(
                #"get.json: /: expected key "social_rank", found an object without it"#)
        }
        XCTExpectFailure("the fixture drifted", options: options) {
            expectDecoding(Recipe.self, from: .data(Self.drifted, named: "get.json"))
        }
    }
    #endif
}

#if !canImport(Darwin) && canImport(Testing)
/// swift-corelibs-xctest has no `XCTExpectFailure`: run a nested XCTest case on a plain thread (where no
/// Swift Testing test is current, so the assertion takes the XCTest path) and count what XCTest recorded.
@Suite struct XCTestPathTests {
    @Test func failureOutsideSwiftTestingIsRecordedByXCTest() async {
        let failures = Locked<Int?>(nil)
        // Awaited, not waited for with a semaphore: a test never blocks a thread of the cooperative pool.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                let nested = XCTestCase(name: "nestedDecoding") { _ in
                    expectDecoding(Recipe.self, from: .data(XCTestReportingTests.drifted, named: "get.json"))
                }
                nested.run()
                failures.withLock { $0 = nested.testRun?.totalFailureCount }
                done.resume()
            }
            thread.start()
        }
        #expect(failures.withLock { $0 } == 1)
    }
}
#endif
