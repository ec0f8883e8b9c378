import MatterInteraction
import Testing
import MatterTLV

/// Wildcard and concrete path rules of Matter Core 8.9.2 over the fixture data model.
@Suite struct PathExpansionTests {
    let model = Fixtures.dataModel

    func concrete(_ items: [PathExpansion<ConcreteAttributePath, AttributePathIB>]) -> [ConcreteAttributePath] {
        items.compactMap { if case .concrete(let c) = $0 { return c } else { return nil } }
    }

    @Test func concretePathThatExists() {
        #expect(model.expandRead(AttributePathIB(0, .basicInformation, 1)) == [.concrete(ConcreteAttributePath(0, .basicInformation, 1))])
    }

    @Test(arguments: [
        (AttributePathIB(9, .basicInformation, 1), IMStatus.unsupportedEndpoint),
        (AttributePathIB(1, .basicInformation, 1), IMStatus.unsupportedCluster),
        (AttributePathIB(0, .basicInformation, 0x99), IMStatus.unsupportedAttribute),
        (AttributePathIB(9, ClusterID(0x1234), 0x99), IMStatus.unsupportedEndpoint),
    ])
    func concretePathThatDoesNotExist(_ path: AttributePathIB, _ status: IMStatus) {
        #expect(model.expandRead(path) == [.status(path, status)])
    }

    @Test func wildcardEndpointSelectsOnlyEndpointsWithTheCluster() {
        let got = concrete(model.expandRead(AttributePathIB(endpoint: nil, cluster: .onOff, attribute: 0)))
        #expect(got == [ConcreteAttributePath(1, .onOff, 0)])
        let descriptors = concrete(model.expandRead(AttributePathIB(cluster: .descriptor, attribute: 3)))
        #expect(descriptors == [ConcreteAttributePath(0, .descriptor, 3), ConcreteAttributePath(1, .descriptor, 3)])
    }

    @Test func wildcardsSkipWhatIsMissingSilently() {
        #expect(model.expandRead(AttributePathIB(endpoint: 9, cluster: nil, attribute: nil)).isEmpty)
        #expect(model.expandRead(AttributePathIB(endpoint: 1, cluster: .basicInformation, attribute: nil)).isEmpty)
        #expect(model.expandRead(AttributePathIB(endpoint: nil, cluster: .onOff, attribute: 0x77)).isEmpty)
    }

    @Test func fullWildcardIsSortedAndComplete() {
        let all = concrete(model.expandRead(AttributePathIB()))
        let expectedCount = model.endpoints.values.flatMap { $0.clusters.values }.reduce(0) { $0 + $1.attributes.count }
        #expect(all.count == expectedCount)
        #expect(all == all.sorted())
    }

    @Test func wildcardClusterWithSpecificAttribute() {
        // Global attributes may be asked for across clusters; other IDs are meaningless there.
        let revisions = concrete(model.expandRead(AttributePathIB(endpoint: 1, cluster: nil, attribute: .clusterRevision)))
        #expect(revisions == [ConcreteAttributePath(1, .onOff, .clusterRevision), ConcreteAttributePath(1, .descriptor, .clusterRevision)].sorted())
        let bad = AttributePathIB(endpoint: 1, cluster: nil, attribute: 3)
        #expect(model.expandRead(bad) == [.status(bad, .invalidAction)])
    }

    @Test func readPathWithListIndexIsInvalid() {
        let p = AttributePathIB(endpoint: 0, cluster: .descriptor, attribute: 0, listIndex: .index(1))
        #expect(model.expandRead(p) == [.status(p, .invalidAction)])
    }

    @Test func writeAndCommandResolution() {
        #expect(model.resolveWrite(AttributePathIB(0, .basicInformation, 5), timed: false) == .concrete(ConcreteAttributePath(0, .basicInformation, 5)))
        let ro = AttributePathIB(0, .basicInformation, 1)
        #expect(model.resolveWrite(ro, timed: false) == .status(ro, .unsupportedWrite))
        let wild = AttributePathIB(endpoint: nil, cluster: .onOff, attribute: 0)
        #expect(model.resolveWrite(wild, timed: false) == .status(wild, .invalidAction))
        let ocw = CommandPathIB(0, .administratorCommissioning, 0)
        #expect(model.resolveCommand(ocw, timed: false) == .status(ocw, .needsTimedInteraction))
        #expect(model.resolveCommand(ocw, timed: true) == .concrete(ocw))
        let unknown = CommandPathIB(1, .onOff, 0x40)
        #expect(model.resolveCommand(unknown, timed: false) == .status(unknown, .unsupportedCommand))
        let noCluster = CommandPathIB(1, .basicInformation, 0)
        #expect(model.resolveCommand(noCluster, timed: false) == .status(noCluster, .unsupportedCluster))
        let noEndpoint = CommandPathIB(5, .onOff, 0)
        #expect(model.resolveCommand(noEndpoint, timed: false) == .status(noEndpoint, .unsupportedEndpoint))
    }
}
