import MatterOTA
import MatterTLV

/// `matterctl ota inspect FILE`: what a Matter OTA image says it is, once its size and digest are
/// checked, as a provider checks it before offering it (for device makers, and before adding an
/// image to the hub).
struct OTACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "ota",
        abstract: "Matter OTA software images",
        subcommands: [Inspect.self])

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "inspect",
            abstract: "Check an OTA image file and show its header",
            discussion: """
                Reads the image's header (Matter Core 11.21.7: vendor and product ID, software version and \
                string, payload size, applicable versions, release notes URL, digest type and digest), checks \
                that the file has the size the header gives and that the payload hashes to its sha-256 digest. \
                With --vendor-id, --product-id and --current-version it also says whether the image can update \
                such a node. Exit 0 when the image is sound (and applies), 1 with the reason otherwise.
                """,
            arguments: [ArgumentDeclaration("file", help: "the .ota file")],
            options: [.value("--vendor-id", "V", help: "the node's vendor ID"),
                      .value("--product-id", "P", help: "the node's product ID"),
                      .value("--current-version", "N", help: "the node's SoftwareVersion"),
                      .flag("--json", help: "machine-readable output on stdout")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let path = args.positional[0]
            let header: OTAImageHeader
            do { header = try OTAImageFile.inspect(path: path) } catch {
                throw CommandFailure("\(path): \(error.message) [\(error.kind.rawValue)]")
            }
            var refusal: OTAImageError?
            let vendor = try args.integer("--vendor-id", as: UInt16.self), product = try args.integer("--product-id", as: UInt16.self)
            let current = try args.integer("--current-version", as: UInt32.self)
            if vendor != nil || product != nil || current != nil {
                guard let vendor, let product, let current else {
                    throw UsageError("--vendor-id, --product-id and --current-version go together")
                }
                refusal = header.refusal(vendorID: vendor, productID: product, currentVersion: current)
            }
            let fields: [(String, JSON)] = [
                ("vendorId", .integer(header.vendorID)), ("productId", .integer(header.productID)),
                ("softwareVersion", .integer(header.softwareVersion)), ("softwareVersionString", .string(header.softwareVersionString)),
                ("payloadSize", .integer(header.payloadSize)), ("minApplicableVersion", JSON.from(header.minApplicableVersion)),
                ("maxApplicableVersion", JSON.from(header.maxApplicableVersion)), ("releaseNotesUrl", JSON.from(header.releaseNotesURL)),
                ("digestType", .string(header.digestType.description)), ("digest", .string(Base16.encode(header.digest))),
                ("verified", .bool(true)),
            ] + (refusal.map { [("applies", JSON.bool(false)), ("reason", .string($0.message))] } ?? [])
            if args.flag("--json") {
                Output.out(JSON.object(fields).text)
            } else {
                for (name, value) in fields { Output.out("\(name): \(value.plain)") }
            }
            if let refusal { Output.err("error: \(path) cannot update this node: \(refusal.message)") }
            return refusal == nil ? 0 : 1
        }
    }
}
