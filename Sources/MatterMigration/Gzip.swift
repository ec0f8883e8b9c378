internal import CZlib

/// gzip inflation (RFC 1952) through zlib, for matterjs-server's compressed snapshots and WAL
/// segments. The output is bounded: a file that inflates past `limit` is refused, not read.
package enum Gzip {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// 1 GiB: far above a home's storage (200 nodes' attributes are a few MB).
    package static let defaultLimit = 1 << 30

    package static func inflate(_ input: [UInt8], limit: Int = defaultLimit) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        // 16 + MAX_WBITS: a gzip header and trailer, checked (CRC-32 and length).
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(description: "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var status: Int32 = Z_OK
        var input = input
        input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = UInt32(inBuffer.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: out[0..<(out.count - Int(stream.avail_out))])
                }
            } while status == Z_OK && output.count <= limit && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        guard output.count <= limit else { throw Failure(description: "it inflates to more than \(limit) bytes") }
        guard status == Z_STREAM_END else {
            throw Failure(description: status == Z_OK || status == Z_BUF_ERROR ? "it is truncated" : "it is not valid gzip (zlib \(status))")
        }
        return output
    }
}
