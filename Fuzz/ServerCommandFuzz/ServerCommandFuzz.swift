import MatterClusters
import MatterServerAPI
import MatterTLV
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the API's command decoder: JSON text -> CommandMessage -> ServerCommand,
/// and a device_command payload through the name-keyed tables. Any input decodes or throws a
/// typed error with a code in 0...11; parsed JSON re-encodes to text that parses to the same
/// value; payload TLV converts back to the same JSON.
func fuzzOne(_ input: [UInt8]) {
    if let json = try? JSONParser.parse(input) {
        guard let again = try? JSONParser.parse(JSONWriter.encode(json)), again == json else {
            fatalError("JSON re-encoding does not parse to the same value")
        }
        if let element = try? AttributeValueCoding.tlv(from: json, as: .any) {
            _ = try? AttributeValueCoding.json(from: element)
        }
    }
    guard let message = try? CommandMessage.parse(input) else { return }
    do {
        let command = try ServerCommand.decode(message)
        if case .deviceCommand(let a) = command, let spec = Clusters.command(cluster: a.clusterID, name: a.commandName),
           let fields = try? spec.encodePayload(a.payload) {
            guard let back = try? spec.decodePayload(fields), (try? spec.encodePayload(back.objectValue!)) == fields else {
                fatalError("device_command payload does not round-trip")
            }
        }
    } catch {
        guard (0...11).contains(error.code.rawValue) else { fatalError("error code outside 0...11") }
    }
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
