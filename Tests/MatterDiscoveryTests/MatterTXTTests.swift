import Testing
@testable import MatterDiscovery

@Suite struct MatterTXTTests {
    @Test func readsEveryKey() {
        let t = MatterTXT(TXTRecord([
            "D": "3840", "VP": "65521+32768", "CM": "2", "DT": "257", "DN": "Kitchen light", "RI": "0A0b",
            "PH": "33", "PI": "Press the button", "SII": "5000", "SAI": "300", "SAT": "4000", "T": "6",
            "ICD": "1", "JF": "3",
        ]))
        #expect(t.issues.isEmpty)
        #expect(t.discriminator == 3840 && t.shortDiscriminator == 15)
        #expect(t.vendorID == 65521 && t.productID == 32768)
        #expect(t.commissioningMode == 2 && t.deviceType == 257 && t.deviceName == "Kitchen light")
        #expect(t.rotatingID == [0x0A, 0x0B] && t.pairingHint == 33 && t.pairingInstruction == "Press the button")
        #expect(t.sessionIdleInterval == 5000 && t.sessionActiveInterval == 300 && t.sessionActiveThreshold == 4000)
        #expect(t.tcpSupport == 6 && t.icdOperatingMode == 1 && t.jointFabric == 3)
    }

    @Test func olderCRIAndCRAKeys() {
        let t = MatterTXT(TXTRecord(["CRI": "3000", "CRA": "4000", "VP": "65524"]))
        #expect(t.sessionIdleInterval == 3000 && t.sessionActiveInterval == 4000)
        #expect(t.vendorID == 65524 && t.productID == nil)
    }

    /// Each malformed value is reported under its key, typed as nil, and kept in the record.
    @Test(arguments: [
        ("D", "4096"), ("D", "-1"), ("D", "+12"), ("D", "12a"), ("D", ""), ("VP", "65536"), ("VP", "1+"),
        ("VP", "1+2+3"), ("VP", "+2"), ("CM", "4"), ("DT", "4294967296"), ("RI", "0G"), ("RI", "123"),
        ("SII", "3600001"), ("SAI", "99999999999"), ("SAT", "65536"), ("ICD", "2"), ("DN", String(repeating: "x", count: 33)),
    ])
    func malformedValueIsReportedAndKept(key: String, value: String) {
        let record = TXTRecord([key: value, "PH": "1"])
        let t = MatterTXT(record)
        #expect(t.issues.map(\.key) == [key])
        #expect(t.pairingHint == 1, "the rest of the entry is still read")
        #expect(record[key] == Array(value.utf8))
    }

    @Test func recordRoundTrip() {
        var t = MatterTXT()
        t.discriminator = 3840
        t.vendorID = 65521
        t.productID = 32768
        t.commissioningMode = 1
        t.sessionIdleInterval = 5000
        t.rotatingID = [1, 2, 255]
        #expect(MatterTXT(t.record) == t)
        #expect(t.record["VP"] == Array("65521+32768".utf8))
    }

    @Test func commissionableAdvertSubtypes() throws {
        var t = MatterTXT()
        t.discriminator = 3840
        t.vendorID = 65521
        t.deviceType = 257
        t.commissioningMode = 1
        let advert = CommissionableAdvert(instanceName: "0D2A5F0B1C2D3E4F", txt: t)
        #expect(try advert.subtypes() == ["_L3840", "_S15", "_V65521", "_T257", "_CM"])
        t.commissioningMode = 0
        #expect(try CommissionableAdvert(instanceName: "X", txt: t).subtypes().contains("_CM") == false)
    }
}

@Suite struct MeshcopTXTTests {
    @Test func readsBinaryValuesAndDecodesTheStateBitmap() {
        var r = TXTRecord()
        r.set("rv", "1")
        r.set("nn", "OpenThread-1a2b")
        r.set("xp", [0xDE, 0xAD, 0x00, 0xBE, 0xEF, 0x00, 0xCA, 0xFE])
        r.set("tv", "1.3.0")
        // connection mode 1, interface active (2), availability high (1), BBR active, role leader (3), ePSKc
        r.set("sb", [0x00, 0x00, 0x0E, 0xB1])
        r.set("at", [0, 0, 0, 0, 0, 1, 0, 0])
        r.set("pt", [0x12, 0x34, 0x56, 0x78])
        r.set("bb", [0x4D, 0x02])
        r.set("sq", [7])
        r.set("xa", [1, 2, 3, 4, 5, 6, 7, 8])
        r.set("id", Array(0..<16))
        r.set("dn", "DefaultDomain")
        r.set("vn", "Acme")
        r.set("mn", "BR1")
        r.set("omr", [64, 0xFD, 0, 0, 0, 0, 0, 0, 1])
        r.set("zz", [0xFF])
        let t = MeshcopTXT(r)
        #expect(t.issues.isEmpty)
        #expect(t.networkName == "OpenThread-1a2b" && t.threadVersion == "1.3.0" && t.recordVersion == "1")
        #expect(t.extendedPANID == [0xDE, 0xAD, 0x00, 0xBE, 0xEF, 0x00, 0xCA, 0xFE])
        let sb = try! #require(t.stateBitmap)
        #expect(sb.rawValue == 0x0EB1)
        #expect(sb.connectionMode == 1 && sb.threadInterfaceStatus == 2 && sb.availability == 1)
        #expect(sb.isBackboneRouterActive && !sb.isBackboneRouterPrimary && sb.threadRole == 3 && sb.isEPSKcSupported)
        #expect(t.activeTimestamp == 0x10000 && t.partitionID == 0x1234_5678 && t.backbonePort == 19714)
        #expect(t.backboneSequence == 7 && t.extendedAddress == [1, 2, 3, 4, 5, 6, 7, 8] && t.borderAgentID == Array(0..<16))
        #expect(t.domainName == "DefaultDomain" && t.vendorName == "Acme" && t.modelName == "BR1")
        #expect(t.omrPrefix?.first == 64)
        #expect(r["zz"] == [0xFF], "unknown keys stay as bytes")
    }

    @Test(arguments: ["xp", "sb", "at", "pt", "bb", "xa", "id", "omr", "nn"])
    func wrongLengthIsReported(key: String) {
        var r = TXTRecord()
        r.set(key, Array(repeating: 0x41, count: 17))
        r.set("tv", "1.3.0")
        let t = MeshcopTXT(r)
        #expect(t.issues.map(\.key) == [key])
        #expect(t.threadVersion == "1.3.0")
    }
}
