import MatterClusters
import MatterInteraction
import MatterTLV
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the Interaction Model decoders. The first input byte is the opcode,
/// the rest the payload. Any input decodes or throws; whatever decodes re-encodes to a message
/// that decodes to the same value; reports also go through the chunk reassembler, and the
/// payload is tried as the fields of every typed commissioning command.
func fuzzOne(_ input: [UInt8]) {
    guard let opcode = input.first else { return }
    let payload = Array(input.dropFirst())
    if let message = try? AnyIMMessage(opcode: IMOpcode(opcode), payload: payload) {
        guard let again = try? AnyIMMessage(opcode: message.opcode, payload: message.payload), again == message else {
            fatalError("IM re-encoding does not decode to the same message")
        }
        if case .reportData(let report) = message {
            var assembler = ReportAssembler()
            _ = try? assembler.receive(report)
        }
    }
    guard let fields = try? TLVDecoder.decode(payload) else { return }
    _ = try? Clusters.GeneralCommissioning.ArmFailSafe(element: fields)
    _ = try? Clusters.GeneralCommissioning.SetRegulatoryConfig(element: fields)
    _ = try? Clusters.GeneralCommissioning.ArmFailSafeResponse(element: fields)
    _ = try? Clusters.OperationalCredentials.AttestationResponse(element: fields)
    _ = try? Clusters.OperationalCredentials.CertificateChainRequest(element: fields)
    _ = try? Clusters.OperationalCredentials.CSRResponse(element: fields)
    _ = try? Clusters.OperationalCredentials.AddNOC(element: fields)
    _ = try? Clusters.OperationalCredentials.NOCResponse(element: fields)
    _ = try? Clusters.AdministratorCommissioning.OpenCommissioningWindow(element: fields)
    _ = try? Clusters.AccessControl.Entry(element: fields)
    _ = try? Clusters.NetworkCommissioning.ScanNetworks(element: fields)
    _ = try? Clusters.NetworkCommissioning.ScanNetworksResponse(element: fields)
    _ = try? Clusters.NetworkCommissioning.AddOrUpdateWiFiNetwork(element: fields)
    _ = try? Clusters.NetworkCommissioning.AddOrUpdateThreadNetwork(element: fields)
    _ = try? Clusters.NetworkCommissioning.NetworkConfigResponse(element: fields)
    _ = try? Clusters.NetworkCommissioning.ConnectNetwork(element: fields)
    _ = try? Clusters.NetworkCommissioning.ConnectNetworkResponse(element: fields)
    _ = try? Clusters.NetworkCommissioning.NetworkInfo(element: fields)
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    fuzzOne(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#else
@main enum Replay {
    static func main() { FuzzReplay.run(fuzzOne) }
}
#endif
