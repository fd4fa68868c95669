/// How each schema orders text here: repository names as `NameRules` lists
/// them, and other text by its bytes (SQLite's default, PostgreSQL's `COLLATE "C"`).
struct TextOrder {
    let names: @Sendable (_ column: String) -> String
    let bytes: @Sendable (_ column: String) -> String

    static let sqlite = TextOrder(names: NameRules.sqlite.order, bytes: { $0 })
    static let postgreSQL = TextOrder(names: NameRules.postgreSQL.order, bytes: { "\($0) COLLATE \"C\"" })
}

extension PortableSQL {
    init(ordered statement: (TextOrder) -> String) {
        self.init(sqlite: statement(.sqlite), postgreSQL: Self.numberingParameters(statement(.postgreSQL)))
    }
}
