import Curl
import Foundation
import GitHubSim

/// An in-process github-sim with synthetic repositories under `acme/`.
public func startSimulator(_ repositories: [(name: String, commits: Int)], configuration: SimConfiguration = .init()) async throws
    -> GitHubSimulator
{
    let simulated = repositories.enumerated().map { index, repository in
        SimRepository(
            owner: "acme", name: repository.name, id: 1001 + index,
            source: .synthetic(SyntheticSpec(commits: repository.commits, seed: UInt64(index + 7))))
    }
    let simulator = try GitHubSimulator(configuration: configuration, repositories: simulated)
    try await simulator.start()
    return simulator
}

/// An in-process github-sim with synthetic repositories under `acme/`, each with its own GitHub id and seed.
public func startSimulator(_ repositories: [(name: String, id: Int, commits: Int, seed: UInt64)]) async throws -> GitHubSimulator {
    let simulator = try GitHubSimulator(
        repositories: repositories.map {
            SimRepository(owner: "acme", name: $0.name, id: $0.id, source: .synthetic(SyntheticSpec(commits: $0.commits, seed: $0.seed)))
        })
    try await simulator.start()
    return simulator
}

/// Saved list-commits pages, as `gh api --paginate repos/O/R/commits` writes them.
public func savedPages(
    _ simulator: GitHubSimulator, repository: String, pages limit: Int = .max, token: String = "test-token"
) async throws -> [[UInt8]] {
    let client = try HTTPClient()
    var url: String? = "\(simulator.baseURL)/repos/\(repository)/commits?per_page=100"
    var pages: [[UInt8]] = []
    while let next = url, pages.count < limit {
        let response = try await client.send(
            HTTPRequest(
                url: next,
                headers: [
                    ("Authorization", "Bearer \(token)"), ("Accept", "application/vnd.github+json"), ("User-Agent", "gh"),
                ]))
        pages.append(response.body)
        url = response.headers["link"].flatMap { header in
            header.split(separator: ",").first { $0.contains("rel=\"next\"") }.map { part in
                String(part.drop { $0 != "<" }.dropFirst().prefix { $0 != ">" })
            }
        }
    }
    return pages
}

extension SimRepository {
    /// `acme/widgets` with a synthetic history: the repository most sync tests mirror.
    public static func widgets(id: Int, _ history: SyntheticSpec) -> SimRepository {
        SimRepository(owner: "acme", name: "widgets", id: id, source: .synthetic(history))
    }
}
