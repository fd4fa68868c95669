/// Globs whose only wildcard is `*` (any run of bytes, `/` included), for
/// repository patterns (`OWNER/*`) and branch patterns (`release/*`).
package enum StarGlob {
    /// The classic greedy match with one backtrack point: linear in practice,
    /// never exponential, whatever the pattern.
    package static func matches(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
        let star = UInt8(ascii: "*")
        var p = 0
        var t = 0
        var starAt: Int?
        var resumeAt = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == star {
                starAt = p
                resumeAt = t
                p += 1
            } else if p < pattern.count, pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let star = starAt {
                p = star + 1
                resumeAt += 1
                t = resumeAt
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == star { p += 1 }
        return p == pattern.count
    }
}
