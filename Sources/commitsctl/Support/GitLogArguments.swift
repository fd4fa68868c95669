/// git log's number forms ArgumentParser cannot express: `-5` means `-n 5`.
/// (`-n5`, `-n 5`, `--max-count=5` and `--limit 5` are declared on the option.)
/// Also git's place for `--no-pager`, before the command.
enum GitLogArguments {
    static func normalize(_ arguments: [String]) -> [String] {
        // `commitsctl --no-pager query`, as in `git --no-pager log`: the flag belongs to
        // the command, and commands that never page accept it as git's do.
        if arguments.count > 1, arguments[0] == "--no-pager", !arguments[1].hasPrefix("-") {
            let paged = ["query", "show", "authors", "stats"].contains(arguments[1])
            return normalize([arguments[1]] + (paged ? ["--no-pager"] : []) + arguments.dropFirst(2))
        }
        guard arguments.first == "query" else { return arguments }
        var result: [String] = []
        var expectsValue = false
        for (index, argument) in arguments.enumerated() {
            // What follows `--` is paths, whatever they look like: passed on as `--path PATH` so
            // that `query` can tell them from the revisions and paths before it.
            if argument == "--" { return result + arguments[(index + 1)...].flatMap { ["--path", $0] } }
            defer { expectsValue = Self.takesValue(argument) }
            // A value such as `--grep -5` stays as it is; `--` ends the options.
            if !expectsValue, argument.count > 1, argument.first == "-",
                argument.dropFirst().allSatisfy(\.isASCII), Int(argument.dropFirst()) != nil
            {
                result += ["-n", String(argument.dropFirst())]
            } else {
                result.append(argument)
            }
        }
        return result
    }

    /// Options of `query` followed by a separate value: the ones its table declares.
    private static func takesValue(_ argument: String) -> Bool {
        Commitsctl.Query.directParser.takesValue(argument)
    }
}
