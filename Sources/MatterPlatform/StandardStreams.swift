#if canImport(Glibc)
import Glibc
#endif

/// A `TextOutputStream` on file descriptor 2, for diagnostics. Every string is written whole,
/// unbuffered; `print(..., to:)` writes the text and its newline as two writes, between which
/// another thread's line can land, so a log line goes through ``line(_:)``.
package struct StandardError: TextOutputStream {
    package init() {}

    /// Writes `text` and a newline in one write: lines from several threads never run together
    /// (a hub's two log lines once read "hub: 0 nodes in the storehub: node ... advertised").
    package static func line(_ text: String) {
        _ = FileDescriptorIO.writeAll(STDERR_FILENO, Array((text + "\n").utf8))
    }

    package mutating func write(_ string: String) {
        _ = FileDescriptorIO.writeAll(STDERR_FILENO, Array(string.utf8))
    }
}

/// Whole-buffer reads and writes on a file descriptor, retried on EINTR and short counts.
package enum FileDescriptorIO {
    /// Writes every byte of `bytes`; false (errno set) when a write fails.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }

    /// Reads until end of file; nil (errno set) when a read fails.
    package static func readToEnd(_ fd: Int32) -> [UInt8]? {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return result }
            result.append(contentsOf: chunk[0..<n])
        }
    }

    /// Standard input to its end (a pipe or a redirected file); nil when reading fails.
    package static func readStandardInput() -> [UInt8]? { readToEnd(STDIN_FILENO) }
}
