import Foundation

/// Decodes GitHub JSON with Foundation's `JSONDecoder`, configured once for
/// GitHub's conventions (ISO 8601 dates in UTC `Z` or with an offset).
public struct PayloadDecoder: Sendable {
    public init() {}

    public func decodeCommitPage(_ bytes: [UInt8]) throws -> [CommitPayload] {
        try makeDecoder().decode([CommitPayload].self, from: Data(bytes))
    }

    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try makeDecoder().decode(type, from: Data(bytes))
    }

    private func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ISO8601Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "not an ISO 8601 date: \(text.prefix(40))")
            }
            return date
        }
        return decoder
    }
}
