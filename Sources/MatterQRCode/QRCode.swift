import CQREncode

/// A QR code made by libqrencode (error correction M, as Matter's onboarding codes use), drawn
/// as SVG (the dashboard) or as terminal text (the CLI), with the 4-module quiet zone phones
/// need to scan it.
public struct QRCode: Sendable {
    /// Modules per side, without the quiet zone.
    public let width: Int
    private let modules: [Bool]
    public static let quietZone = 4

    public struct EncodingError: Error, Sendable, CustomStringConvertible {
        public var description: String { "libqrencode could not encode the QR code" }
    }

    public init(_ text: String) throws(EncodingError) {
        // The Matter QR alphabet lies inside QR alphanumeric mode, which libqrencode picks by itself.
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { throw EncodingError() }
        defer { QRcode_free(code) }
        width = Int(code.pointee.width)
        modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 != 0 }
    }

    /// Whether the module at (x, y) is dark; coordinates include the quiet zone.
    public func isDark(_ x: Int, _ y: Int) -> Bool {
        let (mx, my) = (x - Self.quietZone, y - Self.quietZone)
        guard mx >= 0, my >= 0, mx < width, my < width else { return false }
        return modules[my * width + mx]
    }

    /// Modules per side with the quiet zone.
    public var size: Int { width + 2 * Self.quietZone }

    /// An SVG image, `pixels` wide, dark modules as one path of row runs on a white square.
    public func svg(pixels: Int = 200) -> String {
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x, y) else { x += 1; continue }
                var run = 1
                while isDark(x + run, y) { run += 1 }
                path += "M\(x) \(y)h\(run)v1h-\(run)z"
                x += run
            }
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(size) \(size)\" width=\"\(pixels)\" height=\"\(pixels)\" "
            + "shape-rendering=\"crispEdges\" role=\"img\"><rect width=\"\(size)\" height=\"\(size)\" fill=\"#fff\"/>"
            + "<path fill=\"#000\" d=\"\(path)\"/></svg>"
    }

    /// Terminal text: two modules per character row (Unicode half blocks). The light parts are
    /// printed as blocks so dark modules stay dark with either color scheme (as qrencode -t UTF8).
    public var terminalText: String {
        var lines: [String] = []
        var y = 0
        while y < size {
            var line = ""
            for x in 0..<size {
                switch (isDark(x, y), isDark(x, y + 1)) {
                case (false, false): line += "\u{2588}"
                case (false, true): line += "\u{2580}"
                case (true, false): line += "\u{2584}"
                case (true, true): line += " "
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }
}
