// GitHub accounts behind commit emails.

/// A GitHub account as shown in a SimpleUser object.
struct SimUser: Sendable, Hashable {
    var login: String
    var id: Int
    /// `id` as text, kept because every rendered SimpleUser writes it twice.
    let idText: String
    /// Legacy global id, base64 of "04:User<id>", as GitHub still sends.
    let nodeID: String

    init(login: String, id: Int) {
        self.login = login
        self.id = id
        idText = String(id)
        nodeID = Base64.encode(Array("04:User\(id)".utf8))
    }

    /// GitHub's merge/web-edit committer account.
    static let webFlow = SimUser(login: "web-flow", id: 19_864_447)

    /// The account for a git email, derived deterministically. About 1 in 10 ordinary emails belongs
    /// to nobody, as happens on GitHub when an email was never added to an account.
    static func derived(fromEmail email: String) -> SimUser? {
        let lower = email.lowercased()
        if lower == "noreply@github.com" { return webFlow }
        let parts = lower.split(separator: "@", maxSplits: 1)
        guard let local = parts.first, !local.isEmpty else { return nil }
        var loginSource = Substring(local)
        if parts.count == 2, parts[1] == "users.noreply.github.com" {
            // "12345+login@users.noreply.github.com" is a real account by construction.
            if let plus = local.firstIndex(of: "+") { loginSource = local[local.index(after: plus)...] }
        } else if Hashing.string(lower, lane: 7) % 10 == 0 {
            return nil
        }
        let login = sanitizedLogin(loginSource)
        guard !login.isEmpty else { return nil }
        return SimUser(login: login, id: Int(Hashing.string(login, lane: 11) % 150_000_000) + 1000)
    }

    /// GitHub logins are alphanumerics and single inner hyphens.
    static func sanitizedLogin(_ text: some StringProtocol) -> String {
        var out = ""
        var lastWasHyphen = true
        for scalar in text.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                out.unicodeScalars.append(scalar)
                lastWasHyphen = false
            } else if !lastWasHyphen {
                out += "-"
                lastWasHyphen = true
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return String(out.prefix(39))
    }
}
