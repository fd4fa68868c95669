import Curl
import Foundation
import GitHash
import MirrorModel

/// Tags over REST (docs/GITHUB-API.md, "What the tag readers rely on"): the
/// tag refs in one request, then each annotated tag's object not known yet,
/// followed through any chain of tag objects to where it ends.
extension GitHubClient {
    /// An answer for a repository's tag refs.
    public enum TagRefs: Sendable, Equatable {
        /// 304: the refs are those of the listing the ETag sent was taken from.
        case notModified
        /// An annotated tag's `commitSHA` and `annotation` are nil until `readAnnotations` reads them.
        case listed(TagListing, etag: String?)
    }

    /// `GET /repos/{o}/{r}/git/matching-refs/tags`, every tag ref in one unpaged
    /// answer: `[]` with an ETag for a repository without tags, where `git/refs/tags`
    /// answers a 404 that no ETag makes free the next time.
    public func tagRefsURL(_ repository: RepositoryName) -> String {
        "\(configuration.apiURL)/repos/\(repository.owner)/\(repository.name)/git/matching-refs/tags"
    }

    /// Every tag ref of `repository`, sent with `If-None-Match: <etag>` when one is
    /// known (answered 304, free when authenticated, when nothing changed). A 404
    /// (GitHub's answer for a repository without tags) or 409 (an empty repository)
    /// is a listing without tags: whether the repository exists is its lookup's
    /// question. Each ref's object type tells an annotated tag (`tag`) from a
    /// lightweight one (`commit`); a lightweight tag of a `tree` or `blob` has no
    /// commit. Refs that fail a check are skipped and reported, as over git.
    /// - Throws: `GitHubError`, or `TagListingError` past `limits`.
    public func tagRefs(_ repository: RepositoryName, etag: String?, limits: TagLimits = TagLimits()) async throws -> TagRefs {
        var headers: HTTPHeaders = []
        if let etag { headers.add(name: "If-None-Match", value: etag) }
        let answer: RefsAnswer
        do {
            answer = try await send(url: tagRefsURL(repository), headers: headers, kind: .tagRefs, repository: repository) {
                response -> RefsAnswer in
                if response.status == 304 { return .notModified }
                // Checked here, before decoding; thrown after, since a parse failure here would be retried.
                guard response.body.count <= limits.maximumBytes else { return .tooLarge }
                let elements = try PayloadDecoder().decode([RefElement].self, from: response.body)
                return .elements(elements, etag: response.headers["etag"])
            }.value
        } catch GitHubError.notFound {
            return .listed(TagListing(requests: 1), etag: nil)
        } catch GitHubError.emptyRepository {
            return .listed(TagListing(requests: 1), etag: nil)
        }
        switch answer {
        case .notModified:
            return .notModified
        case .tooLarge:
            throw TagListingError.tooLarge(limit: limits.maximumBytes)
        case .elements(let elements, let etag):
            var builder = TagListBuilder(limits: limits)
            for element in elements { try Self.add(element, to: &builder) }
            var listing = builder.listing
            listing.requests = 1
            return .listed(listing, etag: etag)
        }
    }

    /// `listing` with every annotated tag's annotation and commit filled in: from
    /// `known` (tags already stored) when one names the same tag object, since an
    /// object's id fixes what it says; else from `GET /repos/{o}/{r}/git/tags/{sha}`,
    /// followed through tag objects naming tag objects, each read once per call.
    /// A chain longer than `limits.maximumChainHops`, one that comes back to an
    /// object it passed (a cycle), or an object GitHub does not have or describes
    /// badly skips that tag, reported with the reason in `skipped`.
    /// - Throws: `GitHubError` (rate limits, server errors after retries, …).
    public func readAnnotations(
        of listing: TagListing, in repository: RepositoryName, known: [AnnouncedTag] = [], limits: TagLimits = TagLimits()
    ) async throws -> TagListing {
        var stored: [String: AnnouncedTag] = [:]
        for tag in known where tag.isAnnotated && tag.annotation != nil { stored[tag.objectSHA] = tag }
        var result = listing
        result.tags = []
        var chain = TagChain(limits: limits)
        for var tag in listing.tags {
            if tag.isAnnotated, tag.annotation == nil {
                if let stored = stored[tag.objectSHA] {
                    (tag.annotation, tag.commitSHA) = (stored.annotation, stored.commitSHA)
                } else {
                    switch try await follow(tag, in: repository, chain: &chain) {
                    case .ended(let annotation, let commit): (tag.annotation, tag.commitSHA) = (annotation, commit)
                    case .refused(let reason):
                        result.skipped.append(SkippedTag(name: tag.name, reason: reason))
                        continue
                    }
                }
            }
            result.tags.append(tag)
        }
        result.requests += chain.requests
        return result
    }

    // MARK: - Refs

    private enum RefsAnswer {
        case notModified
        case tooLarge
        case elements([RefElement], etag: String?)
    }

    /// A ref as `/git/refs` lists it; every field optional, so one bad element is skipped, not the listing.
    private struct RefElement: Decodable {
        struct Object: Decodable {
            var sha: String?
            var type: String?
        }
        var ref: String?
        var object: Object?
    }

    private static func add(_ element: RefElement, to builder: inout TagListBuilder) throws {
        let prefix = "refs/tags/"
        guard let ref = element.ref, ref.hasPrefix(prefix) else {
            return try builder.skipUnreadable(element.ref ?? "", "it is not a ref under refs/tags/")
        }
        let name = String(ref.dropFirst(prefix.count))
        guard let sha = element.object?.sha else { return try builder.skipUnreadable(name, "its ref names no object") }
        switch element.object?.type {
        case "tag"?: try builder.add(name: name, object: sha, commit: nil, isAnnotated: true)
        case "commit"?: try builder.add(name: name, object: sha, commit: sha, isAnnotated: false)
        case "tree"?, "blob"?: try builder.add(name: name, object: sha, commit: nil, isAnnotated: false)
        case let type: try builder.skipUnreadable(name, "its object's type is \(BranchName.quoted(type ?? "missing"))")
        }
    }

    // MARK: - Tag objects

    /// A tag object as `/git/tags/{sha}` shows it.
    private struct TagObjectElement: Decodable {
        struct Tagger: Decodable {
            var name: String?
            var email: String?
            var date: String?
        }
        struct Object: Decodable {
            var sha: String?
            var type: String?
        }
        var sha: String?
        var message: String?
        var tagger: Tagger?
        var object: Object?
    }

    /// The tag objects one `readAnnotations` call read, by id, and how many requests that took.
    private struct TagChain {
        let limits: TagLimits
        var objects: [String: TagObjectElement?] = [:]
        var requests = 0
    }

    private enum ChainEnd {
        /// The first object's annotation, and the commit the chain ends at (nil for a tree or blob).
        case ended(TagAnnotation, commit: String?)
        case refused(String)
    }

    private func follow(_ tag: AnnouncedTag, in repository: RepositoryName, chain: inout TagChain) async throws -> ChainEnd {
        var sha = tag.objectSHA
        var passed: [String] = []
        var annotation: TagAnnotation?
        while true {
            if passed.contains(sha) { return .refused("its tag objects lead back to \(sha): a cycle") }
            guard passed.count < chain.limits.maximumChainHops else {
                return .refused("it leads through more than \(chain.limits.maximumChainHops) tag objects")
            }
            passed.append(sha)
            guard let object = try await tagObject(sha, in: repository, chain: &chain) else {
                return .refused("GitHub has no tag object \(sha)")
            }
            guard object.sha.flatMap({ ObjectID(hex: $0)?.hex }) == sha else {
                return .refused("GitHub answered for another object than \(sha)")
            }
            let first = annotation ?? Self.annotation(of: object)
            annotation = first
            guard let next = object.object?.sha.flatMap({ ObjectID(hex: $0)?.hex }) else {
                return .refused("tag object \(sha) names no object by a 40-hex id")
            }
            switch object.object?.type {
            case "tag"?: sha = next
            case "commit"?: return .ended(first, commit: next)
            case "tree"?, "blob"?: return .ended(first, commit: nil)
            case let type: return .refused("tag object \(sha) names an object of type \(BranchName.quoted(type ?? "missing"))")
            }
        }
    }

    /// `GET /repos/{o}/{r}/git/tags/{sha}`, once per object per call; nil for a 404.
    private func tagObject(_ sha: String, in repository: RepositoryName, chain: inout TagChain) async throws -> TagObjectElement? {
        if let read = chain.objects[sha] { return read }
        let url = "\(configuration.apiURL)/repos/\(repository.owner)/\(repository.name)/git/tags/\(sha)"
        chain.requests += 1
        let object: TagObjectElement?
        do {
            object = try await send(url: url, kind: .tagObject, repository: repository) { response in
                try PayloadDecoder().decode(TagObjectElement.self, from: response.body)
            }.value
        } catch GitHubError.notFound {
            object = nil
        }
        chain.objects[sha] = object
        return object
    }

    private static func annotation(of object: TagObjectElement) -> TagAnnotation {
        TagAnnotation(
            taggerName: object.tagger?.name, taggerEmail: object.tagger?.email,
            taggedAt: object.tagger?.date.flatMap(ISO8601Timestamp.parse).map(ISO8601Timestamp.format),
            message: object.message ?? "")
    }
}
