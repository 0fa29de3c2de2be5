import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// libCacheSim's "bloomfilter" admission: a miss is stored only if its object missed
/// before. Despite the name it is an exact set of ids, never reset, not a Bloom filter: a
/// GHashTable keyed by `obj_id` (libCacheSim/cache/admission/bloomfilter.c,
/// `bloomfilter_admit`: first lookup inserts 1 and refuses, later ones admit). Only misses
/// reach it (`cache_can_insert_default`), so "seen" means "missed before".
///
/// Complexity: O(1) expected per question; memory one id per distinct missed object.
struct BloomFilterAdmission: Admissioner {
    private var seen = Set<UInt64>()

    mutating func admits(_ key: UInt64, cost: Int) -> Bool {
        !seen.insert(key).inserted
    }

    var settings: String { "bloomfilter" }
}
