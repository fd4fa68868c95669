import Foundation

/// An upgrade of an existing store to this program's schema.
public struct StoreUpgrade: Sendable, Equatable {
    public var fromVersion: Int
    public var toVersion: Int
    /// The copy of the store made just before the upgrade.
    public var backupPath: String

    package init(fromVersion: Int, toVersion: Int, backupPath: String) {
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.backupPath = backupPath
    }
}
