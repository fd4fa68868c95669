import Curl
import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// The two tag readers pointed at an in-process github-sim over loopback, and
/// what real git says of the same tags.
enum TagReaders {
    static let token = GitHubToken(value: "ghp_tagreaders", source: "test")
    static let widgets = RepositoryName(owner: "acme", name: "widgets")

    /// A synthetic history with release tags, some annotated, and lightweight side tags.
    static func taggedSynthetic() -> SimRepository {
        SimRepository(
            owner: "acme", name: "widgets", id: 7,
            source: .synthetic(SyntheticSpec(commits: 240, mergeEvery: 4, seed: 5, tagEvery: 10)))
    }

    static func simulator(_ repositories: [SimRepository], hostile: Set<HostileTag> = []) async throws -> GitHubSimulator {
        var configuration = SimConfiguration()
        configuration.validTokens = [token.value]
        configuration.faults.hostileTags = hostile
        let simulator = try GitHubSimulator(configuration: configuration, repositories: repositories)
        try await simulator.start()
        return simulator
    }

    static func cloneURL(_ simulator: GitHubSimulator, _ repository: RepositoryName = widgets) -> String {
        "\(simulator.baseURL)/\(repository.owner)/\(repository.name).git"
    }

    static func fetcher(_ simulator: GitHubSimulator, _ repository: RepositoryName = widgets) throws -> GitHistoryFetcher {
        let url = cloneURL(simulator, repository)
        let configuration = GitHistoryFetcher.Configuration(
            cloneURL: url, credentials: GitCredentials.forClone(url: url, apiURL: simulator.baseURL, token: token))
        return try GitHistoryFetcher(configuration: configuration, logger: TestSupport.quietLogger)
    }

    static func client(_ simulator: GitHubSimulator) throws -> GitHubClient {
        var configuration = GitHubClient.Configuration(apiURL: simulator.baseURL, token: token)
        configuration.retry = SimulatorHarness.fastRetries()
        return try GitHubClient(configuration: configuration, logger: TestSupport.quietLogger)
    }

    /// The REST answer with every annotation read.
    static func overREST(
        _ client: GitHubClient, _ repository: RepositoryName = widgets, limits: TagLimits = TagLimits()
    ) async throws -> (TagListing, etag: String?) {
        guard case .listed(let refs, let etag) = try await client.tagRefs(repository, etag: nil, limits: limits) else {
            Issue.record("an unconditional listing answered 304")
            return (TagListing(), nil)
        }
        return (try await client.readAnnotations(of: refs, in: repository, limits: limits), etag)
    }

    static func git(_ arguments: [String], in repository: String? = nil) async throws -> ProcessResult {
        let home = NSTemporaryDirectory()
        let result = try await runProgram(
            "/usr/bin/git", (repository.map { ["-C", $0] } ?? []) + arguments,
            environment: ["HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"])
        #expect(result.status == 0, "git \(arguments.joined(separator: " ")): \(result.stderr)")
        return result
    }

    /// `git ls-remote --tags URL` as the tags ls-refs announces: a `^{}` line makes its tag annotated.
    static func lsRemoteTags(_ url: String) async throws -> [AnnouncedTag] {
        var refs: [String: String] = [:]
        for line in try await git(["ls-remote", "--tags", url]).lines {
            let fields = line.split(separator: "\t").map(String.init)
            if fields.count == 2 { refs[String(fields[1].dropFirst("refs/tags/".count))] = fields[0] }
        }
        return refs.keys.filter { !$0.hasSuffix("^{}") }.sorted().map { name in
            let peeled = refs[name + "^{}"]
            return AnnouncedTag(name: name, objectSHA: refs[name]!, commitSHA: peeled ?? refs[name]!, isAnnotated: peeled != nil)
        }
    }

    /// `git for-each-ref` of a repository's tags as REST should answer them, annotations from `git cat-file tag`.
    static func forEachRef(in repository: String) async throws -> [AnnouncedTag] {
        let format = "%(refname:strip=2) %(objectname) %(*objectname) %(objecttype)"
        var tags: [AnnouncedTag] = []
        for line in try await git(["for-each-ref", "--format=\(format)", "refs/tags"], in: repository).lines {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            let isAnnotated = fields[3] == "tag"
            var tag = AnnouncedTag(
                name: fields[0], objectSHA: fields[1], commitSHA: isAnnotated ? fields[2] : fields[1], isAnnotated: isAnnotated)
            if isAnnotated { tag.annotation = try await annotation(of: fields[1], in: repository) }
            tags.append(tag)
        }
        return tags.sorted { $0.name < $1.name }
    }

    /// What `git cat-file tag` says of a tag object: its tagger and its message, as stored.
    static func annotation(of sha: String, in repository: String) async throws -> TagAnnotation {
        let object = try await git(["cat-file", "tag", sha], in: repository).stdout
        let parts = object.components(separatedBy: "\n\n")
        let tagger = parts[0].split(separator: "\n").first { $0.hasPrefix("tagger ") }.map { $0.dropFirst("tagger ".count) }
        var name: String?
        var email: String?
        var date: String?
        if let tagger, let open = tagger.firstIndex(of: "<"), let close = tagger.firstIndex(of: ">") {
            name = tagger[..<open].trimmingCharacters(in: .whitespaces)
            email = String(tagger[tagger.index(after: open)..<close])
            let seconds = tagger[tagger.index(after: close)...].split(separator: " ").first.flatMap { Double($0) }
            date = seconds.map { ISO8601Timestamp.format(Date(timeIntervalSince1970: $0)) }
        }
        let message = parts.dropFirst().joined(separator: "\n\n")
        return TagAnnotation(taggerName: name, taggerEmail: email, taggedAt: date, message: message)
    }

    /// Sends a control request to the simulator's `/_sim/repos/acme/widgets/tag`.
    static func moveTag(_ simulator: GitHubSimulator, _ query: String, method: String = "POST") async throws {
        let response = try await HTTPClient().send(
            HTTPRequest(url: simulator.baseURL + "/_sim/repos/acme/widgets/tag?" + query, method: method, body: []))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// Tags without their annotations, sorted by name, as ls-refs can tell them.
    static func bare(_ tags: [AnnouncedTag]) -> [AnnouncedTag] {
        tags.map { AnnouncedTag(name: $0.name, objectSHA: $0.objectSHA, commitSHA: $0.commitSHA, isAnnotated: $0.isAnnotated) }
            .sorted { $0.name < $1.name }
    }
}
