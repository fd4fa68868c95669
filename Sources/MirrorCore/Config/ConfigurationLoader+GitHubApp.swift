import Yams

// `github_app: { app_id, installation_id, private_key_file }`, checked like every other key.
extension ConfigurationLoader {
    enum GitHubAppKeyName: String, CaseIterable {
        case app_id, installation_id, private_key_file
    }

    /// `line`: where `github_app:` is, which later messages about the App name.
    func githubApp(_ node: Node, line: Int?) throws -> GitHubAppSettings {
        let expected = "a mapping with app_id, private_key_file and optionally installation_id"
        guard case .mapping(let mapping) = node else {
            throw error(at: node, key: "github_app", problem: "is \(kind(of: node))", expected: expected)
        }
        var appID: Int?
        var settings = GitHubAppSettings(appID: 0, line: line)
        try forEachSetting(of: mapping, path: "github_app.", keys: GitHubAppKeyName.self) { key, _, value in
            switch key {
            case .app_id:
                appID = try identifier(value, key: "github_app.app_id", expected: "the App's numeric id (its settings page: App ID)")
            case .installation_id:
                settings.installationID = try identifier(
                    value, key: "github_app.installation_id", expected: "the installation's numeric id")
            case .private_key_file:
                settings.privateKeyFile = try path(
                    value, key: "github_app.private_key_file", expected: "the path of the App's PEM private key")
            }
        }
        guard let appID else {
            throw error(
                at: node, key: "github_app.app_id", problem: "missing", expected: "the App's numeric id (its settings page: App ID)")
        }
        settings.appID = appID
        return settings
    }

    /// A positive whole number written as one (not quoted).
    private func identifier(_ node: Node, key: String, expected: String) throws -> Int {
        guard let text = try scalarText(node, key: key, expected: expected) else {
            throw error(at: node, key: key, problem: "has no value", expected: expected)
        }
        guard node.tag.rawValue == Tag.Name.int.rawValue, let number = Int(text), number > 0 else {
            throw error(at: node, key: key, problem: "'\(Self.excerpt(text))' is not a positive whole number", expected: expected)
        }
        return number
    }
}
