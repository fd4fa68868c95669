/// The product version, sent in the User-Agent and printed on request.
public enum MirrorVersion {
    public static let current = "0.1.0"
}
