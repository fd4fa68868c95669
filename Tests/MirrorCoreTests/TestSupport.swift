import MirrorTestSupport
import Foundation
import Logging
@testable import MirrorCore
@testable import MirrorSQLite

/// Paths and fixtures shared by the MirrorCore tests.
enum TestSupport {
    static let swiftEvolutionDataset = PackagePaths.swiftEvolutionDataset
    static let examples = PackagePaths.examples
    static var hasSharedExamples: Bool { PackagePaths.hasSharedExamples }
    static var hasDataset: Bool { PackagePaths.hasDataset }

    static let quietLogger: Logger = {
        var logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        logger.logLevel = .critical
        return logger
    }()

    /// The JSON body of a recorded exchange in ../shared/github-api/examples.
    static func recordedBody(_ file: String) throws -> [UInt8] {
        let data = try Data(contentsOf: examples.appendingPathComponent(file))
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let response = object["response"] as! [String: Any]
        return Array(try JSONSerialization.data(withJSONObject: response["body"]!))
    }

    static func recordedResponseHeaders(_ file: String) throws -> [String: String] {
        let data = try Data(contentsOf: examples.appendingPathComponent(file))
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        return (object["response"] as! [String: Any])["headers"] as! [String: String]
    }
}
