import MirrorTestSupport
import Curl
import Foundation
import Testing

/// Defence in depth below the token checks: a header or URL with CR, LF or
/// NUL never reaches the wire, and the error never shows the value.
@Suite struct HeaderInjectionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var path = "/ok"
        var headers: HTTPHeaders = []
    }

    static let cases: [Case] = [
        Case(testDescription: "CR LF in a value", headers: [("Authorization", "Bearer abc\r\nX-Evil: 1")]),
        Case(testDescription: "a bare LF in a value", headers: [("Authorization", "Bearer abc\nX-Evil: 1")]),
        Case(testDescription: "a bare CR in a value", headers: [("User-Agent", "agent\rX-Evil: 1")]),
        Case(testDescription: "NUL in a value", headers: [("Authorization", "Bearer abc\0X-Evil")]),
        Case(testDescription: "CR LF in a name", headers: [("X-Evil: 1\r\nAuthorization", "Bearer abc")]),
        Case(testDescription: "CR LF in the URL", path: "/ok\r\nX-Evil: 1"),
    ]

    @Test(arguments: cases)
    func refusedBeforeAnyTransfer(_ injection: Case) async throws {
        let server = try HostileServer { _, connection in connection.respond(status: 200, body: Array("fine".utf8)) }
        defer { server.stop() }
        let client = try HTTPClient()
        let error = await #expect(throws: CurlError.self) {
            _ = try await client.send(HTTPRequest(url: server.baseURL + injection.path, headers: injection.headers))
        }
        #expect(error?.isInvalidRequest == true, "\(String(describing: error))")
        #expect(error?.message.contains("CR, LF or NUL") == true)
        #expect(error.map { !"\($0)".contains("X-Evil") && !"\($0)".contains("abc") } == true, "the value is never shown")

        // A clean request over the same client afterwards is the only one the server ever saw.
        let response = try await client.send(HTTPRequest(url: server.baseURL + "/ok", headers: [("Authorization", "Bearer abc")]))
        #expect(response.status == 200)
        #expect(server.requests.count == 1)
        #expect(server.requests.allSatisfy { $0.headers["x-evil"] == nil && $0.target == "/ok" })
    }
}
