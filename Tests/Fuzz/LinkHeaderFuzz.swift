// libFuzzer target for the `Link` header parser (Sources/MirrorCore/GitHub/LinkHeader.swift),
// compiled together with that file by Tests/Fuzz/run.sh. A header comes straight from the
// network: any bytes must parse or be refused, never crash, hang or invent a URL.

@_cdecl("LLVMFuzzerTestOneInput")
public func linkHeaderFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // libcurl hands header values over as bytes; the client decodes them like this.
    let header = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let link = LinkHeader(header) else { return 0 }
    // Every target is text that was between < and > in the header.
    for (relation, target) in link.targets {
        precondition(header.contains("<\(target)>"), "invented target \(target) for rel \(relation)")
        precondition(relation == relation.lowercased(), "relation not folded: \(relation)")
    }
    // Parsing is a function of the text.
    precondition(LinkHeader(header) == link, "parsing twice disagreed")
    return 0
}
