import Foundation
import GitHash
import GitTrees
import MirrorTestSupport

/// A bare repository in a temporary directory, read and written by the real `git` binary.
final class BareRepository: @unchecked Sendable {
    /// Alamofire's real history (trees, blobs, tags), read-only shared data, absent on some machines.
    static let alamofireBundle = PackagePaths.alamofireBundle
    static var hasAlamofire: Bool { PackagePaths.hasAlamofire }

    let directory: TemporaryDirectory
    let gitDirectory: String
    private var outputs = 0

    private init() throws {
        directory = try TemporaryDirectory()
        gitDirectory = directory.path("repository.git")
    }

    /// A bare clone of a bundle (or any repository git can clone).
    static func cloning(_ source: String) throws -> BareRepository {
        let repository = try BareRepository()
        _ = try repository.git(["clone", "--quiet", "--bare", source, repository.gitDirectory], inRepository: false)
        return repository
    }

    /// A new repository holding what a `git fast-import` stream describes.
    static func importing(_ stream: String) throws -> BareRepository {
        let repository = try BareRepository()
        _ = try repository.git(["init", "--quiet", "--bare", repository.gitDirectory], inRepository: false)
        _ = try repository.git(["fast-import", "--quiet"], stdin: Array(stream.utf8))
        return repository
    }

    /// Runs git to completion and returns its standard output as bytes; throws when it fails.
    func git(_ arguments: [String], stdin: [UInt8]? = nil, inRepository: Bool = true) throws -> [UInt8] {
        outputs += 1
        let output = directory.path("stdout-\(outputs)")
        let errors = directory.path("stderr-\(outputs)")
        let environment = Executables.environment([
            "HOME": directory.url.path, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
        ])
        let child = try ChildProcess(
            "/usr/bin/git", (inRepository ? ["--git-dir", gitDirectory] : []) + arguments, environment: environment,
            stdin: stdin == nil ? .null : .pipe, stdout: .file(output), stderr: .file(errors))
        if let stdin, let input = child.input {
            input.write(Data(stdin))
            try input.close()
        }
        let status = child.waitBlocking().status
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        try? FileManager.default.removeItem(atPath: output)
        guard status == 0 else {
            let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw GitFailure(arguments: arguments, status: status, message: message)
        }
        return bytes
    }

    /// Git's output as lines of text (the commands read here print ASCII: ids, modes and quoted paths).
    func lines(_ arguments: [String]) throws -> [String] {
        String(decoding: try git(arguments), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The raw content of every tree object in the repository, by id, from `git cat-file --batch`.
    func treeContents() throws -> [ObjectID: [UInt8]] {
        let listing = try lines(["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"])
        let treeIDs = listing.compactMap { line in line.hasSuffix(" tree") ? line.split(separator: " ").first : nil }
        let batch = try git(["cat-file", "--batch"], stdin: Array(treeIDs.joined(separator: "\n").utf8) + [10])
        var contents: [ObjectID: [UInt8]] = [:]
        var offset = 0
        while offset < batch.count {
            guard let newline = batch[offset...].firstIndex(of: 10) else { throw GitFailure.unreadable("a header without its newline") }
            let header = String(decoding: batch[offset..<newline], as: UTF8.self).split(separator: " ")
            guard header.count == 3, header[1] == "tree", let id = ObjectID(hex: header[0]), let size = Int(header[2]) else {
                throw GitFailure.unreadable("the header \(header)")
            }
            contents[id] = Array(batch[(newline + 1)..<(newline + 1 + size)])
            offset = newline + 1 + size + 1
        }
        guard contents.count == treeIDs.count else { throw GitFailure.unreadable("\(contents.count) of \(treeIDs.count) trees") }
        return contents
    }

    /// Every commit of every branch and tag, with its tree and parents.
    func commits() throws -> [(id: ObjectID, tree: ObjectID, parents: [ObjectID])] {
        try lines(["log", "--all", "--format=%H %T %P"]).map { line in
            let ids = line.split(separator: " ").compactMap { ObjectID(hex: $0) }
            return (ids[0], ids[1], Array(ids.dropFirst(2)))
        }
    }
}

struct GitFailure: Error, CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var message: String

    static func unreadable(_ what: String) -> GitFailure {
        GitFailure(arguments: ["cat-file", "--batch"], status: 0, message: "unreadable output: \(what)")
    }

    var description: String { "git \(arguments.joined(separator: " ")) exited \(status): \(message)" }
}
