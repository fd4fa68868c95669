import MirrorCore

/// What an operator can do about an error, in commitsd's terms: its
/// configuration keys and systemd credential, never a command-line flag it
/// does not have. MirrorCore states the facts; this adds the rest after "; ".
enum DaemonAdvice {
    static func line(for error: any Error) -> String {
        guard let advice = advice(for: error) else { return "\(error)" }
        return "\(error); \(advice)"
    }

    private static func advice(for error: any Error) -> String? {
        switch error {
        case let error as GitHubError:
            switch error {
            case .notFound(_, nil):
                return
                    "check the name in the configuration; a private repository needs a token (token_file, or the github-token credential)"
            case .notFound(_, .some):
                return "check the name in the configuration and the token's access"
            case .branchNotFound:
                return "check the repository's branch in the configuration"
            case .badCredentials:
                return "replace the token (token_file, or the github-token credential) and reload"
            case .transport, .redirectRefused, .responseTooLarge:
                return "check the network and api_url in the configuration"
            default:
                return nil
            }
        case GitHubAppError.tokenEndpointFailed:
            return
                "the repositories that need a token fail at once for the next \(DurationText.format(GitHubApp.failureMemory)), then it is asked again; check the network and api_url in the configuration"
        case let error as SyncError:
            if case .repositoryIdentityChanged = error {
                return "check api_url in the configuration, or mirror the new repository into another store"
            }
            return nil
        case let error as StoreError:
            switch error {
            case .cannotCreateDirectory, .notAFile, .emptyPath, .databaseURL, .noDriver, .notAStore, .foreignDatabase:
                return "check store in the configuration"
            case .busy:
                return "nothing was half-stored; another program writing this store "
                    + "(a commitsctl sync, a sqlite3 session inside a transaction) holds its lock: let it finish or stop it"
            default:
                return nil
            }
        default:
            return nil
        }
    }
}
