import FoundationEssentials
import MatterWebSocket
#if canImport(Glibc)
import Glibc
#endif

/// The dashboard's static files (Sources/MatterHubService/Dashboard: plain HTML, CSS and
/// JavaScript, no build step), read once at start and served from memory on the I/O thread:
/// `GET /` (and `/index.html`) is the page, `/dashboard/<file>` its scripts and styles. When the
/// hub requires a token, the WebSocket server asks it of every one of these requests
/// (``WebSocketHandshake/evaluate(_:path:token:)``): the page is opened with `?token=`, which it
/// passes on to the WebSocket, and its own files get it from the cookie set then.
public struct DashboardFiles: Sendable {
    /// File name -> contents.
    let files: [String: [UInt8]]
    /// Where the files came from, or why there are none.
    public let origin: String
    /// Whether the page was found (otherwise `GET /` says how to install it).
    public var isInstalled: Bool { files["index.html"] != nil }

    static let types = ["html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
                        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml"]

    /// The files compiled into the binary (Package.swift embeds them: a resource bundle's
    /// generated accessor would import Foundation, and with it ICU and libcurl).
    static let embedded: [String: [UInt8]] = [
        "index.html": PackageResources.index_html, "dashboard.css": PackageResources.dashboard_css,
        "dashboard.js": PackageResources.dashboard_js,
    ]

    /// The files of `MATTERHUB_DASHBOARD_DIR` when it is set (to work on the page without
    /// rebuilding), else the ones built in.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let folder = environment["MATTERHUB_DASHBOARD_DIR"] else {
            files = Self.embedded
            origin = "built in"
            return
        }
        var files: [String: [UInt8]] = [:]
        if let names = try? FileManager.default.contentsOfDirectory(atPath: folder), names.contains("index.html") {
            // Regular files only: a symbolic link could lead anywhere (the state's keys).
            for name in names where Self.types[Self.fileExtension(name)] != nil && Self.isRegularFile(folder + "/" + name) {
                if let data = FileManager.default.contents(atPath: folder + "/" + name) { files[name] = [UInt8](data) }
            }
        }
        self.files = files
        origin = files["index.html"] == nil ? "no index.html in MATTERHUB_DASHBOARD_DIR \(folder)" : folder
    }

    /// Whether `path` is a regular file itself, not a link, a device or a folder (lstat).
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// What follows the last dot of a file name ("" when there is none, or only a leading one).
    package static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The response for a plain GET, or nil when the path is not the dashboard's.
    public func response(for request: HTTPRequestHead) -> HTTPResponse? {
        let path = request.path
        let name: String
        if path == "/" || path == "/index.html" {
            name = "index.html"
        } else if path.hasPrefix("/dashboard/") {
            name = String(path.dropFirst("/dashboard/".count))
            guard !name.contains("/"), !name.hasPrefix(".") else { return nil }
        } else {
            return nil
        }
        guard let body = files[name] else {
            return name == "index.html"
                ? .text(503, "Service Unavailable", "The dashboard is not installed (\(origin)); point MATTERHUB_DASHBOARD_DIR at its files or unset it.")
                : nil
        }
        return HTTPResponse(status: 200, reason: "OK", headers: [
            "Content-Type": Self.types[Self.fileExtension(name)] ?? "application/octet-stream",
            "Cache-Control": "no-store",
            // Nothing but this hub: no CDN, no inline script, no other origin.
            "Content-Security-Policy": "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
        ], body: body)
    }
}
