import Foundation
import Synchronization

/// A hostile git host that echoes the credential it received (issue #25 item 4):
/// the proxy serves git for the repository under the API's own origin (so the
/// token goes there as Basic credentials) and answers `git-upload-pack` with
/// error text quoting the `Authorization` header in every encoding.
extension HostileGitHub {
    /// What an indiscreet server says: the header it received, encoded whole
    /// again (the token then sits at another base64 alignment), the credential
    /// unpadded, in base64url, decoded and percent-encoded. Over 300 characters,
    /// so the git client's cut falls inside it.
    public static func echo(of authorization: String) -> String {
        let credential = String(authorization.split(separator: " ").last ?? "")
        let decoded = Data(base64Encoded: credential).map { String(decoding: $0, as: UTF8.self) } ?? credential
        let url = credential.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return [
            "denied for \(authorization)", "whole=\(Data("Authorization: \(authorization)".utf8).base64EncodedString())",
            "unpadded=\(credential.prefix { $0 != "=" })", "url=\(url)", "decoded=\(decoded)",
            "escaped=\(decoded.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")", "again \(authorization)",
        ].joined(separator: " ")
    }

    public static func packetLine(_ payload: [UInt8]) -> [UInt8] {
        Array(String(format: "%04x", payload.count + 4).utf8) + payload
    }

    /// How the echo comes back.
    public enum EchoBand: Sendable {
        /// An `ERR` packet answering ls-refs.
        case errorPacket
        /// ls-refs names `tip`; the fetch's packfile section is a side band 3 error.
        case sideBand3(tip: String)
    }

    /// Points `repository`'s `clone_url` at this proxy and answers its git
    /// requests with `band` echoing the `Authorization` each request carried.
    public func echoCredentials(of repository: String, as band: EchoBand) {
        let upstream = upstream
        let proxy = baseURL
        let posts = Mutex(0)
        tamper { request, answer in
            if request.path == "/repos/\(repository)" {
                answer.text = answer.text.replacingOccurrences(of: upstream, with: proxy)
            } else if request.method == "POST", request.path.hasSuffix("/git-upload-pack") {
                let index = posts.withLock { count in
                    count += 1
                    return count
                }
                let echo = Self.echo(of: request.authorization ?? "-")
                answer.status = 200
                answer.setHeader("Content-Type", "application/x-git-upload-pack-result")
                switch band {
                case .errorPacket:
                    answer.body = Self.packetLine(Array("ERR \(echo)\n".utf8)) + Array("0000".utf8)
                case .sideBand3(let tip) where index == 1:
                    answer.body = Self.packetLine(Array("\(tip) refs/heads/main\n".utf8)) + Array("0000".utf8)
                case .sideBand3:
                    answer.body =
                        Self.packetLine(Array("packfile\n".utf8)) + Self.packetLine([3] + Array("fatal: \(echo)\n".utf8))
                        + Array("0000".utf8)
                }
            }
        }
    }
}
