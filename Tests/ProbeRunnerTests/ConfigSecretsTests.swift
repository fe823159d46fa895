import Foundation
import HTTPFixtures
import ProbeRunner
import Testing

/// The values a config takes from the environment are the run's secrets, from the first error on.
struct ConfigSecretsTests {
    @Test func anErrorQuotingASubstitutedValueShowsTheVariableInstead() {
        let text = """
            api: x
            baseURL: http://127.0.0.1:9
            endpoints:
              - name: search
                path: /x
                samples: ${SAMPLES}
            """
        let error = #expect(throws: InputError.self) {
            try ProbeConfig.parse(Data(text.utf8), environment: ["SAMPLES": "many-SECRET-4711"], file: "apiprobe.yml")
        }
        #expect(
            error?.description
                == #"apiprobe.yml:6:14: endpoints.search.samples: expected a whole number from 1 to 10000, found "${SAMPLES}""#
        )
    }

    @Test func aDefaultWrittenInTheFileIsNoSecret() throws {
        let text = """
            api: x
            baseURL: http://127.0.0.1:9
            endpoints:
              - name: search
                path: /x
                samples: ${SAMPLES:-lots-of-them}
            """
        let error = #expect(throws: InputError.self) {
            try ProbeConfig.parse(Data(text.utf8), environment: [:], file: "apiprobe.yml")
        }
        #expect(error?.found == #""lots-of-them""#)
    }
}
