import MatterClusters
import MatterInteraction
import MatterTLV
import Testing
import TestSupport

/// Typed commissioning commands: round trips, and encodings checked against the tags in
/// connectedhomeip's zap XML / matter.js cluster models (hand-assembled TLV).
@Suite struct CommissioningCommandTests {
    typealias GC = Clusters.GeneralCommissioning
    typealias OC = Clusters.OperationalCredentials
    typealias AC = Clusters.AdministratorCommissioning
    typealias ACL = Clusters.AccessControl

    func roundTrip<T: TLVCodable>(_ value: T) throws -> String { try Fixtures.roundTrip(value) }

    @Test func generalCommissioning() throws {
        #expect(try roundTrip(GC.ArmFailSafe(expiryLengthSeconds: 60, breadcrumb: 1)) == "1524003c2401011" + "8")
        #expect(try roundTrip(GC.SetRegulatoryConfig(newRegulatoryConfig: .indoorOutdoor, countryCode: "XX", breadcrumb: 2))
                == "1524000" + "22c0102585824020218")
        #expect(try roundTrip(GC.ArmFailSafeResponse(errorCode: .busyWithOtherAdmin, debugText: "busy")) == "152400042c010462757379" + "18")
        #expect(try roundTrip(GC.CommissioningComplete()) == "1518")
        #expect(GC.ArmFailSafeResponse.command == 0x01)
        #expect(GC.SetRegulatoryConfigResponse.command == 0x03)
        #expect(GC.CommissioningCompleteResponse.command == 0x05)
        #expect(throws: InteractionError.self) {
            try GC.SetRegulatoryConfig(element: TLVDecoder.decode(Hex.decode("152400002c01035553412402001" + "8")!))
        }
    }

    @Test func operationalCredentials() throws {
        let nonce = [UInt8](repeating: 0xAB, count: 32)
        #expect(try roundTrip(OC.AttestationRequest(attestationNonce: nonce)) == "153000" + "20" + String(repeating: "ab", count: 32) + "18")
        #expect(try roundTrip(OC.CertificateChainRequest(certificateType: .pai)) == "1524000218")
        #expect(throws: InteractionError.self) { try OC.CertificateChainRequest(element: TLVDecoder.decode(Hex.decode("1524000318")!)) }
        #expect(try roundTrip(OC.CSRRequest(csrNonce: [1, 2], isForUpdateNOC: false)) == "15300002010228011" + "8")
        _ = try roundTrip(OC.CSRResponse(nocsrElements: [1], attestationSignature: [2]))
        _ = try roundTrip(OC.AttestationResponse(attestationElements: [1], attestationSignature: [2]))
        _ = try roundTrip(OC.CertificateChainResponse(certificate: [0x30, 0x82]))
        #expect(try roundTrip(OC.AddTrustedRootCertificate(rootCACertificate: [0x15, 0x18])) == "15300002151818")
        let addNOC = OC.AddNOC(nocValue: [1], icacValue: nil, ipkValue: [UInt8](repeating: 7, count: 16),
                               caseAdminSubject: 0x1B669, adminVendorID: 0xFFF1)
        #expect(try roundTrip(addNOC) == "1530000101" + "300210" + String(repeating: "07", count: 16) + "260369b60100" + "2504f1ff" + "18")
        #expect(!addNOC.description.contains("0707"))
        #expect(addNOC.description.contains("<redacted>"))
        #expect(try roundTrip(OC.NOCResponse(statusCode: .ok, fabricIndex: 1)) == "15240000240101" + "18")
        #expect(try roundTrip(OC.NOCResponse(statusCode: .tableFull, debugText: "full")) == "152400052c020466756c6c18")
        #expect(OC.NodeOperationalCertStatus.invalidFabricIndex.rawValue == 11)
        #expect(OC.NodeOperationalCertStatus.labelConflict.description == "LabelConflict (10)")
        _ = try roundTrip(OC.UpdateNOC(nocValue: [1], icacValue: [2]))
        #expect(try roundTrip(OC.UpdateFabricLabel(label: "Home")) == "152c0004486f6d6518")
        #expect(try roundTrip(OC.RemoveFabric(fabricIndex: 3)) == "1524000318")
        #expect(OC.AddNOC.Response.command == OC.Command.nocResponse)
    }

    @Test func administratorCommissioning() throws {
        let ocw = AC.OpenCommissioningWindow(commissioningTimeout: 180, pakePasscodeVerifier: [UInt8](repeating: 9, count: 97),
                                             discriminator: 3840, iterations: 1000, salt: [UInt8](repeating: 5, count: 16))
        let hex = try roundTrip(ocw)
        #expect(hex.hasPrefix("152400b4" + "300161"))
        #expect(hex.hasSuffix("250200" + "0f" + "2503e803" + "300410" + String(repeating: "05", count: 16) + "18"))
        #expect(AC.OpenCommissioningWindow.requiresTimedInvoke)
        #expect(ocw.description.contains("<redacted>"))
        #expect(try roundTrip(AC.OpenBasicCommissioningWindow(commissioningTimeout: 300)) == "1525002c0118")
        #expect(try roundTrip(AC.RevokeCommissioning()) == "1518")
    }

    @Test func accessControlEntry() throws {
        // An ACL entry as a commissioner writes it: Administer, CASE, two subjects (a CASE
        // Authenticated Tag and a node ID), targets null, no fabric index (the server adds it).
        let captured = "1524010524020236030701001d32fdffffff060498fabe18340418"
        let entry = try ACL.Entry(element: TLVDecoder.decode(Hex.decode(captured)!))
        #expect(entry == ACL.Entry(privilege: .administer, authMode: .case, subjects: [0xFFFF_FFFD_321D_0001, 0xBEFA_9804], targets: nil))
        #expect(try roundTrip(entry) == captured)
        let scoped = ACL.Entry(privilege: .operate, authMode: .group, subjects: nil,
                               targets: [ACL.Target(cluster: .onOff, endpoint: 1)], fabricIndex: 2)
        #expect(try roundTrip(scoped) == "152401032402033403" + "3604" + "15240006240101340218" + "18" + "24fe02" + "18")
    }

    @Test func aclWriteRequestHasTheShapeControllersSend() throws {
        // A WriteRequest replacing the ACL with two CASE entries, as controllers send it after
        // AddNOC: SuppressResponse=false, TimedRequest=false, MoreChunkedMessages=false.
        let admin = ACL.Entry(privilege: .administer, authMode: .case, subjects: [0xFFFF_FFFD_321D_0001, 0xBEFA_9804], targets: nil)
        let operate = ACL.Entry(privilege: .operate, authMode: .case, subjects: [0xFFFF_FFFD_4F2B_0001], targets: nil)
        let path = AttributePathIB(0, .accessControl, Clusters.AccessControl.Attribute.acl)
        let write = WriteRequestMessage(writeRequests: [AttributeDataIB(path: path, data: .array([admin.element(tag: .anonymous), operate.element(tag: .anonymous)]))])
        let expected = "1528002801360215370124020024031f24040018360215240105240202360307" + "01001d32fdffffff060498fabe1834041815240103240202360307" + "01002b4ffdffffff18340418181818280324ff0c18"
        #expect(Hex.encode(write.payload) == expected)
        let decoded = try WriteRequestMessage(payload: Hex.decode(expected)!)
        let entries = try decoded.writeRequests[0].data.members(of: .array).map { try ACL.Entry(element: $0) }
        #expect(entries == [admin, operate])
    }

    @Test func basicInformationIDs() {
        typealias B = Clusters.BasicInformation.Attribute
        #expect([B.vendorName, B.vendorID, B.productName, B.productID, B.nodeLabel, B.serialNumber].map(\.rawValue) == [1, 2, 3, 4, 5, 0x0F])
        #expect(ClusterID.operationalCredentials.rawValue == 0x3E)
        #expect(ClusterID.generalCommissioning.rawValue == 0x30)
        #expect(Clusters.OperationalCredentials.Attribute.currentFabricIndex.rawValue == 5)
    }
}
