/// Tests on eight bytes in a 64-bit word (SWAR): a byte matches where its high bit comes out set.
enum Word {
    @inline(__always) static var highs: UInt64 { 0x8080_8080_8080_8080 }

    @inline(__always) static func repeating(_ byte: UInt8) -> UInt64 { 0x0101_0101_0101_0101 &* UInt64(byte) }

    /// The eight bytes at `p`, the first in the lowest bits.
    @inline(__always) static func load(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    /// Each byte of `word` that is zero has its high bit set; a borrow may also flag a byte above a zero one
    /// (exact for the lowest, and for whether there is any).
    @inline(__always) static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- repeating(1)) & ~word & highs
    }

    /// Non-zero when any byte is `c` (the borrow trick says whether, not which).
    @inline(__always) static func any(_ word: UInt64, _ c: UInt8) -> UInt64 {
        zeroBytes(word ^ repeating(c))
    }

    /// Non-zero when any byte is below `n` (at most 128).
    @inline(__always) static func anyBelow(_ word: UInt64, _ n: UInt8) -> UInt64 {
        (word &- repeating(n)) & ~word & highs
    }

    /// The high bit of each byte of `low7` (bytes below 128) from `low` through `high`: exact per byte.
    @inline(__always) static func inRange(_ low7: UInt64, _ low: UInt8, _ high: UInt8) -> UInt64 {
        (low7 &+ repeating(0x80 - low)) & ~(low7 &+ repeating(0x7F - high)) & highs
    }
}
