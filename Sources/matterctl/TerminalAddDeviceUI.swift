#if canImport(Glibc)
import Glibc
#endif
import MatterCommissioning
import MatterHome
import MatterPlatform

/// `matterctl add`'s side of the add-device flow: prompts on the terminal, answers typed or
/// pasted, each commissioning step printed as it finishes.
final class TerminalAddDeviceUI: MatterAddDeviceUI {
    let via: String

    init(via: String) { self.via = via }

    /// One line from stdin, read on its own thread (a prompt must not hold a task thread); nil at EOF.
    static func readLineAsync() async -> String? {
        await withCheckedContinuation { k in
            if !DetachedThread.start(name: "matterctl.prompt", { k.resume(returning: readLine(strippingNewline: true)) }) {
                k.resume(returning: nil)
            }
        }
    }

    func prompt(_ text: String) async -> String? {
        Output.write(text)
        fflush(nil)
        return await Self.readLineAsync()
    }

    func begin(topology: MatterAddDeviceRequest.Topology) {
        Output.out("Add a Matter device to \(topology.homes.first?.displayName ?? "the home") (\(via)).")
        Output.out("Press Ctrl-D at any prompt to give up.")
    }

    func askForCode(problem: String?) async -> String? {
        if let problem {
            let sentence = problem.hasSuffix(".") ? problem : problem + "."
            Output.out("  \(sentence) Try again.")
        }
        while true {
            guard let line = await prompt("Setup code (QR MT:... or the 11/21-digit manual code): ") else { return nil }
            let code = line.trimmingWhitespace().replacing("-", with: "")
            if !code.isEmpty { return code }
        }
    }

    func pickRoom(from rooms: [MatterAddDeviceRequest.Room]) async -> MatterAddDeviceRequest.Room? {
        if rooms.isEmpty {
            Output.out("No rooms yet: type a name to create one.")
        } else {
            Output.out("Rooms: " + rooms.enumerated().map { "\($0.offset + 1)) \($0.element.displayName)" }.joined(separator: "  ")
                       + "  (or type a new name)")
        }
        while true {
            guard let line = await prompt("Room: ")?.trimmingWhitespace() else { return nil }
            if let n = Int(line), n >= 1, n <= rooms.count { return rooms[n - 1] }
            if let existing = rooms.first(where: { $0.displayName.lowercased() == line.lowercased() }) { return existing }
            if !line.isEmpty, Int(line) == nil { return MatterAddDeviceRequest.Room(displayName: line) }
            Output.out("  type a room's number (1...\(rooms.count)) or a new room's name")
        }
    }

    func askForName(suggested: String) async -> String? {
        guard let line = await prompt("Name [\(suggested)]: ") else { return nil }
        let name = line.trimmingWhitespace()
        Output.out("Commissioning...")
        return name.isEmpty ? suggested : name
    }

    func show(step: StepTiming, device: Int) {
        Output.out("  [\(device + 1)] \(step.step.title.padding(to: 36)) \(CommissionCommand.format(step.milliseconds))")
    }

    func failed(_ error: any Error) {
        Output.err("error: \(error)")
    }

    func finished(_ outcome: MatterAddDeviceRequest.Outcome) {
        switch outcome {
        case .added(let name, let room): Output.out("Added \"\(name)\" in \(room.displayName).")
        case .cancelled: Output.out("Nothing was added.")
        }
    }
}
