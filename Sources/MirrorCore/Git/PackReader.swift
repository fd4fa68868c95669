import GitHash

/// Bounds on what a pack may make this process allocate or compute.
public struct PackLimits: Sendable {
    /// The largest object body (declared, or built by a delta).
    public var maximumObjectSize = 32 << 20
    /// The longest chain of deltas resolved for one object (git's default depth is 50).
    public var maximumDeltaChain = 4096
    /// Resolved objects kept for later deltas against them.
    public var baseCacheBytes = 2 << 20

    public init() {}
}

/// The object types of a pack (gitformat-pack(5)); 5 is reserved, 0 invalid.
enum PackObjectType: UInt8, Sendable {
    case commit = 1, tree = 2, blob = 3, tag = 4, offsetDelta = 6, referenceDelta = 7

    var name: String {
        switch self {
        case .commit: "commit"
        case .tree: "tree"
        case .blob: "blob"
        case .tag: "tag"
        case .offsetDelta: "ofs-delta"
        case .referenceDelta: "ref-delta"
        }
    }
}

/// One object of a pack, deltas resolved.
struct PackedObject {
    var offset: Int
    /// Never a delta type.
    var type: PackObjectType
    var body: [UInt8]
    /// `SHA-1("<type> <size>\0" + body)`: the object's git name.
    var id: ObjectID
}

/// Reads a version 2 or 3 pack object by object (gitformat-pack(5)) with
/// memory bounded by `PackLimits`, whatever the pack's size: objects are read
/// from storage, and delta bases are found again by offset there (a small
/// cache keeps recent ones). Every length and offset is checked; a malformed
/// pack throws `GitError`, never traps.
final class PackReader {
    let objectCount: Int
    /// Objects the last `forEachObject` read as deltas (OFS_DELTA or REF_DELTA).
    private(set) var deltaCount = 0
    private let storage: any PackStorage
    private let limits: PackLimits
    private let inflater: Inflater
    private let cursor: PackCursor
    /// A second cursor for delta bases, so the forward scan keeps its buffer.
    private let baseCursor: PackCursor
    private var baseCache: BaseCache
    /// Object names to offsets, for REF_DELTA bases only: built on the first
    /// one, as far as it needs, so the usual pack (OFS_DELTA only, as
    /// `ofs-delta` asks) never pays its memory.
    private var offsetsByID: [ObjectID: Int] = [:]
    /// Objects before this offset are in `offsetsByID`.
    private var indexedUpTo = PackReader.headerSize
    private let indexCursor: PackCursor
    static let headerSize = 12

    init(storage: any PackStorage, limits: PackLimits = PackLimits()) throws {
        self.storage = storage
        self.limits = limits
        guard storage.byteCount >= Self.headerSize + 20 else {
            throw GitError.malformedPack("\(storage.byteCount) bytes is too short for a pack")
        }
        inflater = try Inflater()
        cursor = PackCursor(storage: storage)
        // Small: bases are scattered, and each miss copies a whole buffer.
        baseCursor = PackCursor(storage: storage, bufferSize: 1 << 12, backwardReach: 1 << 11)
        indexCursor = PackCursor(storage: storage, bufferSize: 1 << 13)
        baseCache = BaseCache(capacity: limits.baseCacheBytes)
        let header = try cursor.readBytes(Self.headerSize)
        guard header[0..<4].elementsEqual("PACK".utf8) else {
            throw GitError.malformedPack("no PACK signature")
        }
        let version = header[4..<8].reduce(0) { $0 << 8 | Int($1) }
        guard version == 2 || version == 3 else {
            throw GitError.malformedPack("version \(version) (only 2 and 3 exist)")
        }
        objectCount = header[8..<12].reduce(0) { $0 << 8 | Int($1) }
    }

    /// Where the last object read by `forEachObject` ended.
    var objectsEnd: Int { cursor.offset }

    /// Checks the trailing SHA-1 against everything before it.
    func verifyChecksum() throws {
        var hasher = SHA1()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let end = storage.byteCount - 20
        var offset = 0
        while offset < end {
            let count = try chunk.withUnsafeMutableBytes { (bytes) throws in
                try storage.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<min(bytes.count, end - offset)]))
            }
            guard count > 0 else { throw GitError.malformedPack("the file ended early at \(offset)") }
            chunk.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            offset += count
        }
        let trailer = try chunk.withUnsafeMutableBytes { (bytes) throws in
            try storage.read(at: end, into: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<20]))
        }
        guard trailer == 20, hasher.finalize().elementsEqual(chunk[0..<20]) else { throw GitError.packChecksumMismatch }
    }

    /// Calls `body` with every object in pack order, deltas resolved, then
    /// checks that the objects end exactly at the trailer (unless the storage
    /// cannot tell yet where the trailer is: the caller compares `objectsEnd`
    /// with it once it can).
    func forEachObject(checkingTheEnd: Bool = true, _ body: (PackedObject) throws -> Void) throws {
        try cursor.seek(to: Self.headerSize)
        deltaCount = 0
        for _ in 0..<objectCount {
            let offset = cursor.offset
            guard offset < cursor.end else {
                throw GitError.malformedPack("the pack declares \(objectCount) objects but its data ends before them")
            }
            let header = try readHeader(cursor)
            var type = header.type
            var content = try inflater.inflate(from: cursor, size: header.size, objectOffset: offset)
            if let base = header.base {
                deltaCount += 1
                let resolved = try resolveBase(base, of: offset)
                type = resolved.type
                content = try DeltaInstructions.apply(content, to: resolved.body, limit: limits.maximumObjectSize, objectOffset: offset)
            }
            let object = PackedObject(offset: offset, type: type, body: content, id: Self.objectID(type: type, body: content))
            baseCache.insert(offset: offset, type: type, body: content)
            try body(object)
        }
        guard cursor.offset == cursor.end || !checkingTheEnd else {
            throw GitError.malformedPack("\(cursor.end - cursor.offset) bytes follow the last declared object")
        }
    }

    static func objectID(type: PackObjectType, body: [UInt8]) -> ObjectID {
        var hasher = SHA1()
        hasher.update("\(type.name) \(body.count)\0".utf8)
        body.withUnsafeBytes { hasher.update($0) }
        return ObjectID(digest: hasher.finalize())
    }

    // MARK: - Object headers

    private struct ObjectHeader {
        var type: PackObjectType
        var size: Int
        var base: DeltaBase?
    }

    private enum DeltaBase {
        case offset(Int)
        case id(ObjectID)
    }

    private func readHeader(_ cursor: PackCursor) throws -> ObjectHeader {
        let offset = cursor.offset
        var byte = try cursor.readByte()
        guard let type = PackObjectType(rawValue: (byte >> 4) & 7) else {
            throw GitError.malformedPack("the object at offset \(offset) has the invalid type \((byte >> 4) & 7)")
        }
        var size = Int(byte & 15)
        var shift = 4
        while byte & 0x80 != 0 {
            byte = try cursor.readByte()
            guard shift <= 53 else { throw GitError.malformedPack("the object at offset \(offset) has a size varint too long") }
            size |= Int(byte & 0x7F) << shift
            shift += 7
        }
        guard size <= limits.maximumObjectSize else {
            throw GitError.objectTooLarge(offset: offset, size: size, limit: limits.maximumObjectSize)
        }
        switch type {
        case .offsetDelta:
            // Big-endian base-128 with a +1 per continuation byte, so every distance has one encoding.
            byte = try cursor.readByte()
            var distance = Int(byte & 0x7F)
            var length = 1
            while byte & 0x80 != 0 {
                byte = try cursor.readByte()
                length += 1
                guard length <= 9 else { throw GitError.malformedPack("the delta at offset \(offset) has a base distance too long") }
                distance = ((distance + 1) << 7) | Int(byte & 0x7F)
            }
            guard distance > 0, distance <= offset - Self.headerSize else {
                throw GitError.malformedPack("the delta at offset \(offset) names a base \(distance) bytes back, outside the pack")
            }
            return ObjectHeader(type: type, size: size, base: .offset(offset - distance))
        case .referenceDelta:
            let id = try cursor.readBytes(20)
            return ObjectHeader(type: type, size: size, base: .id(ObjectID(digest: id)))
        default:
            return ObjectHeader(type: type, size: size, base: nil)
        }
    }

    // MARK: - Delta bases

    /// Where the object named `id` starts, which must be before `limit` (git
    /// writes bases first; it also rules out cycles). Indexes the objects
    /// before `limit` that are not indexed yet, resolving their own deltas.
    private func offset(of id: ObjectID, before limit: Int) throws -> Int {
        while offsetsByID[id] == nil, indexedUpTo < limit {
            let offset = indexedUpTo
            try indexCursor.seek(to: offset)
            let header = try readHeader(indexCursor)
            var content = try inflater.inflate(from: indexCursor, size: header.size, objectOffset: offset)
            indexedUpTo = indexCursor.offset
            var type = header.type
            if let base = header.base {
                let resolved = try resolveBase(base, of: offset)
                type = resolved.type
                content = try DeltaInstructions.apply(content, to: resolved.body, limit: limits.maximumObjectSize, objectOffset: offset)
            }
            offsetsByID[Self.objectID(type: type, body: content)] = offset
        }
        guard let offset = offsetsByID[id], offset < limit else {
            throw GitError.malformedPack("the delta at offset \(limit) names base \(id.hex), which is not earlier in the pack")
        }
        return offset
    }

    /// The type and body of the object that starts at `offset` (as
    /// `forEachObject` met it), deltas resolved, for reading objects in
    /// another order than the pack's.
    func object(at offset: Int) throws -> (type: PackObjectType, body: [UInt8]) {
        guard offset >= Self.headerSize, offset < cursor.end else {
            throw GitError.malformedPack("no object at offset \(offset)")
        }
        return try resolve(at: offset, for: offset)
    }

    private func resolveBase(_ base: DeltaBase, of deltaOffset: Int) throws -> (type: PackObjectType, body: [UInt8]) {
        switch base {
        case .offset(let offset): try resolve(at: offset, for: deltaOffset)
        case .id(let id): try resolve(at: try self.offset(of: id, before: deltaOffset), for: deltaOffset)
        }
    }

    /// The object at `start`: from the cache, or rebuilt from storage by walking
    /// its delta chain back to a whole object (`deltaOffset` is named in errors).
    private func resolve(at start: Int, for deltaOffset: Int) throws -> (type: PackObjectType, body: [UInt8]) {
        var baseOffset = start
        // Walk back until a cached or whole object, remembering the deltas on the way.
        var chain: [(offset: Int, size: Int)] = []
        var resolved: (type: PackObjectType, body: [UInt8])
        while true {
            if let cached = baseCache.object(at: baseOffset) {
                resolved = cached
                break
            }
            guard chain.count < limits.maximumDeltaChain else {
                throw GitError.malformedPack("the delta at offset \(deltaOffset) has a chain longer than \(limits.maximumDeltaChain)")
            }
            try baseCursor.seek(to: baseOffset)
            let header = try readHeader(baseCursor)
            guard let next = header.base else {
                resolved = (header.type, try inflater.inflate(from: baseCursor, size: header.size, objectOffset: baseOffset))
                break
            }
            chain.append((baseOffset, header.size))
            switch next {
            case .offset(let offset): baseOffset = offset
            case .id(let id): baseOffset = try offset(of: id, before: baseOffset)
            }
        }
        for link in chain.reversed() {
            try baseCursor.seek(to: link.offset)
            _ = try readHeader(baseCursor)
            let delta = try inflater.inflate(from: baseCursor, size: link.size, objectOffset: link.offset)
            resolved.body = try DeltaInstructions.apply(
                delta, to: resolved.body, limit: limits.maximumObjectSize, objectOffset: link.offset)
            baseCache.insert(offset: link.offset, type: resolved.type, body: resolved.body)
        }
        return resolved
    }
}

/// Recently resolved objects by offset, bounded in bytes, oldest out first.
private struct BaseCache {
    let capacity: Int
    private var objects: [Int: (type: PackObjectType, body: [UInt8])] = [:]
    private var order: [Int] = []
    private var oldest = 0
    private var bytes = 0

    init(capacity: Int) { self.capacity = capacity }

    func object(at offset: Int) -> (type: PackObjectType, body: [UInt8])? { objects[offset] }

    mutating func insert(offset: Int, type: PackObjectType, body: [UInt8]) {
        guard body.count <= capacity / 4, objects[offset] == nil else { return }
        objects[offset] = (type, body)
        order.append(offset)
        bytes += body.count + 64
        while bytes > capacity, oldest < order.count {
            if let evicted = objects.removeValue(forKey: order[oldest]) { bytes -= evicted.body.count + 64 }
            oldest += 1
        }
        if oldest > 4096, oldest * 2 > order.count {
            order.removeFirst(oldest)
            oldest = 0
        }
    }
}
