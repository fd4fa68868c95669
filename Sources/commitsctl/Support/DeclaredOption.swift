import ArgumentParser

/// A name of an option, spelled as ArgumentParser declares it and as `DirectParser` reads it.
enum OptionName: Sendable {
    case long(String)
    /// With `joined`, `-n5` is `-n 5` (ArgumentParser's `allowingJoined`).
    case short(Character, joined: Bool = false)

    var spelling: String {
        switch self {
        case .long(let name): "--\(name)"
        case .short(let letter, _): "-\(letter)"
        }
    }

    var element: NameSpecification.Element {
        switch self {
        case .long(let name): .customLong(name)
        case .short(let letter, let joined): .customShort(letter, allowingJoined: joined)
        }
    }
}

/// One option or flag of a command whose everyday arguments `DirectParser` parses,
/// declared once: the ArgumentParser property reads its names, help and default
/// (`@Option(Options.author) var author: [String]`), and the command's table reads
/// the same declaration, so the two cannot disagree on what an option is called,
/// what it defaults to or how it is read. `set` assigns the property; a key path
/// would not do, as writing through one first reads the property, which
/// ArgumentParser's wrappers refuse until a parse has set them.
struct DeclaredOption<Root: ParsableArguments, Value: Sendable>: Sendable {
    typealias Set = @Sendable (inout Root, Value) -> Void

    let names: [OptionName]
    let help: ArgumentHelp
    let defaultValue: Value
    /// How the table sets the property: its default, and what the option's value or presence does.
    let row: DirectParser<Root>.Row

    var nameSpecification: NameSpecification { NameSpecification(names.map(\.element)) }

    private init(
        names: [OptionName], help: ArgumentHelp, defaultValue: Value, set: @escaping Set, kind: TableEntry.Kind,
        apply: @escaping @Sendable (inout Root, [String]) -> Bool
    ) {
        self.names = names
        self.help = help
        self.defaultValue = defaultValue
        let entry = TableEntry(
            names: names.map(\.spelling),
            joinsShortValue: names.contains { if case .short(_, true) = $0 { true } else { false } },
            kind: kind)
        row = .init(entry: entry, setDefault: { set(&$0, defaultValue) }, apply: apply)
    }
}

extension DeclaredOption where Value == Bool {
    /// A flag, off unless named.
    static func flag(_ names: OptionName..., help: ArgumentHelp, set: @escaping Set) -> Self {
        Self(
            names: names, help: help, defaultValue: false, set: set, kind: .flag,
            apply: { command, _ in
                set(&command, true)
                return true
            })
    }
}

extension DeclaredOption where Value: ExpressibleByArgument {
    /// An option with a value and a default, its value read as ArgumentParser reads it (`init?(argument:)`).
    static func option(_ names: OptionName..., default defaultValue: Value, help: ArgumentHelp, set: @escaping Set) -> Self {
        Self(
            names: names, help: help, defaultValue: defaultValue, set: set, kind: .value, apply: settingOne(set) { $0 })
    }
}

extension DeclaredOption {
    /// An option with a value, nil unless given.
    static func optional<Wrapped: ExpressibleByArgument>(
        _ names: OptionName..., help: ArgumentHelp, set: @escaping Set
    ) -> Self where Value == Wrapped? {
        Self(
            names: names, help: help, defaultValue: nil, set: set, kind: .value,
            apply: settingOne(set) { (value: Wrapped) in value })
    }

    /// Reads an option's one value as ArgumentParser reads it (`init?(argument:)`) and sets the property.
    fileprivate static func settingOne<Parsed: ExpressibleByArgument>(
        _ set: @escaping Set, as value: @escaping @Sendable (Parsed) -> Value
    ) -> @Sendable (inout Root, [String]) -> Bool {
        { command, texts in
            guard let parsed = Parsed(argument: texts[0]) else { return false }
            set(&command, value(parsed))
            return true
        }
    }

    /// An option that may be given any number of times, its values in order; empty unless given.
    static func repeating<Element: ExpressibleByArgument>(
        _ names: OptionName..., help: ArgumentHelp, set: @escaping Set
    ) -> Self where Value == [Element] {
        Self(
            names: names, help: help, defaultValue: [], set: set, kind: .values,
            apply: { command, texts in
                var values: [Element] = []
                for text in texts {
                    guard let value = Element(argument: text) else { return false }
                    values.append(value)
                }
                set(&command, values)
                return true
            })
    }
}

/// A positional argument of a tabled command, declared once like `DeclaredOption`; required.
struct DeclaredArgument<Root: ParsableArguments, Value: ExpressibleByArgument & Sendable>: Sendable {
    let help: ArgumentHelp
    /// How the table sets the property from the argument's text; false when the text is refused.
    let read: @Sendable (inout Root, String) -> Bool

    init(help: ArgumentHelp, set: @escaping @Sendable (inout Root, Value) -> Void) {
        self.help = help
        read = { command, text in
            guard let value = Value(argument: text) else { return false }
            set(&command, value)
            return true
        }
    }
}

// The property wrappers made from a declaration, as the same wrapper declared by hand would be.

extension Flag where Value == Bool {
    init<Root: ParsableArguments>(_ declared: DeclaredOption<Root, Bool>) {
        self.init(wrappedValue: declared.defaultValue, name: declared.nameSpecification, help: declared.help)
    }
}

extension Option where Value: ExpressibleByArgument {
    init<Root: ParsableArguments>(_ declared: DeclaredOption<Root, Value>) {
        self.init(wrappedValue: declared.defaultValue, name: declared.nameSpecification, help: declared.help)
    }
}

extension Option {
    init<Root: ParsableArguments, Wrapped: ExpressibleByArgument>(_ declared: DeclaredOption<Root, Wrapped?>) where Value == Wrapped? {
        self.init(name: declared.nameSpecification, help: declared.help)
    }

    init<Root: ParsableArguments, Element: ExpressibleByArgument>(
        _ declared: DeclaredOption<Root, [Element]>, parsing: ArrayParsingStrategy = .singleValue
    ) where Value == [Element] {
        self.init(wrappedValue: declared.defaultValue, name: declared.nameSpecification, parsing: parsing, help: declared.help)
    }
}

extension Argument where Value: ExpressibleByArgument {
    init<Root: ParsableArguments>(_ declared: DeclaredArgument<Root, Value>) {
        self.init(help: declared.help)
    }
}
