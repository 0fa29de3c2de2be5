import WorkbenchCore
/// The note for the policies whose libCacheSim code follows a hit's new size where the
/// workbench keeps the size an object was stored with: `lhd` rates the hit at its new size
/// (both references), aa0fc40's `arcv0` and `slruv0` re-insert a promoted object with the
/// request's size (ARCv0.c:261–262, SLRUv0.c:190–200). On the AdaptSize recording (4,876
/// such requests) 8 of their 9 cells differ from aa0fc40's; with every key at its first
/// size all 9 are exact (docs/policies-cachesim-rest.md).
enum ObjectSizeChangeNote {
    static let policies: Set<String> = ["lhd", "arcv0", "slruv0"]

    /// The note for `names` (in `policies`) on a trace with `changes` such requests; nil when
    /// there are none.
    static func line(_ names: [String], changes: Int) -> String? {
        guard changes > 0 else { return nil }
        let listed = Array(Set(names)).sorted()
        let how = listed.map { $0 == "lhd" ? "lhd rates the hit at it" : "\($0) re-inserts the object at it" }
        return "\(listed.joined(separator: ", ")): \(changes) requests change their key's size; libCacheSim's code takes a hit's new size there (\(how.joined(separator: ", "))) where the workbench keeps the size it stored, so these rows can differ from libCacheSim's"
    }
}
