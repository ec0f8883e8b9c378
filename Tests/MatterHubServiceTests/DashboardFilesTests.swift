import Foundation
import MatterHubService
import MatterWebSocket
import Testing
import TestSupport

/// The dashboard's files as the hub serves them over HTTP: the page behind the token rule, its
/// scripts and styles without it, and nothing outside its folder.
@Suite(.serialized) struct DashboardFilesTests {
    static let sourceFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/MatterHubService/Dashboard").path

    /// A server on loopback with the token `abc123` and the dashboard from the source folder.
    func withServer(_ body: (UInt16) async throws -> Void) async throws {
        let files = DashboardFiles(token: "abc123", environment: ["MATTERHUB_DASHBOARD_DIR": Self.sourceFolder])
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

    func get(_ port: UInt16, _ target: String) async throws -> (status: Int, head: String, body: [UInt8]) {
        let c = try WebSocketTestClient(port: port)
        try await c.sendRaw(Array("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        let status = try await c.readResponseHead()
        return (status, c.responseHead, try await c.readToEnd())
    }

    @Test func thePageNeedsTheTokenItsScriptsDoNot() async throws {
        try await withServer { port in
            #expect(try await get(port, "/").status == 401)
            #expect(try await get(port, "/?token=abc124").status == 401)
            let page = try await get(port, "/?token=abc123")
            #expect(page.status == 200 && page.head.contains("Content-Type: text/html; charset=utf-8"))
            #expect(page.body == [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.sourceFolder + "/index.html"))))
            #expect(page.head.contains("default-src 'self'"))
            for file in ["dashboard.js", "qr.js", "dashboard.css"] {
                let asset = try await get(port, "/dashboard/\(file)")
                #expect(asset.status == 200, "\(file)")
                #expect(asset.body == [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.sourceFolder + "/" + file))))
            }
        }
    }

    @Test func nothingElseIsServed() async throws {
        try await withServer { port in
            for target in ["/dashboard/../Package.swift", "/dashboard/.hidden", "/dashboard/x/qr.js", "/dashboard/nope.js", "/other"] {
                let response = try await get(port, target)
                #expect(response.status == 404, "\(target)")
            }
            // /info stays the server info.
            let info = try await get(port, "/info")
            #expect(info.status == 200)
        }
    }

    /// The page is compiled in: without MATTERHUB_DASHBOARD_DIR the hub serves exactly the source
    /// folder's files, every one of them (a new file there must be added to Package.swift too).
    @Test func theBuiltInFilesAreTheSourceFolders() throws {
        let builtIn = DashboardFiles(token: nil, environment: [:])
        #expect(builtIn.isInstalled && builtIn.origin == "built in")
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.sourceFolder).sorted()
        #expect(names == ["dashboard.css", "dashboard.js", "index.html", "qr.js"])
        for name in names {
            let target = name == "index.html" ? "/" : "/dashboard/" + name
            let head = try #require(try HTTPRequestHead.parse(Array("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))).head
            let response = try #require(builtIn.response(for: head), "\(name)")
            #expect(response.body == [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.sourceFolder + "/" + name))), "\(name)")
        }
    }

    @Test func aFolderWithoutThePageSaysSo() {
        let files = DashboardFiles(token: nil, environment: ["MATTERHUB_DASHBOARD_DIR": "/nonexistent"])
        #expect(!files.isInstalled && files.origin.contains("/nonexistent"))
        #expect(DashboardFiles.fileExtension("qr.js") == "js" && DashboardFiles.fileExtension(".hidden") == ""
                && DashboardFiles.fileExtension("a.b.css") == "css" && DashboardFiles.fileExtension("README") == "")
    }
}
