import Foundation
import MatterCommissioning
import MatterDiscovery
import MatterHubService
import MatterServerAPI
import MatterTLV
import Testing
import TestSupport

/// `get_thread_border_routers` on a real hub (in process, on loopback) whose discovery answers a
/// Google Nest Hub's border agent advert, its TXT as Home Assistant's Thread tests captured it
/// (home-assistant/core tests/components/thread/__init__.py, `ROUTER_DISCOVERY_GOOGLE_1`), and a
/// text-only one: each entry in matterjs-server's BorderRouterEntry shape, with only what its TXT
/// carries.
@Suite struct ThreadBorderRouterAPITests {
    static func meshcop(_ name: String, port: UInt16, ip: String, _ pairs: [(String, [UInt8])]) -> ServiceInstance {
        var txt = TXTRecord()
        for (k, v) in pairs { txt.set(k, v) }
        return ServiceInstance(name: name, type: "_meshcop._udp", domain: "local", host: "\(name).local", port: port,
                               addresses: [ServiceAddress(ip: ip, family: ip.contains(":") ? .ipv6 : .ipv4, interfaceIndex: 2,
                                                          interfaceName: "eth0")], txt: txt)
    }

    static func hex(_ s: String) -> [UInt8] { Base16.decode(s)! }

    static let google: [(String, [UInt8])] = [
        ("rv", Array("1".utf8)), ("vn", Array("Google Inc.".utf8)), ("mn", Array("Google Nest Hub".utf8)),
        ("nn", Array("NEST-PAN-E1AF".utf8)), ("xp", hex("9e75e256f61409a3")), ("tv", Array("1.3.0".utf8)),
        ("xa", hex("f6a99b425a67abed")), ("sb", hex("000001b1")), ("at", hex("000062f2f82454e3")),
        ("pt", hex("34863044")), ("sq", hex("7b")), ("bb", hex("f0bf")), ("dn", Array("DefaultDomain".utf8)),
        ("id", hex("bc3740c3e963aa8735bebecd7cc503c7")),
    ]

    @Test func listsEachBorderAgentAsMatterjsServerDoes() async throws {
        let state = NSTemporaryDirectory() + "matterhub-br-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var configuration = HubServer.Configuration(
            stateDirectory: state, options: CommissioningOptions(trustStore: try HubServerTests.paaStore(), allowTestDevices: true))
        configuration.listen = ["127.0.0.1"]
        configuration.port = 0
        configuration.discovery = MatterDiscovery(browser: FixedServiceBrowser([
            Self.meshcop("Google-Nest-Hub-1", port: 49154, ip: "192.168.0.115", Self.google),
            Self.meshcop("Plain", port: 49191, ip: "fd00::7", [("rv", Array("1".utf8)), ("nn", Array("Plain Mesh".utf8)),
                                                                 ("xa", Self.hex("0011223344556677"))]),
        ]))
        let server = try await HubServer(configuration, log: { _ in })
        try await server.start(log: { _ in })
        defer { Task { await server.stop() } }
        let client = try await HubTestConnection(port: try #require(server.api.webSocket.tcpPort))
        // The hub's passive browse holds them once avahi (here a fixed browser) has answered.
        var routers: [JSONValue] = []
        for _ in 0..<300 where routers.count < 2 {
            routers = try await client.call("get_thread_border_routers").result.array ?? []
            if routers.count < 2 { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(routers.count == 2, "\(routers)")
        let nest = routers[0], plain = routers[1]
        let expected: [String: JSONValue] = [
            "extAddressHex": .string("F6A99B425A67ABED"), "extendedPanIdHex": .string("9E75E256F61409A3"),
            "networkName": .string("NEST-PAN-E1AF"), "vendorName": .string("Google Inc."), "modelName": .string("Google Nest Hub"),
            "hostname": .string("Google-Nest-Hub-1.local"), "addresses": .array([.string("192.168.0.115")]),
            "meshcopPort": .int(49154), "threadVersion": .string("1.3.0"), "recordVersion": .string("1"),
            "borderAgentIdHex": .string("BC3740C3E963AA8735BEBECD7CC503C7"), "stateBitmapHex": .string("000001B1"),
            "activeTimestampHex": .string("000062F2F82454E3"), "partitionIdHex": .string("34863044"),
            "domainName": .string("DefaultDomain"), "sources": .array([.string("meshcop")]),
        ]
        for (key, value) in expected { #expect(nest[key] == value, "\(key): \(String(describing: nest[key]))") }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(abs((nest["lastSeen"]?.int64 ?? 0) - now) < 60_000)
        // Only what the text-only advert carries.
        #expect(plain["networkName"] == .string("Plain Mesh") && plain["extAddressHex"] == .string("0011223344556677"))
        #expect(plain["vendorName"] == nil && plain["extendedPanIdHex"] == nil && plain["stateBitmapHex"] == nil)
    }
}
