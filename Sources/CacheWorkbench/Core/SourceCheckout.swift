import Foundation

/// The checkout this binary was built from (found from this file's compile-time path),
/// for the bundled trace and the git revision. Nil-safe: a moved binary just won't find it.
package enum SourceCheckout {
    package static var root: URL {
        URL(fileURLWithPath: #filePath)  // Sources/CacheWorkbench/Core/SourceCheckout.swift
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }
}
