import FoundationEssentials
import MatterCommissioning
import MatterCrypto
import MatterNetworkCredentials
import MatterTLV
import MatterPlatform

/// `matterctl commission --wifi SSID | --thread-dataset SOURCE`: the network a Wi-Fi or Thread
/// device joins (like chip-tool's `pairing code-wifi` / `code-thread`). Secrets never come
/// through the argument list: the passphrase is read from --passphrase-file or stdin (as
/// `matterctl wifi set` reads it), the dataset (it holds the network key) from a file or stdin.
/// Without either, the hub's stored credentials are used (`wifi set`, `thread datasets prefer`).
enum CommissionNetworkOptions {
    static let options: [OptionDeclaration] = [
        .value("--wifi", "SSID", help: "give a Wi-Fi device this network; the passphrase comes from --passphrase-file or stdin"),
        .value("--passphrase-file", "FILE", help: "with --wifi: read the passphrase from FILE"),
        .value("--thread-dataset", "FILE", help: "give a Thread device the active dataset (hex, 'hex:' prefix allowed) in FILE, "
               + "or '-' for stdin"),
        .flag("--scan-networks", help: "have the device scan for the network before it is given the credentials"),
    ]

    /// What the options chose, applied to the commissioning options once they exist.
    struct Choice {
        var wifi: WiFiCredentials?
        var thread: ThreadDataset?
        var scan = false

        func apply(to options: inout CommissioningOptions) {
            options.scanNetworks = scan
            guard wifi != nil || thread != nil else { return }
            options.wifiCredentials = wifi
            options.threadDataset = thread
            options.usesStoredNetworkCredentials = false
        }
    }

    /// Reads the options (and the secret they point at); usage errors for combinations that do
    /// not go together.
    static func parse(_ args: ParsedArguments) throws -> Choice {
        var choice = Choice()
        let ssid = args.value("--wifi"), datasetSource = args.value("--thread-dataset")
        if ssid != nil && datasetSource != nil {
            throw UsageError("--wifi and --thread-dataset do not go together (a device joins one network)")
        }
        if args.value("--passphrase-file") != nil && ssid == nil { throw UsageError("--passphrase-file goes with --wifi") }
        choice.scan = args.flag("--scan-networks")
        if let ssid {
            var passphrase = try WiFiCommand.SetCredentials.readPassphrase(file: args.value("--passphrase-file"), ssid: ssid)
            defer { for i in passphrase.indices { passphrase[i] = 0 } }
            guard !passphrase.isEmpty else {
                throw CommandFailure("no passphrase was given for \(ssid) (stdin was empty); give it on stdin or with --passphrase-file")
            }
            do throws(WiFiCredentialsError) {
                choice.wifi = try WiFiCredentials(ssid: Array(ssid.utf8), passphrase: SecretBytes(passphrase))
            } catch {
                throw CommandFailure("--wifi \(ssid): \(error.description)")
            }
        }
        if let datasetSource { choice.thread = try readDataset(datasetSource) }
        return choice
    }

    /// The dataset from a file or stdin, as hex. A literal `hex:...` value is refused: the
    /// network key would sit in the argument list (ps, shell history).
    static func readDataset(_ source: String) throws -> ThreadDataset {
        if source.hasPrefix("hex:") {
            throw UsageError("--thread-dataset takes a file or '-' (stdin), not the dataset itself: its network key would be "
                             + "visible in the argument list; e.g. 'ot-ctl dataset active -x | matterctl commission --thread-dataset - CODE'")
        }
        let data: Data
        if source == "-" {
            data = Data(try Output.readStandardInput("the Thread dataset"))
        } else {
            guard let d = FileManager.default.contents(atPath: source) else {
                throw CommandFailure("cannot read the Thread dataset file \(source)")
            }
            data = d
        }
        var text = String(decoding: data, as: UTF8.self).trimmingWhitespaceAndNewlines()
        if text.hasPrefix("hex:") { text.removeFirst(4) }
        guard let tlvs = Base16.decode(text), !tlvs.isEmpty else {
            throw CommandFailure("the Thread dataset in \(source == "-" ? "stdin" : source) is not hex")
        }
        do throws(ThreadDatasetError) {
            let dataset = try ThreadDataset(tlvs: tlvs)
            try dataset.checkComplete()
            return dataset
        } catch {
            throw CommandFailure("the Thread dataset in \(source == "-" ? "stdin" : source) is unusable: \(error.message)")
        }
    }
}
