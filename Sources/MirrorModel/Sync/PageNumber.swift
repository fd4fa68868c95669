/// Page numbers of GitHub's paginated listings.
public enum PageNumber {
    /// The largest page number a listing is taken to have: a hundred million
    /// pages of a hundred commits, far beyond any history, so that the counts
    /// derived from a page number (pages left, commits expected) never overflow.
    public static let largest = 100_000_000
}
