import FoundationEssentials

/// Where a GET goes, checked before libcurl is given the URL: http or https, a host name or
/// address, a port, a path a request line can carry.
package struct HTTPRequestTarget: Sendable, Hashable {
    /// A host name, or an IP address without brackets.
    package let host: String
    package let port: Int
    package let isTLS: Bool
    /// The origin-form target, percent-encoded as in the URL.
    package let target: String

    /// - Throws: `.invalidArgument` for a URL that is not http or https, has no host, or
    ///   holds characters a request line or Host field cannot carry.
    package init(_ url: URL) throws(TrustStoreError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw TrustStoreError(.invalidArgument, "\(url.absoluteString) is not an http(s) URL")
        }
        var host = url.host(percentEncoded: false) ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.utf8.allSatisfy(Self.isHostByte) else {
            throw TrustStoreError(.invalidArgument, "\(url.absoluteString) is not an http(s) URL with a host name or address")
        }
        isTLS = scheme == "https"
        let port = url.port ?? (isTLS ? 443 : 80)
        guard (1...65535).contains(port) else { throw TrustStoreError(.invalidArgument, "\(url.absoluteString) has a bad port") }
        self.host = host
        self.port = port
        var path = url.path(percentEncoded: true)
        if path.isEmpty { path = "/" }
        if let query = url.query(percentEncoded: true) { path += "?" + query }
        guard path.hasPrefix("/"), path.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw TrustStoreError(.invalidArgument, "\(url.absoluteString) has a path that cannot be sent")
        }
        target = path
    }

    /// Letters, digits, `-._~` for names; `:` and `%` (a zone) for IPv6 literals.
    private static func isHostByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E, 0x3A, 0x25: return true
        default: return false
        }
    }
}
