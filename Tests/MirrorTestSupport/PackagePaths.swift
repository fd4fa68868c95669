import Foundation

/// Where the package and `../shared` are, found from this file's location.
public enum PackagePaths {
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// `../shared` beside the project: read-only reference material, absent on some machines.
    public static let shared = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    public static let swiftEvolutionDataset = shared.appendingPathComponent("datasets/swift-evolution.commits.jsonl.gz").path
    public static let examples = shared.appendingPathComponent("github-api/examples")
    public static var hasDataset: Bool { FileManager.default.fileExists(atPath: swiftEvolutionDataset) }
    /// Alamofire's real history (trees, blobs, tags) as a git bundle.
    public static let alamofireBundle = shared.appendingPathComponent("datasets/alamofire.bundle").path
    public static var hasAlamofire: Bool { FileManager.default.fileExists(atPath: alamofireBundle) }
    public static var hasSharedExamples: Bool { FileManager.default.fileExists(atPath: examples.path) }
}
