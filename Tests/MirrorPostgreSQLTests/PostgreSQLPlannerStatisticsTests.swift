import Foundation
import MirrorPostgreSQL
import MirrorTestSupport
import PostgreSQL
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// A first sync must not leave PostgreSQL planning its per-page probes on
/// statistics that say the tables are empty (a scan of everything stored per
/// page): the writer analyses the tables itself as they double, well before
/// autovacuum would, whose analyses are counted apart and do not pass this test.
@Suite struct PostgreSQLPlannerStatisticsTests {
    @Test func aGrowingMirrorIsAnalysedByItsWriter() async throws {
        TestStoreDrivers.register()
        let uri = try await PostgreSQLServer.shared().createDatabase()
        let writer = try StoreLocation(uri).openSyncWriter()
        let identity = RepositoryIdentity(
            githubID: 77, fullName: RepositoryName(owner: "acme", name: "planner"), defaultBranch: "main", htmlURL: nil)
        let repository = try writer.adopt(identity, requestedAs: identity.fullName)
        let commits = (0..<2_500).map { n in
            StoreFixtures.commit(n, parents: n == 0 ? [] : [n - 1])
        }
        _ = try await writer.withBatches(limits: BatchLimits(maximumCommits: 500)) { batches in
            for chunk in stride(from: 0, to: commits.count, by: 250) {
                _ = try batches.storeFromGit(Array(commits[chunk..<chunk + 250]), repositoryID: repository.id)
            }
        }

        let observer = try PostgreSQLConnection(uri: uri)
        // Statistics reach pg_stat_user_tables shortly after the writer's transaction ends.
        var analyses = 0
        for _ in 0..<100 where analyses == 0 {
            analyses =
                try observer.execute(
                    "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'repository_commits'"
                ).int(0, 0) ?? 0
            if analyses == 0 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(analyses >= 1)
        let counted = try observer.execute(
            "SELECT reltuples::bigint FROM pg_class WHERE oid = 'repository_commits'::regclass"
        ).int64(0, 0)
        #expect((counted ?? 0) >= 1_000)
    }
}
