import ArgumentParser
import MirrorCore

/// `--repo OWNER/NAME`, shared by the read commands that can narrow to one repository.
struct RepositoryFilterOptions: ParsableArguments {
    @Option(Options.repo) var repo: String?

    /// Also a stored `OWNER/NAME#<id>` (a repository whose name GitHub gave to another one).
    var name: RepositoryName? { repo.flatMap(RepositoryName.init(parsingStored:)) }

    func validate() throws {
        if let repo, RepositoryName(parsingStored: repo) == nil {
            throw ValidationError("--repo '\(repo)' is not a repository name; expected \(RepositoryName.expectedForm)")
        }
    }

    /// The repository, checked to be in the store (a typo gets an error, not an empty answer).
    func resolve(in mirror: any MirrorReading) throws -> RepositoryName? {
        if let name, try mirror.repository(named: name) == nil {
            throw UnknownRepositoryError(name: name, store: mirror.location)
        }
        return name
    }
}

struct UnknownRepositoryError: Error, CustomStringConvertible {
    let name: RepositoryName
    let store: StoreLocation

    var description: String {
        "the store \(store) holds no repository \(name); `commitsctl stats` lists the mirrored ones, `commitsctl sync \(name)` adds it"
    }
}
