import MatterClusters
import MatterTLV

extension ClusterServer {
    /// Where the server's declarations disagree with the generated model of its cluster (the
    /// CHIP SDK's cluster objects): an attribute, command, response or event the cluster does not
    /// have, a mandatory attribute left out, writable or timed sets not the spec's. Empty: none.
    /// matter.js checks its behaviours against the model the same way.
    public func disagreementsWithModel() -> [String] {
        guard let model = Clusters.cluster(id: id.rawValue) else { return ["cluster \(id) is not in the model"] }
        var problems: [String] = []
        let declared = Set(attributes)
        for a in attributes where model.attribute(id: a.rawValue) == nil { problems.append("attribute \(a) is not \(model.name)'s") }
        for a in model.attributes where !a.isOptional && !isGlobalAttribute(a.id) && !declared.contains(a.id) {
            problems.append("mandatory attribute \(a.name) (\(a.id)) is missing")
        }
        let writable = Set(model.attributes.filter { $0.isWritable && declared.contains($0.id) }.map(\.id))
        if Set(writableAttributes) != writable {
            problems.append("writable \(writableAttributes.sorted()), but \(model.name) has \(writable.sorted())")
        }
        for c in acceptedCommands where model.command(id: c.rawValue) == nil { problems.append("command \(c) is not \(model.name)'s") }
        for c in generatedCommands where !model.responses.contains(where: { $0.id == c.rawValue }) {
            problems.append("response \(c) is not \(model.name)'s")
        }
        let timed = Set(acceptedCommands.filter { model.command(id: $0.rawValue)?.requiresTimedInvoke == true })
        if Set(timedCommands) != timed { problems.append("timed \(timedCommands.sorted()), but \(model.name) has \(timed.sorted())") }
        for e in events where model.event(id: e.rawValue) == nil { problems.append("event \(e) is not \(model.name)'s") }
        return problems
    }
}
