import Foundation
import MatterWebSocket

/// The dashboard's static files (Sources/MatterHubService/Dashboard: plain HTML, CSS and
/// JavaScript, no build step), read once at start and served from memory on the I/O thread:
/// `GET /` (and `/index.html`) is the page, `/dashboard/<file>` its scripts and styles. When the
/// hub requires a token, the page needs `?token=` too (it passes it on to the WebSocket); the
/// scripts and styles hold nothing about the home and are served without it.
public struct DashboardFiles: Sendable {
    /// File name -> contents.
    let files: [String: [UInt8]]
    let token: String?
    /// Where the files came from, or why there are none.
    public let origin: String
    /// Whether the page was found (otherwise `GET /` says how to install it).
    public var isInstalled: Bool { files["index.html"] != nil }

    static let bundleName = "MatterHub_MatterHubService.resources"
    static let types = ["html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
                        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml"]

    /// Reads the files from the first folder that has them: `MATTERHUB_DASHBOARD_DIR`, the resource
    /// bundle beside the executable (what `swift build` puts there; install it beside matterctl),
    /// then the source tree this was built from.
    public init(token: String?, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.token = token
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Dashboard")
        var candidates = [environment["MATTERHUB_DASHBOARD_DIR"]].compactMap { $0 }
        candidates.append(executable.appendingPathComponent(Self.bundleName).appendingPathComponent("Dashboard").path)
        candidates.append(Bundle.main.bundleURL.appendingPathComponent(Self.bundleName).appendingPathComponent("Dashboard").path)
        candidates.append(source.path)
        for folder in candidates {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder), names.contains("index.html") else { continue }
            var files: [String: [UInt8]] = [:]
            for name in names where Self.types[(name as NSString).pathExtension] != nil {
                if let data = FileManager.default.contents(atPath: folder + "/" + name) { files[name] = [UInt8](data) }
            }
            self.files = files
            origin = folder
            return
        }
        files = [:]
        origin = "no dashboard files in \(candidates.joined(separator: ", "))"
    }

    /// The response for a plain GET, or nil when the path is not the dashboard's.
    public func response(for request: HTTPRequestHead) -> HTTPResponse? {
        let path = request.path
        let name: String
        if path == "/" || path == "/index.html" {
            if let token {
                let given = request.query.first { $0.name == "token" }?.value ?? ""
                guard Self.sameSecret(given, token) else {
                    return .text(401, "Unauthorized", "This hub requires its token: open /?token=<token> ('matterctl hub token' prints it).")
                }
            }
            name = "index.html"
        } else if path.hasPrefix("/dashboard/") {
            name = String(path.dropFirst("/dashboard/".count))
            guard !name.contains("/"), !name.hasPrefix(".") else { return nil }
        } else {
            return nil
        }
        guard let body = files[name] else {
            return name == "index.html"
                ? .text(503, "Service Unavailable", "The dashboard is not installed (\(origin)); copy \(Self.bundleName) beside matterctl or set MATTERHUB_DASHBOARD_DIR.")
                : nil
        }
        return HTTPResponse(status: 200, reason: "OK", headers: [
            "Content-Type": Self.types[(name as NSString).pathExtension] ?? "application/octet-stream",
            "Cache-Control": "no-store",
            // Nothing but this hub: no CDN, no inline script, no other origin.
            "Content-Security-Policy": "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
        ], body: body)
    }

    /// Compares without an early exit (the token is a secret).
    static func sameSecret(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return diff == 0
    }
}
