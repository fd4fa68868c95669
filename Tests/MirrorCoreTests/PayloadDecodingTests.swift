import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore

@Suite struct PayloadDecodingTests {
    let decoder = PayloadDecoder()

    @Test(
        .enabled(if: TestSupport.hasSharedExamples, "../shared/github-api/examples not present"),
        arguments: [
            "list-commits-2026-authenticated-page1.json",
            "list-commits-2018-unauthenticated-trimmed.json",
            "list-commits-2013-since-until-null-author-trimmed.json",
            "openapi-docs-example-list-commits.json",
        ])
    func decodesRecordedGitHubResponses(file: String) throws {
        let commits = try decoder.decodeCommitPage(TestSupport.recordedBody(file))
        #expect(!commits.isEmpty)
        for commit in commits {
            #expect(commit.sha.count == 40)
            #expect(commit.commit.author != nil)
            #expect(!commit.commit.message.isEmpty)
        }
    }

    @Test(.enabled(if: TestSupport.hasSharedExamples, "../shared/github-api/examples not present"))
    func nullTopLevelAuthorInTheRecordedRailsAdminPage() throws {
        let commits = try decoder.decodeCommitPage(TestSupport.recordedBody("list-commits-2013-since-until-null-author-trimmed.json"))
        let nullAuthor = try #require(commits.first { $0.sha.hasPrefix("631b396") })
        #expect(nullAuthor.author == nil)
        #expect(nullAuthor.committer?.login != nil)
        #expect(nullAuthor.commit.author?.email == "imageoptimiser@skatty.me")
    }

    @Test func nullAndEmptyObjectUsersBothMeanNoAccount() throws {
        let page = PayloadFixtures.page([
            PayloadFixtures.element(sha: PayloadFixtures.sha(1), authorField: "null"),
            PayloadFixtures.element(sha: PayloadFixtures.sha(2), authorField: "{}"),
            PayloadFixtures.element(sha: PayloadFixtures.sha(3), login: "octocat"),
        ])
        let commits = try decoder.decodeCommitPage(page)
        #expect(commits.map(\.author?.login) == [nil, nil, "octocat"])
    }

    @Test func acceptsUTCAndOffsetDatesAsTheSameInstant() throws {
        let page = PayloadFixtures.page([
            PayloadFixtures.element(sha: PayloadFixtures.sha(1), date: "2011-05-12T12:00:00Z"),
            PayloadFixtures.element(sha: PayloadFixtures.sha(2), date: "2011-05-12T14:30:00+02:30"),
            PayloadFixtures.element(sha: PayloadFixtures.sha(3), date: "2011-05-12T07:00:00-0500"),
        ])
        let dates = try decoder.decodeCommitPage(page).map { $0.commit.author!.date }
        #expect(Set(dates).count == 1)
        #expect(ISO8601Timestamp.format(dates[0]) == "2011-05-12T12:00:00Z")
    }

    @Test func keepsNonASCIINamesAndSubjectOnlyMessages() throws {
        let page = PayloadFixtures.page([
            PayloadFixtures.element(sha: PayloadFixtures.sha(1), message: "Fix", authorName: "Zoë Müller 李雷")
        ])
        let commit = try #require(try decoder.decodeCommitPage(page).first)
        #expect(commit.commit.author?.name == "Zoë Müller 李雷")
        #expect(commit.commit.message == "Fix")
    }

    @Test func ignoresUnknownFields() throws {
        let element = PayloadFixtures.element(sha: PayloadFixtures.sha(1))
        let withExtra = "{\"future_field\":{\"nested\":[1,2,3]}," + element.dropFirst()
        #expect(try decoder.decodeCommitPage(PayloadFixtures.page([withExtra])).count == 1)
    }

    @Test(arguments: [
        ("[{\"sha\":1}]", "wrong type"),
        ("[{\"commit\":{}}]", "missing field 'sha'"),
        ("[", "invalid JSON"),
        ("", "invalid JSON"),
    ])
    func refusesMalformedPagesWithAReadableReason(body: String, expected: String) {
        #expect {
            try decoder.decodeCommitPage(Array(body.utf8))
        } throws: { error in
            describeDecodingError(error).contains(expected)
        }
    }

    @Test func refusesInvalidDatesAndShas() {
        let badDate = PayloadFixtures.element(sha: PayloadFixtures.sha(1), date: "yesterday")
        #expect(throws: DecodingError.self) { try decoder.decodeCommitPage(PayloadFixtures.page([badDate])) }
        let badSHA = PayloadFixtures.element(sha: "not-a-sha")
        #expect(throws: DecodingError.self) { try decoder.decodeCommitPage(PayloadFixtures.page([badSHA])) }
    }
}

@Suite struct ISO8601TimestampTests {
    @Test(arguments: [
        ("2023-08-28T18:27:45Z", 1_693_247_265.0),
        ("1970-01-01T00:00:00Z", 0),
        ("2000-02-29T23:59:59Z", 951_868_799),
        ("2023-08-28T18:27:45.123Z", 1_693_247_265),
        ("2023-08-28T20:27:45+02:00", 1_693_247_265),
    ])
    func parses(text: String, epoch: Double) throws {
        #expect(try #require(ISO8601Timestamp.parse(text)).timeIntervalSince1970 == epoch)
    }

    @Test(arguments: ["", "2023-08-28", "2023-13-01T00:00:00Z", "2023-08-28T18:27:45", "2023-08-28T18:27:45+2"])
    func rejects(text: String) {
        #expect(ISO8601Timestamp.parse(text) == nil)
    }

    @Test func formatRoundTrips() throws {
        for seconds in stride(from: -86_400 * 400, through: 4_102_444_800, by: 7_777_777) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(ISO8601Timestamp.parse(ISO8601Timestamp.format(date)) == date)
        }
    }
}
