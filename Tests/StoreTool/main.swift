// matterhub-store-tool: performs one HubStore operation, for the store's multi-process and
// crash tests. Usage:
//   matterhub-store-tool <state-dir> <command> [--pause-at <step>]
// Commands:
//   create-fabric        create the fabric if needed; prints "FABRIC <hex id>"
//   allocate <n>         reserve n node IDs (no session); prints "NODE <hex id>" for each
//   hold-session         begin a commissioning session, print "SESSION <id>", wait to be killed
//   commission           begin a session, reserve a node ID, record the node, finish completed;
//                        prints "NODE <hex id>" before recording and "DONE" at the end
// --pause-at <step> prints "PAUSED <step>" when the store reaches that step and stops there
// (the test then SIGKILLs the process). Exit status 0 on success, 1 on a store error, 64 on usage.
import Foundation
import MatterCertificates
import MatterHome

func say(_ line: String) {
    print(line)
    fflush(nil)
}

func stopForever() -> Never {
    while true { pause() }
}

var arguments = Array(CommandLine.arguments.dropFirst())
var pauseAt: String?
if let i = arguments.firstIndex(of: "--pause-at"), i + 1 < arguments.count {
    pauseAt = arguments[i + 1]
    arguments.removeSubrange(i...(i + 1))
}
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: matterhub-store-tool <state-dir> <command> [args] [--pause-at <step>]\n".utf8))
    exit(64)
}

var options = HubStore.Options()
if let pauseAt {
    options.stepHook = { step in
        guard step == pauseAt else { return }
        say("PAUSED \(step)")
        stopForever()
    }
}

do throws(StoreError) {
    let store = try HubStore(directory: arguments[0], options: options)
    switch arguments[1] {
    case "create-fabric":
        let fabric = try store.createFabricIfNeeded()
        say("FABRIC \(fabric.fabricID)")
    case "allocate":
        let count = arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1
        for _ in 0..<count { say("NODE \(try store.allocateNodeID())") }
    case "hold-session":
        let session = try store.beginCommissioningSession()
        say("SESSION \(session.id)")
        stopForever()
    case "commission":
        let session = try store.beginCommissioningSession()
        let nodeID = try store.allocateNodeID(for: session)
        say("NODE \(nodeID)")
        try session.markPerforming()
        try store.recordCommissionedNode(
            CommissionedNode(nodeID: nodeID, vendorID: 0xFFF1, productID: 0x8000, name: "Lamp",
                             addresses: [NodeAddress(host: "::1", port: 5540)], nocSerial: [1, 2, 3]),
            in: session)
        try session.finish(.completed)
        say("DONE")
    default:
        FileHandle.standardError.write(Data("matterhub-store-tool: unknown command \(arguments[1])\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("\(error.code): \(error)\n".utf8))
    exit(1)
}
