import ArgumentParser

/// A command's everyday arguments parsed without ArgumentParser's reflection.
///
/// ArgumentParser finds a command's options by reflecting it (`Mirror` and
/// `as?` casts), and in a statically linked binary each first
/// protocol-conformance look-up scans every conformance record: 18 M of the
/// 33 M instructions of `commitsctl query --author … -n 50`, where the store's
/// answer takes 6 M. A reading command therefore also declares its options in
/// a table, and its arguments are parsed from that table when they are plainly
/// well formed: `--name value`, `--name=value`, a declared short name, its
/// joined value (`-n50`), the positional arguments in their order.
///
/// The table never decides what a command line means. Anything else (help,
/// `--`, an undeclared or repeated option, a value that looks like an option or
/// that the option's type refuses, a positional missing or too many, a value any
/// `validate()` refuses) returns
/// nil, and the caller parses with ArgumentParser, whose result or error is the
/// answer. `DirectParserTests` checks that whatever the table accepts,
/// ArgumentParser parses to the same values.
struct DirectParser<Command>: Sendable {
    enum Action: Sendable {
        /// A flag: sets the property when named.
        case flag(@Sendable (inout Command) -> Void)
        /// An option with a value: false when the value is not one the option accepts.
        case value(@Sendable (inout Command, String) -> Bool)
    }

    struct Entry: Sendable {
        /// `--long` and `-s` spellings, as ArgumentParser declares them.
        var names: [String]
        /// Whether `-sVALUE` is the short name with a joined value (`allowingJoined`).
        var joinsShortValue = false
        /// Whether the option may be given more than once (an array option).
        var repeats = false
        var action: Action

        static func flag(_ names: String..., set: @escaping @Sendable (inout Command) -> Void) -> Entry {
            Entry(names: names, action: .flag(set))
        }

        /// An option whose value is read as ArgumentParser reads it (`init?(argument:)`).
        static func argument<Value: ExpressibleByArgument>(
            _ names: String..., joinsShortValue: Bool = false, set: @escaping @Sendable (inout Command, Value) -> Void
        ) -> Entry {
            Entry(
                names: names, joinsShortValue: joinsShortValue,
                action: .value({ command, text in
                    guard let value = Value(argument: text) else { return false }
                    set(&command, value)
                    return true
                }))
        }

        /// An option whose value is any text.
        static func text(_ names: String..., set: @escaping @Sendable (inout Command, String) -> Void) -> Entry {
            Entry(names: names, action: .value(accepting(set)))
        }

        /// An option of any text, given any number of times.
        static func texts(_ names: String..., append: @escaping @Sendable (inout Command, String) -> Void) -> Entry {
            Entry(names: names, repeats: true, action: .value(accepting(append)))
        }

        private static func accepting(
            _ set: @escaping @Sendable (inout Command, String) -> Void
        ) -> @Sendable (inout Command, String) -> Bool {
            { command, text in
                set(&command, text)
                return true
            }
        }
    }

    /// The command with every property set to its declared default: ArgumentParser's
    /// property wrappers refuse to be read until a parse (or this) sets them.
    let defaults: @Sendable () -> Command
    /// Every `validate()` ArgumentParser would call: the option groups' and the
    /// command's (mutating, as ArgumentParser's may be).
    let validate: @Sendable (inout Command) throws -> Void
    let entries: [Entry]
    /// The arguments that are not options, in order, each required: whatever does not
    /// start with `-` and is not an option's value. False when the text is refused.
    var positionals: [@Sendable (inout Command, String) -> Bool] = []

    /// The entry a name belongs to. A scan, not a dictionary: with two dozen names it
    /// is as quick, and the first `Dictionary<String, Int>` (or `Set<Int>`) a static
    /// binary instantiates costs a scan of every conformance record (0.4 M instructions).
    private func entry(named name: some StringProtocol) -> Int? {
        entries.firstIndex { $0.names.contains { $0 == name } }
    }

    /// Whether `argument` names an option followed by a separate value.
    func takesValue(_ argument: String) -> Bool {
        guard let index = entry(named: argument), case .value = entries[index].action else { return false }
        return true
    }

    /// The parsed command, or nil when ArgumentParser must parse `arguments`.
    func parse(_ arguments: [String]) -> Command? {
        var command = defaults()
        var given = [Bool](repeating: false, count: entries.count)
        var remaining = arguments[...]
        var positionalsGiven = 0
        while let argument = remaining.popFirst() {
            if !argument.hasPrefix("-") {
                guard positionalsGiven < positionals.count, positionals[positionalsGiven](&command, argument) else { return nil }
                positionalsGiven += 1
                continue
            }
            guard let (index, inlineValue) = split(argument) else { return nil }
            let entry = entries[index]
            guard !given[index] || entry.repeats else { return nil }
            given[index] = true
            switch entry.action {
            case .flag(let set):
                guard inlineValue == nil else { return nil }
                set(&command)
            case .value(let set):
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard let next = remaining.popFirst(), !next.hasPrefix("-") else { return nil }
                    value = next
                }
                guard !value.isEmpty, set(&command, value) else { return nil }
            }
        }
        guard positionalsGiven == positionals.count else { return nil }
        do {
            try validate(&command)
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
