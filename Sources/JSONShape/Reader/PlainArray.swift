/// A growable array of plain values (no references) for the shape store's hot loop: elements are read and
/// written in place through one pointer, without the uniqueness check that every write to an `Array` makes.
///
/// Copies share storage until ``makeUnique()``, which the store calls once before each document it reads
/// (every write happens while reading one); indices are still checked. Sendable as an `Array` is: shared
/// storage is only read.
struct PlainArray<Element: BitwiseCopyable>: @unchecked Sendable {
    private final class Storage {
        let base: UnsafeMutablePointer<Element>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(capacity: capacity)
        }

        func copy(count: Int, capacity: Int) -> Storage {
            let copy = Storage(capacity: capacity)
            copy.base.initialize(from: base, count: count)
            return copy
        }

        deinit { base.deallocate() }
    }

    private var storage = Storage(capacity: 16)
    private(set) var count = 0

    subscript(index: Int) -> Element {
        @inline(__always) unsafeAddress {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "index out of range")
            return UnsafePointer(storage.base + index)
        }
        @inline(__always) unsafeMutableAddress {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "index out of range")
            return storage.base + index
        }
    }

    mutating func append(_ element: Element) {
        if count == storage.capacity { storage = storage.copy(count: count, capacity: count * 2) }
        (storage.base + count).initialize(to: element)
        count += 1
    }

    /// Gives this copy storage of its own, when it shares it: call before writing.
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy(count: count, capacity: storage.capacity) }
    }
}
