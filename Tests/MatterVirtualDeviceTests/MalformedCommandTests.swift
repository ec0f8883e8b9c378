import MatterClusters
import MatterCrypto
import MatterInteraction
import MatterTLV
@testable import MatterVirtualDevice
import Testing
import TestSupport

/// Peer input never traps the device: seeded mutations of every command's fields, and of ACL
/// writes, are answered with statuses.
@Suite struct MalformedCommandTests {
    static let commands: [(ClusterID, CommandID, TLVElement)] = {
        let salt = Array(repeating: UInt8(7), count: 32)
        return [
            (.generalCommissioning, GC.Command.armFailSafe, GC.ArmFailSafe(expiryLengthSeconds: 60, breadcrumb: 1).fields),
            (.generalCommissioning, GC.Command.setRegulatoryConfig,
             GC.SetRegulatoryConfig(newRegulatoryConfig: .indoor, countryCode: "DE", breadcrumb: 2).fields),
            (.generalCommissioning, GC.Command.commissioningComplete, GC.CommissioningComplete().fields),
            (.operationalCredentials, OC.Command.attestationRequest, OC.AttestationRequest(attestationNonce: salt).fields),
            (.operationalCredentials, OC.Command.certificateChainRequest, OC.CertificateChainRequest(certificateType: .pai).fields),
            (.operationalCredentials, OC.Command.csrRequest, OC.CSRRequest(csrNonce: salt).fields),
            (.operationalCredentials, OC.Command.addTrustedRootCertificate,
             OC.AddTrustedRootCertificate(rootCACertificate: Array(repeating: 0x15, count: 40)).fields),
            (.operationalCredentials, OC.Command.addNOC,
             OC.AddNOC(nocValue: [0x15, 0x18], icacValue: nil, ipkValue: Array(salt.prefix(16)), caseAdminSubject: 1,
                       adminVendorID: 0xFFF1).fields),
            (.operationalCredentials, OC.Command.updateFabricLabel, OC.UpdateFabricLabel(label: "x").fields),
            (.operationalCredentials, OC.Command.removeFabric, OC.RemoveFabric(fabricIndex: 1).fields),
            (.administratorCommissioning, AC.Command.openCommissioningWindow,
             AC.OpenCommissioningWindow(commissioningTimeout: 180, pakePasscodeVerifier: Array(repeating: 4, count: 97),
                                        discriminator: 1, iterations: 1000, salt: salt).fields),
            (.administratorCommissioning, AC.Command.openBasicCommissioningWindow,
             AC.OpenBasicCommissioningWindow(commissioningTimeout: 180).fields),
            (.onOff, Clusters.OnOff.Command.toggle, .structure([])),
        ]
    }()

    @Test func mutatedCommandFieldsGetStatusesNotTraps() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        let core = h.device.core
        let pase = IMSessionContext(authMode: .pase, sessionID: 1)
        var rng = SeededRandom(seed: 0x5EED)
        var answered = 0
        for i in 0..<10_000 {
            let (cluster, command, fields) = Self.commands[i % Self.commands.count]
            let bytes = Mutation.mutate(TLVWriter.encode(fields), using: &rng)
            guard let mutated = try? TLVDecoder.decode(bytes) else { continue }
            let endpoint: EndpointID = cluster == .onOff ? 1 : 0
            _ = await core.invokeCommand(CommandPathIB(endpoint: endpoint, cluster: cluster, command: command),
                                         fields: mutated, context: pase)
            answered += 1
        }
        #expect(answered > 300)
    }

    @Test func mutatedACLWritesGetStatusesNotTraps() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        let core = h.device.core
        let entry = Clusters.AccessControl.Entry(privilege: .view, authMode: .case, subjects: [1, 2],
                                                 targets: [.init(cluster: 6, endpoint: 1)])
        let seed = TLVWriter.encode(TLVElement.array([entry.element(tag: .anonymous)]))
        // An administrator of fabric 1 writes: every mutated value is decoded and checked.
        let record = FabricRecord(index: 1, rcac: [], icac: nil, noc: [], operationalKey: [], ipkEpochKey: [], vendorID: 0xFFF1,
                                  label: "", rootPublicKey: [], fabricID: 1, nodeID: 9, compressedFabricID: 1)
        await core.addStagedFabric(record, admin: ACLRecord(Clusters.AccessControl.Entry(privilege: .administer, authMode: .case,
                                                                                         subjects: [5], targets: nil), fabricIndex: 1),
                                   session: nil)
        let context = IMSessionContext(fabricIndex: 1, peerNodeID: 5, authMode: .case, sessionID: 2)
        var rng = SeededRandom(seed: 0xAC1)
        var accepted = 0
        for _ in 0..<5_000 {
            guard let value = try? TLVDecoder.decode(Mutation.mutate(seed, using: &rng)) else { continue }
            let path = ConcreteAttributePath(0, .accessControl, 0)
            if (try? await core.writeAttribute(path, value: value, listIndex: nil, context: context)) != nil { accepted += 1 }
            // Keep the administrator able to write (a valid write may have replaced its entry).
            try? await core.writeAttribute(path, value: .array([Clusters.AccessControl.Entry(
                privilege: .administer, authMode: .case, subjects: [5], targets: nil).element(tag: .anonymous)]),
                listIndex: nil, context: context)
        }
        #expect(accepted > 0)
        // Whatever was accepted is within the cluster's constraints.
        for r in await core.state.acl {
            #expect((1...5).contains(r.privilege) && [2, 3].contains(r.authMode) && (r.subjects?.count ?? 0) <= 4)
        }
    }
}
