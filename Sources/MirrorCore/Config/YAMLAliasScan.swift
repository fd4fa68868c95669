// libyaml, as Yams builds it. Yams keeps its event stream private, so the
// events are read here with the same parser Yams composes with: what counts as
// an alias is exactly what Yams would expand.
internal import CYaml

/// Finds the first alias (`*name`) in YAML text without composing anything.
enum YAMLAliasScan {
    struct Alias: Equatable {
        var anchor: String
        /// 1-based, as Yams reports marks.
        var line: Int
        var column: Int
    }

    /// The first alias event, or `nil` when there is none before the end of the
    /// text or before a syntax error (which composing then reports with its position).
    static func firstAlias(in text: String) -> Alias? {
        var text = text
        return text.withUTF8 { bytes in
            guard let start = bytes.baseAddress, !bytes.isEmpty else { return nil }
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else { return nil }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(&parser, start, bytes.count)
            var event = yaml_event_t()
            while yaml_parser_parse(&parser, &event) == 1 {
                defer { yaml_event_delete(&event) }
                switch event.type {
                case YAML_ALIAS_EVENT:
                    let anchor = event.data.alias.anchor.map { String(cString: $0) } ?? ""
                    return Alias(
                        anchor: anchor, line: Int(event.start_mark.line) + 1,
                        column: Int(event.start_mark.column) + 1)
                case YAML_STREAM_END_EVENT:
                    return nil
                default:
                    continue
                }
            }
            return nil
        }
    }
}
