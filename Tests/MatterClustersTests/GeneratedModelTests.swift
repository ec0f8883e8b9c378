import Foundation
import MatterClusters
import MatterTLV
import Testing
import TestSupport

@Suite struct GeneratedModelTests {
    static let repository = TestVectors.directory.deletingLastPathComponent()

    /// The checked-in Swift is what Codegen/clusters/generate.py makes of model.json today: an
    /// edit to either without regenerating fails here.
    @Test func generatedSwiftIsCurrent() throws {
        let script = Self.repository.appendingPathComponent("Codegen/clusters/generate.py").path
        let result = try ProcessRunner.run("/usr/bin/env", ["python3", script, "--check"], timeout: 120)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    /// IDs, names and types, spot-checked against the Matter specification (Application Cluster
    /// 1.5 and Core 11.x), not against the model's own source.
    @Test func specificationFacts() throws {
        #expect(Clusters.OnOff.id == 0x0006 && ClusterID.onOff == 0x0006)
        #expect(Clusters.DoorLock.Command.lockDoor == 0x00 && Clusters.DoorLock.Command.unboltDoor == 0x27)
        #expect(Clusters.ColorControl.Attribute.colorTemperatureMireds == 0x0007)
        #expect(Clusters.OperationalCredentials.Command.csrRequest == 0x04)
        #expect(Clusters.OperationalCredentials.Command.addNOC == 0x06)
        #expect(Clusters.Thermostat.Attribute.occupiedHeatingSetpoint == 0x0012)
        #expect(Clusters.OtaSoftwareUpdateProvider.Command.queryImage == 0x00)
        #expect(Clusters.IcdManagement.Command.registerClient == 0x00)
        #expect(Clusters.AccessControl.Attribute.acl == 0x0000)
        #expect(Clusters.NetworkCommissioning.NetworkCommissioningStatusEnum.authFailure.rawValue == 7)
        #expect(Clusters.LevelControl.OptionsBitmap.executeIfOff.rawValue == 1)
        #expect(Clusters.OnOff.Feature.lighting.rawValue == 1)

        let lock = try #require(Clusters.command(cluster: 0x0101, name: "LockDoor"))
        #expect(lock.requiresTimedInvoke && lock.fields.map(\.name) == ["PINCode"] && lock.fields[0].isOptional)
        let label = try #require(Clusters.attribute(cluster: 0x0028, id: 0x0005))
        #expect(label.name == "NodeLabel" && label.isWritable && label.type == .string)
        let acl = try #require(Clusters.attribute(cluster: 0x001F, id: 0))
        #expect(acl.isWritable && acl.isFabricScoped && !Clusters.OnOff.definition.attributes[0].isFabricScoped)
        let startUp = try #require(Clusters.attribute(cluster: 0x0006, id: 0x4003))
        #expect(startUp.isNullable && startUp.type == .nullable(.uint8))
    }

    @Test func lookups() throws {
        #expect(Clusters.cluster(named: "levelcontrol")?.id == 0x0008)
        #expect(Clusters.cluster(id: 0x0300)?.name == "ColorControl")
        #expect(Clusters.cluster(id: 0x7777) == nil && Clusters.cluster(named: "Nope") == nil)
        let onOff = try #require(Clusters.cluster(named: "OnOff"))
        #expect(onOff.command(named: "toggle") == nil)  // device_command takes the SDK's spelling
        #expect(onOff.command(named: "toggle", ignoringCase: true)?.id == 2)
        #expect(Clusters.all.count == Set(Clusters.all.map(\.id)).count)
        #expect(Clusters.all.count > 120)
        // Every response a command names is among the cluster's responses.
        for cluster in Clusters.all {
            for c in cluster.commands { if let r = c.response { #expect(cluster.responses.contains(r), "\(cluster.name).\(c.name)") } }
        }
    }
}
