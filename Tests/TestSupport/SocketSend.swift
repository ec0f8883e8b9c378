#if canImport(Glibc)
import Glibc
#endif

/// Sends all of `bytes` on a connected socket (MSG_NOSIGNAL: a peer that hung up is a false
/// result, not a SIGPIPE); false when the peer closed or the send failed. The test servers' one
/// write loop.
public func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n <= 0 { return false }
        offset += n
    }
    return true
}
