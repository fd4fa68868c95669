// A repository object as GitHub renders it in `GET /repos/{o}/{r}` and in owner listings
// (`/orgs/{org}/repos`, `/users/{user}/repos`): one writer for both.

import NIOCore

enum RepositoryJSON {
    /// The account that owns repositories under `owner` (a stable id derived from the name).
    static func ownerAccount(_ owner: String) -> SimUser {
        SimUser(login: SimUser.sanitizedLogin(owner), id: ownerID(owner))
    }

    static func ownerID(_ owner: String) -> Int {
        Int(Hashing.string(owner.lowercased(), lane: 13) % 90_000_000) + 1000
    }

    /// When the repository was last pushed to: its head's committer time.
    static func pushedAt(_ repository: HostedRepository, state: HostedRepository.State) -> Int64 {
        if let graph = repository.graph, let head = state.head { return graph.committerTime(of: head) }
        return SyntheticRepository.firstCommitTime
    }

    /// The repositories as a JSON array's elements, comma-separated (the brackets are the caller's).
    static func writeElements(
        _ listed: ArraySlice<(HostedRepository, HostedRepository.State)>, baseURL: String, cloneBaseURL: String,
        into body: inout ByteBuffer
    ) {
        for (index, (repository, state)) in listed.enumerated() {
            if index > 0 { body.writeStaticString(",") }
            write(repository, state: state, baseURL: baseURL, cloneBaseURL: cloneBaseURL, into: &body)
        }
    }

    static func write(
        _ repository: HostedRepository, state: HostedRepository.State, baseURL: String, cloneBaseURL: String,
        into body: inout ByteBuffer
    ) {
        let renderer = ElementRenderer(baseURL: baseURL, owner: state.owner, name: state.name, repoID: repository.id)
        let pushedAt = pushedAt(repository, state: state)
        body.writeString("{\"id\":\(repository.id),\"node_id\":")
        body.writeJSONString(Base64.encode(Array("010:Repository\(repository.id)".utf8)))
        body.writeStaticString(",\"name\":")
        body.writeJSONString(state.name)
        body.writeStaticString(",\"full_name\":")
        body.writeJSONString(state.fullName)
        body.writeString(",\"private\":\(repository.isPrivate),\"owner\":")
        renderer.writeUser(ownerAccount(state.owner), into: &body)
        body.writeStaticString(",\"html_url\":")
        body.writeJSONString(renderer.htmlRepo)
        body.writeString(",\"description\":null,\"fork\":\(repository.fork),\"url\":")
        body.writeJSONString(renderer.apiRepo)
        body.writeStaticString(",\"commits_url\":")
        body.writeJSONString(renderer.apiRepo + "/commits{/sha}")
        body.writeStaticString(",\"clone_url\":")
        // Served by the simulator itself, on the API's host (unless configured otherwise), so a
        // client sends it the token.
        body.writeJSONString("\(cloneBaseURL)/\(state.owner)/\(state.name).git")
        body.writeString(
            ",\"created_at\":\"2014-12-01T00:00:00Z\",\"updated_at\":\"\(Timestamp.iso8601UTC(pushedAt))\",\"pushed_at\":\"\(Timestamp.iso8601UTC(pushedAt))\""
        )
        body.writeStaticString(",\"size\":0,\"default_branch\":")
        body.writeJSONString(state.defaultBranch)
        // `license` is null for a repository without a recognised licence; GitHub always sends the key
        // (github-to-sqlite reads it).
        body.writeString(
            ",\"license\":null,\"visibility\":\"\(repository.isPrivate ? "private" : "public")\",\"archived\":\(repository.archived),\"disabled\":false}"
        )
    }
}
