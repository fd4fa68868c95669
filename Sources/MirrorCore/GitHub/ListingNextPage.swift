/// Where a paginated listing (an owner's repositories, a repository's branches)
/// goes after one of its pages, by the page's `Link: rel="next"`.
public enum ListingNextPage: Sendable, Equatable {
    /// The listing ends here: no next link, or an empty page (which ends a
    /// listing whatever it links to).
    case end
    /// The next page, resolved against the page's URL and on the API's origin.
    case at(String)
    /// The link leaves the API's origin: never followed. `link` is fit to show
    /// (no credentials, bounded) and `origin` names where listings must stay.
    case refused(link: String, origin: String)

    /// The step after the page read from `url` that linked to `next`.
    public init(next: String?, of url: String, pageIsEmpty: Bool, origin: APIOrigin?) {
        guard !pageIsEmpty, let next else {
            self = .end
            return
        }
        guard let origin, let target = origin.resolve(next, against: url) else {
            self = .refused(link: APIOrigin.displayable(next), origin: origin?.description ?? "the API")
            return
        }
        self = .at(target)
    }
}
