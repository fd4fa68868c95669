import ArgumentParser

// The option groups the tabled commands share, each declared once (`DeclaredOption`):
// their properties read these declarations, and so do the commands' tables (`DirectParser`).

extension PagerOptions {
    enum Options {
        static let noPager = DeclaredOption<PagerOptions, Bool>.flag(
            .long("no-pager"), help: "Print straight to the terminal instead of through $PAGER (default less -FRX)."
        ) { $0.noPager = $1 }
    }

    static let directParser = DirectParser<Self>([Options.noPager.row])
}

extension ConfigOptions {
    enum Options {
        static let config = DeclaredOption<ConfigOptions, String?>.optional(
            .long("config"),
            help:
                "The configuration file, e.g. /etc/commits-mirror/config.yaml (default: $COMMITS_MIRROR_CONFIG; `sync` without a repository also tries $CONFIGURATION_DIRECTORY/config.yaml and /etc/commits-mirror/config.yaml)."
        ) { $0.config = $1 }
    }

    static let directParser = DirectParser<Self>([Options.config.row])
}

extension StoreOptions {
    enum Options {
        static let path = DeclaredOption<StoreOptions, String?>.optional(
            .long("db"),
            help:
                "The store file (default: $COMMITS_DB, else the configuration's store, else $XDG_DATA_HOME/commits-mirror/commits.sqlite)."
        ) { $0.path = $1 }
    }

    static let directParser = DirectParser<Self>(
        [Options.path.row], groups: [.group(ConfigOptions.directParser) { $0.configuration = $1 }])
}

extension RepositoryFilterOptions {
    enum Options {
        static let repo = DeclaredOption<RepositoryFilterOptions, String?>.optional(
            .long("repo"), help: ArgumentHelp("Only this repository (default: all).", valueName: "owner/name")
        ) { $0.repo = $1 }
    }

    static let directParser = DirectParser<Self>([Options.repo.row])
}
