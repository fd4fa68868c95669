/// A "billion laughs" configuration: 355 bytes, nine levels of nine YAML aliases
/// (9^9 scalars when expanded), the last used as a mapping key, which makes a
/// YAML composer hash the whole expansion.
public let aliasBombConfiguration: String = {
    var lines = ["a: &a [" + Array(repeating: "\"x\"", count: 9).joined(separator: ",") + "]"]
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
    for (previous, name) in zip(names, names.dropFirst()) {
        lines.append("\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]")
    }
    lines += ["? *i", ": 1", "repositories: [acme/widgets]"]
    return lines.joined(separator: "\n") + "\n"
}()
