import Testing

@testable import MirrorCore

/// `OWNER/*` and globs: strict parsing, case-insensitive matching, no backtracking blow-up.
@Suite struct RepositoryPatternTests {
    @Test(arguments: [
        ("acme/*", "acme/widgets", true), ("acme/*", "ACME/Widgets", true), ("acme/*", "other/widgets", false),
        ("acme/swift-*", "acme/swift-nio", true), ("acme/swift-*", "acme/swift-", true), ("acme/swift-*", "acme/swiftly", false),
        ("acme/*-kit", "acme/ui-kit", true), ("acme/*-kit", "acme/ui-kits", false), ("acme/a*b*c", "acme/aXXbYYc", true),
        ("acme/a*b*c", "acme/aXXbYY", false), ("acme/*.*", "acme/x.y", true), ("acme/**", "acme/anything", true),
    ])
    func matching(pattern: String, repository: String, matches: Bool) throws {
        let parsed = try #require(RepositoryPattern(parsing: pattern))
        #expect(parsed.matches(try #require(RepositoryName(parsing: repository))) == matches)
    }

    @Test(arguments: [
        ("*/x", "only the name part may hold *, not the owner"), ("a*/x", "only the name part may hold *, not the owner"),
        ("acme/x?*", "the name part may hold only letters, digits, -, _, . and * (no ?, [ ] or other wildcards)"),
        ("acme/[ab]*", "the name part may hold only letters, digits, -, _, . and * (no ?, [ ] or other wildcards)"),
        ("acme/*/y", "a pattern is OWNER/NAME with exactly one /"), ("acme*", "a pattern is OWNER/NAME with exactly one /"),
        ("/*", "'' is not an owner name"), ("../*", "'..' is not an owner name"), ("acme/x", "the name part holds no *"),
    ])
    func refusals(text: String, problem: String) {
        #expect(RepositoryPattern(parsing: text) == nil)
        #expect(RepositoryPattern.problem(with: text) == problem)
    }

    @Test func aSelectorIsANameUnlessItHoldsAStar() {
        #expect(RepositorySelector(parsing: "acme/x") == .repository(RepositoryName(owner: "acme", name: "x")))
        #expect(RepositorySelector(parsing: "acme/x*") == .pattern(RepositoryPattern(parsing: "acme/x*")!))
        #expect(RepositorySelector(parsing: "acme x") == nil)
    }

    @Test func aHostileGlobStaysLinear() throws {
        let pattern = try #require(RepositoryPattern(parsing: "acme/" + String(repeating: "a*", count: 45) + "b"))
        let clock = ContinuousClock()
        let start = clock.now
        #expect(!pattern.matches(name: String(repeating: "a", count: 100)))
        #expect(clock.now - start < .seconds(1))
    }
}
