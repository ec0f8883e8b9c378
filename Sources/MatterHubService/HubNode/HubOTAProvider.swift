#if canImport(Glibc)
import Glibc
#endif
import MatterBDX
import MatterClusters
import MatterCrypto
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterOTA
import MatterTLV

/// OTA Software Update Provider (Matter Core 11.20.6) on the hub's node: a requestor asks with
/// QueryImage; when the image store has a newer image for its vendor, product and version, the
/// answer names it as `bdx://<hub node ID>/<image name>`, which the requestor then downloads from
/// the hub over BDX (``HubNode/serveBDX(_:first:)``).
struct HubOTAProviderServer: ClusterServer {
    typealias C = Clusters.OtaSoftwareUpdateProvider.Command
    typealias P = Clusters.OtaSoftwareUpdateProvider
    let id = ClusterID.otaSoftwareUpdateProvider
    let revision: UInt16 = 1
    let attributes: [AttributeID] = []
    let acceptedCommands = [C.queryImage, C.applyUpdateRequest, C.notifyUpdateApplied]
    let generatedCommands = [C.queryImageResponse, C.applyUpdateResponse]
    let store: OTAImageStore
    let hubNodeID: UInt64
    let ledger: OTAUpdateLedger
    let log: @Sendable (String) -> Void

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) async throws(IMStatus) -> TLVElement {
        throw .unsupportedAttribute
    }

    func invoke(_ command: CommandID, fields: TLVElement?, context: IMSessionContext) async -> CommandOutcome {
        let f = fields ?? .structure([])
        let node = context.peerNodeID.map { String($0, radix: 16, uppercase: true) } ?? "?"
        switch command {
        case C.queryImage:
            guard let vendor = try? f.required(P.QueryImageTag.vendorID).unsigned(as: UInt16.self),
                  let product = try? f.required(P.QueryImageTag.productID).unsigned(as: UInt16.self),
                  let version = try? f.required(P.QueryImageTag.softwareVersion).unsigned(as: UInt32.self),
                  let protocols = try? f.required(P.QueryImageTag.protocolsSupported).members(of: .array)
                      .map({ try $0.unsigned(as: UInt8.self) }) else {
                return .status(StatusIB(.invalidCommand))
            }
            guard let image = store.best(vendorID: vendor, productID: product, currentVersion: version) else {
                log("hub: node \(node) asked for an update (vendor \(vendor) product \(product) version \(version)): none")
                context.peerNodeID.map { ledger.record($0, .notOffered("the hub has no image for vendor \(vendor) product \(product) "
                                                                          + "newer than version \(version) that applies to it")) }
                return .response(C.queryImageResponse, .structure([.unsigned(.context(P.QueryImageResponseTag.status),
                                                                             P.StatusEnum.notAvailable.rawValue)]))
            }
            guard protocols.contains(P.DownloadProtocolEnum.bdxSynchronous.rawValue) else {
                context.peerNodeID.map { ledger.record($0, .notOffered("it downloads only over protocols \(protocols), not BDX synchronous")) }
                return .response(C.queryImageResponse, .structure([.unsigned(.context(P.QueryImageResponseTag.status),
                                                                             P.StatusEnum.downloadProtocolNotSupported.rawValue)]))
            }
            let uri = "bdx://" + NodeID(hubNodeID).paddedHex + "/" + image.name
            log("hub: node \(node) is offered \(image.name) (\(image.header.softwareVersionString)) over BDX")
            context.peerNodeID.map { ledger.record($0, .offered(image: image.name)) }
            typealias T = P.QueryImageResponseTag
            return .response(C.queryImageResponse, .structure([
                .unsigned(.context(T.status), P.StatusEnum.updateAvailable.rawValue),
                .unsigned(.context(T.delayedActionTime), UInt32(0)),
                .utf8(.context(T.imageURI), uri),
                .unsigned(.context(T.softwareVersion), image.header.softwareVersion),
                .utf8(.context(T.softwareVersionString), image.header.softwareVersionString),
                .bytes(.context(T.updateToken), SecureRandom.bytes(16)),
            ]))
        case C.applyUpdateRequest:
            guard (try? f.required(P.ApplyUpdateRequestTag.updateToken).bytes()) != nil,
                  let newVersion = try? f.required(P.ApplyUpdateRequestTag.newVersion).unsigned(as: UInt32.self) else {
                return .status(StatusIB(.invalidCommand))
            }
            log("hub: node \(node) applies version \(newVersion)")
            context.peerNodeID.map { ledger.record($0, .applying(version: newVersion)) }
            return .response(C.applyUpdateResponse, .structure([
                .unsigned(.context(P.ApplyUpdateResponseTag.action), P.ApplyUpdateActionEnum.proceed.rawValue),
                .unsigned(.context(P.ApplyUpdateResponseTag.delayedActionTime), UInt32(0)),
            ]))
        case C.notifyUpdateApplied:
            guard let version = try? f.required(P.NotifyUpdateAppliedTag.softwareVersion).unsigned(as: UInt32.self) else {
                return .status(StatusIB(.invalidCommand))
            }
            log("hub: node \(node) now runs version \(version)")
            context.peerNodeID.map { ledger.record($0, .applied(version: version)) }
            return .status(StatusIB(.success))
        default:
            return .status(StatusIB(.unsupportedCommand))
        }
    }
}

extension HubNode {
    /// A BDX transfer a node opened with the hub (an OTA requestor downloading what QueryImage
    /// offered): only over CASE on the hub's fabric, only a stored image by its name.
    func serveBDX(_ exchange: Exchange, first: ReceivedMessage) async {
        defer { Task { await exchange.close() } }
        guard let context = await InteractionServing.context(of: first.session, on: manager), context.authMode == .case,
              context.fabricIndex == credentials.fabricIndex else {
            try? await exchange.sendStatusReport(StatusReport(generalCode: .failure, protocolID: .bdx,
                                                              protocolCode: BDXStatus.unknown.rawValue))
            return
        }
        guard first.opcode == BDXOpcode.receiveInit.rawValue, let initMessage = try? BDXTransferInit(decoding: first.payload) else {
            try? await exchange.sendStatusReport(StatusReport(generalCode: .failure, protocolID: .bdx,
                                                              protocolCode: BDXStatus.unexpectedMessage.rawValue))
            return
        }
        let name = String(decoding: initMessage.fileDesignator, as: UTF8.self)
        guard let store = imageStore, let path = store.path(of: name) else {
            try? await exchange.sendStatusReport(StatusReport(generalCode: .failure, protocolID: .bdx,
                                                              protocolCode: BDXStatus.fileDesignatorUnknown.rawValue))
            return
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            try? await exchange.sendStatusReport(StatusReport(generalCode: .failure, protocolID: .bdx,
                                                              protocolCode: BDXStatus.transferFailedUnknownError.rawValue))
            return
        }
        defer { close(fd) }
        var info = stat()
        fstat(fd, &info)
        let length = UInt64(info.st_size)
        let peer = context.peerNodeID.map { String($0, radix: 16, uppercase: true) } ?? "?"
        let ledger = otaLedger, peerNode = context.peerNodeID
        var reported = 0
        var sentSoFar: UInt64 = 0
        peerNode.map { ledger.record($0, .downloading(sent: 0, length: length)) }
        let clock = ContinuousClock(), started = clock.now
        do {
            try await BDXSender.serve(exchange, initMessage: initMessage, length: length, stallTimeout: otaTimeouts.transferStall,
                                      read: { offset, count in
                var out = [UInt8](repeating: 0, count: count)
                let n = count == 0 ? 0 : out.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, count, off_t(offset)) }
                return n < 0 ? [] : Array(out[..<n])
            }, progress: { sent in
                sentSoFar = sent
                peerNode.map { ledger.record($0, .downloading(sent: sent, length: length)) }
                let percent = length == 0 ? 100 : Int(sent * 100 / length)
                if percent >= reported + 25 || sent == length {
                    reported = percent
                    log("hub: node \(peer) downloading \(name): \(percent)%")
                }
            })
            peerNode.map { ledger.record($0, .downloaded) }
            log("hub: node \(peer) downloaded \(name): \(OTATransferRate(bytes: length, took: clock.now - started))")
        } catch {
            log("hub: node \(peer) download of \(name) ended after \(OTATransferRate(bytes: sentSoFar, took: clock.now - started)): \(error)")
            let reason = if case .messaging(.timeout) = error.kind {
                "no BlockQuery for \(otaTimeouts.transferStall) (the transfer stalled; the hub ended it)"
            } else { error.description }
            peerNode.map { ledger.record($0, .transferFailed(sent: sentSoFar, length: length, reason: reason)) }
        }
    }
}

/// "10485760 bytes in 4.2 s (2.4 MB/s)": how fast a BDX transfer went, for the log (the rate
/// devices actually download at, over their real link, is what a slow update is judged by).
struct OTATransferRate: CustomStringConvertible {
    let bytes: UInt64
    let took: Duration

    var description: String {
        let seconds = took.milliseconds / 1000
        guard seconds > 0 else { return "\(bytes) bytes" }
        let rate = Double(bytes) / seconds / 1_000_000
        return "\(bytes) bytes in \((seconds * 10).rounded() / 10) s (\(rate < 0.1 ? "\(Int(rate * 1000)) kB/s" : "\((rate * 10).rounded() / 10) MB/s"))"
    }
}
