import MatterClusters
import MatterInteraction
import MatterTLV
import Testing
import TestSupport

/// The NetworkCommissioning cluster's wire types: encodings checked against the field tags of
/// connectedhomeip's network-commissioning-cluster.xml (hand-assembled TLV) and the CHIP SDK's own
/// encodings (testvectors/network_commissioning_commands.json), round trips, a
/// malformed-input table, seeded mutations, the status enum against the XML's names, and the
/// secrets kept out of descriptions.
@Suite struct NetworkCommissioningCommandTests {
    typealias NC = Clusters.NetworkCommissioning

    func roundTrip<T: TLVCodable>(_ value: T) throws -> String { try Fixtures.roundTrip(value) }

    @Test func encodingsFollowTheXMLTags() throws {
        // ScanNetworks: SSID 0 (octstr), Breadcrumb 1 (uint64).
        #expect(try roundTrip(NC.ScanNetworks(ssid: Array("ab".utf8), breadcrumb: 16)) == "153000026162" + "240110" + "18")
        #expect(try roundTrip(NC.ScanNetworks(breadcrumb: 16)) == "15240110" + "18")
        #expect(try NC.ScanNetworks(element: TLVDecoder.decode(Hex.decode("1534002401101" + "8")!)).ssid == nil)  // SSID null
        // AddOrUpdateWiFiNetwork: SSID 0, Credentials 1, Breadcrumb 2.
        #expect(try roundTrip(NC.AddOrUpdateWiFiNetwork(ssid: Array("ab".utf8), credentials: Array("12345678".utf8), breadcrumb: 16))
                == "153000026162" + "3001083132333435363738" + "240210" + "18")
        // AddOrUpdateThreadNetwork: OperationalDataset 0, Breadcrumb 1.
        #expect(try roundTrip(NC.AddOrUpdateThreadNetwork(operationalDataset: [0x0E, 0x08], breadcrumb: 16)) == "153000020e08" + "240110" + "18")
        // NetworkConfigResponse: NetworkingStatus 0, DebugText 1, NetworkIndex 2.
        #expect(try roundTrip(NC.NetworkConfigResponse(networkingStatus: .success, networkIndex: 0)) == "152400002402001" + "8")
        #expect(try roundTrip(NC.NetworkConfigResponse(networkingStatus: .boundsExceeded, debugText: "full"))
                == "152400022c010466756c6c" + "18")
        // ConnectNetwork: NetworkID 0, Breadcrumb 1.
        #expect(try roundTrip(NC.ConnectNetwork(networkID: Array("abc".utf8), breadcrumb: 17)) == "15300003616263" + "240111" + "18")
        // ConnectNetworkResponse: NetworkingStatus 0, DebugText 1, ErrorValue 2 (int32, nullable, always present).
        #expect(try roundTrip(NC.ConnectNetworkResponse(networkingStatus: .authFailure, errorValue: 15)) == "15240007" + "20020f" + "18")
        #expect(try roundTrip(NC.ConnectNetworkResponse(networkingStatus: .success)) == "15240000" + "3402" + "18")
        #expect(try roundTrip(NC.ConnectNetworkResponse(networkingStatus: .authFailure, errorValue: -2)) == "15240007" + "2002fe" + "18")
        // NetworkInfoStruct: NetworkID 0, Connected 1.
        #expect(try roundTrip(NC.NetworkInfo(networkID: Array("ab".utf8), connected: true)) == "153000026162" + "2901" + "18")
        // ScanNetworksResponse: WiFiScanResults 2, ThreadScanResults 3, each an array of structs.
        let wifi = NC.WiFiScanResult(security: 0x08, ssid: Array("ab".utf8), bssid: [1, 2, 3, 4, 5, 6], channel: 6, wifiBand: 0, rssi: -50)
        #expect(try roundTrip(wifi) == "1524000830010261623002060102030405062403062404002005ce" + "18")
        let thread = NC.ThreadScanResult(panID: 0x1234, extendedPANID: 0x0102_0304_0506_0708, networkName: "OT", channel: 15, version: 4,
                                         extendedAddress: [1, 2, 3, 4, 5, 6, 7, 8], rssi: -70, lqi: 200)
        #expect(try roundTrip(thread) == "1525003412" + "27010807060504030201" + "2c02024f54" + "24030f" + "240404"
                + "3005080102030405060708" + "2006ba" + "2407c8" + "18")
        _ = try roundTrip(NC.ScanNetworksResponse(networkingStatus: .success, wifiScanResults: [wifi]))
        _ = try roundTrip(NC.ScanNetworksResponse(networkingStatus: .success, debugText: "ok", threadScanResults: [thread, thread]))
        #expect(NC.ScanNetworks.Response.command == NC.Command.scanNetworksResponse)
        #expect(NC.AddOrUpdateWiFiNetwork.Response.command == NC.Command.networkConfigResponse)
        #expect(NC.ConnectNetwork.Response.command == NC.Command.connectNetworkResponse)
    }

    static let statuses = TestVectors.vectors("network_commissioning_status.json")

    @Test(arguments: statuses)
    func statusNamesMatchTheXML(_ v: Vector) throws {
        let status = NC.Status(rawValue: UInt8(try #require(v.int("value"))))
        #expect(status.name == v.string("name"))
        #expect(NC.Status.allDefined.contains(status))
    }

    @Test func unknownStatusesRoundTrip() throws {
        #expect(NC.Status.allDefined.count == Self.statuses.count)
        let r = NC.NetworkConfigResponse(networkingStatus: NC.Status(rawValue: 0x42))
        #expect(try roundTrip(r) == "152400421" + "8")
        #expect(r.networkingStatus.name == "NetworkCommissioningStatusEnum 66")
    }

    @Test func secretsStayOutOfDescriptions() {
        let wifi = NC.AddOrUpdateWiFiNetwork(ssid: Array("HomeNet".utf8), credentials: Array("hunter2hunter2".utf8), breadcrumb: 16)
        for text in ["\(wifi)", String(reflecting: wifi)] {
            #expect(!text.contains("hunter2") && !text.contains("104, 117") && text.contains("<redacted>"))
        }
        let thread = NC.AddOrUpdateThreadNetwork(operationalDataset: [0x05, 0x10, 0xAB, 0xCD], breadcrumb: 16)
        for text in ["\(thread)", String(reflecting: thread)] {
            #expect(!text.contains("171") && !text.lowercased().contains("abcd") && text.contains("<redacted>"))
        }
    }

    /// What a strict decoder refuses: wrong container, wrong types, missing mandatory fields.
    @Test(arguments: [
        ("ConnectNetwork without NetworkID", "ConnectNetwork", "15240111" + "18"),
        ("ConnectNetwork with a string NetworkID", "ConnectNetwork", "152c0003616263" + "18"),
        ("ConnectNetwork in a list", "ConnectNetwork", "17300003616263" + "18"),
        ("AddOrUpdateWiFiNetwork without Credentials", "AddOrUpdateWiFiNetwork", "153000026162" + "18"),
        ("AddOrUpdateThreadNetwork with an integer dataset", "AddOrUpdateThreadNetwork", "15240005" + "18"),
        ("NetworkConfigResponse without a status", "NetworkConfigResponse", "15240200" + "18"),
        ("NetworkConfigResponse with a status of 256", "NetworkConfigResponse", "1525000001" + "18"),
        ("ConnectNetworkResponse with a string ErrorValue", "ConnectNetworkResponse", "152400072c020178" + "18"),
        ("ConnectNetworkResponse with ErrorValue past Int32", "ConnectNetworkResponse", "152400072302ffffffff00000000" + "18"),
        ("NetworkInfo without Connected", "NetworkInfo", "153000026162" + "18"),
        ("ScanNetworksResponse with a struct for WiFiScanResults", "ScanNetworksResponse", "152400003502" + "18" + "18"),
        ("WiFiScanResult with RSSI past Int8", "WiFiScanResult", "1521058000" + "18"),
    ])
    func malformedInputIsRefused(_ name: String, _ type: String, _ hex: String) throws {
        let element = try TLVDecoder.decode(try #require(Hex.decode(hex), "\(name): bad hex"))
        #expect(throws: InteractionError.self, "\(name)") { _ = try Self.decode(type, element) }
    }

    /// Decodes `e` as the wire type named `type`.
    static func decode(_ type: String, _ e: TLVElement) throws(InteractionError) -> any TLVCodable {
        switch type {
        case "ScanNetworks": try NC.ScanNetworks(element: e)
        case "ScanNetworksResponse": try NC.ScanNetworksResponse(element: e)
        case "AddOrUpdateWiFiNetwork": try NC.AddOrUpdateWiFiNetwork(element: e)
        case "AddOrUpdateThreadNetwork": try NC.AddOrUpdateThreadNetwork(element: e)
        case "NetworkConfigResponse": try NC.NetworkConfigResponse(element: e)
        case "ConnectNetwork": try NC.ConnectNetwork(element: e)
        case "ConnectNetworkResponse": try NC.ConnectNetworkResponse(element: e)
        case "NetworkInfo": try NC.NetworkInfo(element: e)
        case "WiFiScanResult": try NC.WiFiScanResult(element: e)
        default: try NC.ThreadScanResult(element: e)
        }
    }

    static let sdkVectors = TestVectors.vectors("network_commissioning_commands.json")

    /// The CHIP SDK's own encodings (its Python cluster objects): each decodes and re-encodes
    /// to the same bytes.
    @Test(arguments: sdkVectors)
    func sdkEncodingsDecodeAndReEncode(_ v: Vector) throws {
        let bytes = try #require(v.hex("tlv"), "\(v.id)")
        let value = try Self.decode(try #require(v.string("type")), TLVDecoder.decode(bytes))
        #expect(TLVWriter.encode(value.element(tag: .anonymous)) == bytes, "\(v.id)")
    }

    @Test func sdkVectorsHoldWhatTheyShould() throws {
        func element(_ id: String) throws -> TLVElement {
            try TLVDecoder.decode(try #require(Self.sdkVectors.first { $0.id == id }?.hex("tlv"), "\(id)"))
        }
        let add = try NC.AddOrUpdateWiFiNetwork(element: element("add-wifi"))
        #expect(add.ssid == Array("HomeNet".utf8) && add.credentials == Array("correct horse battery".utf8) && add.breadcrumb == 16)
        let connect = try NC.ConnectNetworkResponse(element: element("connect-auth-failure"))
        #expect(connect.networkingStatus == .authFailure && connect.errorValue == 15 && connect.debugText == "auth")
        #expect(try NC.ConnectNetworkResponse(element: element("connect-success")).errorValue == nil)
        let thread = try NC.ScanNetworksResponse(element: element("scan-response-thread")).threadScanResults?.first
        #expect(thread?.extendedPANID == 0x3975_8EC8_144B_07FB && thread?.networkName == "OpenThread-5938" && thread?.rssi == -70)
        #expect(try NC.ScanNetworks(element: element("scan-networks-thread")).ssid == nil)
    }

    /// Seeded mutations of each encoding: decodes or throws, never traps.
    @Test func mutationsDecodeOrThrow() throws {
        let samples: [(String, any TLVCodable)] = [
            ("ScanNetworks", NC.ScanNetworks(ssid: Array("HomeNet".utf8), breadcrumb: 16)),
            ("AddOrUpdateWiFiNetwork", NC.AddOrUpdateWiFiNetwork(ssid: Array("HomeNet".utf8), credentials: Array("12345678".utf8))),
            ("AddOrUpdateThreadNetwork", NC.AddOrUpdateThreadNetwork(operationalDataset: [UInt8](repeating: 7, count: 40), breadcrumb: 1)),
            ("ConnectNetwork", NC.ConnectNetwork(networkID: [1, 2, 3, 4, 5, 6, 7, 8], breadcrumb: 17)),
            ("ConnectNetworkResponse", NC.ConnectNetworkResponse(networkingStatus: .authFailure, debugText: "x", errorValue: 15)),
            ("ScanNetworksResponse", NC.ScanNetworksResponse(networkingStatus: .success, threadScanResults: [
                NC.ThreadScanResult(panID: 1, extendedPANID: 2, networkName: "OT", channel: 15, rssi: -1, lqi: 3)])),
        ]
        var rng = SeededRandom(seed: 0x0031_2026)
        var rejected = 0
        for (type, sample) in samples {
            let bytes = TLVWriter.encode(sample.element(tag: .anonymous))
            for _ in 0..<300 {
                guard let e = try? TLVDecoder.decode(Mutation.mutate(bytes, using: &rng)) else { rejected += 1; continue }
                do throws(InteractionError) { _ = try Self.decode(type, e) } catch { rejected += 1 }
            }
        }
        #expect(rejected > 0)
    }
}
