import FoundationEssentials
import MatterPlatform
import MatterOTA
import MatterTLV

/// `matterctl ota inspect FILE`: what a Matter OTA image says it is, once its size and digest are
/// checked, as a provider checks it before offering it (for device makers, and before adding an
/// image to the hub).
struct OTACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "ota",
        abstract: "Matter OTA software images",
        subcommands: [Inspect.self, Make.self, Add.self, List.self, Remove.self, Check.self, Update.self])

    static func store(_ args: ParsedArguments) -> OTAImageStore { OTAImageStore(directory: args.stateDirectory + "/ota") }

    static func describe(_ image: OTAImageStore.Image) -> [(String, JSON)] {
        let h = image.header
        return [("name", .string(image.name)), ("vendorId", .integer(h.vendorID)), ("productId", .integer(h.productID)),
                ("softwareVersion", .integer(h.softwareVersion)), ("softwareVersionString", .string(h.softwareVersionString)),
                ("payloadSize", .integer(h.payloadSize)), ("minApplicableVersion", JSON.from(h.minApplicableVersion)),
                ("maxApplicableVersion", JSON.from(h.maxApplicableVersion))]
    }

    /// `matterctl ota add FILE|FOLDER...`
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "add",
            abstract: "Offer OTA images to the hub's devices",
            discussion: """
                Checks each image as `ota inspect` does and copies it into the state directory's ota/ folder \
                (owner-only), named VVVV-PPPP-VERSION.ota. A folder adds every .ota file in it (an offline \
                home's firmware folder, as python-matter-server's --ota-provider-dir has it). The hub's OTA \
                Provider offers the newest image that applies to a device that asks (QueryImage) and serves it \
                over BDX; a running hub sees it at once. An image that fails its check is named with the reason \
                and the others are still added (exit 1).
                """,
            usesHubState: true,
            arguments: [ArgumentDeclaration("path", help: "an .ota file, or a folder of them", arity: .oneOrMore)],
            options: [.flag("--json", help: "machine-readable output on stdout, one object per image")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let store = OTACommand.store(args)
            var files: [String] = []
            for path in args.positional {
                guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("\(path): no such file or folder") }
                // A folder lists; a file does not.
                guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { files.append(path); continue }
                let images = names.filter { $0.hasSuffix(".ota") }.sorted().map { path + "/" + $0 }
                if images.isEmpty { Output.err("\(path): no .ota files in this folder") }
                files += images
            }
            var failed = 0
            for file in files {
                do {
                    let image = try store.add(path: file)
                    if args.flag("--json") { Output.out(JSON.object(OTACommand.describe(image)).text) } else {
                        Output.out("added \(image.name): version \(image.header.softwareVersion) (\(image.header.softwareVersionString))")
                    }
                } catch {
                    let why = "\(file): \(error.message) [\(error.kind.rawValue)]"
                    if files.count == 1 { throw CommandFailure(why) }
                    failed += 1
                    Output.err("error: \(why)")
                }
            }
            return failed == 0 && !files.isEmpty ? 0 : 1
        }
    }

    /// `matterctl ota list`
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "list", abstract: "The OTA images the hub offers", usesHubState: true,
            options: [.flag("--json", help: "one JSON object per line")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let images = OTACommand.store(args).images()
            for image in images {
                let fields = OTACommand.describe(image)
                Output.out(args.flag("--json") ? JSON.object(fields).text : fields.map { "\($0.0)=\($0.1.plain)" }.joined(separator: " "))
            }
            if images.isEmpty && !args.flag("--json") { Output.err("no OTA images (add one with 'matterctl ota add FILE')") }
            return 0
        }
    }

    /// `matterctl ota remove NAME`
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "remove", abstract: "Stop offering an OTA image", usesHubState: true,
            arguments: [ArgumentDeclaration("name", help: "the image's name, as 'ota list' shows it")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            guard OTACommand.store(args).remove(name: args.positional[0]) else {
                throw CommandFailure("no OTA image named \(args.positional[0]) (see 'matterctl ota list')")
            }
            Output.out("removed \(args.positional[0])")
            return 0
        }
    }

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

    /// `matterctl ota make PAYLOAD OUT`
    struct Make: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "make",
            abstract: "Wrap a firmware payload into a Matter OTA image",
            discussion: """
                Writes the image the CHIP SDK's ota_image_tool.py create writes (byte for byte): the fixed \
                header, the header TLV (vendor and product ID, software version and string, payload size, \
                applicable versions, release notes URL) and the payload with its sha-256 digest. For device \
                makers testing a requestor against the hub (then `matterctl ota add OUT`).
                """,
            arguments: [ArgumentDeclaration("payload", help: "the firmware file"), ArgumentDeclaration("out", help: "the .ota file to write")],
            options: [.value("--vendor-id", "V", help: "vendor ID", required: true),
                      .value("--product-id", "P", help: "product ID", required: true),
                      .value("--version", "N", help: "the image's SoftwareVersion", required: true),
                      .value("--version-string", "S", help: "its SoftwareVersionString (1-64 bytes)", required: true),
                      .value("--min-version", "N", help: "the oldest version it applies to"),
                      .value("--max-version", "N", help: "the newest version it applies to"),
                      .value("--release-notes", "URL", help: "where its release notes are")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let (payloadPath, out) = (args.positional[0], args.positional[1])
            guard let vendor = try args.integer("--vendor-id", as: UInt16.self), let product = try args.integer("--product-id", as: UInt16.self),
                  let version = try args.integer("--version", as: UInt32.self), let string = args.value("--version-string") else {
                throw UsageError("--vendor-id, --product-id, --version and --version-string are required")
            }
            let payload = try AttestationCommand.read(payloadPath, "payload")
            let fields = OTAImageWriter.Fields(vendorID: vendor, productID: product, softwareVersion: version, softwareVersionString: string,
                                               minApplicableVersion: try args.integer("--min-version", as: UInt32.self),
                                               maxApplicableVersion: try args.integer("--max-version", as: UInt32.self),
                                               releaseNotesURL: args.value("--release-notes"))
            let image: [UInt8]
            do { image = try OTAImageWriter.image(fields, payload: payload) } catch {
                throw CommandFailure("\(error.message) [\(error.kind.rawValue)]")
            }
            do { try Data(image).write(to: URL(fileURLWithPath: out)) } catch {
                throw CommandFailure("cannot write \(out): \(errorText(error))")
            }
            Output.out("wrote \(out): \(image.count) bytes, version \(version) (\(string)) for vendor \(vendor) product \(product)")
            return 0
        }
    }
}
