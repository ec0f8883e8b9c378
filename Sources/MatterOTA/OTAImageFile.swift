#if canImport(Glibc)
import Glibc
#endif
import MatterCrypto

/// Checks an OTA image file the way a provider must before offering it: its header (whom it is
/// for, its sizes) and its payload's digest, read in chunks so a large image costs one chunk of
/// memory.
public enum OTAImageFile {
    /// The header of the image at `path`, once its size and payload digest are verified.
    public static func inspect(path: String, chunkSize: Int = 64 * 1024) throws(OTAImageError) -> OTAImageHeader {
        try read(path: path, verifyingDigest: true, chunkSize: chunkSize)
    }

    /// The header of the image at `path` and its size check, without reading the payload.
    public static func header(path: String) throws(OTAImageError) -> OTAImageHeader {
        try read(path: path, verifyingDigest: false, chunkSize: 0)
    }

    private static func read(path: String, verifyingDigest: Bool, chunkSize: Int) throws(OTAImageError) -> OTAImageHeader {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw OTAImageError(.unreadable, "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw OTAImageError(.unreadable, "\(path) is not a regular file")
        }
        let size = UInt64(info.st_size)
        let prefix = try read(fd, upTo: min(Int(clamping: size), OTAImageHeader.fixedSize + Int(OTAImageHeader.maxHeaderSize)), path)
        let header = try OTAImageHeader(parsing: prefix, fileSize: size)
        guard verifyingDigest else { return header }
        guard case .sha256 = header.digestType else {
            throw OTAImageError(.unsupportedDigest, "the image's digest is \(header.digestType); this hub checks sha-256 images only "
                                + "(ota_image_tool.py create -da sha256)")
        }
        var hasher = SHA256.Hasher()
        hasher.update(prefix[header.payloadOffset...])
        var remaining = size - UInt64(prefix.count)
        while remaining > 0 {
            let chunk = try read(fd, upTo: Int(min(UInt64(chunkSize), remaining)), path)
            guard !chunk.isEmpty else { throw OTAImageError(.sizeMismatch, "\(path) ended early (it changed while being read)") }
            hasher.update(chunk)
            remaining -= UInt64(chunk.count)
        }
        guard hasher.finalize() == header.digest else {
            throw OTAImageError(.digestMismatch, "the payload's sha-256 is not the one in the header: the image is damaged or altered; "
                                + "fetch it again from the vendor")
        }
        return header
    }

    /// Up to `count` bytes (fewer only at the end of the file).
    private static func read(_ fd: Int32, upTo count: Int, _ path: String) throws(OTAImageError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = out.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw OTAImageError(.unreadable, "cannot read \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            filled += n
        }
        return Array(out[..<filled])
    }
}
