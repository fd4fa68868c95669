import MirrorTestSupport
import Foundation
import Testing

/// Issue #16 acceptance 4: the store opens in Datasette with full-text search
/// on commits (the search box and `?_search=`).
@Suite(
    .enabled(if: Datasette.python != nil, "pip could not install datasette (no python3 venv or no network): skipping the Datasette test"))
struct DatasetteTests {
    @Test func searchFindsCommitsThroughTheMessageIndex() async throws {
        let (directory, db) = try QueryCLIFixture.fresh("commits.sqlite")
        let script = try directory.write(
            "search.py",
            """
            import asyncio, json, sys
            from datasette.app import Datasette
            async def main():
                ds = Datasette([sys.argv[1]])
                found = await ds.client.get("/commits/commits.json?_shape=array&_col=sha&_search=" + sys.argv[2])
                page = await ds.client.get("/commits/commits")
                print(json.dumps({"status": found.status_code, "rows": found.json(),
                                  "search_box": 'name="_search"' in page.text}))
            asyncio.run(main())
            """)
        for needle in ["parser", "LITERAL_match", "nothing like this"] {
            let result = try await runProgram(Datasette.python!, [script, db, needle])
            #expect(result.status == 0, "\(result.stderr)")
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(answer["status"] as? Int == 200)
            #expect(answer["search_box"] as? Bool == true)
            let shas = (answer["rows"] as? [[String: Any]] ?? []).compactMap { $0["sha"] as? String }
            let expected = QueryCLIFixture.commits.filter { $0.message.lowercased().contains(needle.lowercased()) }.map(\.sha)
            #expect(Set(shas) == Set(expected), "\(needle)")
        }
    }
}

/// Datasette in a virtual environment made for this run (nil when it cannot be installed).
enum Datasette {
    static let python: String? = {
        guard let directory = try? TemporaryDirectory() else { return nil }
        let venv = directory.path("venv")
        guard (try? runProgramBlocking("/usr/bin/python3", ["-m", "venv", venv]))?.status == 0,
            (try? runProgramBlocking(venv + "/bin/pip", ["install", "-q", "datasette"]))?.status == 0
        else { return nil }
        keep = directory
        return venv + "/bin/python"
    }()

    /// The directory lives as long as the test process.
    nonisolated(unsafe) private static var keep: TemporaryDirectory?
}
