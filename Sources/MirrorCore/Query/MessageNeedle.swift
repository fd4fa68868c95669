/// `--grep TEXT` for a store that tests messages itself rather than through
/// SQLite's trigram index: a message matches when, one Unicode scalar at a
/// time, it has one of the forms of the needle's scalar in its place. The
/// forms are those `MessageSearch` answers with on a SQLite store: for an ASCII
/// needle and for a short one, its row test's (`caseForms`); for
/// a non-ASCII needle of three or more scalars, the trigram index's folding.
public enum MessageNeedle {
    /// Each scalar of `needle` with the scalars a matching message may hold there (itself first).
    public static func forms(of needle: String) -> [[Unicode.Scalar]] {
        let scalars = Array(needle.unicodeScalars)
        // The SQLite store's MessageSearch hands exactly these needles to the index.
        let byIndex = scalars.count >= 3 && !scalars.allSatisfy(\.isASCII)
        return scalars.map { byIndex ? indexFolds(of: $0) : caseForms(of: $0).flatMap(\.unicodeScalars) }
    }

    /// Characters outside ASCII that the trigram index folds to ASCII letters.
    package static let foldsToASCII: [(Unicode.Scalar, Character)] = [("\u{212A}", "k"), ("\u{017F}", "s")]

    /// The scalar, its one-scalar lower, upper and title case forms, and the
    /// characters the index folds to it.
    package static func caseForms(of scalar: Unicode.Scalar) -> [String] {
        var forms = [String(scalar)]
        let properties = scalar.properties
        for mapping in [properties.lowercaseMapping, properties.uppercaseMapping, properties.titlecaseMapping]
        where mapping.unicodeScalars.count == 1 && !forms.contains(mapping) {
            forms.append(mapping)
        }
        for (special, letter) in foldsToASCII where forms.contains(String(letter)) {
            forms.append(String(special))
        }
        return forms
    }

    /// The scalars SQLite's trigram index (`case_sensitive 0`) folds together
    /// with `scalar`, itself first. A test compares these with the index itself
    /// for every scalar.
    static func indexFolds(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        guard let members = indexClasses[scalar.value] else { return [scalar] }
        return [scalar] + members.filter { $0 != scalar }
    }

    /// The index folds by simple case folding as of Unicode 6.1, the tables
    /// SQLite's tokenizers are built from. Its classes are the scalars joined
    /// by one-scalar case mappings, among the scalars Unicode 6.1 had, except
    /// DOTLESS I, which case folding leaves alone (it maps nothing to or from
    /// it); and the noncharacters SQLite reads as the replacement character.
    /// Built once, on the first needle that needs it; only scalars in a class
    /// of two or more are kept.
    private static let indexClasses: [UInt32: [Unicode.Scalar]] = {
        func folds(_ scalar: Unicode.Scalar) -> Bool {
            guard scalar != "\u{131}", let age = scalar.properties.age else { return false }
            return (age.major, age.minor) <= (6, 1)
        }
        var parent: [UInt32: UInt32] = [:]
        func root(_ value: UInt32) -> UInt32 {
            var value = value
            while let next = parent[value], next != value { value = next }
            return value
        }
        // Cased scalars of 6.1 all lie below U+20000.
        for value in UInt32(0)..<0x20000 {
            guard let scalar = Unicode.Scalar(value), folds(scalar) else { continue }
            let properties = scalar.properties
            for mapping in [properties.lowercaseMapping, properties.uppercaseMapping, properties.titlecaseMapping] {
                let scalars = Array(mapping.unicodeScalars)
                guard scalars.count == 1, scalars[0] != scalar, folds(scalars[0]) else { continue }
                let (a, b) = (root(value), root(scalars[0].value))
                parent[a] = a
                parent[b] = b
                if a != b { parent[max(a, b)] = min(a, b) }
            }
        }
        var members: [UInt32: [Unicode.Scalar]] = [:]
        for value in parent.keys.sorted() { members[root(value), default: []].append(Unicode.Scalar(value)!) }
        // SQLite's UTF-8 reader turns the noncharacters U+FFFE and U+FFFF into U+FFFD.
        members[0xFFFD] = ["\u{FFFD}", "\u{FFFE}", "\u{FFFF}"]
        var classes: [UInt32: [Unicode.Scalar]] = [:]
        for group in members.values where group.count > 1 {
            for scalar in group { classes[scalar.value] = group }
        }
        return classes
    }()
}
