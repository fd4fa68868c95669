import Glibc

/// `posix_spawn` with attributes that start the child the way a shell starts a
/// program: no signal blocked, every signal at its default. Without them a
/// child inherits the spawning thread's mask, and a dispatch worker (any
/// thread of Swift's cooperative pool) blocks every signal: a shell started
/// from one waits for its children with SIGCHLD blocked, forever.
public func spawnWithCleanSignals(
    _ pid: inout pid_t, _ path: String, _ actions: UnsafePointer<posix_spawn_file_actions_t>,
    _ argv: [UnsafeMutablePointer<CChar>?], _ envp: [UnsafeMutablePointer<CChar>?]
) -> Int32 {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var signals = sigset_t()
    sigemptyset(&signals)
    posix_spawnattr_setsigmask(&attributes, &signals)
    sigfillset(&signals)
    posix_spawnattr_setsigdefault(&attributes, &signals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    return posix_spawn(&pid, path, actions, &attributes, argv, envp)
}
