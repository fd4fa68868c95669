import MirrorCore
import MirrorModel

/// What a command-line user can do about an error. MirrorCore states what
/// happened; this adds the flags and commands that fix it here, after "; ".
enum Advice {
    /// The error's one line: its facts, then the advice when there is one.
    static func line(for error: any Error) -> String {
        guard let advice = advice(for: error) else { return "\(error)" }
        return "\(error); \(advice)"
    }

    private static func advice(for error: any Error) -> String? {
        switch error {
        case let error as GitHubError: return advice(for: error)
        case let error as StoreError: return advice(for: error)
        case let error as SyncError: return advice(for: error)
        case let error as RevisionError: return advice(for: error)
        case let error as any StoreFailureReporting where !error.includesRemedy: return advice(for: error.storeFailure)
        case GitHubAppError.tokenEndpointFailed:
            return "nothing more was synced in this run; check the network and --api-url (or api_url), then sync again"
        default: return nil
        }
    }

    private static func advice(for error: RevisionError) -> String? {
        switch error {
        case .unknown: "`commitsctl tags` lists the tags and `commitsctl status` the branches; give -- before paths"
        case .ambiguous: "give more digits of the sha"
        case .notMirrored: "`commitsctl sync` mirrors what the tag reaches once a branch does"
        case .neitherRevisionNorPath: "give paths after -- to ask for them all the same; `commitsctl tags` lists the tags"
        case .malformed, .noSuchAncestor: nil
        }
    }

    private static func advice(for error: GitHubError) -> String? {
        switch error {
        case .notFound(_, nil):
            return "check the name; a private repository needs GITHUB_TOKEN (or --token-file)"
        case .notFound(_, .some):
            return "check the name and the token's access"
        case .branchNotFound:
            return "check --branch"
        case .primaryRateLimit(let resetAt, let authenticated):
            var text = resetAt == nil ? "retry later, or pass --wait to wait for it" : "retry then, or pass --wait to wait for it"
            if !authenticated { text += "; set GITHUB_TOKEN for 5,000 requests an hour" }
            return text
        case .reserveReached:
            return "retry then, or pass --wait"
        case .transport:
            return "check the network and --api-url"
        case .redirectRefused, .responseTooLarge:
            return "check --api-url and any proxy in between"
        default:
            return nil
        }
    }

    private static func advice(for error: StoreError) -> String? {
        switch error {
        case .cannotCreateDirectory:
            return "choose another path with --db or $COMMITS_DB"
        case .missing:
            return "run `commitsctl sync OWNER/REPO` first, or point --db / $COMMITS_DB at an existing store"
        case .notAFile:
            return "point --db / $COMMITS_DB (or the configuration's store) at a store file or a path that does not exist yet"
        case .emptyPath:
            return "give --db PATH (or $COMMITS_DB) the path of a store file, or leave it out for the default"
        case .notAStore:
            return "point --db at the right file"
        case .readOnlyNeedsMigration:
            return "run `commitsctl sync` (or start commitsd) once to upgrade it"
        case .foreignDatabase:
            return "point --db at a commits-mirror store or a new file"
        case .busy:
            return "nothing was half-stored; let the other writer (another commitsctl sync, a commitsd on this store, "
                + "a sqlite3 session inside a transaction) finish or stop it, then run the command again"
        default:
            return nil
        }
    }

    /// A database store failing mid-command: its open transaction rolled back whole.
    private static func advice(for failure: StoreFailure) -> String? {
        switch failure {
        case .cancelled:
            return "the unfinished batch was rolled back and nothing stored was changed; "
                + "raise the role's statement_timeout (or find who cancelled it) and run the command again"
        case .lockTimeout:
            return "the store is locked by another session: nothing was half-stored; let that session finish "
                + "(VACUUM FULL, REINDEX and ALTER TABLE hold such locks) or end it with pg_terminate_backend(PID), "
                + "then run the command again (the wait is lock_timeout, 30 s: PGOPTIONS='-c lock_timeout=…' changes it)"
        case .full:
            return "the unfinished batch was rolled back; free disk space on the database server and run the command again"
        case .tooManyConnections:
            return "raise the server's max_connections or run fewer commands and daemons at once"
        case .connectionLost:
            return "the unfinished batch was rolled back; once the server is back, "
                + "run the command again: a sync resumes from its last checkpoint"
        case .readOnly, .permissionDenied, .unavailable, .other:
            return nil
        }
    }

    private static func advice(for error: SyncError) -> String? {
        switch error {
        case .repositoryIdentityChanged:
            return "check --api-url, or mirror the new repository into another store (--db)"
        case .inconsistentServer, .linkRefused, .storedNameOnly:
            return nil
        }
    }
}
