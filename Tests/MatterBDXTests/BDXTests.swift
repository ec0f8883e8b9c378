import MatterBDX
import MatterMessaging
import Synchronization
import Testing
import TestSupport

/// BDX messages in the layout the CHIP SDK packs (src/protocols/bdx/BdxMessages.cpp: little-endian,
/// range control flags, optional offset and length, 64-bit only when needed), and a whole
/// receiver-driven transfer between our receiver and our sender over two exchange managers.
@Suite struct BDXMessageTests {
    @Test func receiveInitHasTheSDKLayout() throws {
        let m = BDXTransferInit(control: .receiverDrive, maxBlockSize: 1024, fileDesignator: Array("fw".utf8))
        // control (version 0 | receiver drive), range (none), max block 1024 LE, designator length 2, "fw".
        #expect(m.encoded() == [0x20, 0x00, 0x00, 0x04, 0x02, 0x00, 0x66, 0x77])
        let ranged = BDXTransferInit(control: [.senderDrive, .receiverDrive], maxBlockSize: 512, startOffset: 0x10, maxLength: 0x200,
                                     fileDesignator: [1], metadata: [0x15, 0x18])
        #expect(ranged.encoded() == [0x30, 0x03, 0x00, 0x02, 0x10, 0, 0, 0, 0x00, 0x02, 0, 0, 0x01, 0x00, 0x01, 0x15, 0x18])
        #expect(try BDXTransferInit(decoding: ranged.encoded()) == ranged)
        let wide = BDXTransferInit(control: .receiverDrive, maxBlockSize: 1, maxLength: 0x1_0000_0000, fileDesignator: [])
        #expect(wide.encoded()[1] == 0x11 && wide.encoded().count == 4 + 8 + 2)
        #expect(try BDXTransferInit(decoding: wide.encoded()) == wide)
    }

    @Test func acceptsCountersAndBlocksRoundTrip() throws {
        let accept = BDXReceiveAccept(control: .receiverDrive, maxBlockSize: 1024, length: 3123)
        #expect(accept.encoded() == [0x20, 0x01, 0x00, 0x04, 0x33, 0x0C, 0x00, 0x00])
        #expect(try BDXReceiveAccept(decoding: accept.encoded()) == accept)
        #expect(BDXCounter(7).encoded() == [7, 0, 0, 0])
        #expect(try BDXBlock(decoding: [1, 0, 0, 0, 9, 8]) == BDXBlock(counter: 1, data: [9, 8]))
    }

    @Test func truncatedMessagesAreTypedErrors() {
        let full = BDXTransferInit(control: .receiverDrive, maxBlockSize: 512, startOffset: 4, maxLength: 8, fileDesignator: [1, 2, 3]).encoded()
        for n in 0..<(full.count - 3) {
            #expect(throws: BDXDecodeError.self) { try BDXTransferInit(decoding: Array(full.prefix(n))) }
        }
        #expect(throws: BDXDecodeError.self) { try BDXCounter(decoding: [1, 2]) }
        #expect(throws: BDXDecodeError.self) { try BDXReceiveAccept(decoding: [0x20, 0x01, 0x00]) }
    }
}

@Suite struct BDXTransferTests {
    /// A sender manager serving `file` for designator "image", and a receiver session to it.
    /// What the sender's handler saw end each transfer.
    final class Outcomes: Sendable {
        let list = Mutex<[String]>([])
        func append(_ s: String) { list.withLock { $0.append(s) } }
        var all: [String] { list.withLock { $0 } }
    }

    static func pair(_ file: [UInt8], failRead: Bool = false,
                     served: Outcomes = Outcomes()) async -> (ExchangeManager, ExchangeManager, SessionHandle) {
        let net = MemoryNetwork()
        let a = net.makeEndpoint(), b = net.makeEndpoint()
        let receiver = ExchangeManager(transport: a), sender = ExchangeManager(transport: b)
        await sender.setHandler(for: .bdx) { exchange, first in
            guard let initMessage = try? BDXTransferInit(decoding: first.payload), initMessage.fileDesignator == Array("image".utf8) else {
                try? await exchange.sendStatusReport(StatusReport(generalCode: .failure, protocolID: .bdx,
                                                                  protocolCode: BDXStatus.fileDesignatorUnknown.rawValue))
                await exchange.close()
                return
            }
            do throws(BDXError) {
                try await BDXSender.serve(exchange, initMessage: initMessage, length: UInt64(file.count)) { offset, count in
                    if failRead { throw BDXError(.sink("disk"), "the disk failed") }
                    return Array(file[Int(offset)..<Int(offset) + count])
                }
                served.append("done")
            } catch {
                served.append("\(error.kind)")
            }
            await exchange.close()
        }
        await receiver.start()
        await sender.start()
        return (receiver, sender, await receiver.newUnsecuredSession(to: b.address))
    }

    @Test(arguments: [0, 1, 1023, 1024, 5000])
    func aFileArrivesWholeInBlocks(_ size: Int) async throws {
        let file = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let served = Outcomes()
        let (receiver, sender, session) = await Self.pair(file, served: served)
        var got: [UInt8] = []
        var blocks = 0
        let count = try await BDXReceiver.receive(manager: receiver, session: session, fileDesignator: Array("image".utf8),
                                                  maxBlockSize: 1024) { got += $0; blocks += 1 }
        #expect(count == UInt64(size) && got == file)
        #expect(blocks == max(1, (size + 1023) / 1024), "\(blocks) blocks")
        // The sender finishes when BlockAckEOF reaches it, after the receiver has returned.
        #expect(await eventually(10) { served.all == ["done"] }, "\(served.all)")
        await receiver.shutdown()
        await sender.shutdown()
    }

    @Test func theReceiversSmallerBlocksAreUsed() async throws {
        let file = [UInt8](repeating: 0xAB, count: 350)
        let (receiver, sender, session) = await Self.pair(file)
        var sizes: [Int] = []
        _ = try await BDXReceiver.receive(manager: receiver, session: session, fileDesignator: Array("image".utf8),
                                          maxBlockSize: 100) { sizes.append($0.count) }
        #expect(sizes == [100, 100, 100, 50])
        await receiver.shutdown()
        await sender.shutdown()
    }

    @Test func failuresOnEitherSideReachTheOther() async throws {
        // An unknown file: the sender's status reaches the receiver.
        let (receiver, sender, session) = await Self.pair([1, 2, 3])
        do throws(BDXError) {
            _ = try await BDXReceiver.receive(manager: receiver, session: session, fileDesignator: Array("other".utf8)) { _ in }
            Issue.record("an unknown designator was served")
        } catch {
            #expect(error.kind == .refusedByPeer(.fileDesignatorUnknown), "\(error)")
        }
        // The receiver's sink refuses the data: the sender hears it.
        let served = Outcomes()
        let (r2, s2, session2) = await Self.pair([UInt8](repeating: 1, count: 3000), served: served)
        struct Full: Error {}
        do throws(BDXError) {
            _ = try await BDXReceiver.receive(manager: r2, session: session2, fileDesignator: Array("image".utf8)) { _ in throw Full() }
            Issue.record("the sink's refusal was ignored")
        } catch {
            if case .sink = error.kind {} else { Issue.record("not a sink error: \(error)") }
        }
        #expect(await eventually(10) { served.all.first?.contains("0x1F") == true || served.all.first?.contains("TransferFailedUnknownError") == true },
                "\(served.all)")
        // The sender cannot read its file: the receiver hears it.
        let (r3, s3, session3) = await Self.pair([1, 2, 3], failRead: true)
        do throws(BDXError) {
            _ = try await BDXReceiver.receive(manager: r3, session: session3, fileDesignator: Array("image".utf8)) { _ in }
            Issue.record("a failed read was served")
        } catch {
            #expect(error.kind == .refusedByPeer(.transferFailedUnknownError), "\(error)")
        }
        for m in [receiver, sender, r2, s2, r3, s3] { await m.shutdown() }
    }

    @Test func aSilentSenderIsAStallNotAHang() async throws {
        let net = MemoryNetwork()
        let a = net.makeEndpoint(), b = net.makeEndpoint()
        let receiver = ExchangeManager(transport: a), silent = ExchangeManager(transport: b)
        await silent.setHandler(for: .bdx) { _, _ in }  // takes the ReceiveInit, never answers
        await receiver.start()
        await silent.start()
        let session = await receiver.newUnsecuredSession(to: b.address)
        let clock = ContinuousClock(), start = clock.now
        do throws(BDXError) {
            _ = try await BDXReceiver.receive(manager: receiver, session: session, fileDesignator: [1], stallTimeout: .milliseconds(300)) { _ in }
            Issue.record("no answer was a transfer")
        } catch {
            if case .messaging = error.kind {} else { Issue.record("not a messaging error: \(error)") }
        }
        // Ended by the 300 ms stall bound, not the 30 s default nor never (a loaded CI machine
        // took 5.9 s once: the bound is the default, not a timing figure).
        #expect(clock.now - start < .seconds(30))
        await receiver.shutdown()
        await silent.shutdown()
    }
}
