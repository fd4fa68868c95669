import NIOHTTP1

/// The slice of a listing of `total` items that a request's `page` and
/// `per_page` ask for, read as GitHub reads them: `per_page` 30 by default, at
/// most 100, a missing, zero or negative one taken as the default; `page` from 1,
/// capped so that the arithmetic cannot overflow; a page past the end is empty.
struct PageWindow {
    static let defaultPerPage = 30
    static let maxPerPage = 100

    let page: Int
    let perPage: Int
    let lower: Int
    let upper: Int

    var range: Range<Int> { lower..<upper }

    init(_ request: SimRequest, total: Int, maxPage: Int = 1_000_000) {
        var perPage = request.queryValue("per_page").flatMap { Int($0) } ?? Self.defaultPerPage
        if perPage <= 0 { perPage = Self.defaultPerPage }
        perPage = min(perPage, Self.maxPerPage)
        page = min(max(request.queryValue("page").flatMap { Int($0) } ?? 1, 1), maxPage)
        self.perPage = perPage
        lower = min((page - 1) * perPage, total)
        upper = min(lower + perPage, total)
    }

    /// Adds the `Link` header of this page of a listing of `total` items at `base`, if it has one.
    func addLink(base: String, request: SimRequest, total: Int, to headers: inout HTTPHeaders) {
        if let link = LinkBuilder.header(base: base, rawQuery: request.query, page: page, total: total, perPage: perPage) {
            headers.add(name: "Link", value: link)
        }
    }
}
