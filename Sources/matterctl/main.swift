#if canImport(Glibc)
import Glibc
#endif

/// `matterctl`: the MatterHub command-line tool. A new command is a `ParsableCommand` (see
/// CLI/ParsableCommand.swift) listed here, with a row in `CLITests.cases`.
enum Matterctl {
    /// Every command, in the order the help lists them.
    static let commands: [any ParsableCommand.Type] = [
        PayloadCommand.self,
        CommissionCommand.self,
        AddCommand.self,
        DevicesCommand.self,
        RoomsCommand.self,
        ClustersCommand.self,
        ReadCommand.self,
        WriteCommand.self,
        SubscribeCommand.self,
        InvokeCommand.self,
        UnpairCommand.self,
        ShareCommand.self,
        DemoCommand.self,
        DiscoverCommand.self,
        CertCommand.self,
        AttestationCommand.self,
        VirtualDeviceCommand.self,
        OTACommand.self,
        HubCommand.self,
        ImportCommand.self,
        ExportCommand.self,
        ThreadCommand.self,
        WiFiCommand.self,
        DoctorCommand.self,
    ]
}

let status = await CommandLineTool(commands: Matterctl.commands).main(Array(CommandLine.arguments.dropFirst()))
fflush(nil)
exit(status)
