import MatterInteraction
import MatterTLV
import Testing
import TestSupport

/// Every message type with every field set survives encode -> decode; the encoding follows
/// the spec's tags (checked against hand-assembled TLV for the small messages).
@Suite struct IMMessageRoundTripTests {
    static let path = AttributePathIB(enableTagCompression: false, node: 0x1122_3344_5566_7788, endpoint: 1,
                                      cluster: 0x0028, attribute: 5, listIndex: .append, wildcardPathFlags: 1)
    static let eventPath = EventPathIB(node: 9, endpoint: 0, cluster: 0x28, event: 0, isUrgent: true)
    static let filter = DataVersionFilterIB(path: ClusterPathIB(node: 1, endpoint: 0, cluster: 0x1D), dataVersion: 0xDEAD_BEEF)
    static let data = AttributeDataIB(dataVersion: 7, path: AttributePathIB(0, 6, 0), data: .bool(true))
    static let eventData = EventDataIB(path: eventPath, eventNumber: 42, priority: 2, epochTimestamp: 1_700_000_000_000,
                                       systemTimestamp: 5, deltaEpochTimestamp: 6, deltaSystemTimestamp: 7,
                                       data: .structure([.unsigned(.context(0), UInt8(1))]))
    static let command = CommandDataIB(path: CommandPathIB(1, 6, 2), fields: .structure([]), commandRef: 3)

    static let messages: [AnyIMMessage] = [
        .statusResponse(StatusResponseMessage(status: .needsTimedInteraction)),
        .readRequest(ReadRequestMessage(attributeRequests: [path, AttributePathIB()], eventRequests: [eventPath],
                                        eventFilters: [EventFilterIB(node: 3, eventMin: 100)], isFabricFiltered: false,
                                        dataVersionFilters: [filter])),
        .subscribeRequest(SubscribeRequestMessage(keepSubscriptions: true, minIntervalFloor: 1, maxIntervalCeiling: 60,
                                                  attributeRequests: [path], eventRequests: [eventPath],
                                                  eventFilters: [EventFilterIB(eventMin: 1)], isFabricFiltered: true,
                                                  dataVersionFilters: [filter])),
        .subscribeResponse(SubscribeResponseMessage(subscriptionID: 0xABCD_EF01, maxInterval: 120)),
        .reportData(ReportDataMessage(subscriptionID: 5, attributeReports: [
            .data(data), .status(AttributeStatusIB(path: path, status: StatusIB(.failure, clusterStatus: 3)))],
            eventReports: [.data(eventData), .status(EventStatusIB(path: eventPath, status: StatusIB(.unsupportedEvent)))],
            moreChunkedMessages: true, suppressResponse: false)),
        .writeRequest(WriteRequestMessage(suppressResponse: true, timedRequest: true, writeRequests: [data], moreChunkedMessages: false)),
        .writeResponse(WriteResponseMessage(writeResponses: [AttributeStatusIB(path: path, status: .success)])),
        .invokeRequest(InvokeRequestMessage(suppressResponse: false, timedRequest: true, invokeRequests: [command])),
        .invokeResponse(InvokeResponseMessage(suppressResponse: false, invokeResponses: [
            .command(command), .status(CommandStatusIB(path: CommandPathIB(endpoint: nil, cluster: 6, command: 1), status: StatusIB(.unsupportedCommand), commandRef: 4))],
            moreChunkedMessages: false)),
        .timedRequest(TimedRequestMessage(timeout: 10_000)),
    ]

    @Test(arguments: messages)
    func roundTrip(_ message: AnyIMMessage) throws {
        let decoded = try AnyIMMessage(opcode: message.opcode, payload: message.payload)
        #expect(decoded == message)
        #expect(decoded.payload == message.payload)
        // Every message carries InteractionModelRevision 12 under tag 0xFF as its last member.
        let element = try TLVDecoder.decode(message.payload)
        #expect(element.members.last == .unsigned(.context(0xFF), UInt8(12)))
    }

    @Test func smallMessagesMatchHandAssembledTLV() throws {
        // {0: 0xC6, 0xFF: 12}
        #expect(Hex.encode(StatusResponseMessage(status: .needsTimedInteraction).payload) == "152400c624ff0c18")
        // {0: 10000 (u16), 0xFF: 12}
        #expect(Hex.encode(TimedRequestMessage(timeout: 10_000).payload) == "152500102724ff0c18")
        // OnOff Toggle on endpoint 1: {0: false, 1: false, 2: [{0: [[0: 1, 1: 6, 2: 2]], 1: {}}], 0xFF: 12}
        let toggle = InvokeRequestMessage(invokeRequests: [CommandDataIB(path: CommandPathIB(1, 6, 2))])
        #expect(Hex.encode(toggle.payload) == "1528002801360215370024000124010624020218350118181824ff0c18")
    }

    @Test func dataIsRetaggedAndStoredAnonymous() throws {
        let ib = AttributeDataIB(path: AttributePathIB(0, 0x28, 1), data: .utf8(.context(9), "Acme"))
        #expect(ib.data.tag == .anonymous)
        let element = ib.element(tag: .anonymous)
        #expect(element[context: 2] == .utf8(.context(2), "Acme"))
        let cmd = CommandDataIB(path: CommandPathIB(0, 0x30, 0), fields: .structure(.context(7), []))
        #expect(cmd.element(tag: .anonymous)[context: 1] == .structure(.context(1), []))
    }

    @Test func unknownContextTagsAreSkipped() throws {
        // StatusResponse with an extra field 7 and ReadRequest whose path has an extra tag 9.
        let status = try StatusResponseMessage(payload: Hex.decode("152400002407052c0803616263" + "24ff0c18")!)
        #expect(status.status == .success)
        let read = try ReadRequestMessage(payload: Hex.decode("153600172402002403282404012409031818290324ff0c18")!)
        #expect(read.attributeRequests == [AttributePathIB(0, 0x28, 1)])
    }

    @Test func unknownOpcodeAndStatusRoundTrip() throws {
        #expect(IMOpcode(0x42).description == "opcode 0x42")
        #expect(throws: InteractionError.self) { try AnyIMMessage(opcode: IMOpcode(0x42), payload: [0x15, 0x18]) }
        let s = try StatusResponseMessage(payload: StatusResponseMessage(status: IMStatus(0xEE)).payload)
        #expect(s.status.rawValue == 0xEE)
        #expect(s.status.name == nil)
    }

    @Test func missingRevisionIsAcceptedAndReportedAsCurrent() throws {
        let m = try StatusResponseMessage(payload: Hex.decode("1524000018")!)
        #expect(m.interactionModelRevision == 12)
    }
}

/// Malformed messages: each must throw `InteractionError`, never trap.
@Suite struct IMMalformedTests {
    struct Case: CustomStringConvertible, Sendable {
        let name: String
        let opcode: IMOpcode
        let hex: String
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "empty payload", opcode: .statusResponse, hex: ""),
        Case(name: "not a structure", opcode: .statusResponse, hex: "0400"),
        Case(name: "tagged top-level structure", opcode: .statusResponse, hex: "35012400001818"),
        Case(name: "status missing", opcode: .statusResponse, hex: "1524ff0c18"),
        Case(name: "status is a string", opcode: .statusResponse, hex: "152c00014124ff0c18"),
        Case(name: "status out of UInt8 range", opcode: .statusResponse, hex: "1525000001" + "24ff0c18"),
        Case(name: "revision is a boolean", opcode: .statusResponse, hex: "1524000029ff18"),
        Case(name: "timed timeout missing", opcode: .timedRequest, hex: "1524ff0c18"),
        Case(name: "timed timeout too large for UInt16", opcode: .timedRequest, hex: "15260000000100" + "24ff0c18"),
        Case(name: "read attribute requests not an array", opcode: .readRequest, hex: "15350018290324ff0c18"),
        Case(name: "read path is a structure", opcode: .readRequest, hex: "153600152402001818290324ff0c18"),
        Case(name: "read endpoint too large", opcode: .readRequest, hex: "15360017260200000100181829032" + "4ff0c18"),
        Case(name: "read is-fabric-filtered missing", opcode: .readRequest, hex: "153600172402001818" + "24ff0c18"),
        Case(name: "read list index is a string", opcode: .readRequest, hex: "15360017240200240328240401" + "2c050141" + "1818290324ff0c18"),
        Case(name: "subscribe intervals missing", opcode: .subscribeRequest, hex: "152800290724ff0c18"),
        Case(name: "subscribe response without max interval", opcode: .subscribeResponse, hex: "15240001" + "24ff0c18"),
        Case(name: "report with data and status in one IB", opcode: .reportData,
             hex: "1536011535001537002402001835012400001818" + "3501370024020018" + "240201" + "181818" + "24ff0c18"),
        Case(name: "report IB empty", opcode: .reportData, hex: "15360115181824ff0c18"),
        Case(name: "attribute data without data", opcode: .reportData, hex: "153601153501370124020018181818" + "24ff0c18"),
        Case(name: "write without write requests", opcode: .writeRequest, hex: "1528002801" + "24ff0c18"),
        Case(name: "write without timed flag", opcode: .writeRequest, hex: "152800360218" + "24ff0c18"),
        Case(name: "invoke without invoke requests", opcode: .invokeRequest, hex: "15280028012" + "4ff0c18"),
        Case(name: "invoke command path without command", opcode: .invokeRequest,
             hex: "152800280136021537002400012401061818" + "1824ff0c18"),
        Case(name: "invoke response with both command and status", opcode: .invokeResponse,
             hex: "15280036011535003700240001240106240202181835013700240001240106240202183501240000181818181824ff0c18"),
        Case(name: "nesting deeper than the decoder allows", opcode: .reportData,
             hex: "15" + String(repeating: "17", count: 40) + String(repeating: "18", count: 41)),
        Case(name: "trailing bytes", opcode: .timedRequest, hex: "152500102724ff0c18" + "00"),
    ]

    @Test(arguments: cases)
    func rejected(_ c: Case) throws {
        let bytes = try #require(Hex.decode(c.hex))
        #expect(throws: InteractionError.self) { try AnyIMMessage(opcode: c.opcode, payload: bytes) }
    }

    @Test func errorsSayWhatFailed() {
        let e = InteractionError.status(.unsupportedAttribute, clusterStatus: nil,
                                        path: .attribute(AttributePathIB(0, 0x28, 0x99)))
        #expect(e.description == "attribute 0/0x28/0x99 failed with UnsupportedAttribute (0x86): the cluster does not have this attribute")
        do {
            _ = try StatusResponseMessage(payload: Hex.decode("1524ff0c18")!)
            Issue.record("must throw")
        } catch {
            #expect(error.description == "malformed StatusResponseMessage: required field 0 is missing")
            #expect(error.code == "malformed")
        }
    }
}

/// Inputs found by fuzz-interaction, kept as regression cases (Fuzz/regressions/fuzz-interaction).
@Suite struct IMFuzzRegressionTests {
    /// A ReportData whose attribute data holds a double NaN: it decodes, and its re-encoding
    /// decodes to an equal message (IEEE `==` on the NaN made the fuzzer's check fail).
    @Test func reportDataWithANaN() throws {
        let input = try #require(Hex.decode("""
            051536011535012600879ac60c3701000000b10000003024040118350224fdc3e7e7e7eacafe021536001718172402\
            747474747474747474747474747474747474747474707474747474747474747474747474747474747474747474747474\
            747474747474740024abababababababab460000ffff464646464646464646460224fdc3e7cafe223a00d6370124a0a0\
            a0a0a002002403ff18240201181818290424ff0118
            """))
        let message = try AnyIMMessage(opcode: IMOpcode(input[0]), payload: Array(input.dropFirst()))
        let again = try AnyIMMessage(opcode: message.opcode, payload: message.payload)
        #expect(again == message)
        #expect(again.payload == message.payload)
    }
}
