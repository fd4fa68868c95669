import ArgumentParser

/// A command's everyday arguments parsed without ArgumentParser's reflection.
///
/// ArgumentParser finds a command's options by reflecting it (`Mirror` and
/// `as?` casts), and in a statically linked binary each first
/// protocol-conformance look-up scans every conformance record, which costs a
/// reading command more than its store's answer (BENCHMARKS.md, "Measured
/// reasons: a reading command's start-up"). A reading command's options are
/// therefore declared once as values (`DeclaredOption`), which its
/// ArgumentParser properties and this table both read, and its arguments are
/// parsed from the table when they are plainly well formed: `--name value`, `--name=value`, a
/// declared short name, its joined value (`-n50`), the positional arguments in
/// their order.
///
/// The table never decides what a command line means. Anything else (help,
/// `--`, an undeclared or repeated option, a value that looks like an option or
/// that the option's type refuses, a positional missing or too many, a value any
/// `validate()` refuses) returns nil, and the caller parses with
/// ArgumentParser, whose result or error is the answer. `DirectParserTests`
/// checks that whatever the table accepts, ArgumentParser parses to the same
/// values.
///
/// The arguments are read first and the command built after, from its
/// defaults: ArgumentParser's property wrappers refuse to be read until set, so
/// nothing is read before everything is set.
/// An option's names and kind, as a table looks them up.
struct TableEntry: Sendable {
    enum Kind: Sendable {
        case flag
        case value
        /// Given any number of times (an array option).
        case values
    }

    /// `--long` and `-s` spellings, as ArgumentParser declares them.
    var names: [String]
    /// Whether `-sVALUE` is the short name with a joined value (`allowingJoined`).
    var joinsShortValue = false
    var kind: Kind

    var repeats: Bool { kind == .values }
}

struct DirectParser<Command: ParsableArguments>: Sendable {
    /// What one declared option adds to its command's table (`DeclaredOption.row`).
    struct Row: Sendable {
        var entry: TableEntry
        /// Sets the property to its declared default.
        var setDefault: @Sendable (inout Command) -> Void
        /// Sets what the option's values say (none for a flag); false when a value is refused.
        var apply: @Sendable (inout Command, [String]) -> Bool
    }

    /// An option group's table, parsed as part of the command's: the group is built
    /// from its own table and what was given of its options, then set on the command.
    struct Group: Sendable {
        fileprivate var entries: [TableEntry]
        fileprivate var build: @Sendable (inout Command, ArraySlice<[String]?>) -> Bool

        static func group<Options>(
            _ table: DirectParser<Options>, set: @escaping @Sendable (inout Command, Options) -> Void
        ) -> Self {
            Self(
                entries: table.entries,
                build: { command, given in
                    guard let options = table.build(given, positionals: []) else { return false }
                    set(&command, options)
                    return true
                })
        }
    }

    /// The command's own options, then each group's, in order: what a name is looked up in.
    let entries: [TableEntry]
    private let rows: [Row]
    private let groups: [Group]
    /// The arguments that are not options, in order, each required: whatever does not
    /// start with `-` and is not an option's value. False when the text is refused.
    private let positionals: [@Sendable (inout Command, String) -> Bool]
    /// Sets the arguments the table never parses (a list of any length) to
    /// their defaults: a command line that gives any is left to ArgumentParser.
    private let unparsedDefaults: (@Sendable (inout Command) -> Void)?

    init(
        _ rows: [Row], arguments: [DeclaredArgument<Command, String>] = [], groups: [Group] = [],
        unparsedDefaults: (@Sendable (inout Command) -> Void)? = nil
    ) {
        entries = rows.map(\.entry) + groups.flatMap(\.entries)
        self.rows = rows
        self.groups = groups
        positionals = arguments.map(\.read)
        self.unparsedDefaults = unparsedDefaults
    }

    /// The entry a name belongs to. A scan, not a dictionary: with two dozen names it
    /// is as quick, and the first `Dictionary<String, Int>` (or `Set<Int>`) a static
    /// binary instantiates costs a scan of every conformance record.
    private func entry(named name: some StringProtocol) -> Int? {
        entries.firstIndex { $0.names.contains { $0 == name } }
    }

    /// Whether `argument` names an option followed by a separate value.
    func takesValue(_ argument: String) -> Bool {
        guard let index = entry(named: argument) else { return false }
        return entries[index].kind != .flag
    }

    /// The parsed command, or nil when ArgumentParser must parse `arguments`.
    func parse(_ arguments: [String]) -> Command? {
        // Each entry's values as given: nil when not named, empty for a flag.
        var given = [[String]?](repeating: nil, count: entries.count)
        var positionalTexts: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if !argument.hasPrefix("-") {
                guard positionalTexts.count < positionals.count else { return nil }
                positionalTexts.append(argument)
                continue
            }
            guard let (index, inlineValue) = split(argument) else { return nil }
            guard given[index] == nil || entries[index].repeats else { return nil }
            if entries[index].kind == .flag {
                guard inlineValue == nil else { return nil }
                given[index] = []
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard let next = remaining.popFirst(), !next.hasPrefix("-") else { return nil }
                value = next
            }
            guard !value.isEmpty else { return nil }
            given[index] = (given[index] ?? []) + [value]
        }
        guard positionalTexts.count == positionals.count else { return nil }
        return build(given[...], positionals: positionalTexts)
    }

    /// The command from its defaults, what was given of each option (in `entries`'
    /// order) and its positionals, validated as ArgumentParser validates it: each
    /// option group as it is decoded, then the command. Nil when any value is refused.
    fileprivate func build(_ given: ArraySlice<[String]?>, positionals texts: [String]) -> Command? {
        var command = Command()
        for row in rows { row.setDefault(&command) }
        for (row, values) in zip(rows, given) {
            if let values, !row.apply(&command, values) { return nil }
        }
        var next = given.startIndex + rows.count
        for group in groups {
            let end = next + group.entries.count
            guard group.build(&command, given[next..<end]) else { return nil }
            next = end
        }
        for (read, text) in zip(positionals, texts) where !read(&command, text) { return nil }
        unparsedDefaults?(&command)
        do {
            try command.validate()
        } catch {
            return nil
        }
        return command
    }

    /// The entry an argument names and its value when joined to it (`--name=value`, `-nVALUE`).
    private func split(_ argument: String) -> (Int, String?)? {
        if argument.hasPrefix("--") {
            guard argument.count > 2 else { return nil }
            if let equals = argument.firstIndex(of: "=") {
                return entry(named: argument[..<equals]).map { ($0, String(argument[argument.index(after: equals)...])) }
            }
            return entry(named: argument).map { ($0, nil) }
        }
        guard argument.hasPrefix("-"), argument.count >= 2 else { return nil }
        if argument.count == 2 { return entry(named: argument).map { ($0, nil) } }
        guard let index = entry(named: argument.prefix(2)), entries[index].joinsShortValue else { return nil }
        return (index, String(argument.dropFirst(2)))
    }
}
