import MirrorCore

/// `--grep TEXT` as a PostgreSQL regular expression for `message ~ $n`: each
/// scalar of the needle becomes a bracket of its case forms (`MessageNeedle`),
/// every character that is not an ASCII letter or digit written as a `\u`
/// escape, so no needle (`%`, `_`, `\`, `[`, `*` …) is read as syntax.
///
/// Why a regular expression rather than ILIKE: the test server's collation is
/// C, where ILIKE folds ASCII alone, so `ÉCOLE` would miss `école`, and `k`
/// would miss KELVIN SIGN, which SQLite's index folds to `k`. The brackets say
/// exactly which characters match, whatever the database's locale, and pg_trgm's
/// GIN index (`commits_message_trgm`) serves `~` as it serves ILIKE: it picks the
/// candidates from the trigrams of the needle's words, and every hit is rechecked.
enum MessagePattern {
    static func regex(for needle: String) -> String {
        MessageNeedle.forms(of: needle).map { forms in
            forms.count == 1 ? escaped(forms[0]) : "[" + forms.map(escaped).joined() + "]"
        }.joined()
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        if scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) { return String(scalar) }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return scalar.value <= 0xFFFF
            ? "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            : "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
