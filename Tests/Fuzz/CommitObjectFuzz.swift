// libFuzzer target for the commit object parser and its mapping to the mirror's
// Commit (Sources/MirrorCore/Git/GitCommitObject*.swift, GitTextDecoding.swift),
// compiled together by Tests/Fuzz/run.sh. Any object body must parse or be refused,
// never crash; what parses must be what the store relies on.

import GitHash

@_cdecl("LLVMFuzzerTestOneInput")
public func commitObjectFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let id = ObjectID(hex: "0123456789abcdef0123456789abcdef01234567")!
    guard let object = try? GitCommitObject(parsing: bytes, id: id) else { return 0 }
    let commit = Commit(object, id: id, htmlURLPrefix: nil)
    precondition(commit.parents.count == object.parents.count)
    precondition(commit.parents.allSatisfy { $0.utf8.count == 40 && $0 == $0.lowercased() }, "a parent that is not 40 lowercase hex")
    precondition(!commit.message.hasSuffix("\n"), "a trailing newline kept")
    for identity in [object.author, object.committer] {
        precondition((0...GitIdentityLine.latestTime).contains(identity.time), "a time out of range: \(identity.time)")
        precondition(abs(identity.utcOffsetMinutes) <= 99 * 60 + 99, "an offset out of range")
    }
    // Parsing is a function of the bytes.
    precondition((try? GitCommitObject(parsing: bytes, id: id)) == object, "parsing twice disagreed")
    return 0
}
