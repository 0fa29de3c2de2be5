/// An iPhone or iPad class for `--device NAME`: its physical RAM, which RAM-relative
/// capacities (`--capacity ram:15%`) and the image libraries' own memory limits are shares
/// of, and its screen scale (pixels per point), which `--url-units points` multiplies URL
/// sizes by.
///
/// Sources. Apple does not publish iPhone RAM; each row cites a public spec page or the
/// Xcode-string report that gave its figure (the iPad Pro M4 is the exception: Apple's own
/// tech specs state its memory per storage size). RAM is the marketed size read as binary
/// gigabytes (4 GB = 4 × 2^30 bytes, as LPDDR parts are sized); the value a device reports
/// through `ProcessInfo.physicalMemory` may be a little below it (not measured here), so a
/// limit computed on the device can be a little smaller than the one computed here. Scales
/// are Apple's: Human Interface Guidelines, "Layout", "iOS, iPadOS device screen
/// dimensions" (developer.apple.com/design/human-interface-guidelines/layout), which lists
/// every device's scale factor (@2x, @3x).
public struct DeviceClass: Sendable, Equatable {
    /// The `--device` name.
    public let name: String
    /// The model(s) it stands for.
    public let model: String
    public let ramBytes: Int
    /// Pixels per point (2 or 3).
    public let scale: Int
    /// Where the RAM figure comes from.
    public let ramSource: String

    static let gib = 1 << 30
    /// Apple HIG's device screen dimensions table, every row's scale source.
    public static let scaleSource = "developer.apple.com/design/human-interface-guidelines/layout (iOS, iPadOS device screen dimensions)"

    public static let all: [DeviceClass] = [
        DeviceClass(name: "iphone-8", model: "iPhone 8 (2017)", ramBytes: 2 * gib, scale: 2, ramSource: "https://revendo.com/en/buy/k/iphone/iphone-8/ (2 GB; also EveryMac)"),
        DeviceClass(name: "iphone-se-2", model: "iPhone SE, 2nd generation (2020)", ramBytes: 3 * gib, scale: 2, ramSource: "https://www.iphonehacks.com/2020/04/2020-iphone-se-packs-3gb-ram-same-battery-capacity-iphone-8.html (3 GB, China Telecom listing)"),
        DeviceClass(name: "iphone-11", model: "iPhone 11 (2019)", ramBytes: 4 * gib, scale: 2, ramSource: "https://macdailynews.com/2019/09/23/iphone-11-teardown-reveals-apples-a13-bionic-chip-and-much-more/ (iFixit teardown: 4 GB SK Hynix LPDDR4X)"),
        DeviceClass(name: "iphone-13", model: "iPhone 13 and 13 mini (2021)", ramBytes: 4 * gib, scale: 3, ramSource: "https://www.macrumors.com/2021/09/15/how-much-ram-in-iphone-13/ (4 GB, from Xcode 13's device strings)"),
        DeviceClass(name: "iphone-15-pro", model: "iPhone 15 Pro and Pro Max (2023)", ramBytes: 8 * gib, scale: 3, ramSource: "https://mobilesyrup.com/2023/09/13/iphone-15-pro-8gb-ram-report/ (8 GB, from the Xcode 15 RC, after MacRumors)"),
        DeviceClass(name: "iphone-16-pro-max", model: "iPhone 16 Pro Max (2024)", ramBytes: 8 * gib, scale: 3, ramSource: "https://faxty.com/?p=2161 (8 GB, as the 15 Pro Max; a secondary source)"),
        DeviceClass(name: "ipad-pro-m4", model: "iPad Pro M4 (2024), 256 GB or 512 GB storage", ramBytes: 8 * gib, scale: 2, ramSource: "https://www.apple.com/ipad-pro/specs/ (Apple: 8GB RAM with 256GB or 512GB storage)"),
        DeviceClass(name: "ipad-pro-m4-1tb", model: "iPad Pro M4 (2024), 1 TB or 2 TB storage", ramBytes: 16 * gib, scale: 2, ramSource: "https://www.apple.com/ipad-pro/specs/ (Apple: 16GB RAM with 1TB or 2TB storage)"),
    ]

    /// The device called `name` (case-insensitive); an unknown name is an error listing
    /// the known ones. O(devices).
    public static func named(_ name: String) throws(WorkbenchError) -> DeviceClass {
        let wanted = name.trimmingSpaces.lowercased()
        guard let device = all.first(where: { $0.name == wanted }) else {
            throw WorkbenchError("--device \(ErrorText.quote(name)) is not a known device; known: \(all.map(\.name).joined(separator: ", ")) (bench list --devices)")
        }
        return device
    }

    /// `share` of the RAM in whole bytes (rounded), at least 1. O(1).
    public func bytes(share: Double) -> Int {
        max(1, Int((Double(ramBytes) * share).rounded()))
    }

    /// What `bench list --devices` prints: one row per device, then the sources.
    public static func catalogText() -> String {
        let nameWidth = all.map(\.name.count).max() ?? 0
        var text = "Devices (--device; capacities ram:P% are shares of RAM, URL sizes in points × scale with --url-units points):\n"
        for device in all {
            let name = device.name + String(repeating: " ", count: nameWidth - device.name.count)
            let ram = "\(ByteCount.format(device.ramBytes)) (\(device.ramBytes) bytes)"
            text += "  \(name)  RAM \(ram)  scale @\(device.scale)x  \(device.model)\n"
        }
        text += "Sources: RAM (Apple publishes none for iPhones):\n"
        for device in all { text += "  \(device.name): \(device.ramSource)\n" }
        text += "  Scale: \(scaleSource)\n"
        text += "RAM is the marketed size in binary units; ProcessInfo.physicalMemory on a device may report a little less.\n"
        return text
    }
}
