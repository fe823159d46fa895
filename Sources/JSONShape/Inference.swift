public import Foundation

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
    private var root: ShapeNode
    private var reader: StreamingReader

    public init(options: InferenceOptions = InferenceOptions()) {
        self.options = options
        self.root = ShapeNode(tracksEnums: options.detectsEnums)
        self.reader = StreamingReader(options: options)
    }

    /// The shape of every sample read so far.
    public var shape: Shape { root.shape() }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&root) {
            root = ShapeNode(root.shape(), options: options)
        }
    }

    /// Reads one JSON document.
    ///
    /// - Parameters:
    ///   - data: the document's bytes.
    ///   - file: the name used in errors.
    /// - Throws: ``JSONShapeError`` with the line and column of a syntax error, or when nesting is deeper
    ///   than ``InferenceOptions/maximumDepth``.
    /// - Complexity: O(*n*) in the length of the document.
    public mutating func addSample(_ data: Data, file: String = "<input>") throws(JSONShapeError) {
        makeUnique()
        let root = self.root
        var reader = self.reader
        let result: Result<Void, JSONShapeError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            do throws(JSONShapeError) {
                try reader.read(bytes, into: root)
                return .success(())
            } catch {
                return .failure(error.inFile(file))
            }
        }
        self.reader = reader
        try result.get()
        sampleCount += 1
    }

    /// Reads JSON Lines: one document a line; blank lines are skipped.
    ///
    /// - Throws: ``JSONShapeError`` naming the line and column of a syntax error.
    public mutating func addJSONLines(_ data: Data, file: String = "<input>") throws(JSONShapeError) {
        makeUnique()
        let root = self.root
        var reader = self.reader
        var count = 0
        let result: Result<Void, JSONShapeError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var lineNumber = 0
            let consumed = Self.forEachLine(in: bytes, isFinal: true) { line throws(JSONShapeError) in
                lineNumber += 1
                return try Self.readLine(line, number: lineNumber, reader: &reader, root: root, count: &count)
            }
            return consumed.mapError { $0.inFile(file) }.map { _ in () }
        }
        self.reader = reader
        sampleCount += count
        try result.get()
    }

    /// Streams a JSON Lines file in chunks, so a file of any size is read in bounded memory.
    ///
    /// - Parameters:
    ///   - url: the file.
    ///   - file: the name used in errors; the path when `nil`.
    ///   - chunkSize: bytes read at a time.
    /// - Throws: ``JSONShapeError`` naming the line and column of a syntax error, or an unreadable file.
    public mutating func addJSONLines(contentsOf url: URL, file: String? = nil, chunkSize: Int = 1 << 20)
        throws(JSONShapeError)
    {
        let name = file ?? url.path
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw JSONShapeError(
                file: name,
                location: .input,
                expected: "a readable file",
                found: exists ? "a file that cannot be read" : "no such file"
            )
        }
        defer { try? handle.close() }
        makeUnique()
        let root = self.root
        var reader = self.reader
        defer { self.reader = reader }
        var pending: [UInt8] = []
        var lineNumber = 0
        var count = 0
        defer { sampleCount += count }
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: chunkSize) ?? Data()
            } catch {
                throw JSONShapeError(file: name, location: .input, expected: "a readable file", found: "\(error)")
            }
            let isFinal = chunk.isEmpty
            pending.append(contentsOf: chunk)
            let result: Result<Int, JSONShapeError> = pending.withUnsafeBufferPointer { bytes in
                Self.forEachLine(in: bytes, isFinal: isFinal) { line throws(JSONShapeError) in
                    lineNumber += 1
                    return try Self.readLine(line, number: lineNumber, reader: &reader, root: root, count: &count)
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
        reader: inout StreamingReader,
        root: ShapeNode,
        count: inout Int
    ) throws(JSONShapeError) {
        var end = line.count
        if end > 0, line[end - 1] == 0x0D { end -= 1 }
        var blank = true
        for i in 0..<end where line[i] != 0x20 && line[i] != 0x09 {
            blank = false
            break
        }
        guard !blank else { return }
        try reader.read(UnsafeBufferPointer(rebasing: line[0..<end]), into: root, firstLine: number)
        count += 1
    }

    /// Calls `body` on each complete line (without its line feed); the last line only when `isFinal`.
    /// Returns how many bytes were consumed.
    private static func forEachLine(
        in bytes: UnsafeBufferPointer<UInt8>,
        isFinal: Bool,
        _ body: (UnsafeBufferPointer<UInt8>) throws(JSONShapeError) -> Void
    ) -> Result<Int, JSONShapeError> {
        var start = 0
        var i = 0
        let n = bytes.count
        do throws(JSONShapeError) {
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
    public mutating func add(_ shape: Shape, samples: Int = 1) {
        makeUnique()
        var merged = root.shape()
        merged.merge(shape, options: options)
        root = ShapeNode(merged, options: options)
        sampleCount += samples
    }
}

extension Shape {
    /// The shape of one JSON document.
    ///
    /// ```swift
    /// let shape = try Shape.infer(from: Data("[1, 2.5, null]".utf8))
    /// shape.items?.types  // [.number, .null]
    /// ```
    /// - Throws: ``JSONShapeError`` with the line and column of a syntax error.
    public static func infer(from data: Data, options: InferenceOptions = InferenceOptions(), file: String = "<input>")
        throws(JSONShapeError) -> Shape
    {
        var inference = ShapeInference(options: options)
        try inference.addSample(data, file: file)
        return inference.shape
    }
}
