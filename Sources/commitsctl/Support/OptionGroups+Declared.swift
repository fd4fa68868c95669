import ArgumentParser

// The option groups the tabled commands share, for their tables (`DirectParser`):
// each group's defaults, its entries and its validation, declared once.

extension PagerOptions {
    /// As a parse that does not name `--no-pager` leaves it.
    static var unset: Self {
        var options = Self()
        options.noPager = false
        return options
    }

    static func directEntries<Command>(_ options: any WritableKeyPath<Command, Self> & Sendable) -> [DirectParser<Command>.Entry] {
        [.flag("--no-pager") { $0[keyPath: options].noPager = true }]
    }
}

extension StoreOptions {
    /// As a parse that names neither `--db` nor `--config` leaves them.
    static var unset: Self {
        var options = Self()
        options.path = nil
        options.configuration = ConfigOptions()
        options.configuration.config = nil
        return options
    }

    static func directEntries<Command>(_ options: any WritableKeyPath<Command, Self> & Sendable) -> [DirectParser<Command>.Entry] {
        [
            .text("--db") { $0[keyPath: options].path = $1 },
            .text("--config") { $0[keyPath: options].configuration.config = $1 },
        ]
    }

    /// What ArgumentParser validates of this group as it decodes it: the group within it first.
    mutating func validateAsDecoded() throws {
        try configuration.validate()
        try validate()
    }
}

extension RepositoryFilterOptions {
    /// As a parse that does not name `--repo` leaves it.
    static var unset: Self {
        var options = Self()
        options.repo = nil
        return options
    }

    static func directEntries<Command>(_ options: any WritableKeyPath<Command, Self> & Sendable) -> [DirectParser<Command>.Entry] {
        [.text("--repo") { $0[keyPath: options].repo = $1 }]
    }
}
