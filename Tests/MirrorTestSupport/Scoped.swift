import GitHubSim

/// Something a test starts and must shut down before the test ends: a
/// simulator, or a harness around one. `defer { Task { ... } }` would leave
/// the shutdown running after the test (and the next test's ports in use).
public protocol ScopedService: Sendable {
    func shutDownForScope() async
}

extension GitHubSimulator: ScopedService {
    public func shutDownForScope() async { try? await shutdown() }
}

/// Runs `body` with a started `service`, then awaits its shutdown whether
/// `body` returned or threw.
@discardableResult
public func withRunning<Service: ScopedService, T>(
    _ service: Service, _ body: (Service) async throws -> T
) async throws -> T {
    do {
        let result = try await body(service)
        await service.shutDownForScope()
        return result
    } catch {
        await service.shutDownForScope()
        throw error
    }
}
