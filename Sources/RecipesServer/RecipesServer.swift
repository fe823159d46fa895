package import APIProbeShared
import Dispatch
package import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// The embedded recipes API (RECIPES-CONTRACT.md) on `127.0.0.1`, with knobs for latency, failures and a
/// drifted variant.
///
/// It serves a few hundred built-in recipes, the same on every run:
/// `GET /api/search?q=&page=` (pages of 30), `GET /api/get?rId=` and `GET /api/health`. Errors are JSON,
/// `{"error": {"message": "…"}}`: 400 for a missing or invalid parameter, 404 for an unknown id or route,
/// 401 for a wrong or missing `key` when the server has an API key, 503 with `Retry-After` for a simulated
/// failure.
///
/// ```swift
/// let server = try await RecipesServer.start()
/// let url = server.baseURL.appendingPathComponent("api/search")  // http://127.0.0.1:<port>/api/search
/// server.knobs.latency = .fixed(.milliseconds(20))
/// server.setDrifted(true)
/// await server.stop()
/// ```
package final class RecipesServer: Sendable {
    /// How the server starts; every knob can also be changed while it runs through ``knobs``.
    package struct Configuration: Sendable {
        /// Latency added before every response.
        package var latency: Latency
        /// The share of requests, from 0 to 1, answered with 503 and `Retry-After`.
        var failureRate: Double
        /// The `Retry-After` value of simulated failures, in seconds.
        var retryAfterSeconds: Int
        /// Whether to serve the drifted variant of the API from the start.
        var isDrifted: Bool
        /// When set, every `/api/search` and `/api/get` request must carry it as the `key` query parameter.
        var apiKey: String?
        /// The seed of the latency and failure draws; the same seed gives the same sequence.
        var seed: UInt64
        /// The port on `127.0.0.1`; `0` (the default) lets the system pick a free one.
        package var port: Int

        package init(
            latency: Latency = .none,
            failureRate: Double = 0,
            retryAfterSeconds: Int = 1,
            isDrifted: Bool = false,
            apiKey: String? = nil,
            seed: UInt64 = 42,
            port: Int = 0
        ) {
            self.latency = latency
            self.failureRate = failureRate
            self.retryAfterSeconds = retryAfterSeconds
            self.isDrifted = isDrifted
            self.apiKey = apiKey
            self.seed = seed
            self.port = port
        }
    }

    /// The size of a search page.
    package static let pageSize = 30

    /// The port the system picked on `127.0.0.1`.
    package let port: Int

    /// `http://127.0.0.1:<port>`.
    package var baseURL: URL {
        // A literal host and a number: always a valid URL.
        URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// The run-time settings: latency, failure rate, drifted variant, API key.
    package let knobs: RecipesServerKnobs

    private let task: Task<Void, any Error>

    private init(port: Int, knobs: RecipesServerKnobs, task: Task<Void, any Error>) {
        self.port = port
        self.knobs = knobs
        self.task = task
    }

    /// Starts a server on `127.0.0.1` (on a port the system picks, unless the configuration names one), and
    /// returns once it accepts connections.
    ///
    /// - Throws: ``RecipesServerError`` when the server cannot bind.
    package static func start(_ configuration: Configuration = Configuration()) async throws -> RecipesServer {
        let knobs = RecipesServerKnobs(configuration)
        let router = Router()
        let routes = Routes(catalog: .standard, knobs: knobs)
        routes.register(on: router)
        do {
            let (port, task) = try await LoopbackLaunch.start(
                router.buildResponder(), host: "127.0.0.1", port: configuration.port, name: "RecipesServer")
            return RecipesServer(port: port, knobs: knobs, task: task)
        } catch {
            throw RecipesServerError(
                message: "cannot start the recipes server on 127.0.0.1: "
                    + (error.isAddressInUse ? "port \(configuration.port) is already in use" : error.reason),
                isAddressInUse: error.isAddressInUse)
        }
    }

    /// Serves the drifted variant (`true`) or the contract (`false`) from the next request on.
    package func setDrifted(_ isDrifted: Bool) {
        knobs.isDrifted = isDrifted
    }

    /// Stops accepting connections, ends the server and returns when its port is closed.
    package func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    /// Runs `body` against a fresh server and stops it afterwards, even when `body` throws.
    ///
    /// ```swift
    /// try await RecipesServer.with(.init(isDrifted: true)) { server in
    ///     _ = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("api/health"))
    /// }
    /// ```
    package static func with<R>(
        _ configuration: Configuration = Configuration(),
        _ body: (RecipesServer) async throws -> R
    ) async throws -> R {
        let server = try await start(configuration)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }
}

/// The recipes server could not start.
package struct RecipesServerError: Error, Sendable, CustomStringConvertible {
    package var message: String
    /// The port asked for is taken by another process.
    package var isAddressInUse: Bool

    init(message: String, isAddressInUse: Bool = false) {
        self.message = message
        self.isAddressInUse = isAddressInUse
    }

    package var description: String { message }
}

/// The routes of the recipes API.
private struct Routes: Sendable {
    let catalog: RecipeCatalog
    let knobs: RecipesServerKnobs

    func register(on router: Router<BasicRequestContext>) {
        router.add(middleware: JSONNotFoundMiddleware())
        router.get("/api/health") { _, _ in
            Self.json(.ok, #"{"status":"ok"}"#)
        }
        router.get("/api/search") { request, _ in
            await respond(to: request) { state throws(APIError) in
                try search(request, drifted: state.isDrifted)
            }
        }
        router.get("/api/get") { request, _ in
            await respond(to: request) { state throws(APIError) in
                try get(request, drifted: state.isDrifted)
            }
        }
    }

    /// Applies the knobs (latency, failure, API key), then answers with `body` or the error it throws.
    private func respond(
        to request: Request,
        _ body: (RecipesServerKnobs.State) throws(APIError) -> Response
    ) async -> Response {
        let (state, delay, fails) = knobs.draw()
        if delay > .zero {
            try? await Task.sleep(for: delay)
        }
        if fails {
            var response = Self.error(
                .serviceUnavailable,
                "the recipes service is temporarily unavailable; retry after \(state.retryAfterSeconds) s")
            response.headers[.retryAfter] = String(state.retryAfterSeconds)
            return response
        }
        if let apiKey = state.apiKey {
            let given = request.uri.queryParameters["key"].map(String.init)
            guard given == apiKey else {
                return Self.error(
                    .unauthorized, given == nil ? "missing API key: add key=<your key>" : "invalid API key")
            }
        }
        do {
            return try body(state)
        } catch {
            return Self.error(error.status, error.message)
        }
    }

    private func search(_ request: Request, drifted: Bool) throws(APIError) -> Response {
        let parameters = request.uri.queryParameters
        guard let query = parameters["q"] else {
            throw APIError(status: .badRequest, message: "missing query parameter q")
        }
        var page = 1
        if let text = parameters["page"] {
            guard let number = Int(text), number >= 1 else {
                throw APIError(status: .badRequest, message: "page must be a positive integer, not \"\(text)\"")
            }
            page = number
        }
        let matches = catalog.search(String(query))
        let start = min(
            (page - 1).multipliedReportingOverflow(by: RecipesServer.pageSize).overflow
                ? matches.count : (page - 1) * RecipesServer.pageSize, matches.count)
        let slice = matches[start..<min(start + RecipesServer.pageSize, matches.count)]
        var json = JSONText()
        json.raw("{\"count\":\(slice.count),\"recipes\":[")
        for (offset, recipe) in slice.enumerated() {
            if offset > 0 { json.raw(",") }
            json.recipe(recipe, drifted: drifted, withIngredients: false)
        }
        json.raw("]}")
        return Self.json(.ok, json.text)
    }

    private func get(_ request: Request, drifted: Bool) throws(APIError) -> Response {
        guard let id = request.uri.queryParameters["rId"] else {
            throw APIError(status: .badRequest, message: "missing query parameter rId")
        }
        guard let recipe = catalog.recipe(id: String(id)) else {
            throw APIError(status: .notFound, message: "no recipe with id \"\(id)\"")
        }
        var json = JSONText()
        json.raw("{\"recipe\":")
        json.recipe(recipe, drifted: drifted, withIngredients: true)
        json.raw("}")
        return Self.json(.ok, json.text)
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var body = JSONText()
        body.raw("{\"error\":{\"message\":")
        body.string(message)
        body.raw("}}")
        return json(status, body.text)
    }
}

/// Answers a request for an unknown route with a JSON 404, like every other error of the API.
private struct JSONNotFoundMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return Routes.error(
                .notFound,
                "no route for \(request.method) \(request.uri.path); try /api/search?q=chicken or /api/get?rId=35382")
        }
    }
}

private struct APIError: Error {
    var status: HTTPResponse.Status
    var message: String
}

/// Compact JSON written by hand, so the bytes are the same on every run and platform.
private struct JSONText {
    private(set) var text = ""

    mutating func raw(_ fragment: String) { text += fragment }

    mutating func string(_ value: String) {
        var bytes: [UInt8] = []
        appendJSONString(value, to: &bytes)
        text += String(decoding: bytes, as: UTF8.self)
    }

    mutating func field(_ name: String, _ value: String) {
        string(name)
        raw(":")
        string(value)
        raw(",")
    }

    /// A recipe, keys in a fixed order; the drifted variant renames `social_rank` to `rank`, writes
    /// `recipe_id` as an integer and adds `cook_time_minutes`.
    mutating func recipe(_ recipe: CatalogRecipe, drifted: Bool, withIngredients: Bool) {
        raw("{")
        field("publisher", recipe.publisher)
        field("f2f_url", recipe.f2fURL)
        field("title", recipe.title)
        field("source_url", recipe.sourceURL)
        if drifted {
            raw("\"recipe_id\":\(recipe.id),")
        } else {
            field("recipe_id", String(recipe.id))
        }
        field("image_url", recipe.imageURL)
        raw(drifted ? "\"rank\":" : "\"social_rank\":")
        raw(
            "\(recipe.socialRankHundredths / 100).\(String(format: "%02d", recipe.socialRankHundredths % 100).trimmingTrailingZero),"
        )
        if drifted {
            raw("\"cook_time_minutes\":\(recipe.cookTimeMinutes),")
        }
        if withIngredients {
            raw("\"ingredients\":[")
            for (offset, ingredient) in recipe.ingredients.enumerated() {
                if offset > 0 { raw(",") }
                string(ingredient)
            }
            raw("],")
        }
        string("publisher_url")
        raw(":")
        string(recipe.publisherURL)
        raw("}")
    }
}

extension String {
    /// `"50"` → `"5"`, `"00"` → `"0"`: ranks print as `87.5` and `100.0`, like the real API.
    fileprivate var trimmingTrailingZero: String {
        count == 2 && hasSuffix("0") ? String(prefix(1)) : self
    }
}

extension RecipesServerError: ExitStatusReporting {
    /// The embedded server could not start: a port in use is the user's choice (status 2; `demo --serve` says
    /// which), anything else an internal error (3).
    package var exitStatus: ExitStatus { isAddressInUse ? .badInput : .internalError }
}
