import MirrorTestSupport
import Foundation
import NIOCore
import NIOHTTP1
@testable import GitHubSim

/// Paths to ../shared, found from this file's location.
enum SharedFiles {
    static let packageRoot = PackagePaths.packageRoot
    static let datasetPath = PackagePaths.swiftEvolutionDataset
    static var hasDataset: Bool { PackagePaths.hasDataset }

    /// Loaded once: several suites compare against it.
    static let datasetCommits: [DatasetCommit] = (try? Dataset.load(path: datasetPath)) ?? []
}

/// Drives SimulatorCore directly: the whole request pipeline without sockets.
struct CoreClient {
    let core: SimulatorCore

    init(core: SimulatorCore) {
        self.core = core
    }

    init(configuration: SimConfiguration = .init(), repositories: [SimRepository], baseURL: String = "http://sim.test") throws {
        core = try SimulatorCore(configuration: configuration, repositories: repositories)
        core.baseURL = baseURL
    }

    /// A client whose responses are never gzipped, so that tests read bodies as sent;
    /// `configure` sets the rest of the configuration.
    static func uncompressed(
        _ repositories: [SimRepository], configure: (inout SimConfiguration) -> Void = { _ in }
    ) throws -> CoreClient {
        var configuration = SimConfiguration()
        configuration.compressResponses = false
        configure(&configuration)
        return try CoreClient(configuration: configuration, repositories: repositories)
    }

    func get(
        _ uri: String, headers: [(String, String)] = [], userAgent: String? = "github-sim-tests", token: String? = nil,
        ip: String = "127.0.0.1"
    ) -> SimResponse {
        var fields = HTTPHeaders(headers)
        if let userAgent { fields.add(name: "User-Agent", value: userAgent) }
        if let token { fields.add(name: "Authorization", value: "Bearer \(token)") }
        return core.handle(SimRequest(method: .GET, uri: uri, headers: fields, remoteIP: ip))
    }

    func post(_ uri: String, body: String? = nil) -> SimResponse {
        core.handle(SimRequest(method: .POST, uri: uri, body: body.map { ByteBuffer(string: $0) }))
    }
}

extension SimResponse {
    var code: Int { Int(status.code) }
    func header(_ name: String) -> String? { headers.first(name: name) }
    var text: String { body.map { String(buffer: $0) } ?? "" }
    var jsonObject: Any? { body.flatMap { try? JSONSerialization.jsonObject(with: Data($0.readableBytesView)) } }
    var jsonArray: [[String: Any]] { jsonObject as? [[String: Any]] ?? [] }
    var jsonDictionary: [String: Any] { jsonObject as? [String: Any] ?? [:] }
    var shas: [String] { jsonArray.compactMap { $0["sha"] as? String } }
}

func synthetic(_ commits: Int, owner: String = "acme", name: String = "widgets", id: Int = 42, mergeEvery: Int = 8, seed: UInt64 = 1)
    -> SimRepository
{
    SimRepository(
        owner: owner, name: name, id: id,
        source: .synthetic(SyntheticSpec(commits: commits, authors: 50, mergeEvery: mergeEvery, seed: seed)))
}
