import MatterCommissioning
import MatterTrustStore

extension CommissioningOptions {
    /// Strict attestation against the default trust store of a state directory: the production
    /// PAA roots built into MatterHub plus `<stateDirectory>/trust-store/` (PAAs and the DCL's CRLs).
    public static func defaultTrustStore(stateDirectory: String) throws(HomeError) -> CommissioningOptions {
        let store: TrustStore
        do { store = try TrustStore.load(stateDirectory: stateDirectory) } catch {
            throw HomeError(.trustStoreUnavailable, "cannot load the PAA trust store: \(error.message)", underlying: error)
        }
        var options = CommissioningOptions(trustStore: store.paaTrustStore)
        options.crls = store.crls
        return options
    }
}
