import MatterSetupPayload
import MatterTLV

/// `matterctl payload parse|generate`: read and make Matter setup codes.
struct PayloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "payload",
        abstract: "Parse or generate Matter setup codes (QR and manual pairing codes)",
        subcommands: [Parse.self, Generate.self])

    /// `matterctl payload parse <code>...`
    struct Parse: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "parse",
            abstract: "Decode QR codes and manual pairing codes",
            discussion: """
                Decodes QR codes (MT:..., several devices joined by '*') and 11/21-digit manual pairing \
                codes (dashes and spaces allowed). Exit 1 naming what is wrong with an invalid code.
                """,
            arguments: [.init("code", help: "a QR code (MT:...) or a manual pairing code", arity: .oneOrMore)],
            options: [.flag("--json", help: "machine-readable output on stdout")],
            examples: ["matterctl payload parse MT:Y.K9042C00KA0648G00", "matterctl payload parse 3497-011-2332 --json"])

        static func run(_ arguments: ParsedArguments) async throws -> Int32 {
            try PayloadCommand.parse(arguments)
        }
    }

    /// `matterctl payload generate --passcode P --discriminator D ...`
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "generate",
            abstract: "Make a QR code and a manual pairing code",
            discussion: """
                Prints the QR code string, the manual pairing code and the QR code drawn in the terminal. \
                Flow 2 (custom) gives a 21-digit manual code.
                """,
            options: [
                .value("--passcode", "P", help: "setup passcode, 1...99999998 (not a trivial one like 12345678)",
                       required: true),
                .value("--discriminator", "D", help: "12-bit discriminator, 0...4095", required: true),
                .value("--vendor-id", "V", help: "vendor ID, decimal or 0x hex (default 0xFFF1)"),
                .value("--product-id", "P", help: "product ID (default 0x8000)"),
                .value("--flow", "F", help: "commissioning flow: 0 standard (default), 1 user intent, 2 custom"),
                .value("--capabilities", "C", help: "discovery capabilities bitmap: 1 SoftAP, 2 BLE, 4 on-network (default)"),
                .value("--serial", "S", help: "serial number, stored in the QR code's optional data"),
                .flag("--json", help: "machine-readable output on stdout"),
            ])

        static func run(_ arguments: ParsedArguments) async throws -> Int32 {
            try PayloadCommand.generate(arguments)
        }
    }

    // MARK: - parse

    static func parse(_ args: ParsedArguments) throws -> Int32 {
        let json = args.flag("--json")

        var payloads: [SetupPayload] = []
        for code in args.positional {
            do {
                payloads += try SetupPayload.parse(code)
            } catch {
                throw CommandFailure("invalid setup code '\(code)': \(error.description)")
            }
        }
        if json {
            Output.out(JSON.object([("payloads", .array(payloads.map(jsonView)))]).text)
        } else {
            for (i, p) in payloads.enumerated() {
                if payloads.count > 1 { Output.out("Device \(i + 1) of \(payloads.count)") }
                Output.out(summary(p))
            }
        }
        return 0
    }

    /// The `--json` shape of one payload (documented in README.md; other tools rely on it).
    static func jsonView(_ p: SetupPayload) -> JSON {
        switch p.kind {
        case .qrCode:
            return .object([
                ("kind", .string("qr")),
                ("version", .from(p.version)),
                ("vendorId", .from(p.vendorID)),
                ("productId", .from(p.productID)),
                ("commissioningFlow", .from(p.commissioningFlow?.rawValue)),
                ("discoveryCapabilities", .from(p.discoveryCapabilities?.rawValue)),
                ("discriminator", .from(p.discriminator.longValue)),
                ("shortDiscriminator", .from(p.discriminator.shortValue)),
                ("passcode", .from(p.passcode)),
                ("serialNumber", .from(p.serialNumber)),
                ("extensions", .array(p.extensions.map(extensionView))),
            ])
        case .manualCode:
            var fields: [(String, JSON)] = [("kind", .string("manual"))]
            if let vid = p.vendorID { fields.append(("vendorId", .from(vid))) }
            if let pid = p.productID { fields.append(("productId", .from(pid))) }
            if let flow = p.commissioningFlow { fields.append(("commissioningFlow", .from(flow.rawValue))) }
            fields.append(("shortDiscriminator", .from(p.discriminator.shortValue)))
            fields.append(("passcode", .from(p.passcode)))
            return .object(fields)
        }
    }

    static func extensionView(_ e: SetupPayloadExtension) -> JSON {
        let (type, value): (String, JSON) = switch e.value {
        case .utf8(let s): ("string", .string(s))
        case .signed(let n): ("int", .int(n))
        case .unsigned(let n): ("uint", .uint(n))
        case .bool(let b): ("bool", .bool(b))
        case .bytes(let b): ("bytes", .string(Base16.encode(b)))
        case .float(let f): ("float", .double(Double(f)))
        case .double(let d): ("double", .double(d))
        case .null: ("null", .null)
        case .container: ("container", .null)
        }
        return .object([("tag", .from(e.tag)), ("vendorDefined", .bool(e.isVendorDefined)),
                        ("type", .string(type)), ("value", value)])
    }

    static func summary(_ p: SetupPayload) -> String {
        func hex(_ v: UInt16?) -> String {
            guard let v else { return "(not in this code)" }
            return "\(v) (0x\(String(v, radix: 16, uppercase: true)))"
        }
        var lines = [
            "  Kind:                   \(p.kind == .qrCode ? "QR code" : "manual pairing code")",
            "  Vendor ID:              \(hex(p.vendorID))",
            "  Product ID:             \(hex(p.productID))",
        ]
        if let flow = p.commissioningFlow {
            let names = ["standard", "user intent", "custom", "reserved"]
            lines.append("  Commissioning flow:     \(flow.rawValue) (\(names[Int(min(flow.rawValue, 3))]))")
        }
        if let caps = p.discoveryCapabilities {
            var names: [String] = []
            if caps.contains(.softAP) { names.append("SoftAP") }
            if caps.contains(.ble) { names.append("BLE") }
            if caps.contains(.onNetwork) { names.append("on-network") }
            if caps.contains(.wifiPAF) { names.append("Wi-Fi PAF") }
            if caps.contains(.nfc) { names.append("NFC") }
            lines.append("  Discovery capabilities: \(caps.rawValue) (\(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        if let d = p.discriminator.longValue { lines.append("  Discriminator:          \(d)") }
        lines.append("  Short discriminator:    \(p.discriminator.shortValue)")
        lines.append("  Passcode:               \(String(p.passcode).leftPadded(8, with: "0"))")
        if let s = p.serialNumber { lines.append("  Serial number:          \(s)") }
        for e in p.extensions { lines.append("  Extension \(e.tag):          \(extensionView(e).text)") }
        return lines.joined(separator: "\n")
    }

    // MARK: - generate

    static func generate(_ args: ParsedArguments) throws -> Int32 {
        let json = args.flag("--json")
        guard let passcode = try args.integer("--passcode", as: UInt32.self) else { throw UsageError("--passcode is required") }
        guard let discriminator = try args.integer("--discriminator", as: UInt16.self) else {
            throw UsageError("--discriminator is required")
        }
        let vendor = try args.integer("--vendor-id", as: UInt16.self) ?? 0xFFF1
        let product = try args.integer("--product-id", as: UInt16.self) ?? 0x8000
        let flow = try args.integer("--flow", as: UInt8.self) ?? 0
        let capabilities = try args.integer("--capabilities", as: UInt8.self) ?? DiscoveryCapabilities.onNetwork.rawValue
        let serial = args.value("--serial")
        guard discriminator <= 0xFFF else { throw CommandFailure(SetupPayloadError.invalidDiscriminator(discriminator).description) }

        let payload = SetupPayload(kind: .qrCode, vendorID: vendor, productID: product,
                                   commissioningFlow: CommissioningFlow(rawValue: flow),
                                   discoveryCapabilities: DiscoveryCapabilities(rawValue: capabilities),
                                   discriminator: .long(discriminator), passcode: passcode, serialNumber: serial)
        let qr: String, manual: String
        do {
            qr = try QRCode.encode([payload])
            manual = try ManualPairingCode.encode(payload)
        } catch {
            throw CommandFailure("cannot generate a setup code: \(error.description)")
        }
        if json {
            Output.out(JSON.object([("qr", .string(qr)), ("manual", .string(manual))]).text)
        } else {
            Output.out("QR code:      \(qr)")
            Output.out("Manual code:  \(ManualPairingCode.formatted(manual))")
            Output.out("")
            Output.out(try TerminalQR.render(qr))
        }
        return 0
    }
}

extension String {
    func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
