import WorkbenchCore
/// The two libCacheSim codes a policy can follow where they differ (`reference=`, issue 45
/// §1): the PyPI release 0.3.5's C code (the default, as the package in `.venv` runs it) and
/// the repository's at commit aa0fc40 (Oct 2024), as its `cachesim` runs it. Every policy
/// whose results print says which it followed in its options (`backend_options`), and
/// docs/policies.md lists each difference between the two codes.
enum LibCacheSimReference {
    static let release = "libcachesim-0.3.5"
    static let repository = "libcachesim-aa0fc40"
    /// The values `reference=` takes, the default first.
    static let names = [release, repository]

    /// The `reference` option's value (validated; the release when not given).
    static func of(_ options: PolicyOptions) throws -> String { try options.choice("reference", among: names) }
}
