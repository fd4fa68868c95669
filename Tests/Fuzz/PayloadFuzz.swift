// libFuzzer target for payload decoding: a list-commits page body, decoded by
// PayloadDecoder (Sources/MirrorCore/GitHub) and mapped to the mirror's Commit
// (Sources/MirrorCore/Domain), compiled together by Tests/Fuzz/run.sh.
// Any body must decode or be refused with an error, never crash; what decodes must be
// what the store relies on.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func payloadFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let page = try? PayloadDecoder().decodeCommitPage(bytes) else { return 0 }
    for payload in page {
        let commit = Commit(payload)
        precondition(commit.sha.utf8.count == 40 && commit.sha.utf8.allSatisfy(\.isHexDigit), "bad sha \(commit.sha)")
        precondition(commit.sha == commit.sha.lowercased())
        precondition(commit.parents.count == payload.parents.count)
        // Stored dates are canonical: they format and parse back to the same instant.
        for date in [commit.author.date, commit.committer.date] {
            let text = ISO8601Timestamp.format(date)
            guard let parsed = ISO8601Timestamp.parse(text) else { preconditionFailure("stored date \(text) does not parse") }
            precondition(ISO8601Timestamp.format(parsed) == text, "date \(text) is not canonical")
        }
    }
    return 0
}
