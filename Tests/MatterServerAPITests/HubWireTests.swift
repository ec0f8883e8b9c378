import Foundation
import MatterServerAPI
import MatterTLV
import Testing
import TestSupport

@Suite struct HubCommandWireTests {
    static let all: [HubCommand] = [
        .enable(apiVersion: 1), .enable(apiVersion: nil), .hubStatus, .structures, .rooms(structureID: nil), .rooms(structureID: 7),
        .addRoom(name: "Study", structureID: 1), .devices,
        .configureDevice(nodeID: UInt64.max, name: "Lamp", roomID: nil, roomName: "Kitchen"),
        .configureDevice(nodeID: 5, name: nil, roomID: 3, roomName: nil),
        .prepareCommissioning(structureID: nil),
        .performCommissioning(onboardingPayload: "MT:Y.K9042C00KA0648G00", setupPINCode: nil, ipAddress: nil, name: "Desk", roomID: 2,
                              ecosystemName: "App"),
        .performCommissioning(onboardingPayload: nil, setupPINCode: 13_572_468, ipAddress: "fe80::1", name: nil, roomID: nil,
                              ecosystemName: nil),
        .completeCommissioning, .cancelCommissioning,
        .read(nodeID: 0xFFFF_FFFE_0000_0001, endpoint: 0, cluster: 40, attribute: 5),
        .read(nodeID: 9, endpoint: nil, cluster: 6, attribute: nil),
        .write(nodeID: 0xFFFF_FFFE_0000_0001, endpoint: 0, cluster: 40, attribute: 5, value: .utf8("Hall"), timedTimeoutMs: nil),
        .write(nodeID: 9, endpoint: 1, cluster: 8, attribute: 17, value: .null, timedTimeoutMs: 500),
        .invoke(nodeID: 9, endpoint: 1, cluster: 8, command: 4,
                fields: .structure([.unsigned(.context(0), UInt8(128)), .null(.context(1))]), timedTimeoutMs: nil),
        .invoke(nodeID: 9, endpoint: 0, cluster: 0x3C, command: 2, fields: .structure([]), timedTimeoutMs: 10_000),
        .share(nodeID: 9, timeoutSeconds: 900), .unpair(nodeID: 9), .discover(seconds: 30),
        .importHome(kind: .pythonMatterServer, path: "/data", fabricID: nil, confirm: nil),
        .importHome(kind: .matterjsServer, path: "/addon_configs/matter server", fabricID: 0xFFFF_FFFF_FFFF_FFFF, confirm: "00ff"),
        .deviceHistory(nodeID: 0xFFFF_FFFE_0000_0001, limit: 1000),
        .subscribe(nodeID: 9, path: HubSubscriptionPath(.attribute, endpoint: 1, cluster: 6, id: 0)),
        .subscribe(nodeID: 9, path: HubSubscriptionPath(.event, endpoint: nil, cluster: 0x3B, id: nil)),
    ]

    func decode(_ name: String, _ args: JSONValue?) throws(APIError) -> HubCommand {
        try HubCommand.decode(CommandMessage(messageID: "1", command: name, args: args))
    }

    @Test(arguments: all) func roundTripsThroughItsArguments(_ command: HubCommand) throws {
        // Through the text a client sends.
        let text = JSONWriter.encode(CommandMessage(messageID: "x", command: command.name.rawValue, args: command.arguments).json)
        #expect(try HubCommand.decode(CommandMessage.parse(text)) == command)
    }

    @Test func everyNameIsInTheNamespaceAndDecodes() throws {
        #expect(Set(Self.all.map(\.name)) == Set(HubCommandName.allCases))
        #expect(HubCommandName.allCases.allSatisfy { HubCommandName.isExtension($0.rawValue) })
        #expect(!HubCommandName.isExtension("start_listening"))
    }

    /// The doc's example: `0c0448616c6c` is a UTF-8 string of 1-byte length (control byte 0x0C,
    /// Matter Core spec A.7), "Hall".
    @Test func writeCarriesTheValueElement() throws {
        let args: JSONValue = .object(["node_id": .int(7), "endpoint": .int(0), "cluster": .int(40), "attribute": .int(5),
                                       "tlv": .string("0c0448616c6c")])
        #expect(try decode("matterhub/write", args)
                == .write(nodeID: 7, endpoint: 0, cluster: 40, attribute: 5, value: .utf8("Hall"), timedTimeoutMs: nil))
        #expect(HubCommand.write(nodeID: 7, endpoint: 0, cluster: 40, attribute: 5, value: .utf8("Hall"), timedTimeoutMs: nil).arguments["tlv"]
                == .string("0c0448616c6c"))
    }

    @Test func defaults() throws {
        #expect(try decode("matterhub/share", .object(["node_id": .int(3)])) == .share(nodeID: 3, timeoutSeconds: 300))
        #expect(try decode("matterhub/discover", nil) == .discover(seconds: 3))
        #expect(try decode("matterhub/invoke", .object(["node_id": .int(1), "endpoint": .int(1), "cluster": .int(6), "command": .int(2)]))
                == .invoke(nodeID: 1, endpoint: 1, cluster: 6, command: 2, fields: .structure([]), timedTimeoutMs: nil))
    }

    @Test(arguments: [
        ("matterhub/no_such", JSONValue.null, 9),
        ("matterhub/read", .object(["node_id": .int(1), "endpoint": .int(0), "cluster": .int(40), "attribute": .string("vendorname")]), 8),
        ("matterhub/read", .object(["node_id": .string("1"), "endpoint": .int(0), "cluster": .int(40), "attribute": .int(5)]), 8),
        ("matterhub/read", .object(["node_id": .int(1), "endpoint": .int(65536), "cluster": .int(40), "attribute": .int(5)]), 8),
        ("matterhub/invoke", .object(["node_id": .int(1), "endpoint": .int(1), "cluster": .int(6), "command": .int(2),
                                      "fields_tlv": .string("15")]), 8),
        ("matterhub/invoke", .object(["node_id": .int(1), "endpoint": .int(1), "cluster": .int(6), "command": .int(2),
                                      "fields_tlv": .string("151818")]), 8),  // trailing bytes
        ("matterhub/invoke", .object(["node_id": .int(1), "endpoint": .int(1), "cluster": .int(6), "command": .int(2),
                                      "fields_tlv": .string("zz")]), 8),
        ("matterhub/write", .object(["node_id": .int(1), "endpoint": .int(0), "cluster": .int(40), "attribute": .int(5)]), 8),
        ("matterhub/write", .object(["node_id": .int(1), "endpoint": .int(0), "cluster": .int(40), "attribute": .int(5),
                                     "tlv": .string("0c0448616c")]), 8),  // string shorter than its length
        ("matterhub/write", .object(["node_id": .int(1), "endpoint": .int(0), "cluster": .int(40), "attribute": .int(5),
                                     "tlv": .string("0c0448616c6c18")]), 8),  // trailing bytes
        ("matterhub/write", .object(["node_id": .int(1), "endpoint": .int(0), "cluster": .int(40), "attribute": .int(5),
                                     "tlv": .int(12)]), 8),
        ("matterhub/add_room", .object(["name": .string("")]), 8),
        ("matterhub/configure_device", .object(["node_id": .int(1), "name": .string(String(repeating: "x", count: 33))]), 8),
        ("matterhub/discover", .object(["seconds": .int(0)]), 8),
        ("matterhub/import", .object(["path": .string("/data")]), 8),  // no kind
        ("matterhub/device_history", .object(["node_id": .int(1), "limit": .int(0)]), 8),
        ("matterhub/device_history", .object([:]), 8),
        ("matterhub/import", .object(["kind": .string("zigbee2mqtt"), "path": .string("/data")]), 8),
        ("matterhub/import", .object(["kind": .string("python-matter-server"), "path": .string("data")]), 8),  // relative
        ("matterhub/import", .object(["kind": .string("python-matter-server"), "path": .string("/data"),
                                      "fabric_id": .string("2")]), 8),
        ("matterhub/discover", .object(["seconds": .double(1.5)]), 8),
        ("matterhub/perform_commissioning", .object([:]), 8),
        ("matterhub/perform_commissioning", .object(["onboarding_payload": .string("MT:Y.K9042C00KA0648G00"),
                                                     "setup_pin_code": .int(13_572_468)]), 8),  // both
        ("matterhub/perform_commissioning", .object(["onboarding_payload": .string("MT:Y.K9042C00KA0648G00"),
                                                     "ip_addr": .string("fe80::1")]), 8),  // an address without a PIN
        ("matterhub/perform_commissioning", .object(["setup_pin_code": .int(1 << 32)]), 8),
        ("matterhub/enable", .array([]), 8),
    ])
    func malformedArgumentsAreTypedErrors(_ name: String, _ args: JSONValue, _ code: Int) {
        #expect(throws: APIError.self) { _ = try decode(name, args) }
        do { _ = try decode(name, args) } catch { #expect(error.code.rawValue == code, "\(name): \(error)") }
    }
}

@Suite struct HubEventTests {
    static let failure = HubCommissioningFailure(step: "pase", specNumber: 6, title: "PASE", device: "D=3840", code: "wrong-passcode",
                                                  reason: "the passcode in the setup code is wrong", hint: "Check the setup code.")
    static let events: [HubEvent] = [
        .commissioningStarted(requestID: "r", devices: 2, source: .ohf),
        .commissioningStep(HubCommissioningStep(requestID: "r", device: 1, step: "csr", specNumber: 11, title: "operational CSR",
                                                stepMilliseconds: 12.5, elapsedMilliseconds: 300, result: .ok)),
        .commissioningStep(HubCommissioningStep(requestID: "r", device: 0, step: "pase", specNumber: 6, title: "PASE",
                                                stepMilliseconds: 0, elapsedMilliseconds: 40, result: .failed, error: failure)),
        .commissioningFinished(requestID: "r", results: [
            .success(device: 0, nodeID: UInt64.max, vendorID: 0xFFF1, productID: 0x8000, address: "[fe80::1%2]:5540",
                     timings: [.init(step: "discovery", milliseconds: 3)], warnings: ["test device"]),
            .failure(device: 1, failure),
        ]),
        .deviceUpdated(HubDevice(nodeID: 1, name: "Lamp", roomID: nil, room: nil, available: false, vendorID: 1, productID: 2,
                                 addresses: [], commissionedAt: "2026-12-01T12:00:00.000000Z")),
        .deviceUpdated(HubDevice(nodeID: UInt64.max, name: "Desk", roomID: 3, room: "Study", available: true, vendorID: 0xFFF1,
                                 productID: 0x8000,
                                 addresses: [.init(host: "fe80::1", port: 5540, interfaceIndex: 2),
                                             .init(host: "10.0.0.7", port: 65535, interfaceIndex: nil)],
                                 commissionedAt: "2026-12-01T12:00:00.000000Z",
                                 connection: .init(state: "live"))),
        .deviceUpdated(HubDevice(nodeID: 2, name: "Sensor", roomID: nil, room: nil, available: false, vendorID: 1, productID: 2,
                                 addresses: [], commissionedAt: "2026-12-01T12:00:00.000000Z",
                                 connection: .init(state: "retrying", attempt: 4, retryAt: "2026-12-01T12:00:08.000000Z"))),
        .deviceRemoved(nodeID: 0x8000_0000_0000_0000),
        .roomAdded(HubRoom(id: 4, name: "Study", structureID: 1)),
        .discovered(requestID: "m7", node: .object(["instance_name": .string("ABCD"), "long_discriminator": .int(3840)])),
        .report(HubReport(requestID: "m8", nodeID: 0xFFFF_FFFE_0000_0001,
                          attributes: [.init(endpoint: 1, cluster: 6, attribute: 0, value: .bool(true))],
                          events: [.init(endpoint: 1, cluster: 0x3B, event: 1, number: 0x1_0000_0000,
                                         data: .structure([.unsigned(.context(0), UInt8(1))])),
                                   .init(endpoint: 0, cluster: 0x28, event: 1, number: 2, data: nil)])),
    ]

    @Test(arguments: events) func roundTripsThroughItsFrame(_ event: HubEvent) throws {
        guard case .event(let name, let data) = try ReceivedServerMessage.parse(event.encoded) else {
            Issue.record("not an event frame"); return
        }
        #expect(name.hasPrefix("matterhub/"))
        #expect(try HubEvent.decode(name: name, data: data) == event)
    }

    /// The device record's addresses and the success outcome's address are on the wire as the
    /// doc has them, and one that is missing or ill-typed is an error naming it.
    @Test func addressesAreStrict() throws {
        let device = HubDevice(nodeID: 1, name: "Lamp", roomID: nil, room: nil, available: true, vendorID: 1, productID: 2,
                               addresses: [.init(host: "fe80::1", port: 5540, interfaceIndex: 2)], commissionedAt: "x")
        let json = try JSONParser.parse(JSONWriter.encode(device.json))
        #expect(json["addresses"] == .array([.object(["host": .string("fe80::1"), "port": .int(5540), "interface_index": .int(2)])]))
        func with(_ key: String, _ value: JSONValue?, in object: JSONValue) -> JSONValue {
            var o = object.objectValue ?? JSONObject()
            o[key] = value
            return .object(o)
        }
        for bad: JSONValue in [.null, .array([.object(["host": .string("::1"), "port": .int(65536)])]),
                               .array([.object(["port": .int(5540)])]),
                               .array([.object(["host": .string("::1"), "port": .int(1), "interface_index": .int(-1)])])] {
            #expect(throws: APIError.self, "\(bad)") { _ = try HubDevice(json: with("addresses", bad, in: json)) }
        }
        let outcome = HubDeviceOutcome.success(device: 0, nodeID: 5, vendorID: 1, productID: 2, address: "[::1]:5540", timings: [],
                                               warnings: [])
        #expect(outcome.json["address"] == .string("[::1]:5540"))
        #expect(throws: APIError.self) { _ = try HubDeviceOutcome(json: with("address", nil, in: outcome.json)) }
    }

    @Test func unknownNamesAreLeftAloneAndMalformedDataIsAnError() throws {
        #expect(try HubEvent.decode(name: "matterhub/from_the_future", data: .null) == nil)
        #expect(throws: APIError.self) { _ = try HubEvent.decode(name: "matterhub/device_removed", data: .object(["node_id": .int(-1)])) }
        #expect(throws: APIError.self) {
            _ = try HubEvent.decode(name: "matterhub/commissioning_step", data: .object([
                "request_id": .string("r"), "device": .int(0), "step": .string("pase"), "spec_number": .int(6), "title": .string("PASE"),
                "step_ms": .int(1), "elapsed_ms": .int(1), "result": .string("maybe")]))
        }
    }
}

@Suite struct HubAPIErrorTests {
    @Test func carriesTheHomeErrorAndTheFailedStep() throws {
        let error = HubAPIError(code: .nodeCommissionFailed, details: "PASE failed for D=3840: wrong passcode. Check it.",
                                homeError: "commissioningFailed", commissioning: HubEventTests.failure)
        let frame = try JSONParser.parse(error.encoded(messageID: "m9"))
        // An OHF-only reader sees a plain error result.
        #expect(try ReceivedServerMessage.parse(error.encoded(messageID: "m9"))
                == .error(messageID: "m9", code: 1, details: error.details))
        let parsed = try #require(try HubAPIError.parse(frame))
        #expect(parsed.messageID == "m9" && parsed.error == error)
        let plain = HubAPIError(APIError.invalidCommand("matterhub/x"))
        let plainFrame = try JSONParser.parse(plain.encoded(messageID: "1"))
        #expect(plainFrame.objectValue?.keys == ["message_id", "error_code", "details"])
        #expect(try HubAPIError.parse(.object(["message_id": .string("1"), "result": .null])) == nil)
        #expect(throws: APIError.self) { _ = try HubAPIError.parse(.object(["message_id": .string("1"), "error_code": .int(999)])) }
    }
}

/// docs/matterhub-api.md lists every extension command and event this module declares, and
/// nothing else: a command added without its row (or a row left behind) fails here.
@Suite struct HubAPIDocumentTests {
    static func documentedNames() throws -> Set<String> {
        let doc = TestVectors.directory.deletingLastPathComponent().appendingPathComponent("docs/matterhub-api.md")
        let text = try String(contentsOf: doc, encoding: .utf8)
        return Set(text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `matterhub/"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        })
    }

    @Test func everyCommandAndEventHasItsRow() throws {
        let declared = Set(HubCommandName.allCases.map(\.rawValue) + HubEvent.Name.allCases.map(\.rawValue))
        let documented = try Self.documentedNames()
        #expect(declared.subtracting(documented).isEmpty, "not in docs/matterhub-api.md: \(declared.subtracting(documented).sorted())")
        #expect(documented.subtracting(declared).isEmpty, "documented but not declared: \(documented.subtracting(declared).sorted())")
    }
}
