import MatterCertificates
import MatterClusters
import MatterCrypto
import MatterInteraction
import MatterSetupPayload
import MatterTLV

/// Removing a device from the hub's fabric, and sharing it with another ecosystem (embedded mode).
extension Hub {
    /// Removes the hub's fabric from the device (RemoveFabric with the fabric index the device
    /// gave us), then forgets the device. The device keeps its other fabrics.
    func unpair(_ node: NodeRecord) async throws(HomeError) {
        let name = node.name
        let client = try await client(for: node.nodeID)
        typealias OC = Clusters.OperationalCredentials
        do {
            let index = try await client.readAttribute(ConcreteAttributePath(0, OC.id, OC.Attribute.currentFabricIndex))
                .unsigned(as: UInt8.self)
            let r = try await client.invoke(OC.RemoveFabric(fabricIndex: index), endpoint: 0)
            guard r.statusCode == .ok else {
                throw HomeError(.deviceRefused, "\(name) refused to remove the hub's fabric: \(r.statusCode)")
            }
        } catch let e as HomeError {
            throw e
        } catch {
            // The device drops the session as soon as the fabric is gone; a lost reply after the
            // command went out is not a failure of the removal itself.
            if case InteractionError.exchangeFailed = error {} else {
                throw HomeError(.deviceRefused, "removing the hub's fabric from \(name) failed: \(error)", underlying: error)
            }
        }
        await forget(node.nodeID)
    }

    /// A commissioning window for another ecosystem (multi-admin): a fresh random passcode, a
    /// PAKE verifier (never the passcode) sent with OpenCommissioningWindow, and the codes the
    /// other ecosystem scans or types.
    func share(_ node: NodeRecord, timeoutSeconds: UInt16) async throws(HomeError) -> (qr: String, manual: String) {
        let name = node.name
        let client = try await client(for: node.nodeID)
        var passcode: UInt32 = 0
        while !Passcode.isValid(passcode) { passcode = UInt32.random(in: 1...Passcode.maximum) }
        let discriminator = UInt16.random(in: 0...0xFFF)
        let salt = SecureRandom.bytes(32)
        let iterations: UInt32 = 1000
        do {
            let verifier = try PASEVerifier(passcode: passcode, salt: salt, iterations: Int(iterations))
            _ = try await client.invoke(Clusters.AdministratorCommissioning.OpenCommissioningWindow(
                commissioningTimeout: timeoutSeconds, pakePasscodeVerifier: verifier.serialized.bytes,
                discriminator: discriminator, iterations: iterations, salt: salt), endpoint: 0)
        } catch {
            throw HomeError(.deviceRefused, "\(name) did not open a commissioning window: \(error)", underlying: error)
        }
        let payload = SetupPayload(kind: .qrCode, vendorID: node.vendorID, productID: node.productID,
                                   commissioningFlow: .standard, discoveryCapabilities: .onNetwork,
                                   discriminator: .long(discriminator), passcode: passcode)
        do {
            return (try QRCode.encode([payload]), try ManualPairingCode.encode(payload))
        } catch {
            throw HomeError(.invalidPayload, "cannot form the sharing codes: \(error.description)", underlying: error)
        }
    }
}

extension Hub {
    /// Drops the device from the store and its sessions.
    func forget(_ nodeID: NodeID) async {
        try? store.removeNode(nodeID)
        await dropSession(nodeID)
    }
}
