import Foundation

/// Buffered standard output: results are written in large blocks, not a
/// system call per line, and a closed pipe (`| head`, or quitting the pager)
/// ends the program quietly like git does.
final class OutputWriter {
    private var buffer: [UInt8] = []
    private let flushThreshold = 1 << 16

    init() { buffer.reserveCapacity(flushThreshold + 4096) }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= flushThreshold { flush() }
    }

    func line(_ text: String) {
        write(text)
        buffer.append(UInt8(ascii: "\n"))
    }

    func flush() {
        var offset = 0
        while offset < buffer.count {
            let written = buffer[offset...].withUnsafeBytes { Foundation.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { Pager.outputClosed() }
                break
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}
