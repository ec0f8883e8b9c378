import Foundation
import MatterHubService
import MatterWebSocket
import Testing
import TestSupport

/// The dashboard's files as the hub serves them over HTTP: every path behind the token rule (the
/// page's own files through the cookie its `?token=` sets), and nothing outside its folder.
@Suite(.serialized) struct DashboardFilesTests {
    static let sourceFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/MatterHubService/Dashboard").path

    /// A server on loopback with the token `abc123` and the dashboard from the source folder.
    func withServer(_ body: (UInt16) async throws -> Void) async throws {
        let files = DashboardFiles(environment: ["MATTERHUB_DASHBOARD_DIR": Self.sourceFolder])
        #expect(files.isInstalled && files.origin == Self.sourceFolder)
        let server = try HubAPIServer(configuration: WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)],
                                                                                  token: "abc123"),
                                      backend: try FixedNodeBackend(), httpHandler: { files.response(for: $0) })
        server.start()
        do { try await body(server.webSocket.tcpPort!) } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func get(_ port: UInt16, _ target: String, headers: String = "") async throws -> (status: Int, head: String, body: [UInt8]) {
        let c = try WebSocketTestClient(port: port)
        try await c.sendRaw(Array("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\(headers)\r\n".utf8))
        let status = try await c.readResponseHead()
        return (status, c.responseHead, try await c.readToEnd())
    }

    @Test func everyPathNeedsTheTokenAndThePageHandsItToItsFiles() async throws {
        try await withServer { port in
            for target in ["/", "/index.html", "/dashboard/index.html", "/dashboard/dashboard.js", "/info", "/?token=abc124"] {
                #expect(try await get(port, target).status == 401, "\(target)")
            }
            let page = try await get(port, "/?token=abc123")
            #expect(page.status == 200 && page.head.contains("Content-Type: text/html; charset=utf-8"))
            #expect(page.body == [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.sourceFolder + "/index.html"))))
            #expect(page.head.contains("default-src 'self'"))
            #expect(page.head.contains("Set-Cookie: matterhub_token=abc123; Path=/; HttpOnly; SameSite=Strict"))
            for file in ["dashboard.js", "dashboard.css"] {
                #expect(try await get(port, "/dashboard/\(file)").status == 401, "\(file) without the cookie")
                let asset = try await get(port, "/dashboard/\(file)", headers: "Cookie: theme=dark; matterhub_token=abc123\r\n")
                #expect(asset.status == 200, "\(file)")
                #expect(asset.body == [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.sourceFolder + "/" + file))))
            }
            #expect(try await get(port, "/dashboard/dashboard.js", headers: "Cookie: matterhub_token=abc124\r\n").status == 401)
            #expect(try await get(port, "/info", headers: "Authorization: Bearer abc123\r\n").status == 200)
        }
    }

    /// The cookie opens the dashboard's files, never the WebSocket (a page on another port of
    /// the same host is same-site, and its browser would send the cookie along).
    @Test func theCookieDoesNotOpenTheWebSocket() async throws {
        try await withServer { (port: UInt16) async throws in
            func upgradeStatus(_ target: String, _ extra: String) async throws -> Int {
                let c = try WebSocketTestClient(port: port)
                try await c.sendRaw(Array(("GET \(target) HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\(extra)\r\n").utf8))
                return try await c.readResponseHead()
            }
            #expect(try await upgradeStatus("/ws", "Cookie: matterhub_token=abc123\r\n") == 401)
            #expect(try await upgradeStatus("/ws?token=abc123", "") == 101)
        }
    }

    /// A link or a device in MATTERHUB_DASHBOARD_DIR is not served: a link could lead to the
    /// state's keys.
    @Test func onlyRegularFilesOfTheFolderAreServed() throws {
        let folder = NSTemporaryDirectory() + "dashboard-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("<html></html>".utf8).write(to: URL(fileURLWithPath: folder + "/index.html"))
        try Data("let a = 1".utf8).write(to: URL(fileURLWithPath: folder + "/real.js"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: folder + "/../secret-\(UInt32.random(in: 0...UInt32.max)).txt"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/key.js", withDestinationPath: folder + "/real.js")
        try FileManager.default.createSymbolicLink(atPath: folder + "/null.js", withDestinationPath: "/dev/null")
        let files = DashboardFiles(environment: ["MATTERHUB_DASHBOARD_DIR": folder])
        func status(_ target: String) throws -> Int? {
            let head = try #require(try HTTPRequestHead.parse(Array("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))).head
            return files.response(for: head)?.status
        }
        #expect(try status("/dashboard/real.js") == 200)
        #expect(try status("/dashboard/key.js") == nil)
        #expect(try status("/dashboard/null.js") == nil)
    }

    @Test func nothingElseIsServed() async throws {
        try await withServer { port in
            for target in ["/dashboard/../Package.swift", "/dashboard/.hidden", "/dashboard/x/dashboard.js", "/dashboard/nope.js", "/other"] {
                let response = try await get(port, target + "?token=abc123")
                #expect(response.status == 404, "\(target)")
            }
            // /info stays the server info.
            let info = try await get(port, "/info?token=abc123")
            #expect(info.status == 200)
        }
    }

    /// The page is compiled in: without MATTERHUB_DASHBOARD_DIR the hub serves exactly the source
    /// folder's files, every one of them (a new file there must be added to Package.swift too).
    @Test func theBuiltInFilesAreTheSourceFolders() throws {
        let builtIn = DashboardFiles(environment: [:])
        #expect(builtIn.isInstalled && builtIn.origin == "built in")
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.sourceFolder).sorted()
        #expect(names == ["dashboard.css", "dashboard.js", "index.html"])
        for name in names {
            let target = name == "index.html" ? "/" : "/dashboard/" + name
            let head = try #require(try HTTPRequestHead.parse(Array("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))).head
            let response = try #require(builtIn.response(for: head), "\(name)")
            #expect(response.body == [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.sourceFolder + "/" + name))), "\(name)")
        }
    }

    @Test func aFolderWithoutThePageSaysSo() {
        let files = DashboardFiles(environment: ["MATTERHUB_DASHBOARD_DIR": "/nonexistent"])
        #expect(!files.isInstalled && files.origin.contains("/nonexistent"))
        #expect(DashboardFiles.fileExtension("dashboard.js") == "js" && DashboardFiles.fileExtension(".hidden") == ""
                && DashboardFiles.fileExtension("a.b.css") == "css" && DashboardFiles.fileExtension("README") == "")
    }
}
