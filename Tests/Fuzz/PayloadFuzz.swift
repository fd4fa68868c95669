// libFuzzer target for payload decoding: a list-commits page body, decoded by
// PayloadDecoder (Sources/MirrorCore/GitHub) and flattened into the store's columns by
// CommitRecord (Sources/MirrorCore/Store), compiled together by Tests/Fuzz/run.sh.
// Any body must decode or be refused with an error, never crash; what decodes must be
// what the store relies on.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func payloadFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let page = try? PayloadDecoder().decodeCommitPage(bytes) else { return 0 }
    for payload in page {
        let record = CommitRecord(payload)
        precondition(record.sha.utf8.count == 40 && record.sha.utf8.allSatisfy(\.isHexDigit), "bad sha \(record.sha)")
        precondition(record.sha == record.sha.lowercased())
        precondition(record.parents.count == payload.parents.count)
        // Stored dates are canonical: they parse back to themselves.
        for date in [record.authorDate, record.committerDate] {
            guard let parsed = ISO8601Timestamp.parse(date) else { preconditionFailure("stored date \(date) does not parse") }
            precondition(ISO8601Timestamp.format(parsed) == date, "date \(date) is not canonical")
        }
    }
    return 0
}
