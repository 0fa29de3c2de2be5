import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// libCacheSim's size admission: a miss is stored when its size is strictly below the
/// threshold (libCacheSim/cache/admission/size.c, `size_admit`: `obj_size < size_threshold`).
/// Under `--ignore-obj-size` every object is 1.
///
/// Complexity: O(1) per question.
struct SizeAdmission: Admissioner {
    let threshold: Int

    func admits(_ key: UInt64, cost: Int) -> Bool { cost < threshold }

    var settings: String { "size:\(threshold)" }
}
