// swift-tools-version:6.0
// MatterHub: a Matter-over-IP commissioner and home hub for Linux.
import PackageDescription

/// Every Swift target is built in Swift 6 language mode. Warnings are errors too, but that flag
/// is passed by the build scripts (`scripts/test`, `scripts/demo`, `scripts/fuzz`:
/// `-Xswiftc -warnings-as-errors`), not here: SwiftPM refuses `unsafeFlags` in a package used as a
/// versioned dependency, and the library products are meant to be used that way.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "MatterHub",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "matterctl", targets: ["matterctl"]),
        .library(name: "MatterTLV", targets: ["MatterTLV"]),
        .library(name: "MatterSetupPayload", targets: ["MatterSetupPayload"]),
        .library(name: "MatterCrypto", targets: ["MatterCrypto"]),
        .library(name: "MatterCertificates", targets: ["MatterCertificates"]),
        .library(name: "MatterDiscovery", targets: ["MatterDiscovery"]),
        .library(name: "MatterClusters", targets: ["MatterClusters"]),
        .library(name: "MatterJSON", targets: ["MatterJSON"]),
        .library(name: "MatterQRCode", targets: ["MatterQRCode"]),
        .library(name: "MatterInteraction", targets: ["MatterInteraction"]),
        .library(name: "MatterNetworkCredentials", targets: ["MatterNetworkCredentials"]),
    ],
    targets: [
        // C shims: every line of C and every module map lives under CShims/.
        .systemLibrary(name: "CQREncode", path: "CShims/CQREncode", pkgConfig: "libqrencode",
                       providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CZlib", path: "CShims/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // OpenSSL 3 libcrypto behind C helpers for what Swift cannot call (macros, variadics,
        // OSSL_PARAM arrays). Only MatterCrypto imports it.
        .target(name: "COpenSSL", path: "CShims/COpenSSL", linkerSettings: [.linkedLibrary("crypto")]),

        // libcurl (OpenSSL flavour) for outbound HTTP(S): the DCL, CRLs, firmware. Only
        // MatterTrustStore imports it.
        .target(name: "CCurl", path: "CShims/CCurl", linkerSettings: [.linkedLibrary("curl")]),

        // recvmsg with IPV6_PKTINFO/IP_PKTINFO (the arrival interface of each datagram), setns.
        .target(name: "CNet", path: "CShims/CNet"),
        // glibc's allocator statistics and malloc_trim (<malloc.h>, not in the Glibc module).
        .target(name: "CAllocator", path: "CShims/CAllocator"),
        // libavahi-client behind a small C shim (threaded poll, browse/resolve/publish, reconnect).
        .target(name: "CAvahi", path: "CShims/CAvahi",
                linkerSettings: [.linkedLibrary("avahi-client"), .linkedLibrary("avahi-common")]),
        // SQLite 3 for the hub's persistent store. Only MatterHome imports it.
        .systemLibrary(name: "CSQLite", path: "CShims/CSQLite", providers: [.apt(["libsqlite3-dev"])]),

        // What the upper layers need from the platform beyond the standard library and
        // FoundationEssentials (stderr/stdin, threads, printf-style numbers, whitespace trimming),
        // so that no module links Foundation proper (ICU, FoundationNetworking).
        .target(name: "MatterPlatform", dependencies: ["CAllocator"], swiftSettings: strict),

        // Codecs: standard library only.
        .target(name: "MatterTLV", swiftSettings: strict),
        .target(name: "MatterSetupPayload", dependencies: ["MatterTLV"], swiftSettings: strict),
        // The cluster model generated from Codegen/clusters/model.json (Codegen/clusters/generate.py):
        // IDs, types, fields, enums and bitmaps of every cluster.
        .target(name: "MatterClusters", dependencies: ["MatterTLV"], swiftSettings: strict),
        .target(name: "MatterInteraction", dependencies: ["MatterTLV", "MatterClusters"], swiftSettings: strict),
        .target(name: "MatterCrypto", dependencies: ["COpenSSL"], swiftSettings: strict),
        // QR codes through libqrencode, drawn as SVG (the dashboard) or terminal text (the CLI).
        .target(name: "MatterQRCode", dependencies: ["CQREncode"], swiftSettings: strict),
        // Matter OTA Software Images: the header, and the checks a provider makes before offering one.
        .target(name: "MatterOTA", dependencies: ["MatterTLV", "MatterCrypto"], swiftSettings: strict),
        // Bulk Data Exchange (Matter Core 11.22): the messages and both roles of a receiver-driven transfer.
        .target(name: "MatterBDX", dependencies: ["MatterMessaging"], swiftSettings: strict),
        // JSON that keeps what the API needs exact (64-bit integers, member order): value, parser, writer.
        .target(name: "MatterJSON", swiftSettings: strict),
        // The Matter Server WebSocket API's wire types (envelopes, commands, events, values).
        .target(name: "MatterServerAPI", dependencies: ["MatterTLV", "MatterClusters", "MatterJSON"], swiftSettings: strict),
        // An RFC 6455 WebSocket server over POSIX sockets (sans-I/O handshake and frame codec).
        .target(name: "MatterWebSocket", dependencies: ["MatterCrypto", "MatterPlatform", "CNet"], swiftSettings: strict),
        .target(name: "MatterMessaging", dependencies: ["MatterTLV", "MatterCrypto", "CNet", "MatterPlatform"],
                swiftSettings: strict),
        // Where Interaction meets Messaging: the IM exchange over a messaging exchange, InteractionClient.over.
        .target(name: "MatterInteractionMessaging", dependencies: ["MatterInteraction", "MatterMessaging"], swiftSettings: strict),
        .target(name: "MatterSecureChannel", dependencies: ["MatterMessaging", "MatterCrypto", "MatterTLV", "MatterCertificates"],
                swiftSettings: strict),
        .target(name: "MatterCertificates", dependencies: ["MatterTLV", "MatterCrypto"], swiftSettings: strict),
        // Thread operational datasets and Wi-Fi credentials (a codec; MatterCrypto for SecretBytes).
        .target(name: "MatterNetworkCredentials", dependencies: ["MatterCrypto"], swiftSettings: strict),
        // The PAA trust store: compiled-in production roots, the state directory's trust-store/
        // folder, DCL updates and CRLs, and firmware from the DCL (HTTP through libcurl, CCurl).
        // FoundationEssentials; the DCL's JSON through MatterJSON.
        .target(name: "MatterTrustStore", dependencies: ["CCurl", "MatterCertificates", "MatterCrypto", "MatterJSON", "MatterPlatform", "MatterTLV"],
                swiftSettings: strict),
        // DNS-SD over the system's avahi-daemon; the only module that imports CAvahi.
        .target(name: "MatterDiscovery", dependencies: ["CAvahi", "MatterTLV"], swiftSettings: strict),

        .target(name: "MatterCommissioning",
                dependencies: ["MatterClusters", "MatterSetupPayload", "MatterDiscovery", "MatterMessaging", "MatterSecureChannel", "MatterInteraction",
                               "MatterInteractionMessaging", "MatterCertificates", "MatterCrypto", "MatterTLV",
                               "MatterNetworkCredentials"],
                swiftSettings: strict),

        // The public Home API and the hub's persistent store (SQLite + key files).
        .target(name: "MatterHome", dependencies: ["MatterClusters", "CSQLite", "MatterCrypto", "MatterCertificates", "MatterCommissioning",
                                                   "MatterDiscovery", "MatterInteraction", "MatterInteractionMessaging", "MatterMessaging",
                                                   "MatterNetworkCredentials", "CNet",
                                                   "MatterSecureChannel", "MatterSetupPayload", "MatterTLV", "MatterTrustStore",
                                                   "MatterServerAPI", "MatterWebSocket", "MatterPlatform"],
                swiftSettings: strict),
        // Moving a home between MatterHub and python-matter-server (import, export): reads and
        // writes the other server's storage, takes its fabric over into the store.
        .target(name: "MatterMigration", dependencies: ["MatterClusters", "MatterHome", "MatterServerAPI", "MatterCertificates", "MatterCrypto",
                                                        "MatterInteraction", "MatterTLV", "CZlib"],
                swiftSettings: strict),
        // Performs one store operation per run; the store tests spawn and SIGKILL it.
        .executableTarget(name: "matterhub-store-tool", dependencies: ["MatterHome"],
                          path: "Tests/StoreTool", swiftSettings: strict),
        // Exits while other threads are inside OpenSSL; ProcessExitTests runs it.
        .executableTarget(name: "matterhub-exit-probe", dependencies: ["MatterCrypto", "MatterPlatform"],
                          path: "Tests/ExitProbe", swiftSettings: strict),
        // The running hub: the node runtime (per node: CASE session, subscription, attribute
        // cache, availability) and, above it, the API server.
        .target(name: "MatterHubService",
                dependencies: ["MatterClusters", "MatterQRCode", "MatterServerAPI", "MatterWebSocket", "MatterHome", "MatterCommissioning", "MatterInteraction",
                               "MatterInteractionMessaging",
                               "MatterMessaging", "MatterSecureChannel", "MatterCertificates", "MatterDiscovery", "MatterTLV",
                               "MatterCrypto", "MatterNetworkCredentials", "MatterSetupPayload", "MatterPlatform", "MatterMigration",
                               "MatterOTA", "MatterBDX", "MatterTrustStore"],
                // The dashboard is compiled in (embedInCode: no resource bundle, whose generated
                // accessor would import Foundation and link ICU and libcurl).
                resources: ["index.html", "dashboard.css", "dashboard.js"].map { .embedInCode("Dashboard/" + $0) },
                swiftSettings: strict),
        // A strict virtual commissionee (PASE/CASE responders, clusters, fail-safe, ACL, adverts).
        .target(name: "MatterVirtualDevice",
                dependencies: ["MatterClusters", "MatterSetupPayload", "MatterDiscovery", "MatterMessaging", "MatterSecureChannel",
                               "MatterCertificates", "MatterCrypto", "MatterTLV", "MatterInteraction", "MatterInteractionMessaging",
                               "MatterNetworkCredentials", "MatterPlatform", "MatterBDX", "MatterOTA"],
                swiftSettings: strict),

        // The command-line tool.
        .executableTarget(name: "matterctl",
                          dependencies: ["MatterClusters", "MatterJSON", "MatterQRCode", "MatterServerAPI", "MatterTLV", "MatterSetupPayload", "MatterDiscovery",
                                         "MatterCommissioning", "MatterMessaging", "MatterCertificates", "MatterHome",
                                         "MatterVirtualDevice", "MatterHubService", "MatterNetworkCredentials", "MatterCrypto",
                                         "MatterTrustStore", "MatterPlatform", "MatterMigration", "MatterOTA", "MatterBDX"],
                          swiftSettings: strict),

        // libFuzzer targets (scripts/fuzz builds them with -DFUZZING); plain builds replay inputs.
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport", swiftSettings: strict),
        .executableTarget(name: "fuzz-tlv", dependencies: ["MatterTLV", "FuzzSupport"],
                          path: "Fuzz/TLVFuzz", swiftSettings: strict),
        .executableTarget(name: "fuzz-setup-payload", dependencies: ["MatterSetupPayload", "FuzzSupport"],
                          path: "Fuzz/SetupPayloadFuzz", swiftSettings: strict),
        .executableTarget(name: "fuzz-interaction", dependencies: ["MatterInteraction", "MatterClusters", "MatterTLV", "FuzzSupport"],
                          path: "Fuzz/IMFuzz", swiftSettings: strict),
        .executableTarget(name: "fuzz-crypto", dependencies: ["MatterCrypto", "FuzzSupport"],
                          path: "Fuzz/CryptoFuzz", swiftSettings: strict),
        .executableTarget(name: "fuzz-tlv-certificate", dependencies: ["MatterCertificates", "FuzzSupport"],
                          path: "Fuzz/TLVCertificateFuzz", swiftSettings: strict),
        .executableTarget(name: "fuzz-der-certificate", dependencies: ["MatterCertificates", "FuzzSupport"],
                          path: "Fuzz/DERCertificateFuzz", swiftSettings: strict),
        .executableTarget(name: "fuzz-attestation", dependencies: ["MatterCertificates", "FuzzSupport"],
                          path: "Fuzz/AttestationFuzz", swiftSettings: strict),
        .executableTarget(name: "fuzz-thread-dataset", dependencies: ["MatterNetworkCredentials", "FuzzSupport"],
                          path: "Fuzz/ThreadDatasetFuzz", swiftSettings: strict),
        .executableTarget(name: "fuzz-dnssd", dependencies: ["MatterDiscovery", "FuzzSupport"],
                          path: "Fuzz/DNSSDFuzz", swiftSettings: strict),

        .executableTarget(name: "fuzz-message", dependencies: ["MatterMessaging", "MatterSecureChannel", "MatterCrypto",
                                                               "FuzzSupport"],
                          path: "Fuzz/MessageFuzz", swiftSettings: strict),

        .executableTarget(name: "fuzz-websocket-frame", dependencies: ["MatterWebSocket", "FuzzSupport"],
                          path: "Fuzz/WebSocketFrameFuzz", swiftSettings: strict),
        .executableTarget(name: "fuzz-server-command", dependencies: ["MatterServerAPI", "MatterClusters", "MatterTLV", "FuzzSupport"],
                          path: "Fuzz/ServerCommandFuzz", swiftSettings: strict),
        // The C shims' parsing of peer-controlled bytes, called directly (FUZZ_SANITIZE=address).
        .executableTarget(name: "fuzz-avahi", dependencies: ["CAvahi", "MatterDiscovery", "FuzzSupport"],
                          path: "Fuzz/AvahiFuzz", swiftSettings: strict),
        .executableTarget(name: "fuzz-cnet", dependencies: ["CNet", "FuzzSupport"],
                          path: "Fuzz/CNetFuzz", swiftSettings: strict),

        // Tests (Swift Testing), one target per module.
        .testTarget(name: "MatterTLVTests", dependencies: ["MatterTLV", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterSetupPayloadTests",
                    dependencies: ["MatterSetupPayload", "MatterTLV", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterMessagingTests", dependencies: ["MatterMessaging", "MatterCrypto", "CNet", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterSecureChannelTests",
                    dependencies: ["MatterSecureChannel", "MatterMessaging", "MatterCrypto", "MatterTLV",
                                   "MatterCertificates", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterCryptoTests", dependencies: ["MatterCrypto", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterCertificatesTests",
                    dependencies: ["MatterCertificates", "MatterTLV", "MatterCrypto", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterTrustStoreTests",
                    dependencies: ["MatterTrustStore", "MatterCertificates", "MatterCrypto", "TestSupport", "CNet"],
                    swiftSettings: strict),
        .testTarget(name: "MatterDiscoveryTests", dependencies: ["MatterDiscovery", "CAvahi", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "InteropTests",
                    dependencies: ["TestSupport", "MatterMessaging", "MatterSecureChannel", "MatterCrypto", "MatterCertificates", "MatterTLV"],
                    swiftSettings: strict),
        .testTarget(name: "MatterJSONTests", dependencies: ["MatterJSON", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "MatterOTATests", dependencies: ["MatterOTA", "MatterTLV", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "MatterBDXTests", dependencies: ["MatterBDX", "MatterMessaging", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "MatterClustersTests", dependencies: ["MatterClusters", "MatterTLV", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterInteractionTests",
                    dependencies: ["MatterClusters", "MatterInteraction", "MatterTLV", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterMigrationTests",
                    dependencies: ["MatterMigration", "MatterHome", "MatterServerAPI", "MatterCertificates", "MatterCrypto",
                                   "MatterInteraction", "MatterTLV", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterHomeTests",
                    dependencies: ["MatterClusters", "MatterHome", "MatterCertificates", "MatterCrypto", "TestSupport", "MatterCommissioning",
                                   "MatterDiscovery", "MatterVirtualDevice", "MatterSetupPayload",
                                   "matterhub-store-tool", "MatterHubService", "CNet"],
                    swiftSettings: strict),
        .testTarget(name: "MatterVirtualDeviceTests",
                    dependencies: ["MatterClusters", "MatterVirtualDevice", "MatterInteraction", "MatterInteractionMessaging", "MatterMessaging",
                                   "MatterSecureChannel", "MatterCertificates", "MatterCrypto", "MatterTLV", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterCommissioningTests",
                    dependencies: ["MatterClusters", "MatterCommissioning", "MatterVirtualDevice", "MatterCertificates", "MatterCrypto",
                                   "MatterDiscovery", "MatterMessaging", "MatterSecureChannel", "MatterSetupPayload",
                                   "MatterNetworkCredentials", "MatterInteraction", "MatterInteractionMessaging", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterServerAPITests", dependencies: ["MatterClusters", "MatterServerAPI", "MatterTLV", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterWebSocketTests", dependencies: ["MatterWebSocket", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "MatterHubServiceTests",
                    dependencies: ["MatterClusters", "MatterHubService", "MatterHome", "MatterVirtualDevice", "MatterMessaging", "MatterCertificates",
                                   "MatterCommissioning", "MatterDiscovery", "MatterInteraction", "MatterTLV", "MatterServerAPI",
                                   "MatterWebSocket", "MatterSetupPayload", "MatterOTA", "MatterBDX", "MatterSecureChannel",
                                   "MatterInteractionMessaging", "MatterCrypto", "MatterTrustStore", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MatterNetworkCredentialsTests",
                    dependencies: ["MatterNetworkCredentials", "MatterCrypto", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "MatterPlatformTests", dependencies: ["MatterPlatform"], swiftSettings: strict),
        .testTarget(name: "MatterCtlTests", dependencies: ["TestSupport"], swiftSettings: strict),
        // Benchmarks: swift build -c release --product crypto-bench
        .executableTarget(name: "crypto-bench", dependencies: ["MatterCrypto", "MatterCertificates", "MatterTLV"],
                          path: "Benchmarks/CryptoBenchmark", swiftSettings: strict),
        .executableTarget(name: "handshake-bench",
                          dependencies: ["MatterMessaging", "MatterSecureChannel", "MatterCrypto", "MatterCertificates", "MatterTLV"],
                          path: "Benchmarks/HandshakeBenchmark", swiftSettings: strict),
        // Shared test helpers: vector loading, hex, seeded randomness, running matterctl.
        .target(name: "TestSupport", dependencies: ["MatterWebSocket", "CNet"], path: "Tests/TestSupport", swiftSettings: strict),
    ]
)
