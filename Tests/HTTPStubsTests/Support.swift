import Foundation
import HTTPStubs
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let base = "https://api.example.com"

func url(_ path: String) -> URL { URL(string: base + path)! }

/// Sends a request through a session and returns the body and the HTTP response, or throws the URLError.
func send(_ request: URLRequest, on session: URLSession) async throws -> (Data, HTTPURLResponse) {
    let (data, response) = try await session.data(for: request)
    return (data, try #require(response as? HTTPURLResponse))
}

func get(_ path: String, on session: URLSession) async throws -> (Data, HTTPURLResponse) {
    try await send(URLRequest(url: url(path)), on: session)
}

func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

/// The URLError a request fails with, or nil when it succeeds.
func urlError(of operation: () async throws -> Void) async -> URLError? {
    do {
        try await operation()
        return nil
    } catch let error as URLError {
        return error
    } catch {
        Issue.record("expected a URLError, got \(error)")
        return nil
    }
}
