/// How each schema compares and orders names (repositories, owners): SQLite's
/// columns are `COLLATE NOCASE`, PostgreSQL's have unique indexes on `lower(…)`,
/// so a statement about names is written once with these and rendered for each.
public struct NameRules: Sendable {
    /// `column` and `parameter` name the same thing, whatever their case.
    public let same: @Sendable (_ column: String, _ parameter: String) -> String
    /// The conflict target of a unique name `column`.
    public let key: @Sendable (_ column: String) -> String
    /// `column` in the order `status` and `repos` list names: ASCII case folded, then bytes.
    public let order: @Sendable (_ column: String) -> String

    public static let sqlite = NameRules(
        same: { "\($0) = \($1)" }, key: { "(\($0))" }, order: { $0 })
    public static let postgreSQL = NameRules(
        same: { "lower(\($0)) = lower(\($1))" }, key: { "((lower(\($0))))" }, order: { "lower(\($0) COLLATE \"C\")" })
}

extension PortableSQL {
    /// A statement about names, rendered with each schema's `NameRules`.
    public init(names statement: (NameRules) -> String) {
        self.init(sqlite: statement(.sqlite), postgreSQL: Self.numberingParameters(statement(.postgreSQL)))
    }
}
