/// `host[:port]` or `[v6][:port]`, as in a URL's authority and a `Host` header.
enum HostPort {
    enum Failure: Error {
        case unclosedBracket, junkAfterHost, emptyHost, badPort
    }

    /// The host (brackets removed) and the port when one is given (1-65535).
    static func split(_ s: Substring) -> Result<(host: Substring, port: UInt16?), Failure> {
        let host: Substring
        var portText: Substring?
        if s.first == "[" {
            guard let close = s.firstIndex(of: "]") else { return .failure(.unclosedBracket) }
            host = s[s.index(after: s.startIndex)..<close]
            let after = s[s.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { return .failure(.junkAfterHost) }
                portText = after.dropFirst()
            }
        } else if let colon = s.lastIndex(of: ":") {
            host = s[..<colon]
            portText = s[s.index(after: colon)...]
        } else {
            host = s
        }
        guard !host.isEmpty else { return .failure(.emptyHost) }
        guard let portText else { return .success((host, nil)) }
        guard let port = UInt16(portText), port > 0 else { return .failure(.badPort) }
        return .success((host, port))
    }
}
