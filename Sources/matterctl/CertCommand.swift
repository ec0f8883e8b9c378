import FoundationEssentials
import MatterCertificates
import MatterPlatform
import MatterTLV

/// `matterctl cert decode|convert`: inspect Matter operational certificates and convert them
/// between the Matter TLV and X.509 DER encodings.
struct CertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "cert",
        abstract: "Decode, convert or verify Matter certificates (TLV <-> X.509 DER)",
        subcommands: [Decode.self, Convert.self, CertVerifyCommand.self])

    static let input = ArgumentDeclaration(
        "certificate",
        help: "a file (PEM, DER, TLV, hex or base64 text such as the SDK's .chip-b64 files) or the certificate as a hex string")

    /// `matterctl cert decode <certificate>`
    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "decode",
            abstract: "Show a certificate in either encoding",
            discussion: """
                Shows the subject and issuer, validity, public key, extensions and signature of a certificate \
                in either encoding (detected from the first byte: 0x30 is X.509 DER, anything else Matter TLV). \
                A DER certificate outside the Matter operational profile (e.g. a DAC) is shown as plain X.509 \
                with the reason.
                """,
            arguments: [CertCommand.input],
            options: [.flag("--json", help: "machine-readable output on stdout")])

        static func run(_ arguments: ParsedArguments) async throws -> Int32 {
            try CertCommand.decode(arguments)
        }
    }

    /// `matterctl cert convert <certificate> --to der|tlv [--out FILE]`
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "convert",
            abstract: "Convert a certificate to the other encoding",
            discussion: """
                Converts to the other encoding (or re-encodes to the same one). Prints lowercase hex unless \
                --out is given. Exit 1 naming the defect when the certificate is malformed or not convertible.
                """,
            arguments: [CertCommand.input],
            options: [
                .value("--to", "FORMAT", help: "der or tlv", required: true),
                .value("--out", "FILE", help: "write the converted certificate (binary) to FILE"),
            ])

        static func run(_ arguments: ParsedArguments) async throws -> Int32 {
            try CertCommand.convert(arguments)
        }
    }

    // MARK: - decode

    static func decode(_ args: ParsedArguments) throws -> Int32 {
        let json = args.flag("--json")
        let bytes = try CertificateInput.load(args.positional[0])
        let isDER = bytes.first == 0x30

        do {
            let cert = try MatterCertificate(anyEncoding: bytes)
            let view = CertificateView(cert, encoding: isDER ? "der" : "tlv", size: bytes.count)
            Output.out(json ? view.json.text : view.text)
            return 0
        } catch {
            // Not a Matter operational certificate: a DER certificate may still be valid X.509.
            guard isDER, let x509 = try? X509Certificate(derEncoded: bytes) else {
                throw CommandFailure("invalid certificate: \(error.description)")
            }
            let view = X509View(x509, reason: error.description)
            Output.out(json ? view.json.text : view.text)
            return 0
        }
    }

    // MARK: - convert

    static func convert(_ args: ParsedArguments) throws -> Int32 {
        guard let to = args.value("--to") else { throw UsageError("cert convert needs --to der or --to tlv") }
        guard to == "der" || to == "tlv" else { throw UsageError("--to must be der or tlv, not '\(to)'") }
        let out = args.value("--out")
        let bytes = try CertificateInput.load(args.positional[0])

        let result: [UInt8]
        do {
            let cert = try MatterCertificate(anyEncoding: bytes)
            result = to == "der" ? try cert.derEncoded() : cert.tlvEncoded
        } catch {
            throw CommandFailure("invalid certificate: \(error.description)")
        }
        if let out {
            do {
                try Data(result).write(to: URL(fileURLWithPath: out))
            } catch {
                throw CommandFailure("cannot write \(out): \(errorText(error))")
            }
        } else {
            Output.out(result.hexString)
        }
        return 0
    }
}

/// Reads a certificate argument: a file in PEM, binary, hex or base64 text, or a hex string.
enum CertificateInput {
    static func load(_ argument: String) throws -> [UInt8] {
        var isDirectory = false
        if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), !isDirectory {
            guard let data = FileManager.default.contents(atPath: argument) else {
                throw CommandFailure("cannot read \(argument)")
            }
            return try decodeFile(Array(data), name: argument)
        }
        if let bytes = hex(argument) { return bytes }
        throw CommandFailure("'\(argument)' is neither a readable file nor a hex string")
    }

    static func decodeFile(_ data: [UInt8], name: String) throws -> [UInt8] {
        let text = String(decoding: data, as: UTF8.self)
        if text.contains("-----BEGIN") {
            let lines = text.split(whereSeparator: \.isNewline).map(String.init)
            guard let start = lines.firstIndex(where: { $0.hasPrefix("-----BEGIN") }),
                  let end = lines[(start + 1)...].firstIndex(where: { $0.hasPrefix("-----END") }),
                  let der = Data(base64Encoded: lines[(start + 1)..<end].joined())
            else { throw CommandFailure("\(name): malformed PEM") }
            return Array(der)
        }
        // Text files (hex or base64) hold printable ASCII only; DER and TLV never do.
        let isText = !data.isEmpty && data.allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard isText else { return data }
        let trimmed = text.trimmingWhitespaceAndNewlines()
        if let bytes = hex(trimmed) { return bytes }
        if let b64 = Data(base64Encoded: trimmed.filter { !$0.isWhitespace }) { return Array(b64) }
        throw CommandFailure("\(name): text that is neither PEM, hex nor base64")
    }

    /// Hex with or without spaces, colons and a 0x prefix.
    static func hex(_ text: String) -> [UInt8]? {
        var digits = String(text.filter { !($0.isWhitespace || $0 == ":") })
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits.removeFirst(2) }
        return digits.isEmpty ? nil : Base16.decode(digits)
    }
}

extension Array where Element == UInt8 {
    var hexString: String { Base16.encode(self) }
}
