import Testing
import TestSupport

/// `matterctl virtual-device` argument handling (running devices are tested in the lab, where
/// nothing multicasts into the shared network).
@Suite struct VirtualDeviceCommandTests {
    @Test func helpListsTheOptionsAndFaults() throws {
        let r = try ProcessRunner.run(ProcessRunner.matterctl, ["virtual-device", "--help"])
        #expect(r.status == 0)
        for word in ["--passcode", "--discriminator", "--state", "--kind", "--fault", "--count", "bad-sigma2-signature",
                     "reboot-mid-commissioning"] {
            #expect(r.stdout.contains(word), "help lacks \(word)")
        }
        #expect(try ProcessRunner.run(ProcessRunner.matterctl, ["--help"]).stdout.contains("virtual-device"))
    }

    @Test(arguments: [["--kind", "toaster"], ["--fault", "explode"], ["--passcode"], ["--discriminator", "x"], ["extra"],
                      ["--count", "0"], ["--count", "x"], ["--count", "10", "--discriminator", "4090"],
                      ["--count", "3", "--port", "65534"]])
    func usageErrorsExit64(_ arguments: [String]) throws {
        let r = try ProcessRunner.run(ProcessRunner.matterctl, ["virtual-device"] + arguments)
        #expect(r.status == 64, "\(arguments): \(r.stderr)")
    }

    /// Invalid values are refused before any socket opens (exit 1, named).
    @Test(arguments: [["--passcode", "11111111"], ["--discriminator", "4096"]])
    func invalidConfigurationExits1(_ arguments: [String]) throws {
        let r = try ProcessRunner.run(ProcessRunner.matterctl, ["virtual-device", "--port", "0"] + arguments)
        #expect(r.status == 1, "\(arguments): \(r.stderr)")
        #expect(r.stderr.contains("virtual device:"))
    }
}
