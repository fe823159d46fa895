import APIProbeShared
public import Foundation
public import HTTPFixtures

/// Infers one shape from any number of JSON samples, reading each straight from its bytes.
///
/// Each sample is read in a single pass that merges every value into the shape built so far; no
/// document tree is built, so memory stays bounded by the size of the shape, not of the input.
///
/// ```swift
/// var inference = ShapeInference()
/// try inference.addSample(Data(#"{"id": 1, "tags": ["a"]}"#.utf8))
/// try inference.addSample(Data(#"{"id": 2, "note": null}"#.utf8))
/// inference.shape.required          // ["id"]
/// inference.sampleCount             // 2
/// ```
///
/// After a sample fails to parse, the shape may hold part of it; discard the inference.
public struct ShapeInference {
    /// How samples are read.
    public let options: InferenceOptions
    /// The number of samples read.
    public private(set) var sampleCount = 0
    /// The shape so far, in flat arrays: a copy of the inference copies them on its first write.
    private var store: ShapeStore
    private let reader: StreamingReader

    public init(options: InferenceOptions = InferenceOptions()) {
        self.options = options
        self.store = ShapeStore(tracksEnums: options.detectsEnums)
        self.reader = StreamingReader(options: options)
    }

    /// The shape of every sample read so far.
    public var shape: ShapeNode { store.shape(of: ShapeStore.root) }

    /// Runs `body` on the store moved out of `self`, so it stays uniquely referenced (no copy on write)
    /// while a sample is read into it.
    private mutating func withStore<R, Failure: Error>(_ body: (inout ShapeStore) throws(Failure) -> R)
        throws(Failure) -> R
    {
        var store = self.store
        self.store = ShapeStore.placeholder
        defer { self.store = store }
        return try body(&store)
    }

    /// Reads one JSON document.
    ///
    /// - Parameters:
    ///   - data: the document's bytes.
    ///   - file: the name used in errors.
    /// - Throws: `InputError` with the line and column of a syntax error, or when nesting is deeper
    ///   than ``InferenceOptions/maximumDepth``.
    /// - Complexity: O(*n*) in the length of the document.
    public mutating func addSample(_ data: Data, file: String = "<input>") throws(InputError) {
        let reader = self.reader
        let result: Result<Void, InputError> = withStore { store in
            data.withUnsafeBytes { raw in
                do throws(InputError) {
                    try reader.read(raw.bindMemory(to: UInt8.self), into: &store)
                    return .success(())
                } catch {
                    return .failure(error.inFile(file))
                }
            }
        }
        try result.get()
        sampleCount += 1
    }

    /// Reads many documents, split across the processor's cores; the shape is the one reading them in order
    /// gives (shapes merge exactly), so this is ``addSample(_:file:)`` for each, only faster.
    ///
    /// ```swift
    /// var inference = ShapeInference()
    /// try inference.addSamples(bodies.map { ($0, "Stubs/recipes/search.json") })
    /// ```
    ///
    /// - Parameters:
    ///   - samples: each sample's JSON bytes and the file to name in errors.
    ///   - maximumConcurrency: the most samples read at once; the number of active cores by default.
    /// - Throws: `InputError` for the first sample, in order, that is not JSON, naming its file and place.
    public mutating func addSamples(
        _ samples: [(json: Data, file: String)],
        maximumConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount
    ) throws(InputError) {
        // Parts of at least four samples: below that, a thread costs more than it saves.
        let workers = max(1, min(maximumConcurrency, samples.count / 4))
        guard workers > 1 else {
            for sample in samples { try addSample(sample.json, file: sample.file) }
            return
        }
        let options = self.options
        // Each part's result, written by its worker.
        let results = Locked<[(ShapeNode, Int, InputError?)?]>(Array(repeating: nil, count: workers))
        DispatchQueue.concurrentPerform(iterations: workers) { part in
            let range = (samples.count * part / workers)..<(samples.count * (part + 1) / workers)
            var inference = ShapeInference(options: options)
            var failure: InputError?
            for index in range {
                do throws(InputError) {
                    try inference.addSample(samples[index].json, file: samples[index].file)
                } catch {
                    failure = error
                    break
                }
            }
            let result = (inference.shape, inference.sampleCount, failure)
            results.withLock { $0[part] = result }
        }
        // In order, as reading them one after another would: first-seen key order, and the first failure.
        for (shape, count, failure) in results.withLock({ $0.compactMap { $0 } }) {
            add(shape, samples: count)
            if let failure { throw failure }
        }
    }

    /// Streams one JSON document from a file in chunks, so a response of any size is read in about one chunk
    /// of memory (a single string value longer than a chunk is held whole).
    ///
    /// ```swift
    /// var inference = ShapeInference()
    /// try inference.addSample(contentsOf: URL(fileURLWithPath: "dump.json"))   // 50 MB in ~1 MiB windows
    /// ```
    ///
    /// - Parameters:
    ///   - url: the file.
    ///   - file: the name used in errors; the path when `nil`.
    ///   - chunkSize: bytes read at a time.
    /// - Throws: `InputError` with the line and column of a syntax error, or an unreadable file.
    public mutating func addSample(contentsOf url: URL, file: String? = nil, chunkSize: Int = 1 << 20)
        throws(InputError)
    {
        let name = file ?? url.path
        let handle = try Self.open(url, name: name)
        defer { try? handle.close() }
        // A file smaller than a chunk gets a window of its own size: a megabyte for each of 2,000 responses of 50 KB
        // was mostly page faults (issue 25).
        var info = stat()
        let size = fstat(handle.fileDescriptor, &info) == 0 && info.st_size > 0 ? Int(info.st_size) : chunkSize
        let source = ByteSource(handle: handle, chunkSize: min(chunkSize, size + 1))
        let reader = self.reader
        do throws(InputError) {
            try withStore { store throws(InputError) in try reader.read(source, into: &store) }
        } catch {
            throw error.inFile(name)
        }
        sampleCount += 1
    }

    private static func open(_ url: URL, name: String) throws(InputError) -> FileHandle {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        guard !isDirectory.boolValue, let handle = try? FileHandle(forReadingFrom: url) else {
            throw InputError(
                file: name,
                position: .file,
                expected: "a readable file",
                found: isDirectory.boolValue ? "a folder" : (exists ? "a file that cannot be read" : "no such file")
            )
        }
        return handle
    }

    /// Reads JSON Lines: one document a line; blank lines are skipped.
    ///
    /// - Throws: `InputError` naming the line and column of a syntax error.
    public mutating func addJSONLines(_ data: Data, file: String = "<input>") throws(InputError) {
        let reader = self.reader
        var count = 0
        let result: Result<Void, InputError> = withStore { store in
            data.withUnsafeBytes { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                var lineNumber = 0
                let consumed = Self.forEachLine(in: bytes, isFinal: true) { line throws(InputError) in
                    lineNumber += 1
                    return try Self.readLine(line, number: lineNumber, reader: reader, store: &store, count: &count)
                }
                return consumed.mapError { $0.inFile(file) }.map { _ in () }
            }
        }
        sampleCount += count
        try result.get()
    }

    /// Streams a JSON Lines file in chunks, so a file of any size is read in bounded memory.
    ///
    /// - Parameters:
    ///   - url: the file.
    ///   - file: the name used in errors; the path when `nil`.
    ///   - chunkSize: bytes read at a time.
    /// - Throws: `InputError` naming the line and column of a syntax error, or an unreadable file.
    public mutating func addJSONLines(contentsOf url: URL, file: String? = nil, chunkSize: Int = 1 << 20)
        throws(InputError)
    {
        let name = file ?? url.path
        let handle = try Self.open(url, name: name)
        defer { try? handle.close() }
        let reader = self.reader
        var store = self.store
        self.store = ShapeStore.placeholder
        defer { self.store = store }
        var pending: [UInt8] = []
        var lineNumber = 0
        var count = 0
        defer { sampleCount += count }
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: chunkSize) ?? Data()
            } catch {
                throw InputError(file: name, position: .file, expected: "a readable file", found: "\(error)")
            }
            let isFinal = chunk.isEmpty
            pending.append(contentsOf: chunk)
            let result: Result<Int, InputError> = pending.withUnsafeBufferPointer { bytes in
                Self.forEachLine(in: bytes, isFinal: isFinal) { line throws(InputError) in
                    lineNumber += 1
                    return try Self.readLine(line, number: lineNumber, reader: reader, store: &store, count: &count)
                }
            }
            switch result {
            case .failure(let error): throw error.inFile(name)
            case .success(let consumed): pending.removeFirst(consumed)
            }
            if isFinal { return }
        }
    }

    private static func readLine(
        _ line: UnsafeBufferPointer<UInt8>,
        number: Int,
        reader: StreamingReader,
        store: inout ShapeStore,
        count: inout Int
    ) throws(InputError) {
        var end = line.count
        if end > 0, line[end - 1] == 0x0D { end -= 1 }
        var blank = true
        for i in 0..<end where line[i] != 0x20 && line[i] != 0x09 {
            blank = false
            break
        }
        guard !blank else { return }
        try reader.read(UnsafeBufferPointer(rebasing: line[0..<end]), into: &store, firstLine: number)
        count += 1
    }

    /// Calls `body` on each complete line (without its line feed); the last line only when `isFinal`.
    /// Returns how many bytes were consumed.
    private static func forEachLine(
        in bytes: UnsafeBufferPointer<UInt8>,
        isFinal: Bool,
        _ body: (UnsafeBufferPointer<UInt8>) throws(InputError) -> Void
    ) -> Result<Int, InputError> {
        var start = 0
        var i = 0
        let n = bytes.count
        do throws(InputError) {
            while i < n {
                if bytes[i] == 0x0A {
                    try body(UnsafeBufferPointer(rebasing: bytes[start..<i]))
                    start = i + 1
                }
                i += 1
            }
            if isFinal && start < n {
                try body(UnsafeBufferPointer(rebasing: bytes[start..<n]))
                start = n
            }
        } catch {
            return .failure(error)
        }
        return .success(start)
    }

    /// Merges a shape inferred elsewhere, standing for `samples` samples.
    public mutating func add(_ shape: ShapeNode, samples: Int = 1) {
        var merged = self.shape
        merged.merge(shape, options: options)
        store = ShapeStore(merged, options: options)
        sampleCount += samples
    }
}

extension ShapeNode {
    /// The shape of one JSON document.
    ///
    /// ```swift
    /// let shape = try ShapeNode.infer(from: Data("[1, 2.5, null]".utf8))
    /// shape.items?.types  // [.number, .null]
    /// ```
    /// - Throws: `InputError` with the line and column of a syntax error.
    public static func infer(from data: Data, options: InferenceOptions = InferenceOptions(), file: String = "<input>")
        throws(InputError) -> ShapeNode
    {
        var inference = ShapeInference(options: options)
        try inference.addSample(data, file: file)
        return inference.shape
    }
}
