import APIProbeShared
public import Foundation

extension Exchange {
    /// An exchange from raw parts, for a converter from any capture format to fixtures in a few lines.
    ///
    /// Bodies are given as bytes and stored the way `apiprobe record` stores them: JSON inline when they parse
    /// as JSON (and their `Content-Type` does not say otherwise), text when UTF-8, base64 otherwise. Then redact
    /// it and write it:
    ///
    /// ```swift
    /// for call in myProxyLog {
    ///     let exchange = Exchange(
    ///         method: call.method, url: call.url, requestHeaders: call.requestHeaders,
    ///         status: call.status, responseHeaders: call.responseHeaders, responseBody: call.body,
    ///         source: "my-proxy")
    ///     try store.write(Redactor().redact(exchange), named: "api/\(call.name)")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - method: the request method (stored upper case).
    ///   - url: the absolute URL, query included.
    ///   - requestHeaders: the request's headers that matter.
    ///   - requestBody: the request's body bytes, if any.
    ///   - status: the response status, 100 to 599.
    ///   - responseHeaders: the response's headers.
    ///   - responseBody: the response's body bytes, if any.
    ///   - source: where the exchange comes from (`metadata.source`: `"postman"`, `"my-proxy"`).
    ///   - recordedAt: when it was captured, as an ISO 8601 timestamp, if known.
    public init(
        method: String = "GET",
        url: String,
        requestHeaders: HeaderFields = [:],
        requestBody: Data? = nil,
        status: Int,
        responseHeaders: HeaderFields = [:],
        responseBody: Data? = nil,
        source: String,
        recordedAt: String? = nil
    ) {
        func body(_ bytes: Data?, _ headers: HeaderFields) -> FixtureBody? {
            guard let bytes, !bytes.isEmpty else { return nil }
            let type = headers["Content-Type"]
            return FixtureBody(bytes: bytes, contentType: type)
        }
        self.init(
            request: RecordedRequest(
                method: method, url: url, headers: requestHeaders, body: body(requestBody, requestHeaders)),
            response: RecordedResponse(
                status: status, headers: responseHeaders, body: body(responseBody, responseHeaders)),
            metadata: FixtureMetadata(recordedAt: recordedAt, apiprobeVersion: apiprobeVersion, source: source)
        )
    }
}
