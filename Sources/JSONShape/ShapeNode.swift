/// The shape of JSON values: which types were seen, and for objects, arrays and strings what they held.
///
/// A shape is what inference builds from samples and what a snapshot stores. Shapes merge: the merge
/// of the shapes of two sets of samples is the shape of their union, whatever the grouping
/// (`a.merging(b).merging(c) == a.merging(b.merging(c))`).
///
/// ```swift
/// let shape = try ShapeNode.infer(from: Data(#"{"id": 1, "name": null}"#.utf8))
/// shape.types                          // [.object]
/// shape.properties["name"]?.types      // [.null]
/// shape.required                       // ["id", "name"]
/// ```
public struct ShapeNode: Sendable, Hashable {
    /// The JSON types seen; empty means nothing is known (any value).
    public var types: JSONTypes {
        didSet { types = types.normalized }
    }
    /// The properties of an object that is a record (fixed keys); empty for a map.
    public var properties: [String: ShapeNode]
    /// The properties present in every object sample.
    public var required: Set<String>
    /// The format every string sample fits, or `nil`.
    public var format: StringFormat?
    /// The string values seen, sorted, when enums were asked for and there were few enough; else `nil`.
    public var enumValues: [String]?

    /// Property names in the order the samples first showed them (display only; not part of equality).
    private var firstSeenKeys: [String] = []
    private var boxedItems: Boxed?
    private var boxedAdditional: Boxed?
    /// The definition this shape stands for, when it is a reference (its own fields then stay empty).
    var link: Link?

    /// The shape of every array item, or `nil` when no item was seen.
    public var items: ShapeNode? {
        get { boxedItems?.value }
        set { boxedItems = newValue.map(Boxed.init) }
    }

    /// The shape of every value of an object whose keys are data (ids, dates), stored as JSON Schema's
    /// `additionalProperties`; `nil` for a record.
    public var additionalProperties: ShapeNode? {
        get { boxedAdditional?.value }
        set { boxedAdditional = newValue.map(Boxed.init) }
    }

    /// The property names in the order the samples first showed them, for display; names added to
    /// ``properties`` by hand come last, sorted. Key order is not part of a shape's equality.
    public var orderedPropertyNames: [String] {
        var seen = Set<String>()
        var names: [String] = []
        for key in firstSeenKeys where properties[key] != nil && seen.insert(key).inserted { names.append(key) }
        if names.count < properties.count {
            names += properties.keys.filter { !seen.contains($0) }.sorted()
        }
        return names
    }

    /// Records the order in which property names were first seen.
    mutating func setFirstSeenKeys(_ keys: [String]) {
        firstSeenKeys = keys
    }

    /// Two shapes are equal when they accept the same values as apiprobe describes them: references are
    /// followed, and two definitions met again on the same walk are taken as equal (so cycles compare).
    public static func == (lhs: ShapeNode, rhs: ShapeNode) -> Bool {
        if lhs.link == nil, rhs.link == nil, lhs.properties.isEmpty, rhs.properties.isEmpty,
            lhs.boxedItems == nil, rhs.boxedItems == nil, lhs.boxedAdditional == nil, rhs.boxedAdditional == nil
        {
            return lhs.hasEqualOwnFields(rhs)
        }
        var assumed = Set<PlacePair>()
        return equal(lhs, .root, rhs, .root, &assumed)
    }

    private struct PlacePair: Hashable {
        var left: WalkPlace
        var right: WalkPlace
    }

    private func hasEqualOwnFields(_ other: ShapeNode) -> Bool {
        types == other.types && required == other.required && format == other.format
            && enumValues == other.enumValues
    }

    private static func equal(
        _ lhs: ShapeNode, _ leftPlace: WalkPlace, _ rhs: ShapeNode, _ rightPlace: WalkPlace,
        _ assumed: inout Set<PlacePair>
    ) -> Bool {
        if let left = lhs.link, let right = rhs.link, left.name == right.name, left.definitions === right.definitions {
            return true
        }
        let leftPlace = leftPlace.entering(lhs)
        let rightPlace = rightPlace.entering(rhs)
        if lhs.link != nil || rhs.link != nil {
            guard assumed.insert(PlacePair(left: leftPlace, right: rightPlace)).inserted else { return true }
        }
        let a = lhs.resolved
        let b = rhs.resolved
        guard a.hasEqualOwnFields(b), a.properties.count == b.properties.count,
            (a.boxedItems == nil) == (b.boxedItems == nil), (a.boxedAdditional == nil) == (b.boxedAdditional == nil)
        else { return false }
        for (key, left) in a.properties {
            guard let right = b.properties[key],
                equal(left, leftPlace.child(key), right, rightPlace.child(key), &assumed)
            else { return false }
        }
        if let left = a.items, let right = b.items,
            !equal(left, leftPlace.child("*"), right, rightPlace.child("*"), &assumed)
        {
            return false
        }
        if let left = a.additionalProperties, let right = b.additionalProperties,
            !equal(left, leftPlace.child("-"), right, rightPlace.child("-"), &assumed)
        {
            return false
        }
        return true
    }

    /// Hashes what equal shapes share at the top (after following references), so a reference and the shape
    /// it stands for hash alike.
    public func hash(into hasher: inout Hasher) {
        let shape = resolved
        hasher.combine(shape.types)
        hasher.combine(shape.required)
        hasher.combine(shape.format)
        hasher.combine(shape.enumValues)
        hasher.combine(Set(shape.properties.keys))
        hasher.combine(shape.boxedItems == nil)
        hasher.combine(shape.boxedAdditional == nil)
    }

    /// Whether objects of this shape are maps (dynamic keys) rather than records.
    public var isMap: Bool { boxedAdditional != nil }

    public init(
        types: JSONTypes = [],
        properties: [String: ShapeNode] = [:],
        required: Set<String> = [],
        items: ShapeNode? = nil,
        additionalProperties: ShapeNode? = nil,
        format: StringFormat? = nil,
        enumValues: [String]? = nil
    ) {
        self.types = types.normalized
        self.properties = properties
        self.required = required
        self.format = format
        self.enumValues = enumValues
        self.boxedItems = items.map(Boxed.init)
        self.boxedAdditional = additionalProperties.map(Boxed.init)
    }

    /// The shape that knows nothing: the identity of ``merging(_:options:)``.
    public static let empty = ShapeNode()

    private indirect enum Boxed: Sendable, Hashable {
        case some(ShapeNode)
        static func == (lhs: Boxed, rhs: Boxed) -> Bool { lhs.value == rhs.value }
        func hash(into hasher: inout Hasher) { hasher.combine(value) }
        init(_ value: ShapeNode) { self = .some(value) }
        var value: ShapeNode {
            switch self {
            case .some(let shape): return shape
            }
        }
    }
}

/// How inference reads samples.
///
/// ```swift
/// var options = InferenceOptions()
/// options.detectsEnums = true
/// ```
public struct InferenceOptions: Sendable, Hashable {
    /// Record the string values of a field as an `enum` when there are at most ``maximumEnumValues``.
    public var detectsEnums: Bool
    /// The most distinct strings an enum holds; more make the field a plain string.
    public var maximumEnumValues: Int
    /// Recognise objects whose keys are data (all integers, UUIDs or dates) as maps.
    public var detectsMaps: Bool
    /// An object with more distinct keys than this across samples is stored as a map.
    public var maximumProperties: Int
    /// The deepest nesting of arrays and objects read; deeper input is an error, not a crash.
    public var maximumDepth: Int

    public init(
        detectsEnums: Bool = false,
        maximumEnumValues: Int = 16,
        detectsMaps: Bool = true,
        maximumProperties: Int = 1_000,
        maximumDepth: Int = 512
    ) {
        self.detectsEnums = detectsEnums
        self.maximumEnumValues = maximumEnumValues
        self.detectsMaps = detectsMaps
        self.maximumProperties = maximumProperties
        self.maximumDepth = maximumDepth
    }
}

extension ShapeNode {
    /// The shape of the samples of both shapes.
    ///
    /// A property is required only when both sides require it; types, formats and enums are joined;
    /// a map absorbs a record's properties into its value shape. The operation is associative and
    /// commutative, with ``empty`` as identity. Two references to one definition stay a reference; two
    /// different definitions are merged through what they stand for, down to 32 references on one path, below
    /// which this side's shape is kept (inference never makes references; a description's unions are made by
    /// `openapi import` as definitions of their own).
    ///
    /// ```swift
    /// let both = first.merging(second)
    /// ```
    /// - Complexity: O(*n*) in the size of both shapes.
    public func merging(_ other: ShapeNode, options: InferenceOptions = InferenceOptions()) -> ShapeNode {
        var result = self
        result.merge(other, options: options)
        return result
    }

    /// Merges `other` into this shape; see ``merging(_:options:)``.
    public mutating func merge(_ other: ShapeNode, options: InferenceOptions = InferenceOptions()) {
        merge(other, options: options, referenceDepth: 0)
    }

    /// The most references a merge follows down one path; below, the two definitions' union is not spelled out
    /// and this side's shape is kept. Inference never makes references; two different definitions meet only
    /// when a caller merges shapes read from a description.
    static let maximumMergedReferences = 32

    private mutating func merge(_ other: ShapeNode, options: InferenceOptions, referenceDepth: Int) {
        if link != nil || other.link != nil {
            if let mine = link, let theirs = other.link, mine.name == theirs.name,
                mine.definitions === theirs.definitions
            {
                return
            }
            guard referenceDepth < Self.maximumMergedReferences else { return }
            var expanded = resolved
            expanded.merge(other.resolved, options: options, referenceDepth: referenceDepth + 1)
            self = expanded
            return
        }
        let mine = types
        let theirs = other.types
        types = mine.union(theirs)

        // Strings: the format and enum survive only when both sides agree (a side without strings is neutral).
        if !theirs.contains(.string) {
            // keep ours
        } else if !mine.contains(.string) {
            format = other.format
            enumValues = other.enumValues
        } else {
            if format != other.format { format = nil }
            if let a = enumValues, let b = other.enumValues {
                let union = Set(a).union(b)
                enumValues = union.count <= options.maximumEnumValues ? union.sorted() : nil
            } else {
                enumValues = nil
            }
        }

        // Arrays: items merged across every element.
        if let otherItems = other.items {
            if var ownItems = items {
                ownItems.merge(otherItems, options: options, referenceDepth: referenceDepth)
                items = ownItems
            } else {
                items = otherItems
            }
        }

        // Objects.
        if !theirs.contains(.object) {
            return
        }
        if !mine.contains(.object) {
            properties = other.properties
            firstSeenKeys = other.firstSeenKeys
            required = other.required
            additionalProperties = other.additionalProperties
            return
        }
        if isMap || other.isMap {
            var value = additionalProperties ?? .empty
            for shape in properties.values { value.merge(shape, options: options, referenceDepth: referenceDepth) }
            if let otherValue = other.additionalProperties {
                value.merge(otherValue, options: options, referenceDepth: referenceDepth)
            }
            for shape in other.properties.values {
                value.merge(shape, options: options, referenceDepth: referenceDepth)
            }
            properties = [:]
            firstSeenKeys = []
            required = []
            additionalProperties = value
            return
        }
        required.formIntersection(other.required)
        let known = Set(firstSeenKeys)
        firstSeenKeys += other.orderedPropertyNames.filter { !known.contains($0) && properties[$0] == nil }
        for (key, shape) in other.properties {
            if var own = properties[key] {
                own.merge(shape, options: options, referenceDepth: referenceDepth)
                properties[key] = own
            } else {
                properties[key] = shape
            }
        }
        if properties.count > options.maximumProperties {
            var value = ShapeNode.empty
            for shape in properties.values { value.merge(shape, options: options) }
            properties = [:]
            firstSeenKeys = []
            required = []
            additionalProperties = value
        }
    }
}

extension ShapeNode {
    /// Whether this shape or any shape inside it (through references too) holds an enum.
    public var containsEnums: Bool {
        var seen = Set<WalkPlace>()
        var pending: [(ShapeNode, WalkPlace)] = [(self, .root)]
        while let (shape, place) = pending.popLast() {
            let here = place.entering(shape)
            if shape.link != nil, !seen.insert(here).inserted { continue }
            let resolved = shape.resolved
            if resolved.enumValues != nil { return true }
            if let items = resolved.items { pending.append((items, here.child("*"))) }
            if let value = resolved.additionalProperties { pending.append((value, here.child("-"))) }
            for (key, property) in resolved.properties { pending.append((property, here.child(key))) }
        }
        return false
    }

    /// This shape with enums kept only at the paths where `reference` has one, so a shape inferred with
    /// enums compares fairly with a snapshot that has enums in some places only. A reference in this shape is
    /// kept as it is.
    ///
    /// ```swift
    /// let inferred = try ShapeNode.infer(from: body, options: InferenceOptions(detectsEnums: true))
    /// let comparable = inferred.keepingEnums(presentIn: snapshot.shape)
    /// ```
    public func keepingEnums(presentIn reference: ShapeNode) -> ShapeNode {
        guard link == nil else { return self }
        let reference = reference.resolved
        var result = self
        if reference.enumValues == nil { result.enumValues = nil }
        if let items = result.items { result.items = items.keepingEnums(presentIn: reference.items ?? .empty) }
        if let value = result.additionalProperties {
            result.additionalProperties = value.keepingEnums(presentIn: reference.additionalProperties ?? .empty)
        }
        for (key, property) in result.properties {
            result.properties[key] = property.keepingEnums(presentIn: reference.properties[key] ?? .empty)
        }
        return result
    }
}
