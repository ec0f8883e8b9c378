import MatterHome
import Testing

/// `HomeError` codes say what happened, the same in both modes (a hub carries them across).
@Suite(.serialized) struct HomeErrorTests {
    @Test(arguments: HomeMode.allCases)
    func aDuplicateRoomNameIsNamedAsSuch(_ mode: HomeMode) async throws {
        try await HomeAPITests.withHome(mode, discriminator: nil) { fixture, _ in
            let structure = try #require(try await fixture.home.structures().first)
            _ = try await structure.addRoom(name: "Kitchen")
            do throws(HomeError) {
                _ = try await structure.addRoom(name: "kitchen")
                Issue.record("a second room named kitchen was added")
            } catch {
                #expect(error.code == .duplicateName, "\(error)")
                #expect(error.message == "cannot add room 'kitchen': store: a room named \"kitchen\" already exists. Choose another name.")
                if mode == .embedded {
                    // The store's error stays underneath, with its code and remedy.
                    let store = try #require(error.underlyingError as? StoreError)
                    #expect(store.code == "duplicate_name")
                }
            }
        }
    }

    @Test(arguments: HomeMode.allCases)
    func anInvalidRoomNameIsNamedAsSuch(_ mode: HomeMode) async throws {
        try await HomeAPITests.withHome(mode, discriminator: nil) { fixture, _ in
            let structure = try #require(try await fixture.home.structures().first)
            do throws(HomeError) {
                _ = try await structure.addRoom(name: "   ")
                Issue.record("a blank room name was accepted")
            } catch {
                #expect(error.code == .invalidName, "\(error)")
                #expect(error.message.hasPrefix("cannot add room '   ': store: "), "\(error)")
                #expect(error.message.hasSuffix("Use a name of 1 to 128 characters that is not only spaces."), "\(error)")
            }
        }
    }

    /// Mapping each store failure to a code: a read-only store is not a duplicate, and so on.
    @Test(arguments: [
        (StoreError.readOnly(path: "/s"), HomeError.Code.storeNotWritable),
        (.sqlite(code: 8, message: "attempt to write a readonly database", operation: "insert"), .storeNotWritable),
        (.sqlite(code: 5, message: "database is locked", operation: "insert"), .storeFailed),
        (.duplicateName(kind: "room", name: "Kitchen"), .duplicateName),
        (.invalidName(kind: "room", name: ""), .invalidName),
        (.notFound(kind: .room, id: "3"), .roomNotFound),
        (.notFound(kind: .structure, id: "3"), .structureNotFound),
        (.notFound(kind: .node, id: "3"), .deviceNotFound),
        (.notFound(kind: .pendingNode, id: "3"), .storeFailed),
        (.corruptFabric("the root key is missing"), .fabricUnusable),
        (.invalidNetworkCredentials("the network key is 15 bytes"), .invalidNetworkCredentials),
        (.commissioningSessionNotActive(id: 4), .noCommissioningSession),
        (.schemaTooNew(found: 9, supported: 2), .storeFailed),
    ])
    func storeFailuresKeepTheirMeaning(_ store: StoreError, _ code: HomeError.Code) {
        let error = HomeError("cannot do it", store: store)
        #expect(error.code == code)
        #expect(error.message == "cannot do it: \(store.description). \(store.recoverySuggestion)")
        #expect(error.underlyingError as? StoreError == store)
    }
}
