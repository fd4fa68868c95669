// The real git names of a synthetic history's commits. A commit's name hashes its object, which
// names its parents, so names are computed once in index order (parents have lower indices) and
// kept: 20 bytes a commit, plus a 4-byte-slot hash index for sha → index.

import GitHash
import Synchronization

/// Commit names by index, 20 bytes each.
struct ObjectNameList: Sendable {
    fileprivate(set) var bytes: [UInt8] = []

    var count: Int { bytes.count / 20 }

    /// 40 lowercase hex digits.
    func hex(at index: Int) -> String {
        String(unsafeUninitializedCapacity: 40) { out in
            for k in 0..<20 {
                let byte = bytes[index * 20 + k]
                out[2 * k] = Hex.digits[Int(byte >> 4)]
                out[2 * k + 1] = Hex.digits[Int(byte & 0xF)]
            }
            return 40
        }
    }

    func name(at index: Int) -> ArraySlice<UInt8> { bytes[index * 20..<index * 20 + 20] }
}

final class ObjectNameTable: Sendable {
    let list: ObjectNameList
    /// Open addressing on a name's first 8 bytes; -1 is empty. Twice as many slots as names.
    private let slots: [Int32]

    /// - Parameter object: commit `index`'s object body; `names` already holds every lower index.
    init(count: Int, object: (_ index: Int, _ names: ObjectNameList) -> [UInt8]) {
        var list = ObjectNameList()
        list.bytes.reserveCapacity(count * 20)
        for index in 0..<count {
            let body = object(index, list)
            var hasher = SHA1()
            hasher.update("commit \(body.count)\0".utf8)
            hasher.update(body)
            list.bytes += hasher.finalize()
        }
        var capacity = 16
        while capacity < count * 2 { capacity <<= 1 }
        var slots = [Int32](repeating: -1, count: capacity)
        for index in 0..<count {
            var slot = Self.slot(of: list.name(at: index), capacity: capacity)
            while slots[slot] >= 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = Int32(index)
        }
        self.list = list
        self.slots = slots
    }

    var count: Int { list.count }

    func hex(at index: Int) -> String { list.hex(at: index) }

    /// The index of the commit named `name` (20 bytes), or nil.
    func index(of name: [UInt8]) -> Int? {
        guard name.count == 20 else { return nil }
        var slot = Self.slot(of: name[...], capacity: slots.count)
        while slots[slot] >= 0 {
            let index = Int(slots[slot])
            if list.name(at: index).elementsEqual(name) { return index }
            slot = (slot + 1) & (slots.count - 1)
        }
        return nil
    }

    /// 20 bytes from 40 hex digits (either case), or nil.
    static func name(hex: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 40 else { return nil }
        var name = [UInt8](repeating: 0, count: 20)
        for k in 0..<20 {
            guard let byte = Hex.parse(utf8[2 * k...2 * k + 1]) else { return nil }
            name[k] = UInt8(byte)
        }
        return name
    }

    private static func slot(of name: ArraySlice<UInt8>, capacity: Int) -> Int {
        var key: UInt64 = 0
        for byte in name.prefix(8) { key = key << 8 | UInt64(byte) }
        return Int(truncatingIfNeeded: key) & (capacity - 1)
    }
}

/// A history's name table, computed by the first caller that needs it while the others wait.
/// Repositories built from the same spec in one process share it while any of them lives.
final class LazyObjectNames: Sendable {
    private let table = Mutex<ObjectNameTable?>(nil)

    private struct WeakReference: Sendable {
        weak var value: LazyObjectNames?
    }
    private struct SharedTables: Sendable {
        var bySpec: [SyntheticSpec: WeakReference] = [:]
        /// Entries of repositories gone are dropped when the cache reaches this size, which then
        /// doubles: a simulator of 10,000 repositories does not sweep the cache 10,000 times.
        var sweepAt = 64
    }
    private static let shared = Mutex(SharedTables())

    static func shared(for spec: SyntheticSpec) -> LazyObjectNames {
        // Tags name commits but are no part of them: histories that differ in tags alone share names.
        var spec = spec
        spec.tagEvery = 0
        return shared.withLock { cache in
            if let names = cache.bySpec[spec]?.value { return names }
            if cache.bySpec.count >= cache.sweepAt {
                cache.bySpec = cache.bySpec.filter { $0.value.value != nil }
                cache.sweepAt = max(64, cache.bySpec.count * 2)
            }
            let names = LazyObjectNames()
            cache.bySpec[spec] = WeakReference(value: names)
            return names
        }
    }

    func table(_ make: () -> ObjectNameTable) -> ObjectNameTable {
        table.withLock { table in
            if let table { return table }
            let made = make()
            table = made
            return made
        }
    }
}
