// The `Link` header of a list page, built as LIST-COMMITS.md §3 describes: absolute URLs on
// /repositories/{id}/commits, the caller's query in the caller's order minus `page`, then page=N.

enum LinkBuilder {
    /// The number of the last page. An exactly full last page still advertises `next` to an empty
    /// page (GitHub works that way), so the empty page counts: total / perPage + 1.
    static func lastPage(total: Int, perPage: Int) -> Int {
        total / perPage + 1
    }

    /// The header value, or nil when everything fits on one page that is not exactly full.
    /// - Parameter base: `{baseURL}/repositories/{id}/commits`
    static func header(base: String, rawQuery: String?, page: Int, total: Int, perPage: Int) -> String? {
        let last = lastPage(total: total, perPage: perPage)
        let kept = (rawQuery ?? "").split(separator: "&").filter { QueryString.split($0).key != "page" }
        let prefix = base + "?" + kept.map { $0 + "&" }.joined() + "page="
        func link(_ n: Int, _ rel: String) -> String { "<\(prefix)\(n)>; rel=\"\(rel)\"" }

        var links = [String]()
        if page > last {
            // Past the end: point back at the real last page (measured on other list endpoints).
            links = [link(last, "prev"), link(last, "last"), link(1, "first")]
        } else {
            if page > 1 { links.append(link(page - 1, "prev")) }
            if page < last { links += [link(page + 1, "next"), link(last, "last")] }
            if page > 1 { links.append(link(1, "first")) }
        }
        return links.isEmpty ? nil : links.joined(separator: ", ")
    }
}
