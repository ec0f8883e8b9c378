import MatterMessaging

/// Why a transfer ended early: what failed, and the status the peer gave or was given.
public struct BDXError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// The peer ended the transfer with this status.
        case refusedByPeer(BDXStatus)
        /// We ended it: the peer broke the protocol, or asked for what we do not do.
        case refused(BDXStatus)
        /// No message within the stall timeout, or the session failed.
        case messaging(MessagingError)
        /// The receiver's sink refused the data (full disk, a bad image).
        case sink(String)
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// The status a sender or receiver ends a transfer with (a Secure Channel StatusReport, protocol BDX).
func statusReport(_ status: BDXStatus) -> StatusReport {
    StatusReport(generalCode: .failure, protocolID: .bdx, protocolCode: status.rawValue)
}

/// The next BDX message on `exchange`, or the peer's StatusReport as an error.
func nextMessage(_ exchange: Exchange, timeout: Duration, what: String) async throws(BDXError) -> (BDXOpcode, [UInt8]) {
    let message: ReceivedMessage
    do { message = try await exchange.receive(timeout: timeout) } catch {
        throw BDXError(.messaging(error), "\(what): \(error)")
    }
    if message.isStatusReport {
        let report = try? StatusReport.decode(message.payload)
        let status = BDXStatus(report?.protocolCode ?? BDXStatus.unknown.rawValue)
        throw BDXError(.refusedByPeer(status), "\(what): the peer ended the transfer with \(status)")
    }
    guard message.protocolID == .bdx, let opcode = BDXOpcode(rawValue: message.opcode) else {
        await refuse(exchange, .unexpectedMessage)
        throw BDXError(.refused(.unexpectedMessage), "\(what): got \(message.protocolID) opcode \(message.opcode), not a BDX message")
    }
    return (opcode, message.payload)
}

/// Ends the transfer with `status` (best effort: the exchange may already be gone).
func refuse(_ exchange: Exchange, _ status: BDXStatus) async {
    try? await exchange.sendStatusReport(statusReport(status))
}

/// The receiver side of a receiver-driven synchronous transfer (Matter Core 11.22.6), as an OTA
/// requestor downloads an image: it sends ReceiveInit, then a BlockQuery for each block, and
/// acknowledges the last with BlockAckEOF.
public enum BDXReceiver {
    /// Downloads `fileDesignator` from the peer of `session`; each block goes to `sink` in order,
    /// after `accepted` was told the sender's ReceiveAccept (its length, 0 when indefinite).
    /// Returns the bytes received. `stallTimeout` bounds each wait for the peer.
    nonisolated(nonsending) public static func receive(manager: ExchangeManager, session: SessionHandle, fileDesignator: [UInt8],
                               maxBlockSize: UInt16 = 1024, stallTimeout: Duration = .seconds(30),
                               accepted: (BDXReceiveAccept) -> Void = { _ in },
                               sink: ([UInt8]) async throws -> Void) async throws(BDXError) -> UInt64 {
        let exchange: Exchange
        do { exchange = try await manager.newExchange(on: session) } catch {
            throw BDXError(.messaging(error), "cannot open a BDX exchange: \(error)")
        }
        defer { Task { await exchange.close() } }
        let initMessage = BDXTransferInit(control: .receiverDrive, maxBlockSize: maxBlockSize, fileDesignator: fileDesignator)
        do { try await exchange.send(.bdx, opcode: BDXOpcode.receiveInit.rawValue, payload: initMessage.encoded()) } catch {
            throw BDXError(.messaging(error), "ReceiveInit: \(error)")
        }
        let (opcode, payload) = try await nextMessage(exchange, timeout: stallTimeout, what: "waiting for ReceiveAccept")
        guard opcode == .receiveAccept else {
            await refuse(exchange, .unexpectedMessage)
            throw BDXError(.refused(.unexpectedMessage), "the sender answered ReceiveInit with \(opcode), not ReceiveAccept")
        }
        let accept: BDXReceiveAccept
        do { accept = try BDXReceiveAccept(decoding: payload) } catch {
            await refuse(exchange, .badMessageContents)
            throw BDXError(.refused(.badMessageContents), "ReceiveAccept: \(error)")
        }
        guard accept.control == .receiverDrive, accept.maxBlockSize > 0, accept.maxBlockSize <= maxBlockSize else {
            await refuse(exchange, .transferMethodNotSupported)
            throw BDXError(.refused(.transferMethodNotSupported),
                           "the sender chose control 0x\(String(accept.control.rawValue, radix: 16)) and blocks of \(accept.maxBlockSize) "
                           + "bytes; this receiver drives synchronously with blocks of at most \(maxBlockSize)")
        }
        accepted(accept)
        var counter: UInt32 = 0
        var received: UInt64 = 0
        while true {
            do { try await exchange.send(.bdx, opcode: BDXOpcode.blockQuery.rawValue, payload: BDXCounter(counter).encoded()) } catch {
                throw BDXError(.messaging(error), "BlockQuery \(counter): \(error)")
            }
            let (opcode, payload) = try await nextMessage(exchange, timeout: stallTimeout, what: "waiting for block \(counter)")
            guard opcode == .block || opcode == .blockEOF, let block = try? BDXBlock(decoding: payload) else {
                await refuse(exchange, .unexpectedMessage)
                throw BDXError(.refused(.unexpectedMessage), "expected block \(counter), got \(opcode)")
            }
            guard block.counter == counter else {
                await refuse(exchange, .badBlockCounter)
                throw BDXError(.refused(.badBlockCounter), "expected block \(counter), got block \(block.counter)")
            }
            guard block.data.count <= Int(accept.maxBlockSize), opcode == .blockEOF || !block.data.isEmpty else {
                await refuse(exchange, .badMessageContents)
                throw BDXError(.refused(.badMessageContents), "block \(counter) has \(block.data.count) bytes (blocks are 1 to \(accept.maxBlockSize))")
            }
            received += UInt64(block.data.count)
            if accept.length > 0, received > accept.length {
                await refuse(exchange, .lengthTooLarge)
                throw BDXError(.refused(.lengthTooLarge), "the sender sent \(received) bytes of a \(accept.length)-byte transfer")
            }
            do { try await sink(block.data) } catch {
                await refuse(exchange, .transferFailedUnknownError)
                throw BDXError(.sink("\(error)"), "the received data was refused: \(error)")
            }
            if opcode == .blockEOF {
                if accept.length > 0, received != accept.length {
                    await refuse(exchange, .lengthMismatch)
                    throw BDXError(.refused(.lengthMismatch), "the transfer ended at \(received) of \(accept.length) bytes")
                }
                do { try await exchange.send(.bdx, opcode: BDXOpcode.blockAckEOF.rawValue, payload: BDXCounter(counter).encoded()) } catch {
                    throw BDXError(.messaging(error), "BlockAckEOF: \(error)")
                }
                return received
            }
            counter &+= 1
        }
    }
}

/// The sender side of a receiver-driven synchronous transfer, as an OTA provider serves an image:
/// it answers a ReceiveInit with ReceiveAccept, then each BlockQuery with the next block (the last
/// as BlockEOF) until the receiver acknowledges the end. Anything else ends it with a status.
public enum BDXSender {
    /// The largest block offered, whatever the receiver proposes.
    public static let maxBlockSize: UInt16 = 1024

    /// Serves `length` bytes (`read(offset, count)` gives them) on `exchange`, whose first message
    /// was `initMessage` (already decoded, its file designator resolved by the caller).
    /// `progress` is told the bytes sent after each block.
    nonisolated(nonsending) public static func serve(_ exchange: Exchange, initMessage: BDXTransferInit, length: UInt64,
                             stallTimeout: Duration = .seconds(60),
                             read: (UInt64, Int) throws -> [UInt8],
                             progress: (UInt64) -> Void = { _ in }) async throws(BDXError) {
        guard initMessage.version == 0 else {
            await refuse(exchange, .versionNotSupported)
            throw BDXError(.refused(.versionNotSupported), "the receiver asked for BDX version \(initMessage.version); this sender speaks 0")
        }
        guard initMessage.control.contains(.receiverDrive) else {
            await refuse(exchange, .transferMethodNotSupported)
            throw BDXError(.refused(.transferMethodNotSupported), "the receiver did not offer receiver drive, the only mode served here")
        }
        guard initMessage.startOffset <= length else {
            await refuse(exchange, .startOffsetNotSupported)
            throw BDXError(.refused(.startOffsetNotSupported), "start offset \(initMessage.startOffset) is past the end (\(length) bytes)")
        }
        let blockSize = Int(min(max(initMessage.maxBlockSize, 1), maxBlockSize))
        var end = length
        if initMessage.maxLength > 0 { end = min(end, initMessage.startOffset + initMessage.maxLength) }
        let accept = BDXReceiveAccept(control: .receiverDrive, maxBlockSize: UInt16(blockSize), startOffset: initMessage.startOffset,
                                      length: end - initMessage.startOffset)
        do { try await exchange.send(.bdx, opcode: BDXOpcode.receiveAccept.rawValue, payload: accept.encoded()) } catch {
            throw BDXError(.messaging(error), "ReceiveAccept: \(error)")
        }
        var offset = initMessage.startOffset
        var expected: UInt32 = 0
        while true {
            let (opcode, payload) = try await nextMessage(exchange, timeout: stallTimeout, what: "waiting for BlockQuery \(expected)")
            var skip: UInt64 = 0
            switch opcode {
            case .blockQuery: break
            case .blockQueryWithSkip:
                var r = BDXReader(bytes: payload, what: "BlockQueryWithSkip")
                _ = try? r.u32()
                skip = (try? r.u64()) ?? 0
            default:
                await refuse(exchange, .unexpectedMessage)
                throw BDXError(.refused(.unexpectedMessage), "expected BlockQuery \(expected), got \(opcode)")
            }
            guard let query = try? BDXCounter(decoding: payload), query.counter == expected else {
                await refuse(exchange, .badBlockCounter)
                throw BDXError(.refused(.badBlockCounter), "expected BlockQuery \(expected)")
            }
            offset = min(end, offset + skip)
            let count = Int(min(UInt64(blockSize), end - offset))
            let data: [UInt8]
            do { data = try read(offset, count) } catch {
                await refuse(exchange, .transferFailedUnknownError)
                throw BDXError(.sink("\(error)"), "cannot read the file at \(offset): \(error)")
            }
            guard data.count == count else {
                await refuse(exchange, .transferFailedUnknownError)
                throw BDXError(.sink("short read"), "the file gave \(data.count) of \(count) bytes at \(offset)")
            }
            offset += UInt64(count)
            let last = offset == end
            let block = BDXBlock(counter: expected, data: data)
            do {
                try await exchange.send(.bdx, opcode: (last ? BDXOpcode.blockEOF : .block).rawValue, payload: block.encoded())
            } catch {
                throw BDXError(.messaging(error), "block \(expected): \(error)")
            }
            progress(offset - initMessage.startOffset)
            if last {
                let (opcode, payload) = try await nextMessage(exchange, timeout: stallTimeout, what: "waiting for BlockAckEOF")
                guard opcode == .blockAckEOF, (try? BDXCounter(decoding: payload))?.counter == expected else {
                    await refuse(exchange, .unexpectedMessage)
                    throw BDXError(.refused(.unexpectedMessage), "expected BlockAckEOF \(expected), got \(opcode)")
                }
                return
            }
            expected &+= 1
        }
    }
}
