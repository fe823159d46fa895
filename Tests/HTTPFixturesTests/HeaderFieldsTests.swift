import HTTPFixtures
import Testing

struct HeaderFieldsTests {
    @Test func lookupsIgnoreCaseAndKeepTheSpellingSent() {
        let headers: HeaderFields = ["x-api-key": "k1", "Content-Type": "application/json"]
        #expect(headers["X-API-Key"] == "k1")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["Accept"] == nil)
        #expect(headers.contains("X-API-KEY"))
        #expect(headers.map(\.name) == ["x-api-key", "Content-Type"])
    }

    @Test func repeatedFieldsKeepEveryValueInOrder() {
        var headers = HeaderFields()
        headers.append(name: "Set-Cookie", value: "a=1")
        headers.append(name: "Vary", value: "Accept")
        headers.append(name: "set-cookie", value: "b=2")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers["Set-Cookie"] == "a=1, b=2")
        #expect(headers.count == 3)
        #expect(headers.dictionary == ["Set-Cookie": "a=1, b=2", "Vary": "Accept"])
    }

    @Test func settingReplacesEverySpellingInPlaceOfTheFirst() {
        var headers = HeaderFields([
            .init(name: "Accept", value: "text/html"), .init(name: "X-Trace", value: "1"),
            .init(name: "ACCEPT", value: "text/plain"),
        ])
        headers["accept"] = "application/json"
        #expect(headers.map(\.name) == ["Accept", "X-Trace"])
        #expect(headers["Accept"] == "application/json")
        headers["x-trace"] = nil
        headers["Authorization"] = "Bearer t"
        #expect(headers.description == "Accept: application/json\nAuthorization: Bearer t")
    }

    @Test func aDictionaryBecomesFieldsInNameOrder() {
        let headers = HeaderFields(["b": "2", "A": "1", "a": "0"])
        #expect(headers.map(\.name) == ["A", "a", "b"])
    }
}
