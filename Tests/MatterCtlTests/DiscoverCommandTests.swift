import Foundation
import Testing
import TestSupport

/// `matterctl discover` argument handling (the lab tests in MatterDiscoveryTests cover results).
@Suite struct DiscoverCommandTests {
    @Test(arguments: [
        ["discover", "--short-discriminator", "16"], ["discover", "--discriminator", "4096"],
        ["discover", "nodes"], ["discover", "--timeout", "0"], ["discover", "--vendor-id", "65536"],
        ["discover", "--node-id", "1"], ["discover", "--discriminator", "1", "--vendor-id", "2"],
        ["discover", "--bogus"], ["discover", "operational", "--fabric", "xyz"],
    ])
    func usageErrorsExit64(_ args: [String]) throws {
        let r = try ProcessRunner.run(ProcessRunner.matterctl, args)
        #expect(r.status == 64, "\(args): \(r.stderr)")
        #expect(r.stderr.contains("USAGE: matterctl discover"))
        #expect(r.stdout.isEmpty)
    }

    @Test func helpListsTheKindsAndOptions() throws {
        let r = try ProcessRunner.run(ProcessRunner.matterctl, ["discover", "--help"])
        #expect(r.status == 0)
        for word in ["commissionable", "operational", "commissioners", "border-routers", "--short-discriminator", "--watch", "--json"] {
            #expect(r.stdout.contains(word), "\(word)")
        }
    }

    @Test func listedInTopLevelHelp() throws {
        let r = try ProcessRunner.run(ProcessRunner.matterctl, ["--help"])
        #expect(r.stdout.contains("discover"))
    }
}
