import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// How each replay of a recording agreed with the app (`AppAgreement`), as text under the
/// table and as the `--disagreements` CSV: one line per run ("app recorded 61.67% memory
/// hits; lru agrees on 58 of 60 requests"), then the first disagreements by request.
///
/// Complexity: O(rows + disagreements listed).
public enum AgreementReport {
    /// Disagreements listed per run in the text output; all of them go to `--disagreements`.
    public static let listedInText = 10

    /// The text block: empty when no run was compared; one line saying why when runs of a
    /// recording were but none of its lookups says where the app served it.
    public static func text(_ results: [RunResult]) -> String {
        var text = ""
        let uncheckable = results.filter { $0.tally.agreement?.compared == 0 }
        if !uncheckable.isEmpty && !results.contains(where: { ($0.tally.agreement?.compared ?? 0) > 0 }) {
            return "no row is checked against the app: none of the recording's counted image lookups says where the app served it (source unknown or absent, as in a recording converted from a HAR)\n"
        }
        for result in results {
            guard let agreement = result.tally.agreement, agreement.compared > 0 else { continue }
            text += "\(TableReport.rowLabel(result)): " + summary(agreement, backend: result.backendLabel) + "\n"
            for disagreement in agreement.disagreements.prefix(listedInText) {
                text += "  request \(disagreement.request) \(disagreement.key): app \(disagreement.app.rawValue), model \(disagreement.model.rawValue): \(disagreement.reason)\n"
            }
            let more = agreement.disagreements.count - listedInText
            if more > 0 { text += "  … and \(more) more (--disagreements FILE.csv lists them all)\n" }
        }
        return text
    }

    /// "app recorded 61.67% memory hits; lru agrees on 58 of 60 requests", with the app's
    /// disk share for a two-tier model.
    public static func summary(_ agreement: AppAgreement, backend: String) -> String {
        var text = "app recorded \(TableReport.percent(agreement.appHitRatio)) memory hits"
        if agreement.twoTier {
            text += " and \(TableReport.percent(Double(agreement.appDisk) / Double(agreement.compared))) disk hits"
        }
        return text + "; \(backend) agrees on \(agreement.agreeing) of \(agreement.compared) requests"
            + (agreement.twoTier ? " (memory, disk or network)" : " (a memory hit or not)")
    }

    static let columns = ["run_id", "backend", "capacity_bytes", "request", "key", "app", "model", "reason"]

    /// Every disagreement of every run, one CSV row each.
    public static func csv(_ results: [RunResult]) -> String {
        var text = columns.joined(separator: ",") + "\n"
        for result in results {
            for d in result.tally.agreement?.disagreements ?? [] {
                let cells = [result.runID, result.backendLabel, String(result.capacityBytes), String(d.request), d.key, d.app.rawValue, d.model.rawValue, d.reason]
                text += cells.map(CSVReport.escape).joined(separator: ",") + "\n"
            }
        }
        return text
    }
}
