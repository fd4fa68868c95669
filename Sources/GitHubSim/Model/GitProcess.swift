// Runs the `git` binary against one repository on disk, for `RepositorySource.gitRepository`.

import Foundation

/// A git repository could not be served; the description names its path.
public struct GitRepositoryError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var reason: String

    public var description: String { "git repository \(path): \(reason)" }
}

/// `git -C PATH …` with the `git` found on `PATH`, looking for the repository at `PATH` only.
struct GitProcess {
    /// Variables that would make git use another repository than the one at `-C PATH`.
    private static let locatingVariables = [
        "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    ]

    /// The path as the caller gave it, for errors.
    let path: String
    private let executable: URL
    private let environment: [String: String]
    /// Holds each run's stderr, and the files fed to stdin.
    let scratch: URL

    init(repository path: String) throws {
        self.path = path
        let environment = ProcessInfo.processInfo.environment
        let searchPath = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        guard
            let git = searchPath.split(separator: ":").map({ "\($0)/git" }).first(where: FileManager.default.isExecutableFile)
        else {
            throw GitRepositoryError(path: path, reason: "no git executable on PATH (\(searchPath)); install git to serve it")
        }
        executable = URL(fileURLWithPath: git)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw GitRepositoryError(path: path, reason: "no such directory")
        }
        var gitEnvironment = environment
        for name in Self.locatingVariables { gitEnvironment.removeValue(forKey: name) }
        // git would otherwise take a directory inside some other repository for that repository.
        let absolute = URL(fileURLWithPath: path).standardizedFileURL
        gitEnvironment["GIT_CEILING_DIRECTORIES"] = absolute.deletingLastPathComponent().path
        self.environment = gitEnvironment
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("github-sim-git-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            throw GitRepositoryError(path: path, reason: "cannot create a scratch directory: \(error)")
        }
    }

    /// Removes the scratch directory.
    func finish() {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// Runs `git -C PATH arguments`, stdin read from `input` (a file, so nothing waits on a pipe
    /// both ways); returns its exit status and stdout. A status outside `accepting` throws with
    /// git's stderr.
    /// With `output`, stdout goes to that file instead, and the data returned is empty.
    func run(
        _ arguments: [String], input: URL? = nil, output file: URL? = nil, accepting: Set<Int32> = [0]
    ) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-C", path] + arguments
        process.environment = environment
        let output = Pipe()
        var outputFile: FileHandle?
        if let file {
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                throw GitRepositoryError(path: path, reason: "cannot create \(file.path) for git's output")
            }
            outputFile = try FileHandle(forWritingTo: file)
            process.standardOutput = outputFile
        } else {
            process.standardOutput = output
        }
        defer { try? outputFile?.close() }
        // stderr goes to a file: a pipe nobody reads while stdout is drained could fill and stall git.
        let errorURL = scratch.appendingPathComponent("stderr-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: errorURL.path, contents: nil) else {
            throw GitRepositoryError(path: path, reason: "cannot create \(errorURL.path) for git's messages")
        }
        let errors = try FileHandle(forWritingTo: errorURL)
        defer { try? errors.close() }
        process.standardError = errors
        let inputHandle = try input.map { try FileHandle(forReadingFrom: $0) }
        defer { try? inputHandle?.close() }
        process.standardInput = inputHandle ?? FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw GitRepositoryError(path: path, reason: "cannot run \(executable.path): \(error)")
        }
        let data = outputFile == nil ? output.fileHandleForReading.readDataToEndOfFile() : Data()
        process.waitUntilExit()
        guard accepting.contains(process.terminationStatus) else {
            let message = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            let firstLines = message.split(whereSeparator: \.isNewline).prefix(3).joined(separator: " ")
            throw GitRepositoryError(
                path: path,
                reason: "git \(arguments.first ?? "") failed (exit \(process.terminationStatus)): \(firstLines)")
        }
        return (process.terminationStatus, data)
    }
}
