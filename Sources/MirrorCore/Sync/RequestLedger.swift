import Foundation

/// Writes what a client spent into the store, a delta at a time: the one-shot
/// sync once at its end, commitsd every so often and when it stops.
public struct RequestLedger: Sendable {
    public let store: StoreLocation
    /// Where the client's credential came from (`credentialSource`: a token's
    /// source, or the GitHub App and its key's source), or `unauthenticated`.
    public let token: String
    private var recorded: GitHubClient.Usage

    /// Counts what `client` spends from now on.
    public init(store: StoreLocation, client: GitHubClient) {
        self.store = store
        self.token = client.configuration.credentialSource ?? "unauthenticated"
        self.recorded = client.usage
    }

    /// Records what `client` spent since the last write; kept for the next write when it fails.
    /// `writer`: the caller's open writer of `store` (else one is opened for the write).
    public mutating func write(_ client: GitHubClient, into writer: (any RequestRecords)? = nil, at date: Date = Date()) throws {
        let usage = client.usage
        let spent = usage.byKind(since: recorded)
        guard !spent.isEmpty else { return }
        let records: any RequestRecords = try writer ?? store.openSyncWriter()
        try records.recordRequests(spent, token: token, at: date)
        recorded = usage
    }
}
